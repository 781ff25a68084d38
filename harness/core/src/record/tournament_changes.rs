//! What differs between two [`TournamentRecord`]s, in words, as a refused resume tells it:
//! `pairs 4 → 6`, `time depth 2 → depth 3`, `engines[1].options [[Depth, 2]] → [[Depth, 3]]`,
//! `engines[0].plugin /a/liba.so → /b/libb.so (another plugin)`. Each field is compared as its
//! type and worded by it; nothing is shown as JSON but a key of a newer version, which this
//! version has no words for.

use super::tournament_record::{
    AdjudicationRecord, EngineRecord, EngineTime, NpsReference, OpeningsRecord, PluginRecord,
    SandboxRecord, SprtRecord, TournamentRecord, TuneRecord,
};
use serde_json::{Map, Value};

/// The differences from `a` to `b`, field by field in the record's order. Both are compared
/// as they are: a caller compares essences ([`TournamentRecord::essence`]) to leave out what
/// does not decide the games.
pub fn changes(a: &TournamentRecord, b: &TournamentRecord) -> Vec<String> {
    let mut c = Changes::default();
    c.field("format", &a.format, &b.format, String::clone);
    c.field("pairs", &a.pairs, &b.pairs, u64::to_string);
    c.field("time", &a.time, &b.time, String::clone);
    c.field("margin_ms", &a.margin_ms, &b.margin_ms, u64::to_string);
    c.field(
        "stall_timeout_ms",
        &a.stall_timeout_ms,
        &b.stall_timeout_ms,
        u64::to_string,
    );
    c.field("margin_rule", &a.margin_rule, &b.margin_rule, |r| {
        optional(r, String::clone)
    });
    openings(&mut c, &a.openings, &b.openings);
    engines(&mut c, &a.engines, &b.engines);
    c.nested("sprt", &a.sprt, &b.sprt, sprt_words, sprt);
    c.nested(
        "adjudication",
        &a.adjudication,
        &b.adjudication,
        adjudication_words,
        adjudication,
    );
    c.field("nps_reference", &a.nps_reference, &b.nps_reference, |n| {
        optional(n, nps_words)
    });
    c.field(
        "shard.index",
        &a.shard.map(|s| s.index),
        &b.shard.map(|s| s.index),
        |i| optional(i, usize::to_string),
    );
    c.field(
        "shard.count",
        &a.shard.map(|s| s.count),
        &b.shard.map(|s| s.count),
        |n| optional(n, usize::to_string),
    );
    c.nested("tune", &a.tune, &b.tune, tune_words, tune);
    c.newer_keys("", &a.other, &b.other);
    c.out
}

/// The changes found so far, each a line.
#[derive(Default)]
struct Changes {
    out: Vec<String>,
}

impl Changes {
    /// `PATH BEFORE → AFTER` where the values differ.
    fn field<T: PartialEq>(&mut self, path: &str, a: &T, b: &T, words: impl Fn(&T) -> String) {
        if a != b {
            self.out.push(format!("{path} {} → {}", words(a), words(b)));
        }
    }

    /// An optional table: compared part by part (`within`) where both have one, whole
    /// (`words`, `none` for an absent one) where one has none.
    fn nested<T: PartialEq>(
        &mut self,
        path: &str,
        a: &Option<T>,
        b: &Option<T>,
        words: impl Fn(&T) -> String,
        within: impl Fn(&mut Changes, &str, &T, &T),
    ) {
        match (a, b) {
            (Some(x), Some(y)) => within(self, path, x, y),
            _ => self.field(path, a, b, |v| optional(v, &words)),
        }
    }

    /// A plugin and its digest: one named otherwise is another plugin (its digest going
    /// without saying), the same one with another digest a rebuilt one (`rebuilt` says so).
    fn plugin(
        &mut self,
        (path, digest_path): (&str, &str),
        (a, a_digest): (&PluginRecord, &String),
        (b, b_digest): (&PluginRecord, &String),
        rebuilt: &str,
    ) {
        if a != b {
            self.out.push(format!("{path} {a} → {b} (another plugin)"));
        } else if a_digest != b_digest {
            self.out
                .push(format!("{digest_path} {a_digest} → {b_digest} ({rebuilt})"));
        }
    }

