//! Totals kept while games arrive, so that each finished game costs the same work however long
//! the run is: the coordinator's progress and its sequential test, and `merge --watch`.
//!
//! The statistics at the end of a run are computed afresh from the records
//! ([`super::match_stats`]); these totals only serve decisions and progress during it. Both
//! count the same things the same way: a game between the candidate and the baseline counts in
//! the win/draw/loss totals, and two games with the same pair number that swap the colours form a
//! complete pair ([`super::pair_observation`]).

use super::pair_observation;
use super::sprt::{MatchTally, SprtParams, SprtStatus};
use crate::record::GameRecord;
use std::collections::HashMap;

/// A pair that has just been completed, with the running score of its pairing.
#[derive(Clone, Debug, PartialEq)]
pub struct PairResult {
    /// The pair's number in the schedule (0-based, as in the journal).
    pub pair: usize,
    /// Complete pairs so far (this one included) and in the whole schedule.
    pub pairs_done: usize,
    pub total_pairs: usize,
    /// The engines, as Black and White of the pair's first game.
    pub a: String,
    pub b: String,
    /// `a`'s points in this pair (0 to 2).
    pub points: f64,
    /// The two games' disc differences from `a`'s view, first game first.
    pub discs: [i32; 2],
    /// The pairing's running points of `a` and `b` and its games so far.
    pub running: (f64, f64, usize),
    /// The reasons of the pair's forfeits, first game first.
    pub forfeits: Vec<String>,
}

/// Totals of a run, fed game by game in any order.
#[derive(Debug)]
pub struct RunningTotals {
    total_pairs: usize,
    pairs_done: usize,
    /// The first game of each pair whose partner has not arrived yet.
    open_pairs: HashMap<usize, GameRecord>,
    /// Per pairing (first engine, second engine): points of each and games.
    scores: HashMap<(String, String), (f64, f64, usize)>,
    /// The sequential test of the candidate against the baseline, with its counts.
    sprt: Option<(SprtParams, MatchTally)>,
}

impl RunningTotals {
    /// Totals for a schedule of `total_pairs` pairs; with a test of `candidate` against
    /// `baseline` when `sprt` is given.
    pub fn new(total_pairs: usize, sprt: Option<(SprtParams, &str, &str)>) -> RunningTotals {
        RunningTotals {
            total_pairs,
            pairs_done: 0,
            open_pairs: HashMap::new(),
            scores: HashMap::new(),
            sprt: sprt.map(|(params, a, b)| (params, MatchTally::new(a, b))),
        }
    }

    /// Count a game (its moves are not needed); when it completes its pair, that pair.
    pub fn add(&mut self, record: &GameRecord) -> Option<PairResult> {
        if let Some((_, tally)) = &mut self.sprt {
            tally.add_game(&record.outcome());
        }
        let Some(first) = self.open_pairs.remove(&record.pair) else {
            self.open_pairs.insert(record.pair, record.without_moves());
            return None;
        };
        let mut pair = [first, record.without_moves()];
        pair.sort_by_key(|g| g.game);
        let (a, b) = (pair[0].black.clone(), pair[0].white.clone());
        let games = [pair[0].outcome(), pair[1].outcome()];
        // From the first game's Black engine's view; not a colour-swapped pair: counted in no
        // pair statistic.
        let seen_by_a = pair_observation(&games[0], &games[1], &a)?;
        self.pairs_done += 1;
        let points = f64::from(seen_by_a.half_points[0] + seen_by_a.half_points[1]) / 2.0;
        let entry = self.scores.entry((a.clone(), b.clone())).or_default();
        entry.0 += points;
        entry.1 += 2.0 - points;
        entry.2 += 2;
        if let Some((_, tally)) = &mut self.sprt {
            tally.add_pair(&games[0], &games[1]);
        }
        Some(PairResult {
            pair: record.pair,
            pairs_done: self.pairs_done,
            total_pairs: self.total_pairs,
            points,
            discs: [pair[0].score, -pair[1].score],
            running: *entry,
            forfeits: pair
                .iter()
                .filter(|g| g.termination.is_forfeit())
                .map(|g| g.reason.clone())
                .collect(),
            a,
            b,
        })
    }

    /// The counts of the sequential test, when there is one.
    pub fn tally(&self) -> Option<&MatchTally> {
        self.sprt.as_ref().map(|(_, tally)| tally)
    }

    /// The sequential test on the games counted so far.
    pub fn sprt_status(&self) -> Option<SprtStatus> {
        self.sprt
            .as_ref()
            .map(|(params, tally)| params.status_of(tally))
    }
}

#[cfg(test)]
mod tests {
    use crate::record::GameOutcome;
    use crate::stats::match_stats;
    use crate::stats::sprt::MatchTally;

    fn game(pair: u64, black: &str, white: &str, d: i32) -> GameOutcome {
        GameOutcome {
            pair,
            black: black.into(),
            white: white.into(),
            black_disc_diff: d,
            forfeit: false,
            opening: None,
        }
    }

    /// Fed game by game, the tally holds what `match_stats` computes from the whole list.
    #[test]
    fn a_tally_fed_pair_by_pair_equals_the_match_statistics() {
        let games = [
            game(0, "A", "B", 10),
            game(0, "B", "A", 6),
            game(1, "A", "B", 0),
            game(1, "B", "A", -64),
            game(2, "A", "B", -2),
            game(3, "A", "C", 5),
            game(3, "C", "A", -5),
        ];
        let mut tally = MatchTally::new("A", "B");
        for g in &games {
            tally.add_game(g);
        }
        tally.add_pair(&games[0], &games[1]);
        tally.add_pair(&games[2], &games[3]);
        tally.add_pair(&games[5], &games[6]);
        assert_eq!(tally, MatchTally::from(&match_stats(&games, "A", "B")));
        assert_eq!(tally.pairs(), 2);
        assert_eq!((tally.wins, tally.draws, tally.losses), (2, 1, 2));
    }
}
