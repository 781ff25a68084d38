//! Safe Rust side of the engine plugin ABI.
//!
//! An engine implements [`Engine`]; `export_engine!(MyEngine)` exports the ABI entry point
//! `othello_engine_v1` for it. The SDK owns every `unsafe` detail of the plugin side
//! (module `shim`): it converts the C structs to [`SearchRequest`], checks option values against
//! the [`OptionSpec`]s the engine declares before the engine sees them, gives the engine a
//! [`SearchContext`] for the stop flag and the info callback, and catches every panic at the
//! boundary (status `OE_PANIC`, message in `last_error`). Engines therefore contain no `unsafe`.

mod options;
mod shim;

pub use options::{OptionKind, OptionSpec, OptionValue};
pub use othello_abi as abi;
pub use othello_board as board;
#[doc(hidden)]
pub use shim::ApiTable;

use othello_board::{Color, GameHistory, Move, Position};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// Static facts about an engine.
#[derive(Clone, Debug)]
pub struct Metadata {
    pub name: &'static str,
    pub version: &'static str,
    pub author: &'static str,
}

/// An engine. One value of the type is one instance: the host may create several (for both
/// sides of a game) and call them from different threads, but never one instance from two
/// threads at once.
pub trait Engine: Send + Sized + 'static {
    /// Name, version, author.
    fn metadata() -> Metadata;

    /// The options the engine accepts. `set_option` is only called with a declared name and a
    /// value already checked against its kind and range.
    fn options() -> Vec<OptionSpec> {
        Vec::new()
    }

    /// A new instance with default options.
    fn new() -> Self;

    /// Set an option (already validated). Return an error for combinations the engine refuses.
    fn set_option(&mut self, name: &str, value: &OptionValue) -> Result<(), String> {
        let _ = value;
        Err(format!("option {name} is declared but not handled"))
    }

    /// A new game starts: forget game-specific state.
    fn new_game(&mut self) {}

    /// What the SDK calls when a game starts. Engines that need something outside themselves
    /// to play (a bridge that starts another program, say) override this: an `Err` becomes
    /// the status `OE_ERROR` with the message in `last_error`, so the host learns before the
    /// first search that the engine cannot play. The default calls [`Engine::new_game`].
    fn try_new_game(&mut self) -> Result<(), String> {
        self.new_game();
        Ok(())
    }

    /// Choose a move in `request.position` (never a finished game). Must return a legal move,
    /// `Move::PASS` exactly when there is none. Poll `ctx.stopped()` and return promptly once it
    /// is true.
    fn search(&mut self, request: &SearchRequest, ctx: &SearchContext) -> SearchOutcome;

    /// What the SDK calls for a search. Engines whose search can fail without a bug (a bridge
    /// to another program that died, say) override this: an `Err` becomes the status
    /// `OE_ERROR` with the message in `last_error`, so the host records an engine error with
    /// that reason. The default calls [`Engine::search`].
    fn try_search(
        &mut self,
        request: &SearchRequest,
        ctx: &SearchContext,
    ) -> Result<SearchOutcome, String> {
        Ok(self.search(request, ctx))
    }
}

/// The clocks of a game with base time and increment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Remaining time of [Black, White].
    pub time_left: [Duration; 2],
    /// Increment per move of [Black, White].
    pub increment: [Duration; 2],
}

/// The limits of one search; any combination may be set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub clock: Option<Clock>,
    pub move_time: Option<Duration>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
}

impl Limits {
    /// The time the engine may spend on this move: the fixed move time if set, otherwise a
    /// share of the side's clock (`left / moves_to_go + increment`, at most half the clock),
    /// otherwise `None` (no time limit).
    pub fn time_budget(&self, side: Color, moves_to_go: u32) -> Option<Duration> {
        self.time_budget_with(side, |left| left / moves_to_go.max(1))
    }

    /// [`Limits::time_budget`] with the engine's own share of the clock: the fixed move time
    /// if set, otherwise `share(time left) + increment`, at most half the clock and at least
    /// a millisecond, otherwise `None`. For engines that weigh their moves unevenly.
    pub fn time_budget_with(
        &self,
        side: Color,
        share: impl FnOnce(Duration) -> Duration,
    ) -> Option<Duration> {
        if let Some(t) = self.move_time {
            return Some(t);
        }
        let clock = self.clock?;
        let left = clock.time_left[side.index()];
        let inc = clock.increment[side.index()];
        Some(
            (share(left) + inc)
                .min(left / 2)
                .max(Duration::from_millis(1)),
        )
    }
}

