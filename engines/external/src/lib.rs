//! External: a plugin that plays by asking another program, over the NBoard protocol or GTP.
//!
//! It lets the harness measure engines against the programs the Othello world already trusts
//! (Edax, Egaroucid, NTest, Zebra…): they run as child processes of the worker that hosts this
//! plugin, so a program that dies, hangs or answers nonsense is an engine fault like any other
//! (the search returns an error, or the host's clock forfeits the game), and the next game
//! starts it again.
//!
//! Options:
//! - `Command`: the program and its arguments, split with shell quoting rules (no shell runs);
//! - `Protocol`: `nboard` (default) or `gtp`;
//! - `WorkingDir`: the program's working folder (default: the worker's);
//! - `StartupTimeout`: seconds the program has to answer its first command (default 10; the
//!   program starts when a game begins, and the host waits at most 30 s for that);
//! - `NBoardVersion`: the version sent in `nboard N` (default 2; Edax wants 1);
//! - `Depth`: NBoard `set depth` (0 = the host's depth limit if it gives one, else 10);
//! - `SendGame`: NBoard `set game` with the whole game (default) or only the current position.
//!
//! Each search gets the game so far from ABI 1.1 hosts (and the position alone from 1.0 hosts):
//! NBoard receives it with `set game`, GTP by `clear_board` and `play` of every move (see
//! [`nboard`] and [`gtp`] for what each protocol can and cannot do about time and stopping).

pub mod gtp;
pub mod nboard;
pub mod program;
// What differs between systems, one file per system family.
#[cfg_attr(unix, path = "system/unix.rs")]
#[cfg_attr(windows, path = "system/windows.rs")]
mod system;

use gtp::GtpSession;
use nboard::NboardSession;
use othello_sdk::board::{write_ggf, GameHistory};
use othello_sdk::{
    Engine, Metadata, OptionSpec, OptionValue, SearchContext, SearchInfo, SearchOutcome,
    SearchRequest,
};
use program::Program;
use std::time::Duration;

/// NBoard depth when neither the `Depth` option nor the host gives one.
const DEFAULT_DEPTH: u32 = 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Protocol {
    Nboard,
    Gtp,
}

enum Session {
    Nboard(NboardSession),
    Gtp(GtpSession),
}

impl Session {
    fn is_running(&mut self) -> bool {
        match self {
            Session::Nboard(s) => s.is_running(),
            Session::Gtp(s) => s.is_running(),
        }
    }
}

/// The plugin's instance: its options and the running program, if any.
pub struct External {
    command: String,
    protocol: Protocol,
    working_dir: String,
    startup_timeout: Duration,
    nboard_version: u32,
    depth: u32,
    send_game: bool,
    session: Option<Session>,
}

impl External {
    /// The running session, started (again) if there is none or its program died.
    fn session(&mut self) -> Result<&mut Session, String> {
        if let Some(s) = &mut self.session {
            if !s.is_running() {
                self.session = None;
            }
        }
        if self.session.is_none() {
            if self.command.trim().is_empty() {
                return Err("the `Command` option is empty: name the program to run".to_string());
            }
            let program = Program::start(&self.command, &self.working_dir)?;
            self.session = Some(match self.protocol {
                Protocol::Nboard => Session::Nboard(NboardSession::start(
                    program,
                    self.nboard_version,
                    self.startup_timeout,
                )?),
                Protocol::Gtp => Session::Gtp(GtpSession::start(program, self.startup_timeout)?),
            });
        }
        Ok(self.session.as_mut().expect("just set"))
    }

    fn ask(
        &mut self,
        request: &SearchRequest,
        ctx: &SearchContext,
    ) -> Result<SearchOutcome, String> {
        let game = request
            .game
            .clone()
            .unwrap_or_else(|| GameHistory::new(request.position));
        let side = request.position.side_to_move;
        let depth = match (self.depth, request.limits.depth) {
            (0, Some(d)) => d.max(1),
            (0, None) => DEFAULT_DEPTH,
            (d, _) => d,
        };
        let send_game = self.send_game;
        // When the host raises its stop flag: at the end of the move time or of the side's
        // clock, counted from the start of the search (depth and node searches are never
        // stopped, only abandoned).
        let budget = request
            .limits
            .move_time
            .or_else(|| request.limits.clock.map(|c| c.time_left[side.index()]));
        let stop_at = budget.map(|b| std::time::Instant::now() + b.saturating_sub(ctx.elapsed()));
        let (mv, eval, reported_depth) = match self.session()? {
            Session::Nboard(s) => {
                let ggf = if send_game {
                    write_ggf(&game)
                } else {
                    write_ggf(&GameHistory::new(request.position))
                };
                let answer = s.search(&ggf, depth, stop_at)?;
                // `set depth` is a request the program may not follow (a fixed level, an
                // aborted search); NBoard's answer does not say what it searched: unknown.
                (answer.mv, answer.eval, 0)
            }
            Session::Gtp(s) => (s.search(&game, side, &request.limits)?, None, 0),
        };
        Ok(SearchOutcome {
            mv,
            info: SearchInfo {
                depth: reported_depth,
                selectivity: 100,
                score: eval.unwrap_or(0.0),
                nodes: 0,
                pv: vec![mv],
            },
        })
    }
}

