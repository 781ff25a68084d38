//! Time and strength planning: from the host's limits, the `Level` option and the number of
//! empties to a [`Plan`] (midgame depth, exact-solve threshold, soft and hard time limits).
//!
//! - Host depth limit `d`: midgame depth `d`; exact solve when `d >= empties`.
//! - `Level` L > 0 (Edax-like strength knob): midgame depth L, exact solve at `2 L` empties
//!   or fewer (capped at 60).
//! - Clock: the budget is this move's weighted share of the time left ([`clock_share`]): the
//!   side's moves down to 12 empties share the clock by [`move_weight`], where a late-midgame
//!   move (21-26 empties), which can read the game to its end, weighs four midgame moves;
//!   plus the increment, times `TimeShare`. No new iteration starts after 40% of the budget
//!   while the search is stable; when the best move changes between iterations or the score
//!   falls by a disc or more, that soft limit grows ([`extended_soft`]) up to 45% of the
//!   extended hard limit, and the hard limit, which aborts the search, grows from the budget
//!   to 2.5 budgets (at most a quarter of the clock left). A stable search keeps the budget as
//!   its hard limit. The exact solve is tried with the clock when empties <= a threshold
//!   growing with the budget (14 empties under 50 ms up to 26 with a minute), and the
//!   selective endgame stages start [`READ_AHEAD_EMPTIES`] earlier; an interrupted solve
//!   falls back to the midgame move.
//! - Move time: the same with the fixed time as the budget.
//! - No limit at all: depth 12, solve at 20 empties.
//!
//! The stop flag is polled every [`crate::search::POLL_INTERVAL`] nodes, well under a
//! millisecond.
//!
//! Invariant: in every plan [`plan`] builds, the soft limit is below the hard one and each
//! limit below its extended form (`hard_time <= max_hard_time`, `soft_time <= max_soft_time`):
//! an unstable search may only take longer than a stable one.

use othello_sdk::board::Color;
use othello_sdk::Limits;
use std::time::Duration;

/// What to search: built by [`plan`] from the host's limits and the engine's options (tests
/// and tools build their own).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Deepest midgame iteration.
    pub max_depth: u32,
    /// Solve exactly when the root has at most this many empties.
    pub solve_empties: u32,
    /// Do not start a new iteration after this much time, while the search is stable.
    pub soft_time: Option<Duration>,
    /// How far an unstable search (best move changing, score falling) may push `soft_time`.
    pub max_soft_time: Option<Duration>,
    /// Abort the search after this much time, while it is stable.
    pub hard_time: Option<Duration>,
    /// The hard limit of an unstable search (best move changing, score falling).
    pub max_hard_time: Option<Duration>,
    /// Abort the search after this many nodes.
    pub node_limit: Option<u64>,
    /// Before an exact solve under a time limit, run the selective endgame stages.
    pub selective_endgame: bool,
}

impl Plan {
    /// Exact solve, no limits (tests).
    pub fn solve() -> Plan {
        Plan {
            max_depth: 60,
            solve_empties: 64,
            soft_time: None,
            max_soft_time: None,
            hard_time: None,
            max_hard_time: None,
            node_limit: None,
            selective_endgame: false,
        }
    }

    /// Fixed midgame depth, no exact solve above it (tests).
    pub fn depth(d: u32) -> Plan {
        Plan {
            max_depth: d,
            solve_empties: 0,
            ..Plan::solve()
        }
    }
}

/// Exact-solve threshold for a time budget.
pub fn solve_empties_for(budget: Duration) -> u32 {
    let ms = budget.as_millis();
    match ms {
        0..50 => 14,
        50..200 => 16,
        200..1000 => 18,
        1000..4000 => 20,
        4000..15000 => 22,
        15000..60000 => 24,
        _ => 26,
    }
}

/// The soft time limit of an unstable search: `base` grows by the instability (a decaying count
/// of best-move changes between iterations: each change adds 1, each iteration halves it) and
/// by half again after a fail low (the score fell by a disc or more), never beyond `ceiling`.
pub fn extended_soft(
    base: Duration,
    ceiling: Duration,
    instability: f64,
    fail_low: bool,
) -> Duration {
    let mut factor = 1.0 + instability.clamp(0.0, 3.0);
    if fail_low {
        factor *= 1.5;
    }
    base.mul_f64(factor).min(ceiling.max(base))
}

