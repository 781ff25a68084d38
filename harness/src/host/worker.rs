//! The worker process: `harness worker --coordinator PID DESCRIPTION`, its channel to the
//! coordinator on standard input ([`super::worker_description`]).
//!
//! It loads one plugin, creates one instance and serves the coordinator over the channel. Three
//! threads: the main thread reads requests (and handles `Stop` at once by raising the stop
//! flag), the engine thread runs every call on the instance in order, and the writer thread
//! owns the socket's write side, so that replies and the engine's info reports (queued by the
//! ABI callback without blocking) never interleave within a line.
//!
//! Containment: the worker's parent is its supervisor ([`super::supervisor`]), which started
//! it as the leader of its own process group (or inside namespaces of its own), and whatever
//! the plugin starts (the `external` plugin's program and its children) stays in that group.
//! The coordinator ends a worker by killing the whole group; the supervisor does so when the
//! coordinator dies or the worker ends. The worker's own guard besides: should its parent die
//! first, the kernel sends it SIGHUP (`PR_SET_PDEATHSIG`), on which it kills its group. With a
//! memory limit, `RLIMIT_AS` is set before the plugin loads and is inherited by what it starts.
//!
//! Before anything else, the worker closes every descriptor it inherited but its channel, which
//! it moves off standard input ([`sandbox::descriptors`]), waits for the coordinator's `Begin`
//! (the supervisor speaks first on the channel), and joins the cgroups the
//! coordinator made for it (the description's `cgroups`). With a sandbox ([`super::sandbox`]), it then confines
//! itself, while it has one thread and before the plugin loads; a sandbox that is `required`
//! and cannot be enforced is the worker's `Failed` message, and no plugin code runs.

use super::plugin::{InfoSink, Instance, Plugin};
use super::protocol::{receive, send, Reply, Request, WireGame, WireInfo, WireLimits};
use super::sandbox;
use super::system;
use super::worker_description::WorkerDescription;
use othello_abi as abi;
use std::io::{BufReader, Write};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;

/// At most one live info report per this interval reaches the coordinator.
const INFO_INTERVAL: std::time::Duration = std::time::Duration::from_millis(10);

/// How long a quitting worker waits for the engine to finish and destroy its instance.
pub const DESTROY_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// The worker's exit status when the engine did not finish within [`DESTROY_GRACE`] of the
/// end (a destroy that never returns, or a search that ignores the stop flag): what tells
/// [`super::EngineHost::shutdown`] the quit was not clean.
pub const EXIT_ENGINE_HUNG: i32 = 3;

/// Forward the engine's info reports, coalesced: whatever arrived since the last forward is
/// reduced to the newest report, and at most one is forwarded per [`INFO_INTERVAL`]. An engine
/// that floods reports therefore cannot grow the queues or delay its own move behind them (the
/// move reply goes to the writer directly).
fn forward_info(info_rx: mpsc::Receiver<(u64, abi::SearchInfo)>, out: mpsc::Sender<Reply>) {
    std::thread::spawn(move || {
        while let Ok(first) = info_rx.recv() {
            let (search, latest) = info_rx.try_iter().last().unwrap_or(first);
            let info = WireInfo::from(&latest);
            if out.send(Reply::Info { search, info }).is_err() {
                break;
            }
            std::thread::sleep(INFO_INTERVAL);
        }
    });
}

/// The thread that owns the engine instance: it runs the requests the reader hands it, one at
/// a time, and destroys the instance when they end.
struct EngineThread {
    instance: Instance,
    stop: Arc<AtomicU32>,
    replies: mpsc::Sender<Reply>,
    /// The search whose info reports are forwarded (0: none).
    current_search: Arc<AtomicU64>,
    done: mpsc::Sender<()>,
}

