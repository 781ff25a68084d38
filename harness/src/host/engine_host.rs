//! The coordinator's handle on one worker process: [`EngineHost`].
//!
//! The coordinator owns the clocks. [`EngineHost::search`] sends a position, forwards live info,
//! raises the stop flag (through the protocol) when the budget is spent, and gives up with a
//! time forfeit when the answer is later than the budget plus the margin, or with a stall when
//! an unbounded (depth or node limited) search does not answer within the stall timeout. A dead
//! worker is reported with its exit status or signal. After any of these errors the host is dead
//! ([`EngineHost::is_alive`] is false) and the caller spawns a new one.

use super::plugin::PluginInfo;
use super::protocol::{receive, send, Reply, Request, WireGame, WireInfo};
use crate::search::{SearchInfo, SearchLimits};
use othello_board::GameHistory;
use std::io::BufReader;
use std::os::unix::net::{UnixListener, UnixStream};
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant};

/// How long a worker may take to start, load its plugin and create the instance.
pub const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// How often a search checks whether the run is being stopped.
pub const INTERRUPT_POLL: Duration = Duration::from_millis(50);
/// How long `set_option` and `new_game` may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);

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
    #[error("engine `{engine}` lost on time: no answer within its budget of {budget_ms} ms + margin {margin_ms} ms ({elapsed_ms} ms used)")]
    TimeForfeit {
        engine: String,
        elapsed_ms: u64,
        budget_ms: u64,
        margin_ms: u64,
    },
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

/// An engine's answer to a search.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveReply {
    /// The raw move value; the caller checks it against the rules.
    pub mv: i32,
    pub info: SearchInfo,
    /// Wall time from sending the request to receiving the answer, measured by the coordinator.
    pub elapsed: Duration,
}

/// What the reader thread passes on.
enum Event {
    /// A reply and the moment the reader thread received it (deadlines are judged by arrival,
    /// not by when the coordinator got round to it).
    Reply(Reply, Instant),
    Garbage(String),
    Closed,
}

/// A running worker with one engine instance.
pub struct EngineHost {
    /// The engine's display name in the tournament.
    pub name: String,
    pub plugin: PluginInfo,
    child: Child,
    writer: UnixStream,
    events: Receiver<Event>,
    alive: bool,
    /// Searches sent so far; the current one's number tags its info reports.
    searches: u64,
}

static SOCKET_COUNTER: AtomicUsize = AtomicUsize::new(0);

/// How to start a worker.
#[derive(Clone, Debug)]
pub struct WorkerSpec {
    pub name: String,
    pub plugin: PathBuf,
    pub options: Vec<(String, String)>,
    /// Where the worker's stderr goes (appended); `None` discards it.
    pub stderr_log: Option<PathBuf>,
}

