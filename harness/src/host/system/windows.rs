//! The host's processes on Windows: the worker started directly (no supervisor process), its
//! channel the anonymous pipes of its standard input and output.
//!
//! Each worker is in a job object the coordinator makes ([`Group`]): everything the plugin
//! starts is killed with the worker and when the coordinator dies, at most 256 processes,
//! and `memory-limit`; between its turns every thread in the job is suspended.

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
/// memory. Between turns every thread of every process in the job is suspended
/// ([`Group::stop`]) and resumed before the next request ([`Group::go_on`]).
#[derive(Clone, Debug)]
pub struct Group(std::sync::Arc<Job>);

/// The job's handle, and the threads [`Group::stop`] suspended, to resume.
#[derive(Debug)]
pub struct Job {
    handle: std::os::windows::io::OwnedHandle,
    /// The worker's process id: the one process known to be in the job when the job's list
    /// of processes cannot be read.
    worker: u32,
    suspended: std::sync::Mutex<Vec<SuspendedThread>>,
}

/// A thread suspended by [`Group::stop`]: its id, and a handle that may resume it.
#[derive(Debug)]
struct SuspendedThread {
    id: u32,
    handle: std::os::windows::io::OwnedHandle,
}

impl PartialEq for Group {
    fn eq(&self, other: &Group) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Group {}

/// The most passes [`Group::stop`] makes over the system's threads: each pass suspends the
/// job's threads that the last did not see (started meanwhile by a thread not yet suspended);
/// a pass that finds none ends the stop.
const SUSPEND_PASSES: usize = 8;

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
        let gone = || io::Error::other("the worker has already ended");
        let process = child.raw_handle().ok_or_else(gone)?;
        let worker = child.id().ok_or_else(gone)?;
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
        Ok(Some(Group(std::sync::Arc::new(Job {
            handle: job,
            worker,
            suspended: std::sync::Mutex::new(Vec::new()),
        }))))
    }

    /// Whether the group can be stopped between turns (its threads suspended): yes.
    pub fn stops(&self) -> bool {
        true
    }

    /// Suspend every thread of every process in the job: whether any was suspended. The
    /// system's threads are listed (a Toolhelp snapshot) and each of the job's processes'
    /// threads not yet suspended is suspended, pass after pass, until a pass finds none new.
    /// A thread is suspended by the time its processor next enters the kernel (an interrupt
    /// at the latest), as a thread frozen by Linux's freezer is; that is not waited for.
    pub fn stop(&self) -> bool {
        let mut suspended = self.0.suspended.lock().unwrap_or_else(|e| e.into_inner());
        for _ in 0..SUSPEND_PASSES {
            let processes = self.process_ids();
            let mut new = 0;
            for thread in threads_of(&processes) {
                if suspended.iter().any(|s| s.id == thread) {
                    continue;
                }
                if let Some(s) = suspend(thread) {
                    suspended.push(s);
                    new += 1;
                }
            }
            if new == 0 {
                break;
            }
        }
        !suspended.is_empty()
    }

    /// Resume every thread [`Group::stop`] suspended.
    pub fn go_on(&self) {
        use std::os::windows::io::AsRawHandle;
        use windows_sys::Win32::System::Threading::ResumeThread;
        let mut suspended = self.0.suspended.lock().unwrap_or_else(|e| e.into_inner());
        for thread in suspended.drain(..) {
            // SAFETY: the handle is open (owned by `thread`) with the right to resume, and
            // this thread was suspended once through it.
            unsafe { ResumeThread(thread.handle.as_raw_handle() as _) };
        }
    }

    /// End every process of the job at once.
    pub fn kill(&self) {
        use std::os::windows::io::AsRawHandle;
        // SAFETY: the job's handle is open while `self` holds it.
        unsafe {
            windows_sys::Win32::System::JobObjects::TerminateJobObject(
                self.0.handle.as_raw_handle() as _,
                1,
            );
        }
    }

    /// The CPU time of every process that ran in the job, ended ones included (its
    /// accounting's user and kernel times); `None` while it counts nothing, as Wine's job
    /// objects always do (a worker that has loaded its plugin has used some).
    pub fn cpu_time(&self) -> Option<std::time::Duration> {
        use std::os::windows::io::AsRawHandle;
        use windows_sys::Win32::System::JobObjects::{
            JobObjectBasicAccountingInformation, QueryInformationJobObject,
            JOBOBJECT_BASIC_ACCOUNTING_INFORMATION,
        };
        let mut info: JOBOBJECT_BASIC_ACCOUNTING_INFORMATION = Default::default();
        // SAFETY: the job's handle is open; the pointer and the size are those of `info`, a
        // live value of the type the information class names, which the call fills.
        let ok = unsafe {
            QueryInformationJobObject(
                self.0.handle.as_raw_handle() as _,
                JobObjectBasicAccountingInformation,
                (&raw mut info).cast(),
                std::mem::size_of_val(&info) as u32,
                std::ptr::null_mut(),
            )
        };
        if ok == 0 {
            return None;
        }
        // Both times are in units of 100 ns.
        let units = info.TotalUserTime.saturating_add(info.TotalKernelTime);
        if units <= 0 {
            return None;
        }
        Some(std::time::Duration::from_nanos(
            u64::try_from(units).ok()?.saturating_mul(100),
        ))
    }

    /// The ids of the processes in the job now (the worker's alone when the list cannot be
    /// read).
    fn process_ids(&self) -> Vec<u32> {
        use std::os::windows::io::AsRawHandle;
        use windows_sys::Win32::System::JobObjects::{
            JobObjectBasicProcessIdList, QueryInformationJobObject,
        };
        /// The list as the call writes it: two counts, then the ids (room for the job's cap).
        #[repr(C)]
        struct IdList {
            assigned: u32,
            listed: u32,
            ids: [usize; 320],
        }
        let mut list = IdList {
            assigned: 0,
            listed: 0,
            ids: [0; 320],
        };
        // SAFETY: the job's handle is open; the pointer and the size are those of `list`,
        // laid out as `JOBOBJECT_BASIC_PROCESS_ID_LIST` with room for 320 ids.
        let ok = unsafe {
            QueryInformationJobObject(
                self.0.handle.as_raw_handle() as _,
                JobObjectBasicProcessIdList,
                (&raw mut list).cast(),
                std::mem::size_of_val(&list) as u32,
                std::ptr::null_mut(),
            )
        };
        let listed = (list.listed as usize).min(list.ids.len());
        if ok == 0 || listed == 0 {
            return vec![self.0.worker];
        }
        list.ids[..listed].iter().map(|&id| id as u32).collect()
    }
}

