//! Where games are lost: a game's line scored against exact values, and each engine's errors
//! summed over the analysed games.
//!
//! # One game
//! Along the moves from the first position with `N` or fewer empties, `v_i` is the exact value
//! (the final disc difference under perfect play, Black's view) before move `i`, and `v_n` the
//! value where the line ends (the final score of a finished game). With `s = +1` for Black's
//! moves and `-1` for White's, a move loses `s · (v_i − v_{i+1})` discs, never less than 0 (the
//! best move keeps the value); a negative loss means the values are not exact. Summed, the
//! losses telescope:
//!
//! ```text
//! v_0 − v_n = Σ losses of Black's moves − Σ losses of White's moves
//! ```
//!
//! A move's mover sees its theoretical result `sign(s · v)`; the decisive error of a game is the
//! first move after which that result got worse (win to draw or loss, draw to loss).
//!
//! # Per engine
//! For each engine: its analysed moves (passes aside) and the share that were best, the discs
//! it lost per game, the points it threw away (each move that turned its theoretical result
//! worse costs the difference, 1 for a win, ½ for a draw), and how many games it had already
//! lost, or won, at the first analysed position. The same by empties bucket.
//!
//! Moves of an adjudication's exact line (the solver's, not an engine's) are in the game's
//! line, so its values and identity hold, but in no engine's figures: a game adjudicated at
//! 14 empties and analysed from 12 holds no engine move at all. [`solver_part`] counts what
//! was left out, for the line under each table.

use crate::record::analysis::{AnalysedGame, AnalysedMove};
use serde::Serialize;

/// The most empties an analysis may start from: beyond it an exact solve can take hours.
pub const MOST_EMPTIES: u32 = 30;

/// One move of a line: its text (`e6`, or `pass`), whether Black played it, the empties before.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineMove {
    pub square: String,
    pub black: bool,
    pub empties: u32,
}

/// Why a line's values cannot be an exact analysis.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("move {index} ({square}) would gain {gain} discs for its mover: the values are not exact")]
pub struct NotExact {
    pub index: usize,
    pub square: String,
    pub gain: i32,
}

/// A theoretical result from one side's view: 1 (win), ½ (draw), 0 (loss), in half points.
fn half_points(value_for_side: i32) -> i32 {
    (value_for_side.signum() + 1).clamp(0, 2)
}

/// Score a line: `values` has one exact value more than `moves` (before each move, and where
/// the line ends). The game's fields other than the line are the caller's.
pub fn score_line(
    moves: &[LineMove],
    values: &[i32],
) -> Result<(Vec<AnalysedMove>, Option<usize>), NotExact> {
    assert_eq!(
        values.len(),
        moves.len() + 1,
        "a value before each move and at the end"
    );
    let mut scored = Vec::with_capacity(moves.len());
    let mut decisive = None;
    for (i, m) in moves.iter().enumerate() {
        let side = if m.black { 1 } else { -1 };
        let (before, after) = (side * values[i], side * values[i + 1]);
        if after > before {
            return Err(NotExact {
                index: i,
                square: m.square.clone(),
                gain: after - before,
            });
        }
        if decisive.is_none() && half_points(after) < half_points(before) {
            decisive = Some(i);
        }
        scored.push(AnalysedMove {
            square: m.square.clone(),
            color: if m.black { "black" } else { "white" }.to_string(),
            empties: m.empties,
            value: values[i],
            loss: (before - after) as u32,
            solver: false,
        });
    }
    Ok((scored, decisive))
}

/// The empties buckets of an analysis from `from` empties: 4 wide from the top, and the last
/// one from 12 down to 1 (`24-21, 20-17, 16-13, 12-1` from 24).
pub fn buckets(from: u32) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut hi = from;
    while hi > 12 {
        let lo = hi.saturating_sub(3).max(13);
        out.push((hi, lo));
        hi = lo - 1;
    }
    if hi >= 1 {
        out.push((hi, 1));
    }
    out
}

/// What an engine did in the analysed positions of one empties range.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Errors {
    /// Moves analysed (passes aside).
    pub moves: u64,
    /// Moves that kept the exact value.
    pub best: u64,
    pub discs_lost: u64,
    /// Points thrown away: a move that turns a win into a draw costs ½, into a loss 1, a draw
    /// into a loss ½.
    pub points_thrown: f64,
}

impl Errors {
    /// The share of best moves (0 without moves).
    pub fn best_share(&self) -> f64 {
        if self.moves == 0 {
            0.0
        } else {
            self.best as f64 / self.moves as f64
        }
    }

    fn add(&mut self, m: &AnalysedMove, thrown_half_points: i32) {
        if m.square == "pass" {
            return;
        }
        self.moves += 1;
        self.best += u64::from(m.loss == 0);
        self.discs_lost += u64::from(m.loss);
        self.points_thrown += f64::from(thrown_half_points) / 2.0;
    }
}

