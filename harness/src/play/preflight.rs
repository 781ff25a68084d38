//! The pre-flight: before the first game, every engine of the run, started as it will play
//! (its worker, sandbox, command and options, by [`WorkerPool::start`]), is asked for one move
//! in the first game's position at a small fixed limit. An engine that loads but cannot play
//! (an external program whose script is missing, an interpreter without a module, a plugin
//! that crashes on its first search) then stops the run before any game, instead of
//! forfeiting every game it is given and handing its opponent a result that measured nothing.
//!
//! The limit: under a clock or a move time, the smaller of the engine's first budget and
//! [`PREFLIGHT_MOVE_TIME`], stopped then; under a depth or node limit, depth 1. Only a failure
//! stops the run: a crash, an error, a broken protocol, or no reply within the host's start-up
//! timeout ([`STARTUP_TIMEOUT`]) plus that limit, or within what a game would give the first
//! move when that is shorter (its first budget and margin; under a depth or node limit, its
//! stall timeout): the game would forfeit it then. An illegal reply is a warning (the engine
//! may still play legal moves in games; the games will say).

use super::pool::WorkerPool;
use crate::host::engine_host::STARTUP_TIMEOUT;
use crate::host::SearchBudget;
use harness_core::plan::config::{TimeControl, TimeRules, Tournament};
use harness_core::plan::openings::Opening;
use harness_core::search_terms::SearchLimits;
use othello_board::{GameHistory, Move, Position};
use std::time::{Duration, Instant};

pub use crate::host::engine_host::PREFLIGHT_MOVE_TIME;

/// What the pre-flight found of one engine that answered.
#[derive(Clone, Debug)]
pub struct Answered {
    pub engine: String,
    /// From the request to the reply, start-up of an external program included.
    pub elapsed: Duration,
    /// The reply was not a legal move of the position: a warning, said once.
    pub illegal: Option<String>,
}

/// Ask each of the tournament's engines (not the adjudication solver, which proved itself at
/// start) for a move in `opening`'s position, one after the other, on the pool's idle
/// workers. The first engine that fails is the error ([`super::pool::CannotStart`]).
pub async fn ask_each_engine(
    t: &Tournament,
    pool: &WorkerPool,
    opening: &Opening,
) -> anyhow::Result<Vec<Answered>> {
    let (history, position) = first_position(opening);
    let mut answered = Vec::new();
    for (i, e) in t.engines.iter().enumerate() {
        let (limits, budget) = limits(t.played_time_rules(i));
        let mut host = pool
            .take(i)
            .await
            .map_err(|err| pool.cannot_start(i, &err, "at the pre-flight"))?;
        let asked = Instant::now();
        let reply = host
            .search(&history, &limits, budget, |_| {}, std::future::pending())
            .await
            .map_err(|err| pool.cannot_start(i, &err, "at the pre-flight's move"))?;
        let illegal = match Move::from_wire(i64::from(reply.mv)) {
            Some(mv) if position.is_legal(mv) => None,
            Some(mv) => Some(mv.to_string()),
            None => Some(format!("value {}", reply.mv)),
        };
        answered.push(Answered {
            engine: e.name.clone(),
            elapsed: asked.elapsed(),
            illegal,
        });
        pool.give_back(i, host);
    }
    Ok(answered)
}

/// The warnings of a pre-flight that passed: one per engine that answered an illegal move.
pub fn warnings(answered: &[Answered]) -> Vec<String> {
    answered
        .iter()
        .filter_map(|a| {
            a.illegal.as_ref().map(|mv| {
                format!(
                    "engine `{}` answered the pre-flight's move request with an illegal move ({mv}); its games will show whether it plays legal moves",
                    a.engine
                )
            })
        })
        .collect()
}

/// The game so far and the position where the engines take over in `opening`: a forced pass
/// is made explicit; a finished opening (none is, in the shipped sets) falls back to the
/// standard start.
fn first_position(opening: &Opening) -> (GameHistory, Position) {
    let mut history = opening.history();
    let mut position = opening.position();
    if position.is_game_over() {
        return (GameHistory::new(Position::START), Position::START);
    }
    if position.must_pass() {
        history.moves.push(Move::PASS);
        position = position.play(Move::PASS).expect("a forced pass is legal");
    }
    (history, position)
}

/// The pre-flight's limits and budget under an engine's time rules (see the module's docs).
fn limits(rules: TimeRules) -> (SearchLimits, SearchBudget) {
    let first_budget = match rules.control {
        TimeControl::Clock { base, .. } => Some(base),
        TimeControl::MoveTime(t) => Some(t),
        TimeControl::Depth(_) | TimeControl::Nodes(_) => None,
    };
    match first_budget {
        Some(budget) => {
            let limit = budget.min(PREFLIGHT_MOVE_TIME);
            let in_a_game = (budget + rules.margin).saturating_sub(limit);
            (
                SearchLimits::MoveTime(limit),
                SearchBudget::Deadline {
                    budget: limit,
                    margin: STARTUP_TIMEOUT.min(in_a_game),
                },
            )
        }
        None => (
            SearchLimits::Depth(1),
            SearchBudget::Stall {
                timeout: STARTUP_TIMEOUT.min(rules.stall_timeout),
            },
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(control: TimeControl, margin_ms: u64, stall_s: u64) -> TimeRules {
        TimeRules {
            control,
            margin: Duration::from_millis(margin_ms),
            stall_timeout: Duration::from_secs(stall_s),
        }
    }

    #[test]
    fn the_preflight_asks_little_and_waits_no_longer_than_a_game_would() {
        let ms = Duration::from_millis;
        // A 10-s clock: 0.1 s, stopped then, answered within the start-up timeout.
        let clock = TimeControl::Clock {
            base: Duration::from_secs(10),
            increment: ms(100),
        };
        let (asked, budget) = limits(rules(clock, 200, 60));
        assert_eq!(asked, SearchLimits::MoveTime(ms(100)));
        assert_eq!(budget.stop_after(), Some(ms(100)));
        assert_eq!(
            budget.forfeit_after(),
            ms(100) + STARTUP_TIMEOUT.min(ms(10_100))
        );
        // 0.3 s a move with a margin of 0.1 s: a game forfeits the first move after 0.4 s.
        let (asked, budget) = limits(rules(TimeControl::MoveTime(ms(300)), 100, 60));
        assert_eq!(asked, SearchLimits::MoveTime(ms(100)));
        assert_eq!(budget.forfeit_after(), ms(400));
        // 50 ms a move: asked for 50 ms.
        let (asked, _) = limits(rules(TimeControl::MoveTime(ms(50)), 100, 60));
        assert_eq!(asked, SearchLimits::MoveTime(ms(50)));
        // Depth 12, or a node budget: depth 1, a stall after the start-up timeout or the
        // engine's own stall timeout, the shorter.
        let (asked, budget) = limits(rules(TimeControl::Depth(12), 0, 60));
        assert_eq!(asked, SearchLimits::Depth(1));
        assert_eq!(budget.forfeit_after(), STARTUP_TIMEOUT);
        let (asked, budget) = limits(rules(TimeControl::Nodes(1_000_000), 0, 5));
        assert_eq!(asked, SearchLimits::Depth(1));
        assert_eq!(budget.forfeit_after(), Duration::from_secs(5));
    }
}
