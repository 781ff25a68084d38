//! What an engine is asked and what it reports, in the harness's own terms.
//!
//! [`SearchLimits`] is what an engine is told about the time or depth it has; [`SearchInfo`] is
//! what it reports while it thinks and with its move. Both are domain types: games, the live
//! view, the front-ends and `solve` use them, and only the worker protocol
//! (`host::protocol`) turns them into wire messages and ABI structs, so the ABI's `LIMIT_*`
//! flags are assembled in exactly one place. The deadlines the coordinator enforces are not
//! here: they are `host::SearchBudget`.

use othello_board::Move;
use std::time::Duration;

/// The limits of one search, as the engine is told them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchLimits {
    /// Game clocks: the time left of [Black, White] and the increment each gets per move.
    Clock {
        left: [Duration; 2],
        increment: [Duration; 2],
    },
    /// A fixed time for this move.
    MoveTime(Duration),
    /// A fixed depth in plies.
    Depth(u32),
    /// A fixed node budget.
    Nodes(u64),
}

/// Live or final search information, as an engine reports it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchInfo {
    pub depth: i32,
    pub selectivity: i32,
    /// Discs, side to move's view.
    pub score: f64,
    pub nodes: u64,
    /// The engine's own measure of its search time.
    pub time_ms: u64,
    /// The principal variation (values that are not moves are left out).
    pub pv: Vec<Move>,
}

impl SearchInfo {
    /// Nodes per second, when the engine reported a time.
    pub fn nps(&self) -> Option<u64> {
        (self.time_ms > 0).then(|| self.nodes.saturating_mul(1000) / self.time_ms)
    }
}