fn describe_exit(status: ExitStatus) -> String {
    if let Some(sig) = status.signal() {
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
    /// Start a worker for `spec`, wait for its plugin to load and set the options.
    pub fn spawn(spec: &WorkerSpec) -> Result<EngineHost, HostError> {
        let engine = spec.name.clone();
        let spawn_err = |message: String| HostError::Spawn {
            engine: engine.clone(),
            message,
        };
        let exe = std::env::current_exe().map_err(|e| spawn_err(e.to_string()))?;
        let n = SOCKET_COUNTER.fetch_add(1, Ordering::Relaxed);
        let socket =
            std::env::temp_dir().join(format!("othello-harness-{}-{n}.sock", std::process::id()));
        let _ = std::fs::remove_file(&socket);
        let listener = UnixListener::bind(&socket)
            .map_err(|e| spawn_err(format!("{}: {e}", socket.display())))?;
        let stderr = match &spec.stderr_log {
            Some(path) => std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map(Stdio::from)
                .map_err(|e| spawn_err(format!("{}: {e}", path.display())))?,
            None => Stdio::null(),
        };
        let child = Command::new(exe)
            .arg("worker")
            .arg("--connect")
            .arg(&socket)
            .arg("--plugin")
            .arg(&spec.plugin)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn();
        let mut child = match child {
            Ok(c) => c,
            Err(e) => {
                let _ = std::fs::remove_file(&socket);
                return Err(spawn_err(e.to_string()));
            }
        };
        let accepted = accept_with_timeout(&listener, &mut child, STARTUP_TIMEOUT);
        let _ = std::fs::remove_file(&socket);
        let stream = match accepted {
            Ok(s) => s,
            Err(message) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(spawn_err(message));
            }
        };
        let reader = BufReader::new(stream.try_clone().map_err(|e| spawn_err(e.to_string()))?);
        let (tx, events) = mpsc::channel();
        std::thread::spawn(move || read_events(reader, tx));
        let mut host = EngineHost {
            name: spec.name.clone(),
            plugin: PluginInfo {
                path: spec.plugin.clone(),
                name: String::new(),
                version: String::new(),
                author: String::new(),
                abi_major: 0,
                abi_minor: 0,
                options: Vec::new(),
            },
            child,
            writer: stream,
            events,
            alive: true,
            searches: 0,
        };
        match host.next_event(STARTUP_TIMEOUT) {
            Ok(Reply::Hello { plugin }) => host.plugin = plugin,
            Ok(Reply::Failed { message }) => {
                host.kill();
                return Err(HostError::Load { engine, message });
            }
            Ok(other) => {
                host.kill();
                return Err(HostError::Load {
                    engine,
                    message: format!("unexpected first message {other:?}"),
                });
            }
            Err(e) => {
                return Err(HostError::Load {
                    engine,
                    message: format!("while loading {}: {e}", spec.plugin.display()),
                })
            }
        }
        for (name, value) in &spec.options {
            host.call(Request::SetOption {
                name: name.clone(),
                value: value.clone(),
            })
            .map_err(|e| match e {
                HostError::EngineError { message, .. } => HostError::Option {
                    engine: engine.clone(),
                    message,
                },
                other => other,
            })?;
        }
        Ok(host)
    }

    /// Whether the worker is usable.
    pub fn is_alive(&self) -> bool {
        self.alive
    }

    /// Tell the engine a new game starts.
    pub fn new_game(&mut self) -> Result<(), HostError> {
        self.call(Request::NewGame)
    }

    /// Search the position at the end of `game` under `limits` and `budget`, calling `on_info` for each live report of
    /// this search. `interrupted` is polled every [`INTERRUPT_POLL`]: when it turns true the
    /// search is abandoned at once (the worker is killed, as its engine may be mid-search) with
    /// [`HostError::Interrupted`], which is nobody's fault.
    pub fn search(
        &mut self,
        game: &GameHistory,
        limits: &SearchLimits,
        budget: SearchBudget,
        mut on_info: impl FnMut(&SearchInfo),
        interrupted: impl Fn() -> bool,
    ) -> Result<MoveReply, HostError> {
        self.searches += 1;
        let search = self.searches;
        // Reports of an earlier search that arrive late are dropped.
        let mut on_info = |s: u64, info: WireInfo| {
            if s == search {
                on_info(&SearchInfo::from(info))
            }
        };
        self.send(&Request::Go {
            search,
            game: WireGame::from_history(game),
            limits: limits.into(),
        })?;
        let started = Instant::now();
        let mut stop_sent = false;
        loop {
            if interrupted() {
                return Err(self.die(HostError::Interrupted {
                    engine: self.name.clone(),
                }));
            }
            let deadline = match budget {
                SearchBudget::Deadline { budget, margin } => {
                    if stop_sent {
                        budget + margin
                    } else {
                        budget
                    }
                }
                SearchBudget::Stall { timeout } => timeout,
            };
            let wait = deadline.saturating_sub(started.elapsed());
            let event = if wait.is_zero() {
                // The deadline has passed: look only at what already arrived, so a stream of
                // info reports cannot carry the search past its deadline.
                self.already_arrived(&mut on_info)
            } else {
                match self.events.recv_timeout(wait.min(INTERRUPT_POLL)) {
                    // Only a poll interval, not the deadline: look at `interrupted` again.
                    Err(RecvTimeoutError::Timeout) if wait > INTERRUPT_POLL => continue,
                    event => event,
                }
            };
            match event {
                Ok(Event::Reply(Reply::Info { search: s, info }, _)) => on_info(s, info),
                Ok(Event::Reply(Reply::Moved { mv, info }, arrived)) => {
                    let elapsed = arrived.saturating_duration_since(started);
                    if let SearchBudget::Deadline { budget, margin } = budget {
                        if elapsed > budget + margin {
                            return Err(self.die(HostError::TimeForfeit {
                                engine: self.name.clone(),
                                elapsed_ms: elapsed.as_millis() as u64,
                                budget_ms: budget.as_millis() as u64,
                                margin_ms: margin.as_millis() as u64,
                            }));
                        }
                    }
                    return Ok(MoveReply {
                        mv,
                        info: info.into(),
                        elapsed,
                    });
                }
                Ok(Event::Reply(Reply::Error { message }, _)) => {
                    return Err(self.die(HostError::EngineError {
                        engine: self.name.clone(),
                        message,
                    }))
                }
                Ok(Event::Reply(other, _)) => {
                    return Err(self.die(HostError::Protocol {
                        engine: self.name.clone(),
                        message: format!("unexpected reply to go: {other:?}"),
                    }))
                }
                Ok(Event::Garbage(message)) => {
                    return Err(self.die(HostError::Protocol {
                        engine: self.name.clone(),
                        message,
                    }))
                }
                Ok(Event::Closed) | Err(RecvTimeoutError::Disconnected) => {
                    return Err(self.crashed())
                }
                Err(RecvTimeoutError::Timeout) => match budget {
                    SearchBudget::Deadline { .. } if !stop_sent => {
                        stop_sent = true;
                        self.send(&Request::Stop)?;
                    }
                    SearchBudget::Deadline { budget, margin } => {
                        return Err(self.die(HostError::TimeForfeit {
                            engine: self.name.clone(),
                            elapsed_ms: started.elapsed().as_millis() as u64,
                            budget_ms: budget.as_millis() as u64,
                            margin_ms: margin.as_millis() as u64,
                        }))
                    }
                    SearchBudget::Stall { timeout } => {
                        return Err(self.die(HostError::Stalled {
                            engine: self.name.clone(),
                            waited_ms: timeout.as_millis() as u64,
                        }))
                    }
                },
            }
        }
    }

    /// The first event other than an info report among those already received (info reports
    /// on the way are passed to `on_info` with their search number), or a timeout when there is
    /// none.
    fn already_arrived(
        &mut self,
        on_info: &mut impl FnMut(u64, WireInfo),
    ) -> Result<Event, RecvTimeoutError> {
        // Bounded, in case the worker keeps sending while we drain.
        for _ in 0..100_000 {
            match self.events.try_recv() {
                Ok(Event::Reply(Reply::Info { search, info }, _)) => on_info(search, info),
                Ok(other) => return Ok(other),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => return Err(RecvTimeoutError::Disconnected),
            }
        }
        Err(RecvTimeoutError::Timeout)
    }

    /// Ask the worker to quit, and kill it if it does not within a moment.
    pub fn shutdown(mut self) {
        let _ = send(&mut self.writer, &Request::Quit);
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                self.alive = false;
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        self.kill();
    }

    /// Kill the worker at once.
    pub fn kill(&mut self) {
        self.alive = false;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    fn die(&mut self, e: HostError) -> HostError {
        self.kill();
        e
    }

    /// The worker went away: report how it ended.
    fn crashed(&mut self) -> HostError {
        self.alive = false;
        let deadline = Instant::now() + Duration::from_secs(2);
        let detail = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break describe_exit(status),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(2))
                }
                Ok(None) => {
                    self.kill();
                    break "closed the connection".to_string();
                }
                Err(e) => break format!("cannot be waited for: {e}"),
            }
        };
        HostError::Crashed {
            engine: self.name.clone(),
            detail,
        }
    }

    fn send(&mut self, req: &Request) -> Result<(), HostError> {
        if send(&mut self.writer, req).is_err() {
            return Err(self.crashed());
        }
        Ok(())
    }

    fn next_event(&mut self, timeout: Duration) -> Result<Reply, HostError> {
        match self.events.recv_timeout(timeout) {
            Ok(Event::Reply(r, _)) => Ok(r),
            Ok(Event::Garbage(message)) => Err(self.die(HostError::Protocol {
                engine: self.name.clone(),
                message,
            })),
            Ok(Event::Closed) | Err(RecvTimeoutError::Disconnected) => Err(self.crashed()),
            Err(RecvTimeoutError::Timeout) => Err(self.die(HostError::Stalled {
                engine: self.name.clone(),
                waited_ms: timeout.as_millis() as u64,
            })),
        }
    }

    /// A request answered by `Ok` or `Error` (info reports in between are dropped).
    fn call(&mut self, req: Request) -> Result<(), HostError> {
        self.send(&req)?;
        loop {
            match self.next_event(CALL_TIMEOUT)? {
                Reply::Ok => return Ok(()),
                Reply::Error { message } => {
                    // An instance that failed a call may be in any state: never reuse it.
                    return Err(self.die(HostError::EngineError {
                        engine: self.name.clone(),
                        message,
                    }));
                }
                Reply::Info { .. } => continue,
                other => {
                    return Err(self.die(HostError::Protocol {
                        engine: self.name.clone(),
                        message: format!("unexpected reply to {req:?}: {other:?}"),
                    }))
                }
            }
        }
    }
}

