//! Front-ends: any plugin served over a text protocol on stdin/stdout, so that NBoard or a GTP
//! tool can use it (`harness nboard --engine PLUGIN`, `harness gtp --engine PLUGIN`).
//!
//! Both sessions keep the game in a [`Seat`]: the start position and the moves so far, and
//! the engine hosted in a worker process exactly as in a tournament (a crash costs the session
//! one answer; the next request starts a new worker). Each search sends the whole game (ABI
//! 1.1 `search_game`, the position for 1.0 plugins). Searches are synchronous: a command that
//! arrives during a search is read after the answer, which is what both protocols expect of a
//! GUI (NBoard: wait for `===` or `pong` before sending more; GTP: one command at a time). The
//! one exception is the end of the session: the input is read on a thread of its own
//! ([`Input`]), so `quit`, or the GUI closing the input, ends a search in progress at once (its
//! worker is killed) instead of after it.
//!
//! Limits: `--depth N` or `--move-time S` on the command line fix them for the session; without
//! them NBoard's `set depth` decides, and GTP uses its clocks (`time_settings`, `time_left`) when
//! it has them, else one second per move.

pub mod gtp;
pub mod nboard;

use crate::host::{EngineHost, SearchBudget, WorkerSpec};
use anyhow::Context;
use harness_core::plan::config::{PluginRef, SandboxMode};
use harness_core::search_terms::{SearchInfo, SearchLimits};
use othello_board::{Color, GameHistory, Move, Position};
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What `harness nboard` and `harness gtp` are given.
#[derive(Clone, Debug)]
pub struct FrontendArgs {
    /// A plugin path, or a bare name looked up in `plugin_dir`.
    pub engine: String,
    pub plugin_dir: Option<PathBuf>,
    pub options: Vec<(String, String)>,
    /// Fixed search depth for every move.
    pub depth: Option<u32>,
    /// Fixed time per move, seconds.
    pub move_time: Option<f64>,
    /// How the engine's worker is confined.
    pub sandbox: SandboxMode,
}

/// How long a depth-limited search may run before the session gives up on it.
const DEPTH_SEARCH_TIMEOUT: Duration = Duration::from_secs(24 * 3600);
/// Margin past a time budget before an answer counts as lost.
const MARGIN: Duration = Duration::from_millis(500);

/// The engine's answer to a search.
#[derive(Clone, Debug, PartialEq)]
pub struct Thought {
    pub mv: Move,
    pub info: SearchInfo,
    pub elapsed: Duration,
}

/// The limits of one search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SearchLimit {
    Depth(u32),
    MoveTime(Duration),
    /// Remaining time of [Black, White] and the increment per move.
    Clock {
        left: [Duration; 2],
        increment: Duration,
    },
}

impl SearchLimit {
    /// What the engine is told, and the deadline rule of the session.
    fn limits(self, side: Color) -> (SearchLimits, SearchBudget) {
        match self {
            SearchLimit::Depth(d) => (
                SearchLimits::Depth(d),
                SearchBudget::Stall {
                    timeout: DEPTH_SEARCH_TIMEOUT,
                },
            ),
            SearchLimit::MoveTime(t) => (
                SearchLimits::MoveTime(t),
                SearchBudget::Deadline {
                    budget: t,
                    margin: MARGIN,
                },
            ),
            SearchLimit::Clock { left, increment } => (
                SearchLimits::Clock {
                    left,
                    increment: [increment; 2],
                },
                SearchBudget::Deadline {
                    budget: left[side.index()].max(Duration::from_millis(1)),
                    margin: MARGIN,
                },
            ),
        }
    }
}

/// A `quit` read this soon after the command that started a search was sent with it (a script
/// piping `go` and `quit` together): the search is answered first. A later one ends it.
const QUIT_GAP: Duration = Duration::from_millis(100);

/// The lines of a session's input, read on a thread of its own: a search can then be cut short
/// by `quit` (or by the end of the input) while every other line waits its turn.
pub struct Input {
    lines: std::sync::mpsc::Receiver<(std::io::Result<String>, Instant)>,
    /// When the first quitting line, or the end of the input, was read.
    quit: tokio::sync::watch::Receiver<Option<Instant>>,
}

impl Input {
    /// Read `input` line by line; `is_quit` tells the line that ends the session.
    pub fn start(input: impl BufRead + Send + 'static, is_quit: fn(&str) -> bool) -> Input {
        let (tx, lines) = std::sync::mpsc::channel();
        let (quit_tx, quit) = tokio::sync::watch::channel(None);
        std::thread::spawn(move || {
            let quitting = |at: Instant| {
                quit_tx.send_if_modified(|q| q.is_none() && q.replace(at).is_none());
            };
            for line in input.lines() {
                let at = Instant::now();
                if line.as_deref().map_or(true, is_quit) {
                    quitting(at);
                }
                if tx.send((line, at)).is_err() {
                    return;
                }
            }
            // The end of the input: the GUI is gone.
            quitting(Instant::now());
        });
        Input { lines, quit }
    }

