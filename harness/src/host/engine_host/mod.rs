//! The coordinator's handle on one worker process: [`EngineHost`].
//!
//! The coordinator owns the clocks. [`EngineHost::search`] sends a position, forwards live info,
//! raises the stop flag (through the protocol) when the budget is spent, and gives up with a
//! time forfeit when the answer is later than the budget plus the margin, or with a stall when
//! an unbounded (depth or node limited) search does not answer within the stall timeout. A dead
//! worker is reported with its exit status or signal. After any of these errors the host is dead
//! ([`EngineHost::is_alive`] is false) and the caller spawns a new one.
//!
//! Everything here is async and runs on the coordinator's tokio runtime: the worker is a
//! `tokio::process` child (killed when its host is dropped), a reader task turns the socket's
//! lines into events stamped with their arrival time, and every wait is a `select!` of the
//! answer, the deadline (`sleep_until`) and the caller's interruption future. Nothing polls.
//!
//! Each worker leads its own process group; killing a worker kills the group, so what its
//! plugin started (an external program, and anything that program started) goes with it. A
//! sandboxed worker is also held by cgroups the coordinator made for it
//! ([`sandbox::cgroup::WorkerCgroup`]): ending the worker ends everything in them, whatever
//! sessions or groups the plugin made.
//!
//! The worker's channel is one end of a socket pair, handed over as its standard input; the
//! coordinator reads it through a bounded queue, one message of at most
//! [`protocol::MAX_FRAME`] bytes at a time, at most one info report per [`INFO_INTERVAL`], and
//! with every string made printable ([`crate::host::engine_text`]): what a worker sends cannot
//! grow the coordinator's memory, and what it says of paths or processes is not believed.

mod start;

pub use start::WorkerSpec;

use super::plugin::PluginInfo;
use super::protocol::{self, Reply, Request, WireGame, WireInfo};
use super::sandbox::{self, cgroup::WorkerCgroup, scratch::Scratch, Enforced};
use super::system;
use super::turns::TurnGate;
use harness_core::record::TimeLoss;
use harness_core::search_terms::{SearchInfo, SearchLimits};
use othello_board::{GameHistory, Position};
use std::future::Future;
use std::hash::BuildHasher;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::{Duration, Instant};
use tokio::io::BufReader;
use tokio::process::Child;
use tokio::sync::mpsc::{error::TryRecvError, Receiver, Sender};
use tokio::task::JoinHandle;

/// FFO #1 and its exact value (Black to move): the position [`EngineHost::prove_exact`] asks.
const EXACT_PROOF: (&str, i32) = (
    "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X",
    18,
);

/// How long a worker may take to start, load its plugin and create the instance.
pub const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// The longest the pre-flight's move may take under a clock or a move time: what a run asks
/// of every engine before its first game (`play::preflight`) and `harness check`'s first item.
pub const PREFLIGHT_MOVE_TIME: Duration = Duration::from_millis(100);
/// How long `set_option` and `new_game` may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a worker asked to quit may take before it is killed.
const QUIT_GRACE: Duration = Duration::from_secs(3);
/// How long a worker whose connection closed may take to be reaped (for its exit status).
const EXIT_GRACE: Duration = Duration::from_secs(2);
/// How long the copy of a gone worker's stderr may take to reach the end of its pipe.
const LOG_DRAIN: Duration = Duration::from_secs(1);
/// The most messages read from a worker and not yet taken by the coordinator: past it the
/// reader stops reading, and the worker's writes wait.
const EVENT_QUEUE: usize = 64;
/// How often a sandboxed worker's disk use is looked at: every interval while it searches,
/// and at the start and end of a search when the last look is older than that; also at the
/// end of any search of at least [`DISK_CHECK_SEARCH`]. A look walks the scratch folder: at
/// every move of a depth-2 game it cost a tenth of the games per second
/// (`cargo bench -p harness --bench sandbox`).
const DISK_CHECK_INTERVAL: Duration = Duration::from_millis(250);
/// A search at least this long is followed by a look at the disk (writing a few MiB takes
/// longer than this, so a plugin cannot fill its folder in searches shorter than the look).
const DISK_CHECK_SEARCH: Duration = Duration::from_millis(2);
/// At most one info report per this interval is taken from a worker; the others are dropped
/// as they arrive (the worker coalesces its engine's reports at this rate too, but a plugin
/// runs in the worker's process and could write to the channel itself).
pub const INFO_INTERVAL: Duration = Duration::from_millis(10);

