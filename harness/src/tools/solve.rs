//! `harness solve`: exact-solve every position of an OBF file with a plugin, in a worker
//! process, and check the scores against the file.
//!
//! Each position is searched through the ABI with a depth limit equal to its number of
//! empties (an exact solve for any engine that honours depth limits), after a `new_game` so
//! that no table carries over. Per position the report gives the number (line in the file),
//! empties, the move played, the score returned, the file's best score, ok/WRONG, the time
//! measured by the coordinator around the request, nodes and nodes per second; then the totals. A position is
//! wrong when the score differs from the file's best, or when the move played is listed in the
//! file with a score below the best (or not listed although the file lists moves).

use crate::host::{EngineHost, SearchBudget, WorkerSpec};
use anyhow::Context;
use harness_core::plan::config::SandboxMode;
use harness_core::search_terms::SearchLimits;
use othello_board::{Move, ObfLine};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What to solve and with what.
#[derive(Clone, Debug)]
pub struct SolveArgs {
    pub file: PathBuf,
    /// A plugin path, or a bare name looked up in `plugin_dir`.
    pub engine: String,
    pub plugin_dir: Option<PathBuf>,
    pub options: Vec<(String, String)>,
    /// Sets the engine option `Threads`.
    pub threads: Option<u32>,
    /// Longest wait for one answer.
    pub timeout: Duration,
    /// How the engine's worker is confined.
    pub sandbox: SandboxMode,
}

/// One solved position.
#[derive(Clone, Debug, PartialEq)]
pub struct Solved {
    pub number: usize,
    pub empties: u32,
    pub mv: Move,
    pub score: i32,
    pub expected: Option<i32>,
    pub ok: bool,
    pub time: Duration,
    pub nodes: u64,
}

/// The totals of a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SolveSummary {
    pub positions: usize,
    pub wrong: usize,
    pub time: Duration,
    pub nodes: u64,
}

fn rate(nodes: u64, time: Duration) -> f64 {
    nodes as f64 / time.as_secs_f64().max(1e-9)
}

/// Whether the engine's answer agrees with the file.
fn check(line: &ObfLine, mv: Move, score: i32) -> bool {
    let Some(best) = line.best_score() else {
        return true; // nothing to check against
    };
    let listed = line.move_scores.iter().find(|(m, _)| *m == mv);
    score == best && listed.is_some_and(|&(_, s)| s == best)
}

/// The positions of an OBF file with their line numbers (blank and comment lines skipped). A
/// line that does not parse, or lists a move that is not legal in its position, is an error
/// naming the file and the line.
pub fn read_positions(file: &Path) -> anyhow::Result<Vec<(usize, ObfLine)>> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let mut lines = Vec::new();
    for (i, l) in text.lines().enumerate() {
        let content = l.split('%').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let obf: ObfLine = content
            .parse()
            .with_context(|| format!("{}:{}: bad OBF line", file.display(), i + 1))?;
        // A listed move that is not legal is a broken line, not a wrong answer of the engine.
        if let Some((mv, _)) = obf
            .move_scores
            .iter()
            .find(|(mv, _)| !obf.position.is_legal(*mv))
        {
            anyhow::bail!(
                "{}:{}: the line lists {mv}, which is not a legal move in its position",
                file.display(),
                i + 1
            );
        }
        lines.push((i + 1, obf));
    }
    anyhow::ensure!(
        !lines.is_empty(),
        "{}: no position to solve (an OBF file has one position per line)",
        file.display()
    );
    Ok(lines)
}

/// Solve every position of `args.file`, writing one line per position and the totals.
pub fn run(args: &SolveArgs, out: &mut dyn Write) -> anyhow::Result<SolveSummary> {
    let lines = read_positions(&args.file)?;
    let (plugin, options) = super::tool_engine(
        &args.engine,
        args.plugin_dir.as_deref(),
        &args.options,
        args.threads,
    )?;
    let spec = WorkerSpec {
        name: args.engine.clone(),
        plugin: plugin.clone(),
        options,
        stderr_log: None,
        memory_limit: None,
        sandbox: super::confinement(args.sandbox),
        between_turns: crate::host::turns::BetweenTurns::Stopped,
    };
    let runtime = crate::host::session_runtime().context("cannot start the runtime")?;
    let mut host = runtime.block_on(EngineHost::spawn(&spec))?;
    writeln!(
        out,
        "{}: {} positions, engine {} ({} {})",
        args.file.display(),
        lines.len(),
        plugin.display(),
        host.plugin.name,
        host.plugin.version
    )?;
    writeln!(
        out,
        "{:>4} {:>7} {:>5} {:>6} {:>6} {:>6} {:>10} {:>14} {:>12}",
        "#", "empties", "move", "score", "best", "result", "time (s)", "nodes", "nodes/s"
    )?;
    let mut summary = SolveSummary::default();
    for (number, line) in &lines {
        let position = line.position;
        anyhow::ensure!(
            !position.is_game_over(),
            "line {number}: the game is over in this position"
        );
        runtime.block_on(host.new_game())?;
        let empties = position.empties();
        let limits = SearchLimits::Depth(empties);
        // Timed here, around the whole call: the host's own figure starts after the request
        // is sent and can miss the search entirely when this thread is descheduled.
        let started = std::time::Instant::now();
        let reply = runtime.block_on(host.search(
            &othello_board::GameHistory::new(position),
            &limits,
            SearchBudget::Stall {
                timeout: args.timeout,
            },
            |_| {},
            std::future::pending(),
        ))?;
        let elapsed = started.elapsed();
        let mv = Move::from_wire(reply.mv as i64)
            .filter(|m| position.is_legal(*m))
            .with_context(|| format!("line {number}: illegal move {}", reply.mv))?;
        let score = reply.info.score.round() as i32;
        let ok = check(line, mv, score);
        let solved = Solved {
            number: *number,
            empties,
            mv,
            score,
            expected: line.best_score(),
            ok,
            time: elapsed,
            nodes: reply.info.nodes,
        };
        writeln!(
            out,
            "{:>4} {:>7} {:>5} {:>+6} {:>6} {:>6} {:>10.3} {:>14} {:>12.0}",
            solved.number,
            solved.empties,
            solved.mv.to_string(),
            solved.score,
            solved
                .expected
                .map(|e| format!("{e:+}"))
                .unwrap_or_else(|| "?".into()),
            if ok { "ok" } else { "WRONG" },
            solved.time.as_secs_f64(),
            solved.nodes,
            rate(solved.nodes, solved.time)
        )?;
        summary.positions += 1;
        summary.wrong += usize::from(!ok);
        summary.time += solved.time;
        summary.nodes += solved.nodes;
    }
    runtime.block_on(host.shutdown());
    writeln!(
        out,
        "total: {} solved, {} wrong, {:.3} s, {} nodes, {:.0} nodes/s",
        summary.positions - summary.wrong,
        summary.wrong,
        summary.time.as_secs_f64(),
        summary.nodes,
        rate(summary.nodes, summary.time)
    )?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_score_and_move() {
        let l: ObfLine =
            "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18; H1:+12;"
                .parse()
                .unwrap();
        let g8: Move = "g8".parse().unwrap();
        let h1: Move = "h1".parse().unwrap();
        let a2: Move = "a2".parse().unwrap();
        assert!(check(&l, g8, 18));
        assert!(!check(&l, g8, 16));
        assert!(!check(&l, h1, 18));
        assert!(!check(&l, a2, 18));
    }
}
