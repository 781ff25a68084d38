//! The host's processes on Windows: the worker started directly (no supervisor process), its
//! channel the anonymous pipes of its standard input and output.
//!
//! Each worker is in a job object the coordinator makes ([`Group`]): everything the plugin
//! starts is killed with the worker and when the coordinator dies, at most 256 processes,
//! and `memory-limit`. Not yet here, and recorded as not stopped: the worker stopped
//! between its turns (its threads suspended).

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

/// A worker's job object: the worker and every process it starts (a process started by one in
/// a job is in the job too), killed together by [`Group::kill`], and when the last handle
/// closes (the worker's host dropped, or the coordinator gone: kill-on-close). It caps the
/// processes at once and, with `memory-limit`, each process's and the whole job's committed
/// memory.
#[derive(Clone, Debug)]
pub struct Group(std::sync::Arc<std::os::windows::io::OwnedHandle>);

impl PartialEq for Group {
    fn eq(&self, other: &Group) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Group {}

impl Group {
    /// No group is announced on Windows (there is no supervisor): the coordinator makes one
    /// ([`Group::hold`]).
    pub fn of(_id: u32) -> Option<Group> {
        None
    }

    /// A job object for the worker `child`, just started: at most `processes` at once, and
    /// `memory` bytes for each and for all together when given. The worker is in it before it
    /// has read its first request, so before it starts anything.
    pub fn hold(
        child: &tokio::process::Child,
        memory: Option<u64>,
        processes: u32,
    ) -> io::Result<Option<Group>> {
        use std::os::windows::io::{FromRawHandle, RawHandle};
        use windows_sys::Win32::System::JobObjects::{
            AssignProcessToJobObject, CreateJobObjectW, JobObjectExtendedLimitInformation,
            SetInformationJobObject, JOBOBJECT_EXTENDED_LIMIT_INFORMATION,
            JOB_OBJECT_LIMIT_ACTIVE_PROCESS, JOB_OBJECT_LIMIT_JOB_MEMORY,
            JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, JOB_OBJECT_LIMIT_PROCESS_MEMORY,
        };
        let process = child
            .raw_handle()
            .ok_or_else(|| io::Error::other("the worker has already ended"))?;
        // SAFETY: two null pointers ask for an unnamed job with default security; the call
        // reads nothing else.
        let raw = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
        if raw.is_null() {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `raw` is the handle just returned, owned by nothing else: the `OwnedHandle`
        // closes it exactly once.
        let job = unsafe { std::os::windows::io::OwnedHandle::from_raw_handle(raw as RawHandle) };
        let mut limits = JOBOBJECT_EXTENDED_LIMIT_INFORMATION {
            BasicLimitInformation: Default::default(),
            IoInfo: Default::default(),
            ProcessMemoryLimit: 0,
            JobMemoryLimit: 0,
            PeakProcessMemoryUsed: 0,
            PeakJobMemoryUsed: 0,
        };
        limits.BasicLimitInformation.LimitFlags =
            JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | JOB_OBJECT_LIMIT_ACTIVE_PROCESS;
        limits.BasicLimitInformation.ActiveProcessLimit = processes;
        if let Some(bytes) = memory {
            let bytes = usize::try_from(bytes).unwrap_or(usize::MAX);
            limits.BasicLimitInformation.LimitFlags |=
                JOB_OBJECT_LIMIT_PROCESS_MEMORY | JOB_OBJECT_LIMIT_JOB_MEMORY;
            limits.ProcessMemoryLimit = bytes;
            limits.JobMemoryLimit = bytes;
        }
        // SAFETY: the job handle is open (owned above); the pointer and the size are those of
        // `limits`, a live value of the type the information class names.
        let set = unsafe {
            SetInformationJobObject(
                raw,
                JobObjectExtendedLimitInformation,
                (&raw const limits).cast(),
                std::mem::size_of_val(&limits) as u32,
            )
        };
        if set == 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: both handles are open: the job's (owned above) and the child's process
        // handle, which `child` keeps open while it lives.
        if unsafe { AssignProcessToJobObject(raw, process as _) } == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Some(Group(std::sync::Arc::new(job))))
    }

    /// Whether the group can be stopped between turns: not yet on Windows (its threads would
    /// be suspended).
    pub fn stops(&self) -> bool {
        false
    }

    /// Not stopped ([`Group::stops`]).
    pub fn stop(&self) -> bool {
        false
    }

    /// Nothing to continue.
    pub fn go_on(&self) {}

    /// End every process of the job at once.
    pub fn kill(&self) {
        use std::os::windows::io::AsRawHandle;
        // SAFETY: the job's handle is open while `self` holds it.
        unsafe {
            windows_sys::Win32::System::JobObjects::TerminateJobObject(
                self.0.as_raw_handle() as _,
                1,
            );
        }
    }
}

/// Windows ends a process with an exit code, never a signal.
pub fn exit_signal(_status: &ExitStatus) -> Option<i32> {
    None
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

/// Nothing to do in the worker: the coordinator's job object holds `memory-limit`
/// ([`Group::hold`]).
pub fn limit_memory(_bytes: u64) -> io::Result<()> {
    Ok(())
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

/// Why a worker is not stopped between its turns here.
pub const NO_STOP_ROUTE: &str = "not on Windows yet (its threads would be suspended)";

/// The variables Windows' own programs and libraries need in a sandboxed worker, beyond the
/// sandbox's list (without `SystemRoot`, for one, sockets and many DLLs fail to start).
pub const ENVIRONMENT: &[&str] = &[
    "SystemRoot",
    "SystemDrive",
    "windir",
    "ComSpec",
    "PATHEXT",
    "USERPROFILE",
    "NUMBER_OF_PROCESSORS",
    "PROCESSOR_ARCHITECTURE",
    "OS",
];

/// The variables that name a sandboxed worker's scratch folder as its temporary folder
/// (`TMPDIR` for programs from Unix, `TEMP` and `TMP` for Windows').
pub const SCRATCH_VARIABLES: &[&str] = &["TMPDIR", "TEMP", "TMP"];

/// Whether two environment variable names are the same variable (Windows: without case).
pub fn same_variable(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}