/// What went wrong with a worker. Every variant but `Spawn`, `Load` and `Option` happens during a
/// game and costs the engine that game.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HostError {
    #[error("engine `{engine}`: cannot start a worker: {message}")]
    Spawn { engine: String, message: String },
    #[error("engine `{engine}`: {message}")]
    Load { engine: String, message: String },
    #[error("engine `{engine}`: {message}")]
    Option { engine: String, message: String },
    #[error("engine `{engine}` crashed: {detail}")]
    Crashed { engine: String, detail: String },
    #[error(
        "engine `{engine}` lost on time: no answer within its budget of {} ms + margin {} ms ({} ms used)",
        .loss.budget_ms,
        .loss.margin_ms,
        .loss.used_ms
    )]
    TimeForfeit { engine: String, loss: TimeLoss },
    #[error("engine `{engine}` stalled: no answer within {waited_ms} ms")]
    Stalled { engine: String, waited_ms: u64 },
    #[error("engine `{engine}` reported an error: {message}")]
    EngineError { engine: String, message: String },
    #[error("engine `{engine}`: search abandoned because the run is stopping")]
    Interrupted { engine: String },
    #[error("engine `{engine}` broke the protocol: {message}")]
    Protocol { engine: String, message: String },
}

/// The time rules of one search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchBudget {
    /// Raise the stop flag after `budget`; a reply later than `budget + margin` forfeits.
    Deadline { budget: Duration, margin: Duration },
    /// No time budget (depth or node limits): an answer must come within `timeout`.
    Stall { timeout: Duration },
}

impl SearchBudget {
    /// When the engine is told to stop (`None`: never, it searches to its limit).
    pub fn stop_after(self) -> Option<Duration> {
        match self {
            SearchBudget::Deadline { budget, .. } => Some(budget),
            SearchBudget::Stall { .. } => None,
        }
    }

    /// When the coordinator stops waiting: at budget + margin the engine has lost on time; at
    /// the stall timeout it has stalled.
    pub fn forfeit_after(self) -> Duration {
        match self {
            SearchBudget::Deadline { budget, margin } => budget + margin,
            SearchBudget::Stall { timeout } => timeout,
        }
    }

    /// Whether an answer that came `elapsed` after the request lost on time (later than budget
    /// + margin). An answer to a search without a budget is never late.
    pub fn forfeits(self, elapsed: Duration) -> bool {
        matches!(self, SearchBudget::Deadline { .. }) && elapsed > self.forfeit_after()
    }
}

/// An engine's answer to a search.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveReply {
    /// The raw move value; the caller checks it against the rules.
    pub mv: i32,
    pub info: SearchInfo,
    /// Wall time from sending the request to receiving the answer, measured by the coordinator.
    pub elapsed: Duration,
}

/// An exact solve's answer ([`EngineHost::solve_exactly`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExactAnswer {
    /// The exact value from Black's view: the final disc difference under perfect play.
    pub value: i32,
    /// A best move of the side to move (none when it must pass).
    pub best: Option<othello_board::Move>,
    pub nodes: u64,
    pub elapsed: Duration,
}

/// A search as it was asked: its number, its token, when its clock started, its budget.
#[derive(Clone, Copy)]
struct Asked {
    search: u64,
    token: u64,
    started: Instant,
    budget: SearchBudget,
}

/// What the reader task passes on.
enum Event {
    /// A reply and the moment the reader task received it (deadlines are judged by arrival,
    /// not by when the game's task got round to it).
    Reply(Reply, Instant),
    Garbage(String),
    Closed,
}