/// The logical processors this process may run on, numbered within its processor group (a
/// process starts in one group of at most 64; the cores of other groups are not offered).
pub fn allowed_cores() -> io::Result<Vec<usize>> {
    use windows_sys::Win32::System::Threading::{GetCurrentProcess, GetProcessAffinityMask};
    let mut process_mask = 0usize;
    let mut system_mask = 0usize;
    // SAFETY: this process's pseudo-handle needs no closing; both pointers are live places for
    // the masks.
    let read =
        unsafe { GetProcessAffinityMask(GetCurrentProcess(), &mut process_mask, &mut system_mask) };
    if read == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((0..usize::BITS as usize)
        .filter(|&c| process_mask >> c & 1 == 1)
        .collect())
}

/// Pin the process `pid` to `cores` of its processor group: every thread it has, and those
/// and the processes it starts later, which inherit the mask.
pub fn pin(pid: u32, cores: &[usize]) -> io::Result<()> {
    use windows_sys::Win32::System::Threading::{
        OpenProcess, SetProcessAffinityMask, PROCESS_QUERY_LIMITED_INFORMATION,
        PROCESS_SET_INFORMATION,
    };
    let mut mask = 0usize;
    for &core in cores {
        if core >= usize::BITS as usize {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("core {core} is outside the harness's processor group"),
            ));
        }
        mask |= 1 << core;
    }
    // SAFETY: integer arguments; a null handle is the refusal, checked below.
    let process = unsafe {
        OpenProcess(
            PROCESS_SET_INFORMATION | PROCESS_QUERY_LIMITED_INFORMATION,
            0,
            pid,
        )
    };
    if process.is_null() {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the handle just opened, with the right to set the process's information.
    let set = unsafe { SetProcessAffinityMask(process, mask) };
    let error = io::Error::last_os_error();
    // SAFETY: the handle just opened, closed once.
    unsafe { windows_sys::Win32::Foundation::CloseHandle(process) };
    if set == 0 {
        return Err(error);
    }
    Ok(())
}

/// The ids of the threads of the processes `processes`, from a snapshot of the system's
/// threads (empty where none can be taken).
fn threads_of(processes: &[u32]) -> Vec<u32> {
    use std::os::windows::io::{FromRawHandle, OwnedHandle, RawHandle};
    use windows_sys::Win32::Foundation::INVALID_HANDLE_VALUE;
    use windows_sys::Win32::System::Diagnostics::ToolHelp::{
        CreateToolhelp32Snapshot, Thread32First, Thread32Next, TH32CS_SNAPTHREAD, THREADENTRY32,
    };
    // SAFETY: a snapshot of every thread of the system (the process id is not read for
    // threads); the call takes integers only.
    let raw = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0) };
    if raw == INVALID_HANDLE_VALUE || raw.is_null() {
        return Vec::new();
    }
    // SAFETY: `raw` is the snapshot's handle just returned, owned by nothing else.
    let snapshot = unsafe { OwnedHandle::from_raw_handle(raw as RawHandle) };
    let mut entry = THREADENTRY32 {
        dwSize: std::mem::size_of::<THREADENTRY32>() as u32,
        ..Default::default()
    };
    let mut threads = Vec::new();
    // SAFETY: the snapshot's handle is open (owned above) and `entry` is a live
    // `THREADENTRY32` whose `dwSize` says its size, as both calls require; they fill it.
    let mut more = unsafe { Thread32First(raw, &raw mut entry) } != 0;
    while more {
        if processes.contains(&entry.th32OwnerProcessID) {
            threads.push(entry.th32ThreadID);
        }
        // SAFETY: as for `Thread32First`.
        more = unsafe { Thread32Next(raw, &raw mut entry) } != 0;
    }
    drop(snapshot);
    threads
}

