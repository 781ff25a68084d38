//! The plain progress lines of a run (`--no-tui`, and the live view's status line).

use harness_core::record::{outcomes, GameRecord};
use harness_core::stats::match_stats;
use harness_core::stats::running::PairResult;
use harness_core::stats::sprt::{Decision, SprtStatus};
use std::path::Path;

/// One line per finished game: its number in the schedule (from 1, as `harness replay` and
/// the live view number games; games finish out of order), how many of the run's games are
/// done, who played which colour, the discs, the result, how it ended and the opening.
/// `game    12  [7/60]  strong (B) 38-26 light-L10 (W)  black wins  normal  opening 12 (line 345)`.
pub fn game_line(r: &GameRecord, finished: usize, planned: usize) -> String {
    let result = match r.score {
        s if s > 0 => "black wins",
        s if s < 0 => "white wins",
        _ => "draw",
    };
    let mut line = format!(
        "game {:>5}  [{finished}/{planned}]  {} (B) {}-{} {} (W)  {result}  {}  opening {} (line {})",
        r.game + 1,
        r.black,
        r.discs.black,
        r.discs.white,
        r.white,
        r.termination.as_str(),
        r.opening.index + 1,
        r.opening.line
    );
    if r.termination.is_forfeit() {
        line.push_str(&format!("  [{}]", r.reason));
    }
    if let Some(a) = &r.adjudication {
        line.push_str(&match (&a.failed, a.value) {
            (Some(why), _) => format!("  [adjudication failed, played out: {why}]"),
            (None, Some(v)) => format!("  [exact {v:+} at {} empties]", a.empties),
            (None, None) => String::new(),
        });
    }
    line
}

/// Whether the running Elo is printed after `pairs_done` pairs: every 10 pairs up to 100, every
/// 100 up to 1,000, and so on (each line costs a pass over the games so far).
pub fn elo_due(pairs_done: usize) -> bool {
    let mut every = 10;
    while pairs_done >= every * 10 {
        every *= 10;
    }
    pairs_done > 0 && pairs_done.is_multiple_of(every)
}

/// The pairing's running Elo (pentanomial, 95% interval) over the finished games `records`,
/// counted in the pairing's own complete pairs (in a gauntlet or a round robin the run's pair
/// count, `pairs_done`, spans every pairing).
/// `elo of strong vs heuristic after 20 pairs: +120.4 [+60.2, +190.0]  pentanomial 0 1 5 6 8`.
pub fn elo_line(records: &[GameRecord], a: &str, b: &str, pairs_done: usize) -> String {
    let stats = match_stats(&outcomes(records), a, b);
    let withheld = stats.clusters().withheld();
    let elo = stats.elo.map_or("-".to_string(), |e| match withheld {
        true => format!("{:+.1} [{}]", e.value, crate::show::standings::WITHHELD),
        false => format!("{:+.1} [{:+.1}, {:+.1}]", e.value, e.low, e.high),
    });
    let p = stats.pentanomial;
    let own: u32 = p.iter().sum();
    let all = if own as usize == pairs_done {
        String::new()
    } else {
        format!(" ({pairs_done} pairs in all)")
    };
    format!(
        "elo of {a} vs {b} after {own} pairs{all}: {elo}  pentanomial {} {} {} {} {}",
        p[0], p[1], p[2], p[3], p[4]
    )
}

/// `resuming: 10 of 24 games already in out/x/games.jsonl, 14 to play`.
pub fn resuming_line(
    held: usize,
    planned: usize,
    to_play: usize,
    journal: &Path,
    extended: Option<(u64, u64)>,
    decided: Option<Decision>,
) -> String {
    let extension = extended
        .map(|(before, after)| format!(" (extended from {before} to {after} pairs)"))
        .unwrap_or_default();
    match decided {
        Some(d) => format!(
            "resuming: {held} of {planned} games already in {}{extension}; the test had already decided ({}): it stays decided, only pairs begun are completed",
            journal.display(),
            super::text::decision_label(d)
        ),
        None => format!(
            "resuming: {held} of {planned} games already in {}, {to_play} to play{extension}",
            journal.display()
        ),
    }
}

/// One line per completed pair: the pair's result and the pairing's running score, the
/// pair's forfeits, and the sequential test's LLR when there is one.
pub fn pair_line(p: &PairResult, sprt: Option<&SprtStatus>) -> String {
    let (a, b) = (&p.a, &p.b);
    let mut line = format!(
        "pair {:>4} ({}/{} done)  {a} vs {b}  {}-{}  (discs {:+}, {:+})  running {a} {}-{} {b} in {} games",
        p.pair + 1,
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

#[cfg(test)]
mod tests {
    use super::{elo_due, elo_line};
    use crate::show::run_model::tests::record;

    /// In a gauntlet the line counts the pairing's own pairs ("after 1 pairs", then the run's
    /// "2 pairs in all"), beside that pairing's counts.
    #[test]
    fn the_elo_line_counts_the_pairings_own_pairs() {
        let records = [
            record(0, "a", "b", 10),
            record(1, "b", "a", -4),
            record(2, "a", "c", 6),
            record(3, "c", "a", 2),
        ];
        let line = elo_line(&records, "a", "b", 2);
        assert!(
            line.starts_with("elo of a vs b after 1 pairs (2 pairs in all): "),
            "{line}"
        );
        assert!(line.ends_with("pentanomial 0 0 0 0 1"), "{line}");
        let alone = elo_line(&records[..2], "a", "b", 1);
        assert!(
            alone.starts_with("elo of a vs b after 1 pairs: "),
            "{alone}"
        );
    }

    /// Pairs that all start from one opening give no interval, and the line says so.
    #[test]
    fn the_elo_line_of_one_opening_has_no_interval() {
        let records: Vec<_> = (0..8)
            .map(|g| match g % 2 {
                0 => record(g, "a", "b", 10 - g as i32 * 3),
                _ => record(g, "b", "a", -4),
            })
            .collect();
        let line = elo_line(&records, "a", "b", 4);
        assert!(line.contains(" [no interval]  pentanomial"), "{line}");
    }

    #[test]
    fn the_running_elo_thins_out_as_pairs_grow() {
        let due: Vec<usize> = (0..=2_000).filter(|&n| elo_due(n)).collect();
        assert_eq!(&due[..10], &[10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
        assert_eq!(
            &due[10..19],
            &[200, 300, 400, 500, 600, 700, 800, 900, 1000]
        );
        assert_eq!(&due[19..], &[2000]);
    }
}