/// What a wait for the worker ended with.
enum Waited {
    Event(Event),
    /// The deadline of the wait passed with nothing (else) received.
    Timeout,
    /// Time to look at the worker's disk use.
    DiskCheck,
}

/// A running worker with one engine instance.
pub struct EngineHost {
    /// The engine's display name in the tournament.
    pub name: String,
    pub plugin: PluginInfo,
    /// The worker's supervisor ([`crate::host::supervisor`]), whose exit repeats the worker's.
    child: Child,
    /// The worker's process id, from the supervisor's first message.
    worker: Option<u32>,
    /// The worker's process group (its own, or its namespaces' init's): the worker, its plugin
    /// and what the plugin started.
    group: Option<system::Group>,
    /// For the reason of a crash: the worker's log, its length when this worker started (what
    /// this worker wrote comes after it) and the memory limit.
    stderr_log: Option<PathBuf>,
    log_start: u64,
    /// The task copying a sandboxed worker's stderr into its log (`None`: the worker writes
    /// the log itself, or has none).
    log_copier: Option<tokio::task::JoinHandle<()>>,
    memory_limit: Option<u64>,
    writer: system::Writer,
    events: Receiver<Event>,
    reader: JoinHandle<()>,
    alive: bool,
    /// Searches sent so far; the current one's number tags its info reports.
    searches: u64,
    /// Keys the token of each search ([`Request::Go`]): random per worker, unknown to it.
    tokens: std::hash::RandomState,
    /// What the kernel enforced of the worker's sandbox (`None`: no sandbox).
    pub sandbox: Option<Enforced>,
    /// The worker's scratch folder and cgroups, removed when the worker is gone (dropping the
    /// cgroups kills everything in them).
    scratch: Option<Scratch>,
    /// The most bytes its scratch folder and what it wrote to its log may hold together, and
    /// when they were last looked at.
    disk_limit: Option<u64>,
    disk_checked: Instant,
    cgroup: Option<WorkerCgroup>,
    /// Stops the worker between its turns and counts its CPU time there.
    gate: TurnGate,
}

/// How a worker ended on [`EngineHost::shutdown`].
#[derive(Clone, Debug, PartialEq)]
pub enum Quit {
    /// The engine finished, the instance was destroyed and the worker exited with status 0.
    Clean,
    /// Not so, and why.
    Unclean(String),
}

fn describe_exit(status: ExitStatus) -> String {
    if let Some(sig) = system::exit_signal(&status) {
        let name = match sig {
            4 => " (SIGILL)",
            6 => " (SIGABRT)",
            7 => " (SIGBUS)",
            8 => " (SIGFPE)",
            9 => " (SIGKILL)",
            11 => " (SIGSEGV)",
            15 => " (SIGTERM)",
            _ => "",
        };
        format!("killed by signal {sig}{name}")
    } else {
        format!("exited with status {}", status.code().unwrap_or(-1))
    }
}

impl EngineHost {
    /// Whether the worker is usable.
    pub fn is_alive(&self) -> bool {
        self.alive
    }

    /// The worker's process id (while it runs).
    pub fn pid(&self) -> Option<u32> {
        self.worker.filter(|_| self.alive)
    }

    /// How the worker is stopped between its turns, or why it is not (`SIGSTOP`,
    /// `cgroup.freeze`, `none (ponder = true)`, …).
    pub fn stop_route(&self) -> String {
        self.gate.describe()
    }

    /// The CPU time the worker used outside its turns so far (`None`: not readable here).
    pub fn cpu_between_turns(&self) -> Option<Duration> {
        self.gate.between_turns()
    }

    /// Set an option after start-up (`harness bench` and `check` set `Threads` only when the
    /// plugin declares it; `harness tune` sets each game's values between games, which the ABI
    /// allows outside a search). A refused value is [`HostError::Option`], and the worker is
    /// gone.
    pub async fn set_option(&mut self, name: &str, value: &str) -> Result<(), HostError> {
        let request = Request::SetOption {
            name: name.to_string(),
            value: value.to_string(),
        };
        self.call(request).await.map_err(|e| match e {
            HostError::EngineError { engine, message } => HostError::Option { engine, message },
            other => other,
        })
    }