/// What the host asks for.
#[derive(Clone, Debug)]
pub struct SearchRequest {
    pub position: Position,
    pub limits: Limits,
    /// The game that led to `position`, from hosts of ABI 1.1 (`search_game`); `None` from a
    /// 1.0 host or a caller that only knows the position.
    pub game: Option<GameHistory>,
}

impl SearchRequest {
    /// A request for a position alone.
    pub fn new(position: Position, limits: Limits) -> SearchRequest {
        SearchRequest {
            position,
            limits,
            game: None,
        }
    }
}

/// Live information about a running search.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchInfo {
    /// Completed nominal depth.
    pub depth: u32,
    /// Percent; 100 = no selective pruning.
    pub selectivity: u32,
    /// Discs, side to move's view.
    pub score: f64,
    pub nodes: u64,
    pub pv: Vec<Move>,
}

/// The engine's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchOutcome {
    pub mv: Move,
    pub info: SearchInfo,
}

/// What a running search can ask of the host: whether to stop, and where to report.
/// It is `Sync`: helper threads of the engine may poll and report too.
pub struct SearchContext<'a> {
    stop: &'a AtomicU32,
    started: Instant,
    reporter: Option<shim::Reporter>,
}

impl<'a> SearchContext<'a> {
    /// Whether the host asked the search to stop.
    #[inline]
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed) != 0
    }

    /// Time since the search started.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Send live search info to the host (never blocks).
    pub fn report(&self, info: &SearchInfo) {
        if let Some(r) = &self.reporter {
            r.send(&shim::to_abi_info(info, self.elapsed()));
        }
    }

    /// A context for calling an engine directly, without the ABI (tests, benchmarks).
    pub fn detached(stop: &'a AtomicU32) -> SearchContext<'a> {
        SearchContext {
            stop,
            started: Instant::now(),
            reporter: None,
        }
    }
}

/// Export `$engine` (a type implementing [`Engine`]) as this library's plugin entry point,
/// `othello_engine_v1`. Use once per `cdylib` crate.
#[macro_export]
macro_rules! export_engine {
    ($engine:ty) => {
        /// The plugin entry point of ABI major version 1.
        #[no_mangle]
        pub extern "C" fn othello_engine_v1() -> *const $crate::abi::EngineApi {
            static TABLE: ::std::sync::OnceLock<$crate::ApiTable> = ::std::sync::OnceLock::new();
            match ::std::panic::catch_unwind(|| {
                TABLE.get_or_init($crate::ApiTable::new::<$engine>).api()
            }) {
                Ok(api) => api,
                Err(_) => ::std::ptr::null(),
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_budgets_share_the_clock_capped_at_half_of_it() {
        let ms = Duration::from_millis;
        let clock = |left: u64, inc: u64| Limits {
            clock: Some(Clock {
                time_left: [ms(left), ms(2 * left)],
                increment: [ms(inc); 2],
            }),
            ..Limits::default()
        };
        // 10 s / 20 moves + 100 ms; White has twice the time.
        assert_eq!(
            clock(10_000, 100).time_budget(Color::Black, 20),
            Some(ms(600))
        );
        assert_eq!(
            clock(10_000, 100).time_budget(Color::White, 20),
            Some(ms(1_100))
        );
        // An engine's own share, plus the increment, never above half the clock nor below 1 ms.
        let l = clock(10_000, 100);
        assert_eq!(l.time_budget_with(Color::Black, |t| t / 4), Some(ms(2_600)));
        assert_eq!(l.time_budget_with(Color::Black, |t| t), Some(ms(5_000)));
        let l = clock(0, 0);
        assert_eq!(l.time_budget_with(Color::Black, |t| t), Some(ms(1)));
        // A fixed move time wins over the clock; no limit, no budget.
        let l = Limits {
            move_time: Some(ms(250)),
            ..clock(10_000, 100)
        };
        assert_eq!(l.time_budget(Color::Black, 20), Some(ms(250)));
        assert_eq!(
            Limits::default().time_budget_with(Color::Black, |t| t),
            None
        );
    }
}
