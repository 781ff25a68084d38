//! The plain progress lines of a run (`--no-tui`, and the live view's status line).

use crate::stats::running::PairResult;
use crate::stats::sprt::SprtStatus;
use std::path::Path;

/// `resuming: 10 of 24 games already in out/x/games.jsonl, 14 to play`.
pub fn resuming_line(held: usize, planned: usize, to_play: usize, journal: &Path) -> String {
    format!(
        "resuming: {held} of {planned} games already in {}, {to_play} to play",
        journal.display()
    )
}

/// One line per completed pair: the pair's result and the pairing's running score, the
/// pair's forfeits, and the sequential test's LLR when there is one.
pub fn pair_line(p: &PairResult, sprt: Option<&SprtStatus>) -> String {
    let (a, b) = (&p.a, &p.b);
    let mut line = format!(
        "pair {:>4}/{}  {a} vs {b}  {}-{}  (discs {:+}, {:+})  running {a} {}-{} {b} in {} games",
        p.pairs_done,
        p.total_pairs,
        p.points,
        2.0 - p.points,
        p.discs[0],
        p.discs[1],
        p.running.0,
        p.running.1,
        p.running.2
    );
    for reason in &p.forfeits {
        line.push_str(&format!("  [forfeit: {reason}]"));
    }
    if let Some(status) = sprt {
        line.push_str(&format!(
            "  LLR {:+.2} [{:+.2}, {:+.2}]",
            status.llr, status.lower, status.upper
        ));
    }
    line
}