    /// The next line and when it was read, in order; `None` at the end of the input.
    pub fn next_line(&self) -> Option<(std::io::Result<String>, Instant)> {
        self.lines.recv().ok()
    }

    /// Resolves once a quitting line (or the end of the input) arrives later than [`QUIT_GAP`]
    /// after `asked`, when the command of the search was read.
    fn quit_requested(&self, asked: Instant) -> impl std::future::Future<Output = ()> + use<> {
        let mut quit = self.quit.clone();
        async move {
            if quit
                .wait_for(|q| q.is_some_and(|at| at >= asked + QUIT_GAP))
                .await
                .is_err()
            {
                // The reader is gone without a quit: never.
                std::future::pending::<()>().await;
            }
        }
    }
}

/// Why a search gave no move.
#[derive(Debug)]
pub enum ThinkError {
    /// The session is ending (`quit`, or the end of the input, during the search).
    Ending,
    /// The engine or the request failed: the session goes on.
    Failed(String),
}

impl From<String> for ThinkError {
    fn from(message: String) -> ThinkError {
        ThinkError::Failed(message)
    }
}

impl std::fmt::Display for ThinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ThinkError::Ending => f.write_str("search abandoned: the session is ending"),
            ThinkError::Failed(message) => f.write_str(message),
        }
    }
}

/// The game of a session and the engine that plays in it.
pub struct Seat {
    /// The session's runtime: each call to the engine blocks on it.
    runtime: tokio::runtime::Runtime,
    spec: WorkerSpec,
    host: Option<EngineHost>,
    /// The engine's name and version, from its plugin.
    pub name: String,
    pub version: String,
    game: GameHistory,
    position: Position,
    /// A new game began since the engine last searched: tell it before the next search.
    new_game_pending: bool,
    /// Why the last game the GUI sent was refused: until another is accepted there is no game
    /// to search or play in (the previous one is not the GUI's any more).
    refused: Option<String>,
}

impl Seat {
    /// Load the plugin in a worker and set its options; errors end the session before it starts.
    pub fn start(args: &FrontendArgs) -> anyhow::Result<Seat> {
        let plugin = PluginRef::parse(&args.engine, Path::new(""))
            .locate(args.plugin_dir.as_deref())
            .context("cannot find the harness binary's folder")?;
        let spec = WorkerSpec {
            name: args.engine.clone(),
            plugin,
            options: args.options.clone(),
            stderr_log: None,
            memory_limit: None,
            sandbox: crate::tools::confinement(args.sandbox),
            between_turns: crate::host::turns::BetweenTurns::Stopped,
        };
        let runtime = crate::host::session_runtime().context("cannot start the runtime")?;
        let host = runtime.block_on(EngineHost::spawn(&spec))?;
        Ok(Seat {
            runtime,
            name: host.plugin.name.clone(),
            version: host.plugin.version.clone(),
            spec,
            host: Some(host),
            game: GameHistory::new(Position::START),
            position: Position::START,
            new_game_pending: true,
            refused: None,
        })
    }

    pub fn position(&self) -> Position {
        self.position
    }

    pub fn game(&self) -> &GameHistory {
        &self.game
    }

    /// Start over from `start`.
    pub fn new_game(&mut self, start: Position) {
        self.set_game(GameHistory::new(start))
            .expect("a game without moves replays");
        self.new_game_pending = true;
    }

    /// Replace the game (it must replay). A game that continues the current one (same start,
    /// the moves so far as its prefix: what GUIs send before every move) is the same game for
    /// the engine; any other is a new game.
    pub fn set_game(&mut self, game: GameHistory) -> Result<(), String> {
        let position = game.position().map_err(|e| e.to_string())?;
        let continues = game.start == self.game.start && game.moves.starts_with(&self.game.moves);
        if !continues {
            self.new_game_pending = true;
        }
        self.game = game;
        self.position = position;
        self.refused = None;
        Ok(())
    }

    /// The GUI's last game was refused (`reason`): searching or playing is an error until
    /// another game is accepted.
    pub fn refuse_game(&mut self, reason: &str) {
        self.refused = Some(reason.to_string());
    }

    /// An error while the last game sent was refused.
    fn check_game(&self) -> Result<(), String> {
        match &self.refused {
            Some(reason) => Err(format!(
                "no game: the last one sent was refused ({reason}); send another"
            )),
            None => Ok(()),
        }
    }