    /// The keys of a newer version that differ (this version has no words for their values).
    fn newer_keys(&mut self, path: &str, a: &Map<String, Value>, b: &Map<String, Value>) {
        let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
        for key in keys {
            if a.get(key) != b.get(key) {
                let at = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                self.out
                    .push(format!("{at} differs (a key of a newer harness)"));
            }
        }
    }
}

/// `none`, or the value in words.
fn optional<T>(value: &Option<T>, words: impl Fn(&T) -> String) -> String {
    value.as_ref().map_or_else(|| "none".to_string(), words)
}

/// A list of texts as `[a, b]`.
fn list(items: &[String]) -> String {
    format!("[{}]", items.join(", "))
}

/// Options as `[[KEY, VALUE], …]`.
fn options_words(options: &[(String, String)]) -> String {
    let pairs: Vec<String> = options.iter().map(|(k, v)| format!("[{k}, {v}]")).collect();
    list(&pairs)
}

fn openings(c: &mut Changes, a: &OpeningsRecord, b: &OpeningsRecord) {
    c.field("openings.source", &a.source, &b.source, ToString::to_string);
    c.field("openings.order", &a.order, &b.order, ToString::to_string);
    c.field("openings.start", &a.start, &b.start, u64::to_string);
    c.field("openings.count", &a.count, &b.count, u64::to_string);
    c.field("openings.fnv1a", &a.fnv1a, &b.fnv1a, String::clone);
    c.newer_keys("openings", &a.other, &b.other);
}

fn sprt_words(s: &SprtRecord) -> String {
    let p = &s.params;
    format!(
        "elo0 {}, elo1 {}, alpha {}, beta {}, model {}, unit {}, fail_on_crash {}, fail_on_forfeit {}",
        p.elo0,
        p.elo1,
        p.alpha,
        p.beta,
        p.model.as_str(),
        p.unit.as_str(),
        s.fail_on_crash,
        s.fail_on_forfeit
    )
}

fn sprt(c: &mut Changes, path: &str, a: &SprtRecord, b: &SprtRecord) {
    let (p, q) = (&a.params, &b.params);
    let number = |x: &f64| x.to_string();
    c.field(&format!("{path}.params.elo0"), &p.elo0, &q.elo0, number);
    c.field(&format!("{path}.params.elo1"), &p.elo1, &q.elo1, number);
    c.field(&format!("{path}.params.alpha"), &p.alpha, &q.alpha, number);
    c.field(&format!("{path}.params.beta"), &p.beta, &q.beta, number);
    c.field(&format!("{path}.params.model"), &p.model, &q.model, |m| {
        m.as_str().into()
    });
    c.field(&format!("{path}.params.unit"), &p.unit, &q.unit, |u| {
        u.as_str().into()
    });
    let flag = |x: &bool| x.to_string();
    c.field(
        &format!("{path}.fail_on_crash"),
        &a.fail_on_crash,
        &b.fail_on_crash,
        flag,
    );
    c.field(
        &format!("{path}.fail_on_forfeit"),
        &a.fail_on_forfeit,
        &b.fail_on_forfeit,
        flag,
    );
}

fn engines(c: &mut Changes, a: &[EngineRecord], b: &[EngineRecord]) {
    if a.len() != b.len() {
        let names =
            |e: &[EngineRecord]| list(&e.iter().map(|e| e.name.clone()).collect::<Vec<_>>());
        c.out.push(format!("engines {} → {}", names(a), names(b)));
        return;
    }
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        engine(c, &format!("engines[{i}]"), x, y);
    }
}