/// The clock's weight of one move, by the number of empties before it: a clock budget is the
/// time left times this move's weight over the sum of the weights of the side's moves still
/// to come (down to [`CLOCK_HORIZON`] empties).
///
/// Moves in the late midgame weigh [`LATE_WEIGHT`]: there the search can reach the end of the
/// game (the selective endgame stages, then the exact solve), and a move read to the end is
/// worth far more than a couple of plies more in the midgame. Against Egaroucid Light level
/// 15, which reads to the end from 24 empties, a flat share lost most games at 21-24 empties.
/// Moves within the cheap exact solves weigh [`END_WEIGHT`].
pub fn move_weight(empties: u32) -> f64 {
    if empties <= LATE_EMPTIES.0 {
        END_WEIGHT
    } else if empties <= LATE_EMPTIES.1 {
        LATE_WEIGHT
    } else {
        1.0
    }
}

/// Moves with more than `.0` and at most `.1` empties weigh [`LATE_WEIGHT`].
pub const LATE_EMPTIES: (u32, u32) = (20, 26);
/// Weight of a late-midgame move (one midgame move weighs 1).
pub const LATE_WEIGHT: f64 = 4.0;
/// Weight of a move within the cheap exact solves.
pub const END_WEIGHT: f64 = 0.5;
/// Moves at this many empties or fewer are not counted in a clock share: they are solved in
/// a few milliseconds.
pub const CLOCK_HORIZON: u32 = 12;
/// Under a clock, the selective endgame stages start this many empties before the exact
/// solve's threshold ([`solve_empties_for`]): a stage that finishes reads the game to its end
/// at a known confidence, and one that does not leaves the midgame move.
///
/// Six rather than four: at the late midgame's budgets the selective stages, given the same
/// time, chose moves that lost a result less often than the midgame search (figures:
/// `docs/measurements.md`, "Figures behind the constants"; the fourth session).
pub const READ_AHEAD_EMPTIES: u32 = 6;

/// This move's share of the clock: `left` times its weight over the weights of the side's
/// moves from now (every other ply) down to [`CLOCK_HORIZON`] empties.
pub fn clock_share(left: Duration, empties: u32) -> Duration {
    let mut total = 0.0;
    let mut e = empties;
    while e > CLOCK_HORIZON {
        total += move_weight(e);
        e -= 2;
    }
    if total == 0.0 {
        return left;
    }
    left.mul_f64(move_weight(empties) / total)
}