    /// Tell the engine a new game starts.
    pub async fn new_game(&mut self) -> Result<(), HostError> {
        self.call(Request::NewGame).await
    }

    /// An exact solve of `position` (not a finished game): a search whose depth limit is the
    /// empties, which every engine that honours depth limits answers exactly. A position whose
    /// side must pass is solved as the other side's (the value does not change, from Black's
    /// view). `timeout` bounds the search (a stall); `interrupted` abandons it.
    pub async fn solve_exactly(
        &mut self,
        position: Position,
        timeout: Duration,
        interrupted: impl Future<Output = ()>,
    ) -> Result<ExactAnswer, HostError> {
        let passed = position.must_pass();
        let asked = if passed {
            position
                .play(othello_board::Move::PASS)
                .expect("a forced pass is legal")
        } else {
            position
        };
        let reply = self
            .search(
                &GameHistory::new(asked),
                &SearchLimits::Depth(asked.empties()),
                SearchBudget::Stall { timeout },
                |_| {},
                interrupted,
            )
            .await?;
        let mv = othello_board::Move::from_wire(reply.mv as i64)
            .filter(|m| asked.is_legal(*m))
            .ok_or_else(|| HostError::Protocol {
                engine: self.name.clone(),
                message: format!(
                    "an illegal move (value {}) in the exact solve of {asked}",
                    reply.mv
                ),
            })?;
        let score = reply.info.score.round() as i32;
        let black = if asked.side_to_move == othello_board::Color::Black {
            score
        } else {
            -score
        };
        Ok(ExactAnswer {
            value: black,
            best: (!passed).then_some(mv),
            nodes: reply.info.nodes,
            elapsed: reply.elapsed,
        })
    }

    /// Check that this engine solves exactly when asked to, on FFO #1 (14 empties), which any
    /// exact solver answers at once and a search that ignores its depth limit gets wrong: what
    /// `harness analyze` and `[adjudication]` ask of their solver before they trust it.
    pub async fn prove_exact(&mut self, timeout: Duration) -> anyhow::Result<()> {
        let (text, exact) = EXACT_PROOF;
        let position: Position = text.parse().expect("a valid position");
        let answer = self
            .solve_exactly(position, timeout, std::future::pending())
            .await
            .map_err(|e| anyhow::anyhow!("{}: the exact solve of FFO #1 failed: {e}", self.name))?;
        if answer.value != exact {
            anyhow::bail!(
                "{}: FFO #1 ({} empties) is {exact:+}, the solver answered {:+} at a depth limit of {}: it does not solve exactly at a depth of the empties (an engine that stops short of the end, or counts a pass as a ply, cannot be the solver)",
                self.name,
                position.empties(),
                answer.value,
                position.empties()
            );
        }
        Ok(())
    }