    /// Play `mv` for the side to move; a pass is inserted first when that side has no move and
    /// `mv` is not a pass.
    pub fn play(&mut self, mv: Move) -> Result<(), String> {
        self.check_game()?;
        if self.position.is_game_over() {
            return Err("the game is over".to_string());
        }
        if self.position.must_pass() && !mv.is_pass() {
            self.position = self.position.play(Move::PASS).expect("forced pass");
            self.game.moves.push(Move::PASS);
        }
        self.position = self
            .position
            .play(mv)
            .map_err(|_| format!("illegal move {mv}"))?;
        self.game.moves.push(mv);
        Ok(())
    }

    /// Take back the last move (and a pass before it); false when there is none.
    pub fn undo(&mut self) -> bool {
        let Some(_) = self.game.moves.pop() else {
            return false;
        };
        if self.game.moves.last() == Some(&Move::PASS) {
            self.game.moves.pop();
        }
        self.position = self
            .game
            .position()
            .expect("a prefix of a legal game replays");
        true
    }

    /// Ask the engine for a move in the current position (not played). A forced pass is
    /// answered without asking; a finished game is an error. The session's end (`quit` read
    /// from `input` after the command `asked` at) abandons the search: its worker is killed.
    pub fn think(
        &mut self,
        limit: SearchLimit,
        input: &Input,
        asked: Instant,
    ) -> Result<Thought, ThinkError> {
        self.check_game()?;
        if self.position.is_game_over() {
            return Err(ThinkError::Failed("the game is over".to_string()));
        }
        if self.position.must_pass() {
            return Ok(Thought {
                mv: Move::PASS,
                info: SearchInfo::default(),
                elapsed: Duration::ZERO,
            });
        }
        let mut host = match self.host.take() {
            Some(h) if h.is_alive() => h,
            _ => {
                self.new_game_pending = true;
                self.runtime
                    .block_on(EngineHost::spawn(&self.spec))
                    .map_err(|e| e.to_string())?
            }
        };
        if self.new_game_pending {
            self.runtime
                .block_on(host.new_game())
                .map_err(|e| e.to_string())?;
            self.new_game_pending = false;
        }
        let (limits, budget) = limit.limits(self.position.side_to_move);
        let reply = self
            .runtime
            .block_on(host.search(
                &self.game,
                &limits,
                budget,
                |_| {},
                input.quit_requested(asked),
            ))
            .map_err(|e| match e {
                crate::host::HostError::Interrupted { .. } => ThinkError::Ending,
                e => ThinkError::Failed(e.to_string()),
            });
        if host.is_alive() {
            self.host = Some(host);
        }
        let reply = reply?;
        let mv = Move::from_wire(reply.mv as i64)
            .filter(|m| self.position.is_legal(*m))
            .ok_or_else(|| {
                ThinkError::Failed(format!(
                    "the engine answered an illegal move (value {})",
                    reply.mv
                ))
            })?;
        Ok(Thought {
            mv,
            info: reply.info,
            elapsed: reply.elapsed,
        })
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        if let Some(h) = self.host.take() {
            self.runtime.block_on(h.shutdown());
        }
    }
}

/// Move text as both protocols write it: `F5`, or `PA` / `pass` for a pass.
fn move_text(mv: Move, pass: &str) -> String {
    if mv.is_pass() {
        pass.to_string()
    } else {
        mv.to_string().to_uppercase()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_are_written_in_capitals_and_passes_as_each_protocol_wants() {
        assert_eq!(move_text("f5".parse().unwrap(), "PA"), "F5");
        assert_eq!(move_text(Move::PASS, "PA"), "PA");
        assert_eq!(move_text(Move::PASS, "pass"), "pass");
    }

    /// What the engine is told, and the session's deadline: a depth has only the (day-long)
    /// stall timeout; a move time is the budget; a clock gives both sides' time and the
    /// increment, and the budget is the side's own time left, at least a millisecond.
    #[test]
    fn each_limit_is_told_and_enforced() {
        let ms = Duration::from_millis;
        assert_eq!(
            SearchLimit::Depth(7).limits(Color::Black),
            (
                SearchLimits::Depth(7),
                SearchBudget::Stall {
                    timeout: DEPTH_SEARCH_TIMEOUT
                }
            )
        );
        assert_eq!(
            SearchLimit::MoveTime(ms(250)).limits(Color::White),
            (
                SearchLimits::MoveTime(ms(250)),
                SearchBudget::Deadline {
                    budget: ms(250),
                    margin: MARGIN
                }
            )
        );
        let clock = SearchLimit::Clock {
            left: [ms(9000), Duration::ZERO],
            increment: ms(100),
        };
        let told = SearchLimits::Clock {
            left: [ms(9000), Duration::ZERO],
            increment: [ms(100); 2],
        };
        for (side, budget) in [(Color::Black, ms(9000)), (Color::White, ms(1))] {
            assert_eq!(
                clock.limits(side),
                (
                    told,
                    SearchBudget::Deadline {
                        budget,
                        margin: MARGIN
                    }
                ),
                "{side:?}"
            );
        }
    }
}
