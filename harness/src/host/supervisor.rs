//! The supervisor: a small process between the coordinator and each worker
//! (`harness supervise --coordinator PID [--namespaces …] -- WORKER-FLAGS…`), outside the
//! plugin's process, so that nothing the plugin does to its own process (clearing its
//! parent-death signal, ignoring `SIGHUP`, starting programs in sessions of their own) decides
//! how long what it started lives.
//!
//! Every worker has one, with the sandbox off too. It starts the worker (`harness worker` with
//! the flags after `--`), with the channel to the coordinator as the worker's standard input,
//! and tells the coordinator on that channel which process the worker is
//! ([`Reply::Supervising`]) before the worker may say anything: the worker waits for the
//! coordinator's [`super::protocol::Request::Begin`]. Then the supervisor closes its own copy of the channel and
//! waits. Two shapes:
//!
//! - **Direct**: the worker is the supervisor's child and leads a process group of its own
//!   (the coordinator stops and kills that group). When the worker exits, the supervisor kills
//!   what is left of its group before reaping it (so the group's id cannot have been reused).
//! - **In namespaces** (a sandboxed worker, where the system gives them:
//!   [`sandbox::namespaces`]): the supervisor's child is the *init*, `harness supervise --init`,
//!   PID 1 of a new PID namespace; it sets up the rest, starts the worker in its own process
//!   group, reaps every orphan of the namespace, and exits when the worker exits, writing the
//!   worker's end on its standard output (a pipe to the supervisor). When the init ends, the
//!   kernel kills every process left in the namespace; no process in it can signal the
//!   supervisor or the init, nor see the coordinator.
//!
//! The supervisor does not stop between turns (it is outside the worker's group and cgroups):
//! when the coordinator dies, the kernel sends the supervisor `SIGHUP` (its parent-death
//! signal), and it kills the worker's group, or the init and with it the namespace, stopped or
//! not. Its exit mirrors the worker's: the same status, or death by the same signal, so that
//! the coordinator reads a crash's reason from the process it started.

use super::protocol::{send, Reply};
use super::sandbox::{self, namespaces};
use super::worker_description::CHANNEL_ON_STANDARD_INPUT;
use rustix::process::{Pid, Signal};
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// What the supervisor is told on its command line.
#[derive(Clone, Debug)]
pub struct Supervision {
    /// The coordinator's process id (the supervisor's parent).
    pub coordinator: u32,
    /// Namespaces of its own for the worker, with its scratch folder and the size of the
    /// `tmpfs` put there (`None`: the direct shape).
    pub namespaces: Option<(PathBuf, u64)>,
    /// The worker's flags (after `harness worker`).
    pub worker: Vec<OsString>,
}

/// How the worker ended: what the supervisor's own end repeats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ended {
    Exited(i32),
    Killed(i32),
}

impl Ended {
    fn of(status: std::process::ExitStatus) -> Ended {
        use std::os::unix::process::ExitStatusExt;
        match status.signal() {
            Some(signal) => Ended::Killed(signal),
            None => Ended::Exited(status.code().unwrap_or(1)),
        }
    }

    /// The init's line for the supervisor: `exited N` or `killed N`.
    fn line(self) -> String {
        match self {
            Ended::Exited(code) => format!("exited {code}"),
            Ended::Killed(signal) => format!("killed {signal}"),
        }
    }

    fn parse(line: &str) -> Option<Ended> {
        let (word, number) = line.trim().split_once(' ')?;
        let number = number.parse().ok()?;
        match word {
            "exited" => Some(Ended::Exited(number)),
            "killed" => Some(Ended::Killed(number)),
            _ => None,
        }
    }

    /// End this process as the worker ended: exit with its status, or die of its signal.
    fn repeat(self) -> ! {
        match self {
            Ended::Exited(code) => std::process::exit(code),
            Ended::Killed(signal) => {
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                std::process::exit(128 + signal)
            }
        }
    }
}

/// A signal the supervisor and the init do not die of: the `SIGINT` of a Ctrl-C (sent to the
/// coordinator's whole process group, the supervisor's too) and a batch system's `SIGTERM`.
/// The coordinator ends its workers itself.
fn ignore_interrupts() -> std::io::Result<()> {
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, std::sync::Arc::default())?;
    }
    Ok(())
}