    /// Search the position at the end of `game` under `limits` and `budget`, calling `on_info`
    /// for each live report of this search. When `interrupted` resolves first the search is
    /// abandoned at once (the worker is killed, as its engine may be mid-search) with
    /// [`HostError::Interrupted`], which is nobody's fault.
    pub async fn search(
        &mut self,
        game: &GameHistory,
        limits: &SearchLimits,
        budget: SearchBudget,
        mut on_info: impl FnMut(&SearchInfo),
        interrupted: impl Future<Output = ()>,
    ) -> Result<MoveReply, HostError> {
        self.searches += 1;
        let search = self.searches;
        // Reports of an earlier search that arrive late are dropped.
        let mut on_info = |s: u64, info: WireInfo| {
            if s == search {
                on_info(&SearchInfo::from(info))
            }
        };
        // The engine's turn begins (it was stopped since its last one), then its clock starts,
        // before the request is written: a coordinator thread descheduled between the write
        // and a later reading would give the engine time it is not charged.
        self.gate.begin_turn();
        let started = Instant::now();
        if let Some(e) = self.over_disk_limit(started, false) {
            return Err(self.die(e).await);
        }
        let mut next_disk_check = started + DISK_CHECK_INTERVAL;
        let token = self.tokens.hash_one(search);
        self.send(&Request::Go {
            search,
            token,
            game: WireGame::from_history(game),
            limits: limits.into(),
        })
        .await?;
        let mut stop_sent = false;
        tokio::pin!(interrupted);
        loop {
            let deadline = started
                + match budget.stop_after() {
                    Some(stop) if !stop_sent => stop,
                    _ => budget.forfeit_after(),
                };
            let waited = if Instant::now() >= deadline {
                // The deadline has passed: look only at what already arrived, so a stream of
                // info reports cannot carry the search past its deadline.
                self.already_arrived(&mut on_info)
            } else {
                tokio::select! {
                    biased;
                    () = &mut interrupted => {
                        return Err(self.die(HostError::Interrupted {
                            engine: self.name.clone(),
                        }).await);
                    }
                    event = self.events.recv() => Waited::Event(event.unwrap_or(Event::Closed)),
                    () = tokio::time::sleep_until(deadline.into()) => Waited::Timeout,
                    () = tokio::time::sleep_until(next_disk_check.into()), if self.disk_limit.is_some() => {
                        next_disk_check += DISK_CHECK_INTERVAL;
                        Waited::DiskCheck
                    }
                }
            };
            match waited {
                Waited::Event(Event::Reply(Reply::Info { search: s, info }, _)) => on_info(s, info),
                Waited::DiskCheck => {
                    if let Some(e) = self.over_disk_limit(Instant::now(), false) {
                        return Err(self.die(e).await);
                    }
                }
                Waited::Event(Event::Reply(
                    Reply::Moved {
                        search: s,
                        token: t,
                        mv,
                        info,
                    },
                    at,
                )) => {
                    let asked = Asked {
                        search,
                        token,
                        started,
                        budget,
                    };
                    return self.take_move(asked, (s, t, at), mv, info).await;
                }
                Waited::Event(Event::Reply(Reply::Error { message }, _)) => {
                    let e = HostError::EngineError {
                        engine: self.name.clone(),
                        message,
                    };
                    return Err(self.die(e).await);
                }
                Waited::Event(Event::Reply(other, _)) => {
                    let e = HostError::Protocol {
                        engine: self.name.clone(),
                        message: format!("unexpected reply to go: {other:?}"),
                    };
                    return Err(self.die(e).await);
                }
                Waited::Event(Event::Garbage(message)) => {
                    let e = HostError::Protocol {
                        engine: self.name.clone(),
                        message,
                    };
                    return Err(self.die(e).await);
                }
                Waited::Event(Event::Closed) => return Err(self.crashed().await),
                Waited::Timeout => match budget {
                    SearchBudget::Deadline { .. } if !stop_sent => {
                        stop_sent = true;
                        self.send(&Request::Stop).await?;
                    }
                    SearchBudget::Deadline { .. } => {
                        let e = self.lost_on_time(budget, started.elapsed());
                        return Err(self.die(e).await);
                    }
                    SearchBudget::Stall { timeout } => {
                        let e = HostError::Stalled {
                            engine: self.name.clone(),
                            waited_ms: timeout.as_millis() as u64,
                        };
                        return Err(self.die(e).await);
                    }
                },
            }
        }
    }