/// One engine's errors over every analysed game it played.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EngineErrors {
    pub engine: String,
    /// Games analysed (without an error).
    pub games: u64,
    pub all: Errors,
    /// Games whose exact result at the first analysed position was already a loss, or a win,
    /// for this engine.
    pub lost_before: u64,
    pub won_before: u64,
    /// By empties bucket, highest first: `(from, to, errors)`.
    pub buckets: Vec<(u32, u32, Errors)>,
}

impl EngineErrors {
    /// Discs lost per analysed game.
    pub fn discs_per_game(&self) -> f64 {
        if self.games == 0 {
            0.0
        } else {
            self.all.discs_lost as f64 / self.games as f64
        }
    }
}

/// Every engine's errors, in the order engines first appear; games with an error are left out.
pub fn engine_errors(games: &[AnalysedGame]) -> Vec<EngineErrors> {
    let from = games.iter().map(|g| g.from_empties).max().unwrap_or(0);
    let ranges = buckets(from);
    let mut out: Vec<EngineErrors> = Vec::new();
    let index = |name: &str, out: &mut Vec<EngineErrors>| -> usize {
        if let Some(i) = out.iter().position(|e| e.engine == name) {
            return i;
        }
        out.push(EngineErrors {
            engine: name.to_string(),
            games: 0,
            all: Errors::default(),
            lost_before: 0,
            won_before: 0,
            buckets: ranges
                .iter()
                .map(|&(hi, lo)| (hi, lo, Errors::default()))
                .collect(),
        });
        out.len() - 1
    };
    for g in games.iter().filter(|g| counts_for_engines(g)) {
        let (Some(value), Some(final_value)) = (g.value, g.final_value) else {
            continue;
        };
        let sides = [
            (index(&g.black, &mut out), 1),
            (index(&g.white, &mut out), -1),
        ];
        for &(e, side) in &sides {
            let engine = &mut out[e];
            engine.games += 1;
            engine.lost_before += u64::from(side * value < 0);
            engine.won_before += u64::from(side * value > 0);
        }
        for (i, m) in g.moves.iter().enumerate() {
            if m.solver {
                continue;
            }
            let (e, side) = if m.color == "black" {
                sides[0]
            } else {
                sides[1]
            };
            let after = g.moves.get(i + 1).map_or(final_value, |next| next.value);
            let thrown = half_points(side * m.value) - half_points(side * after);
            let engine = &mut out[e];
            engine.all.add(m, thrown.max(0));
            if let Some((_, _, bucket)) = engine
                .buckets
                .iter_mut()
                .find(|(hi, lo, _)| (*lo..=*hi).contains(&m.empties))
            {
                bucket.add(m, thrown.max(0));
            }
        }
    }
    out
}

/// Whether a game counts in the engines' figures: analysed without an error, and with at
/// least its first analysed move an engine's (a line the adjudication's solver played from
/// its start holds no move of either engine).
fn counts_for_engines(g: &AnalysedGame) -> bool {
    g.error.is_none() && g.moves.first().is_none_or(|m| !m.solver)
}

/// What the engines' figures leave out: the moves the adjudication's exact solver played
/// (passes aside), and the games whose analysed line it played from the start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SolverPart {
    pub moves: u64,
    pub games: u64,
}

/// The solver's part of the analysed games (those without an error).
pub fn solver_part(games: &[AnalysedGame]) -> SolverPart {
    let analysed = games.iter().filter(|g| g.error.is_none());
    SolverPart {
        moves: analysed
            .clone()
            .flat_map(|g| &g.moves)
            .filter(|m| m.solver && m.square != "pass")
            .count() as u64,
        games: analysed.filter(|g| !counts_for_engines(g)).count() as u64,
    }
}