/// No core file when the supervisor repeats a worker's crash.
fn no_core_files() {
    let none = rustix::process::Rlimit {
        current: Some(0),
        maximum: Some(0),
    };
    let _ = rustix::process::setrlimit(rustix::process::Resource::Core, none);
}

/// The worker as started, and how to end it.
enum Started {
    Direct {
        child: Child,
        worker: Pid,
        group: Option<Pid>,
    },
    InNamespaces {
        init: Child,
        report: BufReader<std::process::ChildStdout>,
        worker: Pid,
    },
}

impl Started {
    fn worker(&self) -> Pid {
        match self {
            Started::Direct { worker, .. } | Started::InNamespaces { worker, .. } => *worker,
        }
    }

    /// The process group the coordinator stops and kills: the worker's own, or the init's
    /// (the worker is in it); `None` inside a coordinator's sandbox.
    fn group(&self) -> Option<Pid> {
        match self {
            Started::Direct { group, .. } => *group,
            Started::InNamespaces { init, .. } => Some(pid_of(init)),
        }
    }

    /// What to kill to end everything the worker started: its process group (or the worker
    /// alone, where it has none), or the init, whose end ends its namespace.
    fn ender(&self) -> impl Fn() + Send + 'static {
        let (pid, group) = match self {
            Started::Direct { worker, group, .. } => (*worker, *group),
            Started::InNamespaces { init, .. } => (pid_of(init), None),
        };
        move || match group {
            Some(group) => {
                let _ = rustix::process::kill_process_group(group, Signal::KILL);
            }
            None => {
                let _ = rustix::process::kill_process(pid, Signal::KILL);
            }
        }
    }

    /// The process this supervisor waits for: the worker, or the init.
    fn child_pid(&self) -> Pid {
        match self {
            Started::Direct { worker, .. } => *worker,
            Started::InNamespaces { init, .. } => pid_of(init),
        }
    }

    /// Once the worker has ended: end what it left, reap it, and say how it ended.
    fn reap(self) -> Ended {
        match self {
            Started::Direct {
                mut child, group, ..
            } => {
                if let Some(group) = group {
                    let _ = rustix::process::kill_process_group(group, Signal::KILL);
                }
                child.wait().map(Ended::of).unwrap_or(Ended::Exited(1))
            }
            Started::InNamespaces {
                mut init,
                mut report,
                ..
            } => {
                let mut line = String::new();
                let said = report
                    .read_line(&mut line)
                    .ok()
                    .and_then(|_| Ended::parse(&line));
                let status = init.wait().map(Ended::of).unwrap_or(Ended::Exited(1));
                said.unwrap_or(status)
            }
        }
    }
}

fn pid_of(child: &Child) -> Pid {
    Pid::from_raw(child.id() as i32).unwrap_or(Pid::INIT)
}

/// `harness worker FLAGS…`, with the channel (this process's standard input) as its standard
/// input and this process's stderr (the engine's log).
fn worker_command(exe: &Path, flags: &[OsString]) -> Command {
    let mut command = Command::new(exe);
    command
        .arg("worker")
        .args(flags)
        .stdin(Stdio::inherit())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit());
    command
}

/// The direct shape: the worker as this process's child, leading a group of its own (not
/// inside a coordinator's sandbox, which may not make groups).
fn start_direct(exe: &Path, setup: &Supervision) -> anyhow::Result<Started> {
    use std::os::unix::process::CommandExt;
    let mut command = worker_command(exe, &setup.worker);
    let own_group = !sandbox::inside_a_filter();
    if own_group {
        command.process_group(0);
    }
    let child = command
        .spawn()
        .map_err(|e| anyhow::anyhow!("cannot start the worker: {e}"))?;
    let worker = pid_of(&child);
    Ok(Started::Direct {
        child,
        worker,
        group: own_group.then_some(worker),
    })
}