impl Engine for External {
    fn metadata() -> Metadata {
        Metadata {
            name: "External",
            version: env!("CARGO_PKG_VERSION"),
            author: "othello-arena",
        }
    }

    fn options() -> Vec<OptionSpec> {
        vec![
            OptionSpec::string(
                "Command",
                "",
                "the program and its arguments (shell quoting, no shell)",
            ),
            OptionSpec::enumeration(
                "Protocol",
                "nboard",
                &["nboard", "gtp"],
                "what the program speaks",
            ),
            OptionSpec::string(
                "WorkingDir",
                "",
                "the program's working folder (empty: the worker's)",
            ),
            OptionSpec::float(
                "StartupTimeout",
                10.0,
                0.1,
                600.0,
                "seconds to answer the first command",
            ),
            OptionSpec::int("NBoardVersion", 2, 1, 2, "version in `nboard N` (Edax: 1)"),
            OptionSpec::int(
                "Depth",
                0,
                0,
                60,
                "NBoard `set depth`; 0 = the host's depth limit, else 10",
            ),
            OptionSpec::bool(
                "SendGame",
                true,
                "NBoard: send the whole game (else the position only)",
            ),
        ]
    }

    fn new() -> Self {
        External {
            command: String::new(),
            protocol: Protocol::Nboard,
            working_dir: String::new(),
            startup_timeout: Duration::from_secs(10),
            nboard_version: 2,
            depth: 0,
            send_game: true,
            session: None,
        }
    }

    fn set_option(&mut self, name: &str, value: &OptionValue) -> Result<(), String> {
        match (name, value) {
            ("Command", OptionValue::String(s)) => self.command = s.clone(),
            ("Protocol", OptionValue::Enum(s)) => {
                self.protocol = if *s == "gtp" {
                    Protocol::Gtp
                } else {
                    Protocol::Nboard
                }
            }
            ("WorkingDir", OptionValue::String(s)) => self.working_dir = s.clone(),
            ("StartupTimeout", OptionValue::Float(f)) => {
                self.startup_timeout = Duration::from_secs_f64(*f)
            }
            ("NBoardVersion", OptionValue::Int(v)) => self.nboard_version = *v as u32,
            ("Depth", OptionValue::Int(d)) => self.depth = *d as u32,
            ("SendGame", OptionValue::Bool(b)) => self.send_game = *b,
            _ => return Err(format!("option {name}: unexpected value {value:?}")),
        }
        // The program is (re)started with the new settings at the next search.
        self.session = None;
        Ok(())
    }

    fn new_game(&mut self) {
        if let Some(Session::Gtp(s)) = &mut self.session {
            s.new_game();
        }
    }

    /// A game starts: the program is started (again, if it died) and its handshake done here,
    /// so that a program that cannot start (a `Command` that names no program, a script that
    /// is missing, an interpreter that fails on it, no answer within `StartupTimeout`) is an
    /// error of the game's start, which the host does not count as a result, rather than a
    /// forfeit at the first search. A program that starts and then fails during a search
    /// forfeits that game.
    fn try_new_game(&mut self) -> Result<(), String> {
        if self.session.is_none() {
            if self.command.trim().is_empty() {
                return Err("the `Command` option is empty: name the program to run".to_string());
            }
            Program::check(&self.command, &self.working_dir)?;
        }
        if let Err(e) = self.session() {
            self.session = None;
            return Err(e);
        }
        self.new_game();
        Ok(())
    }

    fn search(&mut self, request: &SearchRequest, ctx: &SearchContext) -> SearchOutcome {
        match self.ask(request, ctx) {
            Ok(outcome) => outcome,
            Err(message) => panic!("{message}"),
        }
    }

    fn try_search(
        &mut self,
        request: &SearchRequest,
        ctx: &SearchContext,
    ) -> Result<SearchOutcome, String> {
        let result = self.ask(request, ctx);
        if result.is_err() {
            // Whatever state the program is in, the next search starts a fresh one.
            self.session = None;
        }
        result
    }
}

othello_sdk::export_engine!(External);