    /// The move reply `(search, token, arrival)` to the search `asked`: its move, or the loss
    /// it costs (a reply written ahead of its request, the disk limit, the time).
    async fn take_move(
        &mut self,
        asked: Asked,
        (s, t, arrived): (u64, u64, Instant),
        mv: i32,
        info: WireInfo,
    ) -> Result<MoveReply, HostError> {
        let started = asked.started;
        if (s, t) != (asked.search, asked.token) || arrived < started {
            // Written ahead of its request, or an answer to another: the engine did not
            // answer this request on its turn.
            let why = if arrived < started {
                "read before its request was sent".to_string()
            } else if s != asked.search {
                format!("for search {s} while search {} was asked", asked.search)
            } else {
                "with a token the coordinator did not send".to_string()
            };
            let e = HostError::Protocol {
                engine: self.name.clone(),
                message: format!("a move reply {why} (written ahead of its request)"),
            };
            return Err(self.die(e).await);
        }
        let long = arrived.saturating_duration_since(started) >= DISK_CHECK_SEARCH;
        if let Some(e) = self.over_disk_limit(arrived, long) {
            return Err(self.die(e).await);
        }
        let elapsed = arrived.saturating_duration_since(started);
        if asked.budget.forfeits(elapsed) {
            let e = self.lost_on_time(asked.budget, elapsed);
            return Err(self.die(e).await);
        }
        self.gate.end_turn().await;
        Ok(MoveReply {
            mv,
            info: info.into(),
            elapsed,
        })
    }

    /// The crash a sandboxed worker's disk use costs it, where its scratch folder and what it
    /// wrote to its log since it started hold more than its disk limit; looked at when `now`
    /// the last look is [`DISK_CHECK_INTERVAL`] old, or when `anyway`.
    fn over_disk_limit(&mut self, now: Instant, anyway: bool) -> Option<HostError> {
        let (Some(limit), Some(scratch)) = (self.disk_limit, &self.scratch) else {
            return None;
        };
        if !anyway && now.saturating_duration_since(self.disk_checked) < DISK_CHECK_INTERVAL {
            return None;
        }
        self.disk_checked = now;
        let logged = self
            .stderr_log
            .as_ref()
            .and_then(|log| log.metadata().ok())
            .map_or(0, |m| m.len().saturating_sub(self.log_start));
        let used = sandbox::disk_used(scratch.path()).saturating_add(logged);
        (used > limit).then(|| HostError::Crashed {
            engine: self.name.clone(),
            detail: format!(
                "stopped by the harness: its scratch folder and log hold more than its disk limit of {} MiB ({} MiB)",
                limit >> 20,
                used.min(u64::MAX >> 1) >> 20
            ),
        })
    }

    /// The first event other than an info report among those already received (info reports
    /// on the way are passed to `on_info` with their search number), or a timeout when there is
    /// none.
    fn already_arrived(&mut self, on_info: &mut impl FnMut(u64, WireInfo)) -> Waited {
        // Bounded, in case the worker keeps sending while we drain.
        for _ in 0..100_000 {
            match self.events.try_recv() {
                Ok(Event::Reply(Reply::Info { search, info }, _)) => on_info(search, info),
                Ok(other) => return Waited::Event(other),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => return Waited::Event(Event::Closed),
            }
        }
        Waited::Timeout
    }

    /// Ask the worker to quit, and kill it if it has not exited within [`QUIT_GRACE`]; then
    /// kill what is left of its process group (what its plugin started and left behind). Says
    /// whether the engine finished and the worker exited by itself (`harness check` asks;
    /// a tournament has its result by then and goes on either way).
    pub async fn shutdown(mut self) -> Quit {
        self.gate.go_on();
        let _ = protocol::send_async(&mut self.writer, &Request::Quit).await;
        let quit = tokio::time::timeout(QUIT_GRACE, self.child.wait()).await;
        self.kill_group();
        self.finish_log().await;
        let outcome = match &quit {
            Ok(Ok(status)) if status.success() => Quit::Clean,
            Ok(Ok(status)) if status.code() == Some(super::worker::EXIT_ENGINE_HUNG) => {
                Quit::Unclean(format!(
                    "the engine did not finish within {} s of the quit (a destroy that never returns, or a search that ignores the stop flag); the worker exited without it",
                    super::worker::DESTROY_GRACE.as_secs()
                ))
            }
            Ok(Ok(status)) => Quit::Unclean(format!("the worker {} on quit", describe_exit(*status))),
            Ok(Err(e)) => Quit::Unclean(format!("the worker cannot be waited for: {e}")),
            Err(_) => Quit::Unclean(format!(
                "the worker did not exit within {} s of the quit and was killed",
                QUIT_GRACE.as_secs()
            )),
        };
        if !matches!(quit, Ok(Ok(_))) {
            self.kill().await;
        }
        self.alive = false;
        self.release_sandbox();
        outcome
    }