/// The shape in namespaces: the init (this program again, as PID 1 of the new namespace),
/// which starts the worker and says on its standard output what it made.
fn start_in_namespaces(
    exe: &Path,
    setup: &Supervision,
    (scratch, size): (&Path, u64),
    made: &mut namespaces::Made,
) -> anyhow::Result<Started> {
    use std::os::unix::process::CommandExt;
    let mut init = Command::new(exe)
        .arg("supervise")
        .arg("--init")
        .arg("--scratch")
        .arg(scratch)
        .arg("--scratch-size")
        .arg(size.to_string())
        .arg("--")
        .args(&setup.worker)
        .stdin(Stdio::inherit())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .process_group(0)
        .spawn()
        .map_err(|e| anyhow::anyhow!("cannot start the worker's init: {e}"))?;
    let mut report = BufReader::new(init.stdout.take().expect("the init's output is piped"));
    let mut line = String::new();
    report.read_line(&mut line)?;
    let inside: InitReport = serde_json::from_str(&line).map_err(|e| {
        anyhow::anyhow!("the worker's init did not start it ({e}): {}", line.trim())
    })?;
    made.namespaces.extend(inside.namespaces);
    made.missing.extend(inside.missing);
    let init_pid = pid_of(&init);
    let worker =
        child_of(init_pid).ok_or_else(|| anyhow::anyhow!("the worker's init has no child"))?;
    Ok(Started::InNamespaces {
        init,
        report,
        worker,
    })
}

/// The one child of `parent`, from the system's `/proc` (its pid as this namespace sees it).
fn child_of(parent: Pid) -> Option<Pid> {
    let raw = parent.as_raw_nonzero().get();
    let children = std::fs::read_to_string(format!("/proc/{raw}/task/{raw}/children")).ok()?;
    let first = children.split_whitespace().next()?.parse().ok()?;
    Pid::from_raw(first)
}

/// The init's first line to the supervisor: what it made of the namespaces.
#[derive(serde::Serialize, serde::Deserialize)]
struct InitReport {
    namespaces: Vec<String>,
    missing: Vec<String>,
}

/// Run the supervisor: start the worker, announce it, wait for its end and repeat it.
pub fn run(setup: &Supervision) -> anyhow::Result<()> {
    no_core_files();
    ignore_interrupts()?;
    // SIGHUP (the coordinator's death) is caught from here on; what it does is set up once
    // the worker is started ([`wait_for_the_end`]).
    signal_hook::flag::register(signal_hook::consts::SIGHUP, std::sync::Arc::default())?;
    super::parent_death::signal_on_parent_death(Signal::HUP)?;
    // The coordinator may have died before the request: then the parent is already another.
    if rustix::process::getppid()
        .is_none_or(|p| p.as_raw_nonzero().get() as u32 != setup.coordinator)
    {
        std::process::exit(1);
    }
    let exe = std::env::current_exe()?;
    let mut made = namespaces::Made::default();
    let started = match &setup.namespaces {
        Some((scratch, size)) => match namespaces::unshare_outside() {
            Ok(outside) => {
                made = outside;
                start_in_namespaces(&exe, setup, (scratch, *size), &mut made)?
            }
            Err(why) => {
                made.missing.push(why);
                start_direct(&exe, setup)?
            }
        },
        None => start_direct(&exe, setup)?,
    };
    let end_everything = started.ender();
    // The channel is the worker's now: this process says which one it is, then lets go of
    // it (the coordinator sees it close when the worker is gone).
    let mut channel = sandbox::descriptors::take_channel(CHANNEL_ON_STANDARD_INPUT)
        .map_err(anyhow::Error::msg)?;
    let announced = send(
        &mut channel,
        &Reply::Supervising {
            worker: started.worker().as_raw_nonzero().get() as u32,
            group: started.group().map(|g| g.as_raw_nonzero().get() as u32),
            namespaces: made.namespaces,
            missing: made.missing,
        },
    );
    drop(channel);
    if announced.is_err() {
        end_everything();
    }
    wait_for_the_end(&started, setup.coordinator, end_everything)?;
    started.reap().repeat()
}