impl Drop for EngineHost {
    fn drop(&mut self) {
        if self.alive {
            self.kill();
        }
    }
}

fn accept_with_timeout(
    listener: &UnixListener,
    child: &mut Child,
    timeout: Duration,
) -> Result<UnixStream, String> {
    listener.set_nonblocking(true).map_err(|e| e.to_string())?;
    let start = Instant::now();
    loop {
        match listener.accept() {
            Ok((stream, _)) => {
                stream.set_nonblocking(false).map_err(|e| e.to_string())?;
                return Ok(stream);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if let Ok(Some(status)) = child.try_wait() {
                    return Err(format!(
                        "the worker {} during start-up",
                        describe_exit(status)
                    ));
                }
                if start.elapsed() > timeout {
                    return Err(format!(
                        "the worker did not connect within {} s",
                        timeout.as_secs()
                    ));
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            Err(e) => return Err(e.to_string()),
        }
    }
}

fn read_events(mut reader: BufReader<UnixStream>, tx: mpsc::Sender<Event>) {
    loop {
        let event = match receive::<Reply>(&mut reader) {
            Ok(Some(r)) => Event::Reply(r, Instant::now()),
            Ok(None) => Event::Closed,
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => Event::Garbage(e.to_string()),
            Err(_) => Event::Closed,
        };
        let last = matches!(event, Event::Closed | Event::Garbage(_));
        if tx.send(event).is_err() || last {
            return;
        }
    }
}