impl EngineThread {
    fn serve(mut self, requests: mpsc::Receiver<Request>) {
        for req in requests {
            let reply = match req {
                Request::SetOption { name, value } => match self.instance.set_option(&name, &value)
                {
                    Ok(()) => Reply::Ok,
                    Err(message) => Reply::Error { message },
                },
                Request::NewGame => match self.instance.new_game() {
                    Ok(()) => Reply::Ok,
                    Err(message) => Reply::Error { message },
                },
                Request::Go {
                    search,
                    token,
                    game,
                    limits,
                } => self.search((search, token), &game, &limits),
                // The reader thread handles these itself and never forwards them.
                Request::Stop | Request::Quit | Request::Begin { .. } => continue,
            };
            if self.replies.send(reply).is_err() {
                break;
            }
        }
        drop(self.instance);
        let _ = self.done.send(());
    }

    /// One search: reports made from its start until it returns carry its number; any made
    /// later (by a stray engine thread) are dropped. The move carries the request's number and
    /// token back.
    fn search(
        &mut self,
        (search, token): (u64, u64),
        game: &WireGame,
        limits: &WireLimits,
    ) -> Reply {
        let game = match game.to_history() {
            Ok(game) => game,
            Err(message) => {
                return Reply::Error {
                    message: format!("bad game from the coordinator: {message}"),
                }
            }
        };
        let l = abi::Limits::from(limits);
        self.current_search.store(search.max(1), Ordering::Release);
        let answer = self.instance.search(&game, &l, &self.stop);
        self.current_search.store(0, Ordering::Release);
        match answer {
            Ok(answer) => Reply::Moved {
                search,
                token,
                mv: answer.mv,
                info: WireInfo::from(&answer.info),
            },
            Err(message) => Reply::Error { message },
        }
    }
}