    /// Kill the worker and its process group at once (and reap the worker).
    pub async fn kill(&mut self) {
        self.alive = false;
        self.reader.abort();
        self.gate.go_on();
        self.kill_group();
        let _ = self.child.kill().await;
        self.release_sandbox();
        self.finish_log().await;
    }

    /// Wait until the copy of a sandboxed worker's stderr into its log has ended (the pipe's
    /// writers are gone once the worker is), at most [`LOG_DRAIN`]: what the log holds is then
    /// all the worker wrote, for the reason of a crash.
    async fn finish_log(&mut self) {
        if let Some(mut copier) = self.log_copier.take() {
            if tokio::time::timeout(LOG_DRAIN, &mut copier).await.is_err() {
                copier.abort();
            }
        }
    }

    /// End everything in the worker's cgroups and remove them, and its scratch folder.
    fn release_sandbox(&mut self) {
        self.cgroup = None;
        self.scratch = None;
    }

    /// SIGKILL to the worker's process group. The group's id stays the worker's until every
    /// member is gone, so this never reaches another process.
    fn kill_group(&self) {
        if let Some(group) = &self.group {
            group.kill();
        }
    }

    /// The time forfeit of a search under `budget` that got no answer in time, `elapsed` after
    /// its request.
    fn lost_on_time(&self, budget: SearchBudget, elapsed: Duration) -> HostError {
        let (budget_ms, margin_ms) = match budget {
            SearchBudget::Deadline { budget, margin } => (budget, margin),
            SearchBudget::Stall { timeout } => (timeout, Duration::ZERO),
        };
        HostError::TimeForfeit {
            engine: self.name.clone(),
            loss: TimeLoss {
                budget_ms: budget_ms.as_millis() as u64,
                margin_ms: margin_ms.as_millis() as u64,
                used_ms: elapsed.as_millis() as u64,
            },
        }
    }

    async fn die(&mut self, e: HostError) -> HostError {
        self.kill().await;
        e
    }

    /// The worker went away: report how it ended.
    async fn crashed(&mut self) -> HostError {
        self.alive = false;
        let detail = match tokio::time::timeout(EXIT_GRACE, self.child.wait()).await {
            Ok(Ok(status)) => {
                self.kill_group();
                self.finish_log().await;
                let oom = system::exit_signal(&status) == Some(6);
                let cgroup_oom = self
                    .cgroup
                    .as_ref()
                    .is_some_and(WorkerCgroup::memory_limit_hit);
                describe_exit(status)
                    + &if oom {
                        self.memory_note().await
                    } else if cgroup_oom {
                        format!(
                            ": memory limit of {} MiB hit (the worker's cgroup)",
                            self.memory_limit.unwrap_or(0) >> 20
                        )
                    } else {
                        String::new()
                    }
            }
            Ok(Err(e)) => format!("cannot be waited for: {e}"),
            Err(_) => {
                self.kill().await;
                "closed the connection".to_string()
            }
        };
        HostError::Crashed {
            engine: self.name.clone(),
            detail,
        }
    }

    /// When the worker has a memory limit, aborted, and wrote an allocation failure to its log
    /// (what Rust's allocator prints before it aborts), the reason of the crash says so. The
    /// first failure this worker wrote is the cause: with `RUST_BACKTRACE` set, printing the
    /// backtrace fails again on a few bytes, and that line comes last.
    async fn memory_note(&self) -> String {
        let (Some(limit), Some(log)) = (self.memory_limit, self.stderr_log.clone()) else {
            return String::new();
        };
        let start = self.log_start;
        // The failure comes early: the head of what this worker wrote, read off the runtime.
        let written =
            tokio::task::spawn_blocking(move || crate::host::stderr_log::head_from(&log, start))
                .await
                .unwrap_or_default();
        match written.lines().find(|l| l.contains("memory allocation of")) {
            Some(line) => format!(
                ": memory limit of {} MiB hit ({})",
                limit / (1 << 20),
                crate::host::engine_text::clean(line.trim()).0
            ),
            None => String::new(),
        }
    }

