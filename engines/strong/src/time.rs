//! Time and strength planning: from the host's limits, the `Level` option and the number of
//! empties to a [`Plan`] (midgame depth, exact-solve threshold, soft and hard time limits).
//!
//! - Host depth limit `d`: midgame depth `d`; exact solve when `d >= empties`.
//! - `Level` L > 0 (Edax-like strength knob): midgame depth L, exact solve at `2 L` empties
//!   or fewer (capped at 60).
//! - Clock: the budget is the SDK's share of the clock with `moves_to_go` the side's moves
//!   until about 12 empties (`max(ceil((empties - 12) / 2), 1)`), because the last moves are
//!   solved fast; times `TimeShare`. The hard limit aborts the search; no new iteration starts
//!   after 40% of it (an iteration costs about 2-3 times the previous one). The exact solve
//!   is tried with the clock when empties <= a threshold growing with the budget (14 empties
//!   under 50 ms up to 26 with a minute); an interrupted solve falls back to the midgame move.
//! - Move time: the same with the fixed time as the budget.
//! - No limit at all: depth 12, solve at 20 empties.
//!
//! The stop flag is polled every [`crate::search::POLL_INTERVAL`] nodes, well under a
//! millisecond.

use crate::search::Plan;
use othello_sdk::board::Color;
use othello_sdk::Limits;
use std::time::Duration;

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

/// The plan of one search.
pub fn plan(limits: &Limits, side: Color, empties: u32, level: u32, time_share: f64) -> Plan {
    let moves_to_go = empties.saturating_sub(12).div_ceil(2).max(1);
    let budget = limits
        .time_budget(side, moves_to_go)
        .map(|b| b.mul_f64(time_share));
    let mut p = Plan {
        max_depth: 60,
        solve_empties: 60,
        soft_time: budget.map(|b| b.mul_f64(0.4)),
        hard_time: budget,
        node_limit: limits.nodes,
    };
    if let Some(d) = limits.depth {
        p.max_depth = d.clamp(1, 60);
        p.solve_empties = if d >= empties { 64 } else { 0 };
    } else if level > 0 {
        p.max_depth = level;
        p.solve_empties = (2 * level).min(60);
    } else if let Some(b) = budget {
        p.solve_empties = solve_empties_for(b);
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
        assert_eq!(p.solve_empties, 18);
        let p = plan(&Limits::default(), Color::White, 40, 5, 0.9);
        assert_eq!((p.max_depth, p.solve_empties), (5, 10));
    }
}