/// Suspend the thread `id`: its handle, to resume it by, where it could be opened and
/// suspended.
fn suspend(id: u32) -> Option<SuspendedThread> {
    use std::os::windows::io::{FromRawHandle, OwnedHandle, RawHandle};
    use windows_sys::Win32::System::Threading::{OpenThread, SuspendThread, THREAD_SUSPEND_RESUME};
    // SAFETY: the call takes integers only and returns a new handle or null.
    let raw = unsafe { OpenThread(THREAD_SUSPEND_RESUME, 0, id) };
    if raw.is_null() {
        return None;
    }
    // SAFETY: `raw` is the handle just returned, owned by nothing else.
    let handle = unsafe { OwnedHandle::from_raw_handle(raw as RawHandle) };
    // SAFETY: the handle is open with the right to suspend.
    if unsafe { SuspendThread(raw) } == u32::MAX {
        return None;
    }
    Some(SuspendedThread { id, handle })
}

/// In a worker, once it holds its own handle on the channel's pipe: the process's standard
/// output becomes its standard error, so that what a plugin prints goes to the engine's log
/// and never into the channel. Both places a plugin's print goes through are moved: the
/// process's standard handle (which Rust's `print!` asks for at every write, and which a C
/// runtime loaded later, such as an MSVC plugin's UCRT, starts from) and descriptor 1 of the
/// C runtime the harness is linked with (MinGW's `msvcrt`, which C plugins built by MinGW
/// share). A C runtime already loaded apart from that one keeps its own descriptor 1.
pub fn standard_output_to_standard_error() -> io::Result<()> {
    use windows_sys::Win32::System::Console::{
        GetStdHandle, SetStdHandle, STD_ERROR_HANDLE, STD_OUTPUT_HANDLE,
    };
    // SAFETY: `GetStdHandle` reads the process's table of standard handles, and `SetStdHandle`
    // writes one entry of it with a handle from the same table (standard error's, open for
    // the life of the process); no handle is opened or closed.
    let set = unsafe { SetStdHandle(STD_OUTPUT_HANDLE, GetStdHandle(STD_ERROR_HANDLE)) };
    if set == 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `_dup2` of the C runtime's descriptors 2 and 1, both open at start; it closes
    // the runtime's descriptor 1 (its own handle on the channel's pipe, which no Rust object
    // owns) and makes 1 a copy of 2.
    if unsafe { libc::dup2(2, 1) } == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
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

/// In a worker, before the plugin loads: a crash (an exception no handler takes) ends the
/// process at once with the exception's code, which the coordinator records as the engine's
/// crash, instead of waiting on the system's error dialog or a debugger (Windows Error
/// Reporting; Wine starts its debugger whatever the error mode says, so the filter of last
/// resort is set too). The processes the plugin starts inherit the error mode.
pub fn end_at_a_crash() {
    use windows_sys::Win32::System::Diagnostics::Debug::{
        SetErrorMode, SetUnhandledExceptionFilter, EXCEPTION_EXECUTE_HANDLER, EXCEPTION_POINTERS,
        SEM_FAILCRITICALERRORS, SEM_NOGPFAULTERRORBOX,
    };
    /// The filter of last resort: end the process, its exit code the exception's.
    unsafe extern "system" fn end_the_process(_: *const EXCEPTION_POINTERS) -> i32 {
        EXCEPTION_EXECUTE_HANDLER
    }
    // SAFETY: the first call takes flags only and sets the process's error mode; the second
    // sets a filter that reads nothing and lives as long as the program (a plain function).
    unsafe {
        SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX);
        SetUnhandledExceptionFilter(Some(end_the_process));
    }
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

/// What holds every process a worker starts where it has no cgroup (as the record's
/// `contained_by` names it), with the process cap: the worker's job object.
pub const CONTAINER: Option<&str> = Some("job object");

/// What enforces the sandbox, as the warning of a partial one names it.
pub const SANDBOX_ENFORCER: &str = "Windows";

/// How what an engine starts is ended where the worker has no cgroup.
pub const ENDED_WITHOUT_CGROUP: &str = "with its job object";

/// How the record and `harness check` name the stop of a worker's group.
pub const STOP_NAME: &str = "SuspendThread";

/// Why a worker is not stopped between its turns here: it has no job object (it ended before
/// one was made).
pub const NO_STOP_ROUTE: &str = "no job object";

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
