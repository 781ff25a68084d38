//! The coordinator's event stream: what a live view (the terminal UI) needs to show a running
//! tournament, and the small set of controls such a view may send back.
//!
//! Events flow one way, from the coordinator to observers; an observer that falls behind or
//! goes away never slows or stops the games (events go over an unbounded channel and send
//! errors are ignored). The controls only pause, resume or stop the *scheduling* of games; no
//! observer can touch a game in progress, and every finished game still reaches the journal.

use crate::record::GameRecord;
use crate::search_terms::SearchInfo;
use othello_board::{Color, Move, Position};
use std::sync::mpsc::Sender;
use std::time::Duration;

/// Each side's remaining clock, [Black, White]: `None` for a side that plays without one
/// (fixed time per move, depth or nodes), so a game where only one engine has a clock shows it.
pub type SideClocks = [Option<Duration>; 2];

/// Something that happened in the run.
#[derive(Clone, Debug)]
pub enum Event {
    /// The run starts: the schedule is known.
    RunStarted {
        /// Engine display names, in tournament order.
        engines: Vec<String>,
        /// Games in the schedule, and how many of them were already played (resume).
        total_games: usize,
        already_played: Vec<GameRecord>,
        /// The time control as text (`10s+0.1s`, `depth 6`, …).
        time_control: String,
        /// Engine-vs-engine SPRT bounds etc. are derived by observers from the records and the
        /// tournament; here only whether a test runs.
        sprt: Option<crate::stats::sprt::SprtParams>,
        /// The run's time when this was sent: its earlier sessions' and this session's start
        /// (`record::run_clock`); a view adds its own clock from here.
        elapsed_before: std::time::Duration,
    },
    /// A game begins (after the opening moves, which are `book`).
    GameStarted {
        game: usize,
        pair: usize,
        black: String,
        white: String,
        opening: String,
        start: Position,
        book: Vec<Move>,
        /// Remaining clock of [Black, White]; `None` for a side without a clock.
        clocks: SideClocks,
    },
    /// An engine reports live search information for the move it is thinking about.
    Thinking {
        game: usize,
        color: Color,
        info: SearchInfo,
    },
    /// A move was played (forced passes included, with `by_engine == false`).
    Moved {
        game: usize,
        color: Color,
        mv: Move,
        by_engine: bool,
        /// The engine's last report for this move.
        info: Option<SearchInfo>,
        time_ms: u64,
        /// Remaining clocks after the move; `None` for a side without a clock.
        clocks: SideClocks,
    },
    /// A game ended; the record is already in the journal.
    GameFinished { record: Box<GameRecord> },
    /// A tune's θ after `applied` of its `iterations` (`harness tune`: at its start and after
    /// every update), each parameter's name and value in the tune's order.
    Tuned {
        applied: u64,
        iterations: u64,
        theta: Vec<(String, f64)>,
    },
    /// Scheduling state changed (paused, resumed, stopping).
    Control(ControlState),
    /// The run is over (all games played, or stopped).
    RunFinished,
}

/// Where events go: channels (the terminal view, the browser view), or nowhere.
#[derive(Clone, Default)]
pub struct EventSink(Vec<Sender<Event>>);

impl EventSink {
    pub fn new(tx: Sender<Event>) -> EventSink {
        EventSink(vec![tx])
    }

    /// A sink that drops everything.
    pub fn none() -> EventSink {
        EventSink(Vec::new())
    }

    /// This sink, and `tx` too.
    pub fn and(mut self, tx: Option<Sender<Event>>) -> EventSink {
        self.0.extend(tx);
        self
    }

    pub fn is_active(&self) -> bool {
        !self.0.is_empty()
    }

    /// Send, ignoring an observer that went away.
    pub fn send(&self, event: Event) {
        if let Some((last, others)) = self.0.split_last() {
            for tx in others {
                let _ = tx.send(event.clone());
            }
            let _ = last.send(event);
        }
    }
}

/// The scheduling state a live view may set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ControlState {
    /// Games are started as usual.
    Running,
    /// No new game is started; games in flight finish.
    Paused,
    /// No new game is started; the run ends when the games in flight have finished.
    Finishing,
    /// Games in flight are abandoned (their workers are killed, they are not recorded); the
    /// journal keeps every finished game, and a later run resumes the rest.
    Stopping,
}

/// Shared scheduling control: written by a live view or a signal, read and awaited by the
/// coordinator and its games. It is a `tokio::sync::watch` cell, so a change reaches every
/// waiting game at once (a search races its deadline and the answer against
/// [`RunControl::stopping`]); it is also readable and writable from plain threads (the live
/// view's).
#[derive(Debug)]
pub struct RunControl(tokio::sync::watch::Sender<ControlState>);

impl Default for RunControl {
    fn default() -> RunControl {
        RunControl::new()
    }
}

impl ControlState {
    /// The order in which states may follow one another: the last two are final.
    fn rank(self) -> u8 {
        match self {
            ControlState::Running | ControlState::Paused => 0,
            ControlState::Finishing => 1,
            ControlState::Stopping => 2,
        }
    }
}

impl RunControl {
    pub fn new() -> RunControl {
        RunControl(tokio::sync::watch::Sender::new(ControlState::Running))
    }

    pub fn get(&self) -> ControlState {
        *self.0.borrow()
    }

    /// Set a state. `Finishing` and `Stopping` are final: a later `Running` or `Paused` is
    /// ignored, and `Stopping` overrides `Finishing`.
    pub fn set(&self, state: ControlState) {
        self.0.send_if_modified(|old| {
            if state.rank() < old.rank() || *old == state {
                false
            } else {
                *old = state;
                true
            }
        });
    }

    /// A receiver that is told of every change (for the coordinator's loop).
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<ControlState> {
        self.0.subscribe()
    }

    /// Resolves when the run is being stopped (at once if it already is).
    pub async fn stopping(&self) {
        let mut rx = self.0.subscribe();
        // The sender lives as long as `self`, so the wait cannot fail.
        let _ = rx.wait_for(|s| *s == ControlState::Stopping).await;
    }
}