fn engine(c: &mut Changes, path: &str, a: &EngineRecord, b: &EngineRecord) {
    let at = |key: &str| format!("{path}.{key}");
    c.field(&at("name"), &a.name, &b.name, String::clone);
    c.plugin(
        (&at("plugin"), &at("plugin_fnv1a")),
        (&a.plugin, &a.plugin_fnv1a),
        (&b.plugin, &b.plugin_fnv1a),
        "the plugin file changed: a rebuilt engine is another engine",
    );
    c.field(&at("options"), &a.options, &b.options, |o| options_words(o));
    c.nested(
        &at("sandbox"),
        &a.sandbox,
        &b.sandbox,
        sandbox_words,
        sandbox,
    );
    c.field(&at("memory_limit"), &a.memory_limit, &b.memory_limit, |m| {
        optional(m, |bytes| format!("{bytes} bytes"))
    });
    c.field(&at("bench"), &a.bench, &b.bench, |n| {
        optional(n, u64::to_string)
    });
    c.field(&at("build"), &a.build, &b.build, |build| {
        optional(build, |b| {
            let parts: Vec<String> = [
                ("commit", &b.commit),
                ("ref", &b.git_ref),
                ("date", &b.date),
                ("label", &b.label),
            ]
            .into_iter()
            .filter_map(|(key, value)| value.as_ref().map(|v| format!("{key} {v}")))
            .collect();
            parts.join(", ")
        })
    });
    c.field(&at("time"), &a.time, &b.time, |t| {
        optional(t, engine_time_words)
    });
    let files: std::collections::BTreeSet<&String> = a
        .command_fnv1a
        .keys()
        .chain(b.command_fnv1a.keys())
        .collect();
    for file in files {
        let (before, after) = (a.command_fnv1a.get(file), b.command_fnv1a.get(file));
        if before != after {
            let digest = |d: Option<&String>| d.map_or("none".to_string(), String::clone);
            c.out.push(format!(
                "{} {file} {} → {} (a file its options name changed)",
                at("command_fnv1a"),
                digest(before),
                digest(after)
            ));
        }
    }
    c.field(&at("ponder"), &a.ponder, &b.ponder, bool::to_string);
    c.field(&at("threads"), &a.threads, &b.threads, |n| {
        optional(n, u32::to_string)
    });
    c.newer_keys(path, &a.other, &b.other);
}

fn engine_time_words(t: &EngineTime) -> String {
    format!(
        "{} (margin {} ms, stall {} ms)",
        t.control, t.margin_ms, t.stall_timeout_ms
    )
}

fn sandbox_words(s: &SandboxRecord) -> String {
    s.mode.as_str().to_string()
}

fn sandbox(c: &mut Changes, path: &str, a: &SandboxRecord, b: &SandboxRecord) {
    let at = |key: &str| format!("{path}.{key}");
    c.field(&at("mode"), &a.mode, &b.mode, |m| m.as_str().into());
    c.field(&at("read"), &a.read, &b.read, |p| list(p));
    c.field(&at("write"), &a.write, &b.write, |p| list(p));
    c.field(&at("env"), &a.env, &b.env, |p| list(p));
    let bytes = |n: &Option<u64>| optional(n, |n| format!("{n} bytes"));
    c.field(&at("disk_limit"), &a.disk_limit, &b.disk_limit, bytes);
    c.field(&at("log_limit"), &a.log_limit, &b.log_limit, bytes);
    c.newer_keys(path, &a.other, &b.other);
}

fn adjudication_words(a: &AdjudicationRecord) -> String {
    format!(
        "at {} empties by {} {}",
        a.exact_at_empties,
        a.solver,
        options_words(&a.solver_options)
    )
}

fn adjudication(c: &mut Changes, path: &str, a: &AdjudicationRecord, b: &AdjudicationRecord) {
    let at = |key: &str| format!("{path}.{key}");
    c.field(
        &at("exact_at_empties"),
        &a.exact_at_empties,
        &b.exact_at_empties,
        u32::to_string,
    );
    c.plugin(
        (&at("solver"), &at("solver_fnv1a")),
        (&a.solver, &a.solver_fnv1a),
        (&b.solver, &b.solver_fnv1a),
        "the solver's plugin file changed",
    );
    c.field(
        &at("solver_options"),
        &a.solver_options,
        &b.solver_options,
        |o| options_words(o),
    );
    c.field(
        &at("solve_timeout_ms"),
        &a.solve_timeout_ms,
        &b.solve_timeout_ms,
        u64::to_string,
    );
    c.field(&at("sandbox"), &a.sandbox, &b.sandbox, |m| {
        optional(m, |m| m.as_str().to_string())
    });
    c.newer_keys(path, &a.other, &b.other);
}