    async fn send(&mut self, req: &Request) -> Result<(), HostError> {
        if *req != Request::Stop {
            self.gate.begin_turn();
        }
        if protocol::send_async(&mut self.writer, req).await.is_err() {
            return Err(self.crashed().await);
        }
        Ok(())
    }

    async fn next_event(&mut self, timeout: Duration) -> Result<Reply, HostError> {
        match tokio::time::timeout(timeout, self.events.recv()).await {
            Ok(Some(Event::Reply(r, _))) => Ok(r),
            Ok(Some(Event::Garbage(message))) => {
                let e = HostError::Protocol {
                    engine: self.name.clone(),
                    message,
                };
                Err(self.die(e).await)
            }
            Ok(Some(Event::Closed) | None) => Err(self.crashed().await),
            Err(_) => {
                let e = HostError::Stalled {
                    engine: self.name.clone(),
                    waited_ms: timeout.as_millis() as u64,
                };
                Err(self.die(e).await)
            }
        }
    }

    /// A request answered by `Ok` or `Error` (info reports in between are dropped).
    async fn call(&mut self, req: Request) -> Result<(), HostError> {
        self.send(&req).await?;
        loop {
            match self.next_event(CALL_TIMEOUT).await? {
                Reply::Ok => {
                    self.gate.end_turn().await;
                    return Ok(());
                }
                Reply::Error { message } => {
                    // An instance that failed a call may be in any state: never reuse it.
                    let e = HostError::EngineError {
                        engine: self.name.clone(),
                        message,
                    };
                    return Err(self.die(e).await);
                }
                Reply::Info { .. } => continue,
                other => {
                    let e = HostError::Protocol {
                        engine: self.name.clone(),
                        message: format!("unexpected reply to {req:?}: {other:?}"),
                    };
                    return Err(self.die(e).await);
                }
            }
        }
    }
}

impl Drop for EngineHost {
    /// A host dropped without `shutdown` or `kill` (an abandoned game's task) takes its worker
    /// with it: the child is killed by `kill_on_drop` and reaped by the runtime.
    fn drop(&mut self) {
        self.reader.abort();
        self.gate.go_on();
        if self.alive {
            self.kill_group();
        }
        self.release_sandbox();
    }
}

/// The reader task: each line of the channel becomes an event stamped with its arrival, its
/// strings made printable; info reports closer than [`INFO_INTERVAL`] to the last one taken
/// are dropped. It waits while the queue is full.
async fn read_events(mut reader: BufReader<system::Reader>, tx: Sender<Event>, engine: String) {
    let mut last_info: Option<Instant> = None;
    let mut said_cut = false;
    loop {
        let event = match protocol::receive_async::<Reply, _>(&mut reader).await {
            Ok(Some(r)) => {
                let now = Instant::now();
                if let Reply::Info { .. } = r {
                    if last_info.is_some_and(|t| now.duration_since(t) < INFO_INTERVAL) {
                        continue;
                    }
                    last_info = Some(now);
                }
                let (r, cut) = r.cleaned();
                if cut && !said_cut {
                    said_cut = true;
                    eprintln!(
                        "warning: engine `{engine}` sent a text longer than {} bytes; the rest of it is not kept",
                        crate::host::engine_text::MAX_TEXT
                    );
                }
                Event::Reply(r, now)
            }
            Ok(None) => Event::Closed,
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => Event::Garbage(e.to_string()),
            Err(_) => Event::Closed,
        };
        let last = matches!(event, Event::Closed | Event::Garbage(_));
        if tx.send(event).await.is_err() || last {
            return;
        }
    }
}