/// Block until the child (the worker, or the init) has ended, without reaping it (in the
/// direct shape, its group's id stays taken until the reap, so no kill reaches another
/// process); on the coordinator's death (`SIGHUP`), end everything first. One thread (a new
/// PID namespace allows its maker no more): a poll of the child's pidfd and of a pipe the
/// `SIGHUP` handler writes to. Not `SIGCHLD`, which every stop and continue between turns
/// would raise.
fn wait_for_the_end(
    started: &Started,
    coordinator: u32,
    end_everything: impl Fn(),
) -> anyhow::Result<()> {
    use rustix::event::{poll, PollFd, PollFlags};
    let (hangup_read, hangup_write) = std::io::pipe()?;
    signal_hook::low_level::pipe::register(signal_hook::consts::SIGHUP, hangup_write)?;
    // The coordinator may have died between the death signal's request and here.
    if rustix::process::getppid().is_none_or(|p| p.as_raw_nonzero().get() as u32 != coordinator) {
        end_everything();
    }
    #[cfg(target_os = "linux")]
    let child =
        rustix::process::pidfd_open(started.child_pid(), rustix::process::PidfdFlags::empty());
    #[cfg(not(target_os = "linux"))]
    let child: std::io::Result<std::os::fd::OwnedFd> = Err(std::io::ErrorKind::Unsupported.into());
    let Ok(child) = child else {
        // No pidfd (Linux before 5.3, other systems): a plain wait, and the worker's own
        // guard alone acts on the coordinator's death.
        let exited =
            rustix::process::WaitIdOptions::EXITED | rustix::process::WaitIdOptions::NOWAIT;
        rustix::process::waitid(rustix::process::WaitId::Pid(started.child_pid()), exited)?;
        return Ok(());
    };
    loop {
        let mut fds = [
            PollFd::new(&child, PollFlags::IN),
            PollFd::new(&hangup_read, PollFlags::IN),
        ];
        match poll(&mut fds, None) {
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
        if !fds[1].revents().is_empty() {
            end_everything();
            let mut byte = [0u8; 64];
            let _ = rustix::io::read(&hangup_read, &mut byte);
        }
        if !fds[0].revents().is_empty() {
            return Ok(());
        }
    }
}

/// Run the init: PID 1 of the worker's namespaces. Sets up what is made inside, starts the
/// worker, reaps every process of the namespace that ends, and exits (ending the namespace)
/// when the worker has ended, after writing how on its standard output.
pub fn init(scratch: &Path, size: u64, worker: &[OsString]) -> anyhow::Result<()> {
    // Dies with the supervisor (whose end must end the namespace).
    super::parent_death::signal_on_parent_death(Signal::KILL)?;
    let exe = std::env::current_exe()?;
    let mut made = namespaces::Made::default();
    namespaces::set_up_inside(scratch, size, &mut made);
    let child = worker_command(&exe, worker)
        .current_dir(scratch)
        .spawn()
        .map_err(|e| anyhow::anyhow!("cannot start the worker: {e}"))?;
    let worker = pid_of(&child);
    let null = std::fs::File::open("/dev/null")?;
    rustix::stdio::dup2_stdin(&null)?;
    let mut out = std::io::stdout().lock();
    let report = InitReport {
        namespaces: made.namespaces,
        missing: made.missing,
    };
    // A supervisor that is gone cannot read it: then there is nothing to serve.
    if writeln!(out, "{}", serde_json::to_string(&report)?)
        .and_then(|()| out.flush())
        .is_err()
    {
        std::process::exit(1);
    }
    loop {
        match rustix::process::wait(rustix::process::WaitOptions::empty()) {
            Ok(Some((pid, status))) if pid == worker => {
                let ended = match (status.exit_status(), status.terminating_signal()) {
                    (_, Some(signal)) => Ended::Killed(signal),
                    (code, None) => Ended::Exited(code.unwrap_or(1)),
                };
                let _ = writeln!(out, "{}", ended.line()).and_then(|()| out.flush());
                std::process::exit(0);
            }
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            Err(_) => std::process::exit(1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Ended;

    #[test]
    fn the_init_line_reads_back() {
        for ended in [Ended::Exited(0), Ended::Exited(3), Ended::Killed(9)] {
            assert_eq!(Ended::parse(&format!("{}\n", ended.line())), Some(ended));
        }
        assert_eq!(Ended::parse("exited"), None);
        assert_eq!(Ended::parse("stopped 19"), None);
    }
}
