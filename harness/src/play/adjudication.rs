//! Adjudication by exact solve (`[adjudication]`): Othello's tablebase.
//!
//! When a game reaches `exact-at-empties` empties or fewer, the solver (a plugin that honours
//! depth limits, hosted in a worker of its own from the run's pool) gives the exact value of
//! the position and a best move. Playing that move and asking again down to the end gives a
//! perfect-play line, which the record keeps after the engines' moves, marked as the
//! adjudication's, so the game still replays to its final position and its score is that
//! line's final score.
//!
//! The line is trusted only if it is consistent: every solve along it gives the same value
//! (a best move keeps the value under perfect play) and the line ends with that score. A
//! solver that fails, times out or is inconsistent leaves the game to be played out by the
//! engines; the record says so.

use super::pool::WorkerPool;
use crate::host::HostError;
use harness_core::events::RunControl;
use othello_board::{Move, Position};
use std::time::Duration;

/// What a game needs to be adjudicated.
#[derive(Clone, Copy, Debug)]
pub(super) struct Adjudicator {
    /// The solver's engine index in the pool.
    pub(super) solver: usize,
    pub(super) at_empties: u32,
    pub(super) timeout: Duration,
}

/// The outcome of an attempt.
pub(super) enum Verdict {
    /// The perfect-play line from the position: each move with the exact value, side to
    /// move's view (`None` for a forced pass), and the exact value, Black's view.
    Solved {
        line: Vec<(Move, Option<i32>)>,
        value: i32,
    },
    /// Why the game must be played out.
    Failed(String),
    /// The run is being stopped.
    Interrupted,
}

impl Adjudicator {
    /// Solve `position` to the end with a solver worker borrowed from `pool`.
    pub(super) async fn solve_line(
        &self,
        position: Position,
        pool: &WorkerPool,
        control: &RunControl,
    ) -> Verdict {
        let mut host = match pool.take(self.solver).await {
            Ok(h) => h,
            Err(e) => return Verdict::Failed(format!("the solver did not start: {e}")),
        };
        if let Err(e) = host.new_game().await {
            return Verdict::Failed(e.to_string());
        }
        let (mut pos, mut line, mut value) = (position, Vec::new(), None);
        let verdict = loop {
            if pos.is_game_over() {
                let value = value.unwrap_or_else(|| pos.final_score_black());
                if pos.final_score_black() != value {
                    break Verdict::Failed(format!(
                        "the solver's line ends {:+}, not its value {value:+}",
                        pos.final_score_black()
                    ));
                }
                break Verdict::Solved { line, value };
            }
            if pos.must_pass() {
                line.push((Move::PASS, None));
                pos = pos.play(Move::PASS).expect("a forced pass is legal");
                continue;
            }
            let answer = match host
                .solve_exactly(pos, self.timeout, control.stopping())
                .await
            {
                Ok(a) => a,
                Err(HostError::Interrupted { .. }) => break Verdict::Interrupted,
                Err(e) => break Verdict::Failed(format!("{pos}: {e}")),
            };
            let first = *value.get_or_insert(answer.value);
            let Some(best) = answer.best.filter(|_| answer.value == first) else {
                break Verdict::Failed(format!(
                    "inconsistent solves: {first:+} at the start, {:+} at {pos}",
                    answer.value
                ));
            };
            let mover_view = if pos.side_to_move == othello_board::Color::Black {
                answer.value
            } else {
                -answer.value
            };
            line.push((best, Some(mover_view)));
            pos = pos.play(best).expect("solve_exactly answers a legal move");
        };
        pool.give_back(self.solver, host);
        verdict
    }
}