fn nps_words(n: &NpsReference) -> String {
    format!("{} nodes/s of {}", n.nodes_per_second, n.engine)
}

fn tune_words(t: &TuneRecord) -> String {
    let names: Vec<String> = t.params.iter().map(|p| p.name.clone()).collect();
    format!(
        "engine {}, {} iterations of {}",
        t.engine,
        t.iterations,
        list(&names)
    )
}

fn tune(c: &mut Changes, path: &str, a: &TuneRecord, b: &TuneRecord) {
    let at = |key: &str| format!("{path}.{key}");
    let number = |x: &f64| x.to_string();
    c.field(&at("engine"), &a.engine, &b.engine, usize::to_string);
    c.field(&at("opponent"), &a.opponent, &b.opponent, |o| {
        optional(o, usize::to_string)
    });
    c.field(&at("seed"), &a.seed, &b.seed, u64::to_string);
    c.field(
        &at("iterations"),
        &a.iterations,
        &b.iterations,
        u64::to_string,
    );
    c.field(&at("A"), &a.big_a, &b.big_a, number);
    c.field(&at("alpha"), &a.alpha, &b.alpha, number);
    c.field(&at("gamma"), &a.gamma, &b.gamma, number);
    c.field(&at("params"), &a.params, &b.params, |params| {
        let words: Vec<String> = params
            .iter()
            .map(|p| {
                format!(
                    "{} {} ({} to {}, c_end {}, r_end {})",
                    p.name, p.start, p.min, p.max, p.c_end, p.r_end
                )
            })
            .collect();
        list(&words)
    });
    c.newer_keys(path, &a.other, &b.other);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::tournament_record::OpeningOrderRecord;
    use std::path::Path;

    /// The same record has no changes.
    #[test]
    fn a_record_has_no_changes_from_itself() {
        let dir =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/tournament-json");
        for name in [
            "53145f6.json",
            "adjudicated-sprt-file-openings.json",
            "tune.json",
            "shard.json",
        ] {
            let text = std::fs::read_to_string(dir.join(name)).unwrap();
            let record = TournamentRecord::parse(&text).unwrap().essence(false);
            assert!(changes(&record, &record).is_empty(), "{name}");
        }
    }

    /// A refusal words what changed from the types: an openings order, an adjudication's
    /// empties, a tuned parameter's range, an engine's sandbox list, none of it as JSON.
    #[test]
    fn changes_are_worded_from_the_types() {
        let dir =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/tournament-json");
        let read = |name: &str| {
            TournamentRecord::parse(&std::fs::read_to_string(dir.join(name)).unwrap())
                .unwrap()
                .essence(false)
        };
        let a = read("adjudicated-sprt-file-openings.json");
        let mut b = a.clone();
        b.openings.order = OpeningOrderRecord::Shuffled { seed: 9 };
        b.adjudication.as_mut().unwrap().exact_at_empties = 14;
        b.engines[0]
            .sandbox
            .as_mut()
            .unwrap()
            .env
            .push("HOME_X".into());
        b.engines[1].options = vec![("Depth".into(), "3".into())];
        let found = changes(&a, &b);
        assert_eq!(
            found,
            [
                "openings.order sequential → shuffled (seed 9)",
                "engines[0].sandbox.env [LANG_X] → [LANG_X, HOME_X]",
                "engines[1].options [[Depth, 2]] → [[Depth, 3]]",
                "adjudication.exact_at_empties 12 → 14",
            ]
        );
        let t = read("tune.json");
        let mut u = t.clone();
        u.tune.as_mut().unwrap().params[0].max = 5.0;
        let found = changes(&t, &u);
        assert_eq!(found.len(), 1);
        assert!(
            found[0].starts_with("tune.params [Depth 2 (1 to 4,")
                && found[0].contains("→ [Depth 2 (1 to 5,"),
            "{found:?}"
        );
        for change in found {
            assert!(!change.contains(['{', '"']), "JSON in {change}");
        }
    }
}