/// Run the worker until the coordinator sends `Quit` or goes away.
pub fn run(setup: &WorkerDescription) -> anyhow::Result<()> {
    sandbox::descriptors::close_inherited().map_err(anyhow::Error::msg)?;
    let mut stream =
        sandbox::descriptors::take_channel(setup.channel).map_err(anyhow::Error::msg)?;
    // The supervisor's message is the channel's first line; the worker says nothing before
    // the coordinator has read it.
    let mut reader = BufReader::new(stream.try_clone()?);
    let probe = match receive::<Request>(&mut reader)? {
        Some(Request::Begin { probe }) => probe,
        Some(other) => anyhow::bail!("the coordinator's first request was {other:?}, not Begin"),
        None => return Ok(()),
    };
    // "0" is the writer itself. A cgroup that cannot be joined is found by the coordinator,
    // which checks where the worker is.
    for procs in &setup.cgroups {
        if let Err(e) = std::fs::write(procs, "0") {
            let line = format!("harness worker: cannot join {}: {e}\n", procs.display());
            let _ = std::io::stderr().write_all(line.as_bytes());
        }
    }
    if let Some(bytes) = setup.memory_limit {
        system::limit_memory(bytes)
            .map_err(|e| anyhow::anyhow!("cannot set the memory limit of {bytes} bytes: {e}"))?;
    }
    if let Some(bytes) = setup.file_size_limit {
        system::limit_file_size(bytes)
            .map_err(|e| anyhow::anyhow!("cannot set the file size limit of {bytes} bytes: {e}"))?;
    }
    // A worker's life is the coordinator's to decide: the SIGINT of a Ctrl-C (sent to the whole
    // process group) or the SIGTERM a batch system sends every process of a job must not kill it
    // before the coordinator has stopped, or the game in progress would be journaled as a crash.
    // The coordinator kills its workers itself, and a worker whose coordinator is gone exits
    // when the socket closes.
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::new(std::sync::atomic::AtomicBool::new(false)))?;
    }
    // The sandbox, while this process has one thread: every thread and program started from
    // here on inherits it, and nothing of the plugin has run yet.
    if let Some(confinement) = &setup.sandbox {
        match sandbox::confine(confinement) {
            Ok(enforced) => send(
                &mut stream,
                &Reply::Confined {
                    enforced: Box::new(enforced),
                },
            )?,
            Err(message) => {
                let _ = send(&mut stream, &Reply::Failed { message });
                return Ok(());
            }
        }
    }
    system::die_with_the_parent()?;
    system::end_at_a_crash();
    // `harness check`'s probe: tried here, confined, before any code of the plugin exists in
    // this process.
    if let Some(targets) = probe {
        let probed = sandbox::probe(
            &targets.write,
            targets.port,
            &targets.socket,
            setup.coordinator,
        );
        send(&mut stream, &Reply::Probed(Box::new(probed)))?;
    }
    let (out_tx, out_rx) = mpsc::channel::<Reply>();
    let mut writer_stream = stream;
    let writer = std::thread::spawn(move || {
        for msg in out_rx {
            if send(&mut writer_stream, &msg).is_err() {
                break;
            }
        }
    });

    let (info_tx, info_rx) =
        mpsc::sync_channel::<(u64, abi::SearchInfo)>(super::plugin::INFO_QUEUE);
    let current_search = Arc::new(AtomicU64::new(0));
    let sink = InfoSink {
        reports: info_tx,
        current_search: current_search.clone(),
    };
    let loaded = Plugin::load(&setup.plugin)
        .map_err(|e| e.to_string())
        .and_then(|(plugin, info)| Ok((plugin.instantiate(sink)?, info)));
    let (instance, info) = match loaded {
        Ok(x) => x,
        Err(message) => {
            let _ = out_tx.send(Reply::Failed { message });
            drop(out_tx);
            let _ = writer.join();
            return Ok(());
        }
    };
    let _ = out_tx.send(Reply::Hello { plugin: info });

    forward_info(info_rx, out_tx.clone());

    let stop = Arc::new(AtomicU32::new(0));
    let (work_tx, work_rx) = mpsc::channel::<Request>();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let engine = EngineThread {
        instance,
        stop: stop.clone(),
        replies: out_tx.clone(),
        current_search,
        done: done_tx,
    };
    std::thread::spawn(move || engine.serve(work_rx));

    loop {
        match receive::<Request>(&mut reader) {
            Ok(Some(Request::Stop)) => stop.store(1, Ordering::Relaxed),
            Ok(Some(Request::Quit)) | Ok(None) => break,
            Ok(Some(req @ Request::Go { .. })) => {
                stop.store(0, Ordering::Relaxed);
                if work_tx.send(req).is_err() {
                    break;
                }
            }
            Ok(Some(req)) => {
                if work_tx.send(req).is_err() {
                    break;
                }
            }
            Err(e) => {
                let _ = out_tx.send(Reply::Error {
                    message: format!("worker: {e}"),
                });
                break;
            }
        }
    }
    stop.store(1, Ordering::Relaxed);
    drop(work_tx);
    exit_after_the_engine(&done_rx)
}

/// Exit once the engine thread has destroyed the instance (status 0), but do not wait for
/// long: a search that ignores the stop flag or a hanging destroy must not keep the process
/// alive ([`EXIT_ENGINE_HUNG`] after [`DESTROY_GRACE`]). The caller has raised the stop flag
/// and closed the engine thread's requests.
fn exit_after_the_engine(done_rx: &mpsc::Receiver<()>) -> ! {
    if let Err(mpsc::RecvTimeoutError::Timeout) = done_rx.recv_timeout(DESTROY_GRACE) {
        // In the engine's log: which end the worker came to. The line goes out in one write:
        // the workers of one engine share its log, and `eprintln!` with arguments writes piece
        // by piece, so two workers ending at once interleaved their lines mid-sentence.
        let line = format!(
            "harness worker: the engine did not finish within {} s of the end; exiting without it\n",
            DESTROY_GRACE.as_secs()
        );
        let _ = std::io::stderr().write_all(line.as_bytes());
        std::process::exit(EXIT_ENGINE_HUNG);
    }
    std::process::exit(0);
}