/// The plan of one search.
pub fn plan(limits: &Limits, side: Color, empties: u32, level: u32, time_share: f64) -> Plan {
    let budget = limits
        .time_budget_with(side, |left| clock_share(left, empties))
        .map(|b| b.mul_f64(time_share));
    // A fixed move time is a hard limit; with a clock, a move whose search is unstable may
    // take up to 2.5 budgets, but never more than a quarter of the clock left.
    let max_hard = budget.map(|b| match (limits.move_time, limits.clock) {
        (None, Some(clock)) => {
            let left = clock.time_left[side.index()].mul_f64(time_share);
            b.mul_f64(2.5).min(left / 4).max(b)
        }
        _ => b,
    });
    let mut p = Plan {
        max_depth: 60,
        solve_empties: 60,
        soft_time: budget.map(|b| b.mul_f64(0.4)),
        // An iteration costs 2-3 times the previous one: start none after 45% of the hard limit.
        max_soft_time: max_hard.map(|h| h.mul_f64(0.45)),
        hard_time: budget,
        max_hard_time: max_hard,
        node_limit: limits.nodes,
        // Only a time limit makes the selective stages pay: they give a move when the exact
        // solve does not finish.
        selective_endgame: budget.is_some(),
    };
    if let Some(d) = limits.depth {
        p.max_depth = d.clamp(1, 60);
        p.solve_empties = if d >= empties { 64 } else { 0 };
    } else if level > 0 {
        p.max_depth = level;
        p.solve_empties = (2 * level).min(60);
    } else if let Some(b) = budget {
        p.solve_empties = solve_empties_for(b);
        if p.selective_endgame {
            p.solve_empties += READ_AHEAD_EMPTIES;
        }
    } else if limits.nodes.is_none() {
        p.max_depth = 12;
        p.solve_empties = 20;
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans() {
        let depth = Limits {
            depth: Some(20),
            ..Limits::default()
        };
        let p = plan(&depth, Color::Black, 20, 0, 0.9);
        assert_eq!((p.max_depth, p.solve_empties, p.hard_time), (20, 64, None));
        let p = plan(&depth, Color::Black, 30, 0, 0.9);
        assert_eq!(p.solve_empties, 0);
        let mt = Limits {
            move_time: Some(Duration::from_millis(1000)),
            ..Limits::default()
        };
        let p = plan(&mt, Color::White, 40, 0, 0.9);
        assert_eq!(p.hard_time, Some(Duration::from_millis(900)));
        assert_eq!(p.soft_time, Some(Duration::from_millis(360)));
        assert_eq!(p.max_soft_time, Some(Duration::from_millis(405)));
        // 0.9 s solves exactly from 18 empties; the selective stages start 6 earlier.
        assert_eq!(p.solve_empties, 18 + READ_AHEAD_EMPTIES);
        let p = plan(&Limits::default(), Color::White, 40, 5, 0.9);
        assert_eq!((p.max_depth, p.solve_empties), (5, 10));
    }

    #[test]
    fn clock_plans_may_extend_but_keep_three_quarters_of_the_clock() {
        let clock = |left_ms: u64| Limits {
            clock: Some(othello_sdk::Clock {
                time_left: [Duration::from_millis(left_ms); 2],
                increment: [Duration::from_millis(50); 2],
            }),
            ..Limits::default()
        };
        // 40 empties: the side's moves at 40, 38, ... 14 weigh 7 x 1 (40-28), 3 x 4 (26-22)
        // and 4 x 0.5 (20-14) = 21; budget (10 s / 21 + 50 ms) * 0.9 = 473.6 ms.
        let p = plan(&clock(10_000), Color::Black, 40, 0, 0.9);
        let budget = Duration::from_micros(473_571);
        let close = |a: Duration, b: Duration| a.abs_diff(b) < Duration::from_millis(1);
        assert!(close(p.soft_time.unwrap(), budget.mul_f64(0.4)));
        // Stable: the budget; unstable: 2.5 budgets = 1.18 s, under a quarter of the clock.
        assert!(close(p.hard_time.unwrap(), budget));
        assert!(close(p.max_hard_time.unwrap(), budget.mul_f64(2.5)));
        // Little time left: the extended limit is a quarter of it, never below the budget.
        // At 36 empties: budget (1 s / 19 + 50 ms) * 0.9 = 92.4 ms, 2.5 budgets 231 ms.
        let p = plan(&clock(1_000), Color::Black, 36, 0, 0.9);
        assert_eq!(p.max_hard_time, Some(Duration::from_millis(225)));
        // At 24 empties the budget (405 ms) is above a quarter of the clock: it stays.
        let p = plan(&clock(1_000), Color::Black, 24, 0, 0.9);
        assert!(close(p.max_hard_time.unwrap(), Duration::from_millis(405)));
        let p = plan(&clock(100), Color::Black, 14, 0, 1.0);
        assert_eq!(p.max_hard_time, Some(Duration::from_millis(50)));
    }

    #[test]
    fn clock_shares_weigh_the_late_midgame_and_never_overspend() {
        let left = Duration::from_secs(10);
        // A move's share is the clock times its weight over the weights of the side's moves
        // from it down to the horizon.
        let mid = clock_share(left, 40).as_secs_f64();
        let total: f64 = (14..=40).step_by(2).map(move_weight).sum();
        assert!((mid - 10.0 / total).abs() < 1e-9);
        assert_eq!(move_weight(26), LATE_WEIGHT);
        assert_eq!(move_weight(LATE_EMPTIES.1 + 1), 1.0);
        assert_eq!(move_weight(LATE_EMPTIES.0), END_WEIGHT);
        // A side spending exactly its shares from any start keeps time to the horizon, and
        // spends more per move in the late midgame than before it.
        for start in [60u32, 45, 31, 22, 13] {
            let mut left = left;
            let mut spent = Vec::new();
            let mut e = start;
            while e > CLOCK_HORIZON {
                let s = clock_share(left, e);
                assert!(
                    s <= left,
                    "{start}: share {s:?} above the {left:?} left at {e}"
                );
                left -= s;
                spent.push((e, s));
                e -= 2;
            }
            // The last counted move takes what is left.
            assert!(left < Duration::from_micros(1), "{start}: {left:?} unspent");
            if start == 60 {
                let at = |x: u32| spent.iter().find(|p| p.0 == x).unwrap().1;
                assert!(at(26) > at(40).mul_f64(LATE_WEIGHT * 0.99));
                assert!(at(16) < at(40));
            }
        }
        // Within the horizon the whole clock is the share (the SDK caps it at half).
        assert_eq!(clock_share(left, 12), left);
    }

    #[test]
    fn instability_extends_the_soft_limit_up_to_the_ceiling() {
        let base = Duration::from_millis(100);
        let ceiling = Duration::from_millis(300);
        assert_eq!(extended_soft(base, ceiling, 0.0, false), base);
        assert_eq!(
            extended_soft(base, ceiling, 1.0, false),
            Duration::from_millis(200)
        );
        assert_eq!(
            extended_soft(base, ceiling, 0.5, true),
            Duration::from_millis(225)
        );
        assert_eq!(extended_soft(base, ceiling, 3.0, true), ceiling);
        // A ceiling below the base never shortens it.
        assert_eq!(extended_soft(base, Duration::ZERO, 2.0, false), base);
    }
}
