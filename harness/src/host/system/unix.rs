//! The host's processes on Unix (Linux and macOS): a worker started by its supervisor, its
//! channel one end of a socket pair on its standard input, its group a process group.

use std::io;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{ExitStatus, Stdio};

/// A supervisor speaks first on the channel ([`crate::host::supervisor`]).
pub const SUPERVISED: bool = true;

/// The command that starts a worker: its supervisor, `harness supervise --coordinator PID
/// [--namespaces --scratch DIR --scratch-size BYTES]`, to which the worker's own arguments are
/// added after `--`.
pub fn launcher(
    exe: &Path,
    coordinator: &str,
    namespaces: Option<(&Path, u64)>,
) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(exe);
    command
        .arg("supervise")
        .arg("--coordinator")
        .arg(coordinator);
    if let Some((scratch, size)) = namespaces {
        command
            .arg("--namespaces")
            .arg("--scratch")
            .arg(scratch)
            .arg("--scratch-size")
            .arg(size.to_string());
    }
    command.arg("--");
    command
}

/// The coordinator's end of a worker's channel, between the pair's making and the worker's
/// start.
pub struct Channel {
    ours: std::os::unix::net::UnixStream,
}

/// The coordinator's reading half of a channel.
pub type Reader = tokio::net::unix::OwnedReadHalf;
/// The coordinator's writing half of a channel.
pub type Writer = tokio::net::unix::OwnedWriteHalf;

impl Channel {
    /// A socket pair: this end, and the worker's as the standard streams its command gets
    /// (standard input; its standard output goes nowhere).
    pub fn make() -> io::Result<(Channel, Stdio, Stdio)> {
        let (ours, theirs) = std::os::unix::net::UnixStream::pair()?;
        let theirs = Stdio::from(std::os::fd::OwnedFd::from(theirs));
        Ok((Channel { ours }, theirs, Stdio::null()))
    }

    /// The channel on the runtime, once the worker has started.
    pub fn connect(self, _child: &mut tokio::process::Child) -> io::Result<(Reader, Writer)> {
        self.ours.set_nonblocking(true)?;
        Ok(tokio::net::UnixStream::from_std(self.ours)?.into_split())
    }
}

/// A worker's process group: the worker, its plugin and what the plugin started.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group(rustix::process::Pid);

impl Group {
    /// The group whose id is `id`, as the supervisor announced it.
    pub fn of(id: u32) -> Option<Group> {
        rustix::process::Pid::from_raw(id as i32).map(Group)
    }

    /// Nothing to make here: the supervisor announces the worker's group ([`Group::of`]).
    pub fn hold(
        _child: &tokio::process::Child,
        _memory: Option<u64>,
        _processes: u32,
    ) -> io::Result<Option<Group>> {
        Ok(None)
    }

    /// Whether the group can be stopped between turns (`SIGSTOP`): yes.
    pub fn stops(&self) -> bool {
        true
    }

    /// `SIGSTOP` to the whole group: whether it was sent.
    pub fn stop(&self) -> bool {
        rustix::process::kill_process_group(self.0, rustix::process::Signal::STOP).is_ok()
    }

    /// `SIGCONT` to the whole group.
    pub fn go_on(&self) {
        let _ = rustix::process::kill_process_group(self.0, rustix::process::Signal::CONT);
    }

    /// Not counted here: the worker's CPU time is read from `/proc`.
    pub fn cpu_time(&self) -> Option<std::time::Duration> {
        None
    }

    /// SIGKILL to the whole group. Its id stays taken until every member is gone, so this
    /// never reaches another process.
    pub fn kill(&self) {
        let _ = rustix::process::kill_process_group(self.0, rustix::process::Signal::KILL);
    }
}

/// The signal that ended a process, if one did.
pub fn exit_signal(status: &ExitStatus) -> Option<i32> {
    status.signal()
}

/// The kernel's clock ticks per second, the unit of `/proc`'s CPU times.
pub fn clock_ticks_per_second() -> u64 {
    rustix::param::clock_ticks_per_second()
}

/// Nothing to do: a crash ends a Unix process by its signal, which the coordinator records.
pub fn end_at_a_crash() {}

