//! The host's processes on Windows: the worker started directly (no supervisor process), its
//! channel the anonymous pipes of its standard input and output.
//!
//! Not yet here (issue 72), each recorded or refused where it is asked for: a job object per
//! worker (everything the plugin started killed with the worker and when the coordinator dies,
//! the 256-task cap, `memory-limit`), and the worker stopped between its turns (its threads
//! suspended). A worker whose coordinator is gone reads the end of its requests and exits.

use std::io;
use std::path::Path;
use std::process::{ExitStatus, Stdio};

/// No supervisor: the coordinator starts the worker itself.
pub const SUPERVISED: bool = false;

/// The command that starts a worker: `harness worker`, to which the worker's own arguments are
/// added. There are no namespaces to make.
pub fn launcher(
    exe: &Path,
    _coordinator: &str,
    _namespaces: Option<(&Path, u64)>,
) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(exe);
    command.arg("worker");
    command
}

/// The coordinator's end of a worker's channel: its standard input and output, made as pipes
/// when it starts.
pub struct Channel;

/// The coordinator's reading half of a channel: the worker's standard output.
pub type Reader = tokio::process::ChildStdout;
/// The coordinator's writing half of a channel: the worker's standard input.
pub type Writer = tokio::process::ChildStdin;

impl Channel {
    /// The worker's standard input and output, as pipes.
    pub fn make() -> io::Result<(Channel, Stdio, Stdio)> {
        Ok((Channel, Stdio::piped(), Stdio::piped()))
    }

    /// The pipes, once the worker has started.
    pub fn connect(self, child: &mut tokio::process::Child) -> io::Result<(Reader, Writer)> {
        let missing = || io::Error::other("the worker's standard streams are not pipes");
        let reader = child.stdout.take().ok_or_else(missing)?;
        let writer = child.stdin.take().ok_or_else(missing)?;
        Ok((reader, writer))
    }
}

/// What would be a worker's process group: no such thing here (a job object will be), so
/// there is never one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {}

impl Group {
    /// No group on this system.
    pub fn of(_id: u32) -> Option<Group> {
        None
    }

    pub fn stop(self) -> bool {
        match self {}
    }

    pub fn go_on(self) {
        match self {}
    }

    pub fn kill(self) {
        match self {}
    }
}

/// Windows ends a process with an exit code, never a signal.
pub fn exit_signal(_status: &ExitStatus) -> Option<i32> {
    None
}

/// Read from `file` at `offset` (Windows moves the file's position; the callers do not use
/// it).
pub fn read_at(file: &std::fs::File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, offset)
}

/// There is no `/proc` here to read CPU times from in ticks: any unit does.
pub fn clock_ticks_per_second() -> u64 {
    100
}

/// Nothing to ask: the worker reads the end of its requests when its coordinator is gone and
/// exits (a job object with kill-on-close will end what the plugin started too).
pub fn die_with_the_parent() -> anyhow::Result<()> {
    Ok(())
}

/// Refused: `memory-limit` needs the worker's job object, not built yet.
pub fn limit_memory(_bytes: u64) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "memory-limit is not enforced on Windows yet (it needs a job object)",
    ))
}

/// Not enforced: Windows has no limit on one file's size; the coordinator's look at the
/// scratch folder's size is the disk limit here.
pub fn limit_file_size(_bytes: u64) -> io::Result<()> {
    Ok(())
}

/// The bytes a file takes on disk: its length (the allocated size is not asked for).
pub fn allocated_bytes(meta: &std::fs::Metadata) -> u64 {
    meta.len()
}

/// Whether every user may read the file: not looked at (an access list, not mode bits); it
/// decides what Landlock opens on Linux, and nothing here.
pub fn readable_by_all(_meta: &std::fs::Metadata) -> bool {
    true
}

/// Whether the file is one this system runs: a file (Windows runs by extension, which the
/// callers' names carry).
pub fn runnable(meta: &std::fs::Metadata) -> bool {
    meta.is_file()
}

/// Make the folder `dir`; it takes the access list of the folder it is made in (the user's
/// temporary folder: the user's own).
pub fn make_private_folder(dir: &Path) -> io::Result<()> {
    std::fs::create_dir(dir)
}

/// Whether no process has the id `pid`: not told here (`false`), so a folder is never taken
/// for a gone coordinator's.
pub fn process_gone(_pid: u32) -> bool {
    false
}

/// Nothing on Windows keeps a process from ending another of the same user: counted as not
/// refused.
pub fn try_to_signal(_pid: u32) -> io::Result<()> {
    Ok(())
}

/// No local socket here to probe with.
pub struct LocalListener;

/// Refused: the probe's local socket is a Unix socket.
pub fn listen_locally(_path: &Path) -> io::Result<LocalListener> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "no Unix sockets here",
    ))
}

/// Refused: there are no Unix sockets here.
pub fn try_to_connect_locally(_path: &Path) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "no Unix sockets here",
    ))
}
