//! The file as written: a serde mirror of the tournament file, with the spans errors point
//! at. Unknown keys are refused here (`deny_unknown_fields`); what a value may be is
//! [`super::validate`]'s.

use super::Format;
use crate::stats::verdict::FailOn;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use std::fmt;
use toml::Spanned;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFile {
    pub(super) tournament: Spanned<RawTournament>,
    pub(super) time: Spanned<RawTime>,
    pub(super) openings: Spanned<RawOpenings>,
    pub(super) engine: Option<Spanned<Vec<Spanned<RawEngine>>>>,
    pub(super) sprt: Option<Spanned<RawSprt>>,
    pub(super) tune: Option<Spanned<RawTune>>,
    pub(super) adjudication: Option<Spanned<RawAdjudication>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawAdjudication {
    pub(super) exact_at_empties: Spanned<u32>,
    pub(super) solver: Option<Spanned<String>>,
    pub(super) solver_options: Option<RawOptions>,
    pub(super) solve_timeout: Option<Spanned<f64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawSprt {
    pub(super) elo0: Spanned<f64>,
    pub(super) elo1: Spanned<f64>,
    pub(super) alpha: Option<Spanned<f64>>,
    pub(super) beta: Option<Spanned<f64>>,
    pub(super) model: Option<Spanned<crate::stats::sprt::Model>>,
    pub(super) unit: Option<Spanned<crate::stats::sprt::Unit>>,
    pub(super) fail_on_crash: Option<bool>,
    pub(super) fail_on_forfeit: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawTournament {
    pub(super) format: Spanned<Format>,
    /// Required unless the file has a `[tune]` table (a tune's pairs are its iterations).
    pub(super) pairs: Option<Spanned<u32>>,
    pub(super) concurrency: Option<Spanned<usize>>,
    pub(super) affinity: Option<bool>,
    pub(super) out: Option<Spanned<String>>,
    pub(super) stop_file: Option<Spanned<String>>,
    pub(super) sandbox: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawTime {
    pub(super) base: Option<Spanned<f64>>,
    pub(super) increment: Option<Spanned<f64>>,
    pub(super) move_time: Option<Spanned<f64>>,
    pub(super) depth: Option<Spanned<u32>>,
    pub(super) nodes: Option<Spanned<u64>>,
    pub(super) margin: Option<Spanned<f64>>,
    pub(super) stall_timeout: Option<Spanned<f64>>,
    /// `[time]` only (see [`super::nps_scaling`]).
    pub(super) nps_reference: Option<Spanned<u64>>,
    pub(super) nps_engine: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum RawOrder {
    Sequential,
    Shuffled,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawOpenings {
    pub(super) file: Option<Spanned<String>>,
    pub(super) builtin: Option<Spanned<String>>,
    pub(super) order: Option<Spanned<RawOrder>>,
    pub(super) seed: Option<Spanned<u64>>,
    pub(super) start: Option<Spanned<usize>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawEngine {
    pub(super) name: Spanned<String>,
    pub(super) plugin: Spanned<String>,
    pub(super) options: Option<RawOptions>,
    pub(super) fail_on: Option<FailOn>,
    /// Bytes (an integer) or a size with a unit (text).
    pub(super) memory_limit: Option<Spanned<toml::Value>>,
    pub(super) time: Option<Spanned<RawTime>>,
    pub(super) bench: Option<Spanned<u64>>,
    pub(super) build: Option<RawBuild>,
    pub(super) sandbox: Option<Spanned<String>>,
    pub(super) sandbox_read: Option<Spanned<Vec<String>>>,
    pub(super) sandbox_write: Option<Spanned<Vec<String>>>,
    pub(super) sandbox_env: Option<Spanned<Vec<String>>>,
    /// Bytes (an integer) or a size with a unit (text).
    pub(super) disk_limit: Option<Spanned<toml::Value>>,
    /// Bytes (an integer) or a size with a unit (text).
    pub(super) log_limit: Option<Spanned<toml::Value>>,
    pub(super) ponder: Option<bool>,
    pub(super) threads: Option<Spanned<i64>>,
}

/// An engine's `build` table: which commit of which repository the plugin was built from.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBuild {
    pub(super) commit: Option<String>,
    #[serde(rename = "ref")]
    pub(super) git_ref: Option<String>,
    pub(super) date: Option<String>,
    pub(super) label: Option<String>,
}

/// Engine options in file order.
pub(super) struct RawOptions(pub(super) Vec<(Spanned<String>, Spanned<toml::Value>)>);

impl<'de> Deserialize<'de> for RawOptions {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RawOptions, D::Error> {
        struct OptionsVisitor;
        impl<'de> Visitor<'de> for OptionsVisitor {
            type Value = RawOptions;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a table of engine options")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawOptions, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<Spanned<String>, Spanned<toml::Value>>()? {
                    entries.push(entry);
                }
                // The TOML map may come sorted by key; the spans give back the file order.
                entries.sort_by_key(|(key, _)| key.span().start);
                Ok(RawOptions(entries))
            }
        }
        deserializer.deserialize_map(OptionsVisitor)
    }
}

/// `[tune]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTune {
    pub(super) engine: Spanned<String>,
    pub(super) opponent: Option<Spanned<String>>,
    pub(super) iterations: Spanned<toml::Value>,
    pub(super) seed: Option<Spanned<toml::Value>>,
    #[serde(rename = "A")]
    pub(super) big_a: Option<Spanned<toml::Value>>,
    pub(super) alpha: Option<Spanned<toml::Value>>,
    pub(super) gamma: Option<Spanned<toml::Value>>,
    /// `[tune.params]`: one inline table per option, in file order.
    pub(super) params: Option<Spanned<RawOptions>>,
}