/// The worker's own guard should its parent (the supervisor, or the init of its namespaces)
/// die first: the kernel's SIGHUP ([`crate::host::parent_death`]), answered by killing this
/// worker's process group. The supervisor does the same from outside, where the plugin cannot
/// undo it.
pub fn die_with_the_parent() -> anyhow::Result<()> {
    use rustix::process::{getpgrp, getppid, kill_process_group, Signal};
    let parent = getppid();
    let mut hangups = signal_hook::iterator::Signals::new([signal_hook::consts::SIGHUP])?;
    std::thread::spawn(move || {
        if hangups.forever().next().is_some() {
            let _ = kill_process_group(getpgrp(), Signal::KILL);
            std::process::exit(1);
        }
    });
    crate::host::parent_death::signal_on_parent_death(Signal::HUP)?;
    // The parent may have died before the request: then the parent is already another.
    if getppid() != parent {
        let _ = kill_process_group(getpgrp(), Signal::KILL);
        std::process::exit(1);
    }
    Ok(())
}

/// Limit the address space of this process and of what it starts (`RLIMIT_AS`; macOS does
/// not enforce it).
pub fn limit_memory(bytes: u64) -> io::Result<()> {
    set_limit(rustix::process::Resource::As, bytes)
}

/// Limit the size of any file this process and what it starts write (`RLIMIT_FSIZE`).
pub fn limit_file_size(bytes: u64) -> io::Result<()> {
    set_limit(rustix::process::Resource::Fsize, bytes)
}

fn set_limit(resource: rustix::process::Resource, bytes: u64) -> io::Result<()> {
    let limit = rustix::process::Rlimit {
        current: Some(bytes),
        maximum: Some(bytes),
    };
    Ok(rustix::process::setrlimit(resource, limit)?)
}

/// The bytes a file takes on disk: its allocated blocks (a sparse file counts what it holds,
/// not its length).
pub fn allocated_bytes(meta: &std::fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    meta.blocks() * 512
}

/// Whether every user may read the file (its mode's "other" read bit).
pub fn readable_by_all(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o004 != 0
}

/// Whether the file is one this system runs: an execute bit set.
pub fn runnable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.is_file() && meta.permissions().mode() & 0o111 != 0
}

/// Make the folder `dir`, readable and writable by its owner alone.
pub fn make_private_folder(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new().mode(0o700).create(dir)
}

/// Whether no process has the id `pid` (`false` when it cannot be told).
pub fn process_gone(pid: u32) -> bool {
    rustix::process::Pid::from_raw(pid as i32)
        .is_some_and(|p| rustix::process::test_kill_process(p) == Err(rustix::io::Errno::SRCH))
}

/// Try to signal the process `pid` (signal 0: the permission check alone), as a probe of the
/// sandbox does.
pub fn try_to_signal(pid: u32) -> io::Result<()> {
    let pid = rustix::process::Pid::from_raw(pid as i32).ok_or(rustix::io::Errno::SRCH)?;
    Ok(rustix::process::test_kill_process(pid)?)
}

/// A local socket listening at `path` (a Unix socket), for a probe to try to connect to.
pub type LocalListener = std::os::unix::net::UnixListener;

/// Listen on a local socket at `path`.
pub fn listen_locally(path: &Path) -> io::Result<LocalListener> {
    LocalListener::bind(path)
}

/// Try to connect to the local socket at `path`, as a probe of the sandbox does.
pub fn try_to_connect_locally(path: &Path) -> io::Result<()> {
    std::os::unix::net::UnixStream::connect(path).map(drop)
}

/// What holds every process a worker starts where it has no cgroup (as the record's
/// `contained_by` names it), with the process cap: nothing on Unix.
pub const CONTAINER: Option<&str> = None;

/// What enforces the sandbox, as the warning of a partial one names it.
pub const SANDBOX_ENFORCER: &str = "the kernel";

/// How what an engine starts is ended where the worker has no cgroup.
pub const ENDED_WITHOUT_CGROUP: &str = "with its process group only";

/// How the record and `harness check` name the stop of a worker's group.
pub const STOP_NAME: &str = "SIGSTOP";

/// Why a worker is not stopped between its turns when it has neither a cgroup freezer nor a
/// process group of its own.
pub const NO_STOP_ROUTE: &str =
    "no cgroup freezer and no process group of its own (a nested harness)";

/// The variables the system's own programs need in a sandboxed worker, beyond the sandbox's
/// list: none on Unix.
pub const ENVIRONMENT: &[&str] = &[];

/// The variables that name a sandboxed worker's scratch folder as its temporary folder.
pub const SCRATCH_VARIABLES: &[&str] = &["TMPDIR"];

/// Whether two environment variable names are the same variable (Unix: the same bytes).
pub fn same_variable(a: &str, b: &str) -> bool {
    a == b
}