impl SolverPart {
    /// The line under an analysis table that says what it left out, when it left out anything.
    pub fn note(&self) -> Option<String> {
        (self.moves > 0).then(|| {
            format!(
                "{} moves of the adjudication's exact solver are left out of the engines' figures{}",
                self.moves,
                if self.games > 0 {
                    format!(
                        " (and {} games whose analysed part the solver played from its start)",
                        self.games
                    )
                } else {
                    String::new()
                }
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(moves: &[(&str, bool, u32)]) -> Vec<LineMove> {
        moves
            .iter()
            .map(|&(s, b, e)| LineMove {
                square: s.to_string(),
                black: b,
                empties: e,
            })
            .collect()
    }

    /// Black keeps +4, White loses 2 (+4 → +6), Black throws the win away (+6 → -2, 8 discs),
    /// White passes, Black plays the best move; the losses telescope to v0 − vn.
    #[test]
    fn losses_and_the_decisive_error() {
        let moves = line(&[
            ("a1", true, 5),
            ("b1", false, 4),
            ("c1", true, 3),
            ("pass", false, 2),
            ("d1", true, 2),
        ]);
        let values = [4, 4, 6, -2, -2, -2];
        let (scored, decisive) = score_line(&moves, &values).unwrap();
        let losses: Vec<u32> = scored.iter().map(|m| m.loss).collect();
        assert_eq!(losses, [0, 2, 8, 0, 0]);
        assert_eq!(decisive, Some(2), "the win given away");
        let black: i32 = scored
            .iter()
            .filter(|m| m.color == "black")
            .map(|m| m.loss as i32)
            .sum();
        let white: i32 = scored
            .iter()
            .filter(|m| m.color == "white")
            .map(|m| m.loss as i32)
            .sum();
        assert_eq!(values[0] - values[5], black - white);
        // A gain is impossible with exact values.
        let err = score_line(&moves[..1], &[4, 6]).unwrap_err();
        assert_eq!((err.index, err.gain), (0, 2));
        // A draw lost is decisive too; a loss made bigger is not.
        let (_, d) = score_line(&line(&[("a1", true, 3)]), &[0, -2]).unwrap();
        assert_eq!(d, Some(0));
        let (_, d) = score_line(&line(&[("a1", true, 3)]), &[-2, -10]).unwrap();
        assert_eq!(d, None);
    }

    #[test]
    fn buckets_of_four_then_twelve_to_one() {
        assert_eq!(buckets(24), [(24, 21), (20, 17), (16, 13), (12, 1)]);
        assert_eq!(buckets(20), [(20, 17), (16, 13), (12, 1)]);
        assert_eq!(buckets(14), [(14, 13), (12, 1)]);
        assert_eq!(buckets(10), [(10, 1)]);
    }

    #[test]
    fn per_engine_errors_and_points_thrown() {
        let moves = line(&[("a1", true, 22), ("b1", false, 21), ("c1", true, 12)]);
        // a (Black) wins +4 at 22, keeps it; b loses 2; a throws the win: -2; final -2.
        let values = [4, 4, 6, -2];
        let (scored, decisive) = score_line(&moves, &values).unwrap();
        let game = AnalysedGame {
            game: 0,
            from_empties: 22,
            value: Some(4),
            moves: scored,
            decisive,
            final_value: Some(-2),
            black: "a".into(),
            white: "b".into(),
            score: -2,
            error: None,
        };
        let errors = engine_errors(&[game]);
        let (a, b) = (&errors[0], &errors[1]);
        assert_eq!(
            (a.engine.as_str(), a.all.moves, a.all.best, a.all.discs_lost),
            ("a", 2, 1, 8)
        );
        assert_eq!(a.all.points_thrown, 1.0, "a win turned into a loss");
        assert_eq!((a.won_before, a.lost_before, b.lost_before), (1, 0, 1));
        assert_eq!(
            (b.all.moves, b.all.discs_lost, b.all.points_thrown),
            (1, 2, 0.0)
        );
        assert_eq!(a.discs_per_game(), 8.0);
        // Buckets from 22: 22-19 holds a1, 12-1 holds c1.
        assert_eq!(a.buckets[0].2.moves, 1);
        assert_eq!(a.buckets.last().unwrap().2.discs_lost, 8);
    }

    /// The adjudication's moves are the solver's: in the line (the identity holds), in no
    /// engine's figures; a line the solver played from its start counts for neither engine.
    #[test]
    fn the_solvers_moves_count_for_no_engine() {
        let moves = line(&[("a1", true, 14), ("b1", false, 13), ("c1", true, 12)]);
        let (mut scored, decisive) = score_line(&moves, &[4, 4, 6, 6]).unwrap();
        scored[1].solver = true;
        scored[2].solver = true;
        let game = |moves: Vec<AnalysedMove>| AnalysedGame {
            game: 0,
            from_empties: 14,
            value: Some(4),
            moves,
            decisive,
            final_value: Some(6),
            black: "a".into(),
            white: "b".into(),
            score: 6,
            error: None,
        };
        let errors = engine_errors(&[game(scored.clone())]);
        assert_eq!((errors[0].all.moves, errors[0].games), (1, 1));
        assert_eq!((errors[1].all.moves, errors[1].all.discs_lost), (0, 0));
        assert_eq!(
            solver_part(&[game(scored.clone())]),
            SolverPart { moves: 2, games: 0 }
        );
        let mut all_solver = scored;
        all_solver[0].solver = true;
        let errors = engine_errors(&[game(all_solver.clone())]);
        assert!(errors.iter().all(|e| e.games == 0 && e.all.moves == 0));
        let part = solver_part(&[game(all_solver)]);
        assert_eq!(part, SolverPart { moves: 3, games: 1 });
        assert_eq!(
            part.note().unwrap(),
            "3 moves of the adjudication's exact solver are left out of the engines' figures (and 1 games whose analysed part the solver played from its start)"
        );
    }
}
