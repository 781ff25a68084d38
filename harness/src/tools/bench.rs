//! `harness bench`: a plugin's signature and speed. Fixed-depth searches of the built-in bench
//! positions ([`super::positions::BENCH`]), each after `new_game`, with `Threads = 1` when the
//! plugin declares that option; the total of the nodes the plugin reports is the signature
//! (the same on every machine and every run for a deterministic engine: a non-functional
//! change keeps it, a wrong binary or another option shows), and nodes over the time the
//! coordinator measured around each search is the speed.
//!
//! The same measure serves `harness run`: an engine's `bench = N` is checked at start, and
//! `[time] nps-reference` scales the clocks by the speed of the engine `nps-engine` names.

use super::positions::bench_positions;
use crate::host::sandbox::Confinement;
use crate::host::{EngineHost, SearchBudget};
use anyhow::Context;
use harness_core::search_terms::SearchLimits;
use othello_board::GameHistory;
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The depth of the bench searches unless `--depth` says otherwise.
pub const DEFAULT_DEPTH: u32 = 9;

/// The longest a bench search may go without an answer.
const STALL: Duration = Duration::from_secs(600);

/// What to bench: a plugin file, its options, and the depth.
#[derive(Clone, Debug)]
pub struct BenchSpec {
    /// The name the plugin goes by in messages.
    pub name: String,
    pub plugin: PathBuf,
    pub options: Vec<(String, String)>,
    pub depth: u32,
    /// How the worker is confined (`None`: not at all).
    pub sandbox: Option<Confinement>,
}

/// A bench: the signature (nodes) and the time the searches took.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bench {
    pub nodes: u64,
    pub time: Duration,
}

impl Bench {
    /// Nodes per second (at least 1, so that a speed can divide).
    pub fn nodes_per_second(&self) -> u64 {
        ((self.nodes as f64 / self.time.as_secs_f64().max(1e-9)) as u64).max(1)
    }

    /// `bench: N nodes, X nodes/s` (the last line `harness bench` prints).
    pub fn line(&self) -> String {
        format!(
            "bench: {} nodes, {} nodes/s",
            self.nodes,
            self.nodes_per_second()
        )
    }
}

/// Bench `spec` in a worker process, writing one line per position to `out`.
pub fn run(spec: &BenchSpec, out: &mut dyn Write) -> anyhow::Result<Bench> {
    let runtime = crate::host::session_runtime().context("cannot start the runtime")?;
    runtime.block_on(async {
        let mut host =
            super::start_single_threaded(&spec.name, &spec.plugin, &spec.options, &spec.sandbox)
                .await?;
        let bench = searches(&mut host, spec, out).await;
        host.shutdown().await;
        bench
    })
}

/// The searches of a bench on a started host.
async fn searches(
    host: &mut EngineHost,
    spec: &BenchSpec,
    out: &mut dyn Write,
) -> anyhow::Result<Bench> {
    writeln!(
        out,
        "{:>3} {:>7} {:>5} {:>14} {:>10} {:>12}",
        "#", "empties", "move", "nodes", "time (s)", "nodes/s"
    )?;
    let mut total = Bench {
        nodes: 0,
        time: Duration::ZERO,
    };
    for (i, position) in bench_positions().into_iter().enumerate() {
        host.new_game().await?;
        let started = Instant::now();
        let reply = host
            .search(
                &GameHistory::new(position),
                &SearchLimits::Depth(spec.depth),
                SearchBudget::Stall { timeout: STALL },
                |_| {},
                std::future::pending(),
            )
            .await
            .with_context(|| format!("{}: bench position {}", spec.name, i + 1))?;
        let one = Bench {
            nodes: reply.info.nodes,
            time: started.elapsed(),
        };
        let mv = othello_board::Move::from_wire(reply.mv as i64)
            .map_or_else(|| reply.mv.to_string(), |m| m.to_string());
        writeln!(
            out,
            "{:>3} {:>7} {:>5} {:>14} {:>10.3} {:>12}",
            i + 1,
            position.empties(),
            mv,
            one.nodes,
            one.time.as_secs_f64(),
            one.nodes_per_second()
        )?;
        total.nodes += one.nodes;
        total.time += one.time;
    }
    writeln!(out, "{}", total.line())?;
    Ok(total)
}
