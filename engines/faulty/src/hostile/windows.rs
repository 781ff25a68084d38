//! The hostile faults made of Windows' own calls: what a Windows plugin with the user's
//! rights would try against the harness. The harness holds each worker in a job object (a
//! process cannot leave its job, and everything in it ends with the worker and with the
//! harness); nothing holds the files, the network or the harness's own process, and these
//! faults say what the system let them do.
//!
//! The loops that `outlive-coordinator` and `daemon` start are this library run again by
//! Windows' own `rundll32.exe` (its entry [`faulty_append_forever`]): a process that keeps
//! writing where the tests can see it, with nothing but the system to start it.

use super::say;
use crate::Fault;
use std::os::windows::process::CommandExt;
use std::process::{Command, Stdio};

/// The variable naming the file a loop started by `outlive-coordinator` or `daemon` appends
/// its process id to.
pub const APPEND_TO_VARIABLE: &str = "FAULTY_APPEND_TO";

/// Commit `fault` (a hostile fault of this module) against `target`; the others say they are
/// not on this system.
pub fn strike(fault: Fault, target: &str) {
    match fault {
        Fault::KillParent => kill_parent(),
        Fault::ExecShell => exec_shell(target),
        Fault::ForkBomb => fork_bomb(target),
        Fault::Daemon => daemon(target),
        Fault::OutliveCoordinator => outlive_coordinator(target),
        other => say(other.name(), "not on this system (its code is Linux's)"),
    }
}

/// The coordinator's environment: faulty does not read another process's memory on Windows.
pub fn coordinator_environment() -> std::io::Result<String> {
    Err(std::io::Error::other("faulty reads it only on Linux"))
}

/// `kill-parent`: end the process that started the worker (the harness: on Windows there is
/// no supervisor between them) with `TerminateProcess`.
pub fn kill_parent() {
    let ended = deliberate::parent_process_id().and_then(|parent| {
        deliberate::terminate(parent)
            .map(|()| parent)
            .map_err(|e| std::io::Error::new(e.kind(), format!("{parent}: {e}")))
    });
    match ended {
        Ok(parent) => say("kill-parent", &format!("terminated {parent}")),
        Err(e) => say("kill-parent", &format!("cannot terminate the harness {e}")),
    }
}

/// `exec-shell`: run `cmd.exe /c type nul > "TARGET"` (a new empty file, as `touch` makes).
pub fn exec_shell(target: &str) {
    let status = Command::new("cmd.exe")
        .raw_arg(format!("/d /c type nul > \"{target}\""))
        .stdin(Stdio::null())
        .status();
    match status {
        Ok(s) if s.success() => say("exec-shell", &format!("touched {target}")),
        Ok(s) => say("exec-shell", &format!("`type nul > {target}` failed: {s}")),
        Err(e) => say("exec-shell", &format!("cannot run cmd.exe: {e}")),
    }
}

/// `fork-bomb`: start command interpreters that wait on an input that never comes, until one
/// cannot start (or the number `target` names); they are in the worker's job, which ends
/// with the worker.
pub fn fork_bomb(target: &str) {
    super::fork_bomb_with(target, || {
        Command::new("cmd.exe")
            .args(["/d", "/q", "/k"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
    });
}

/// `outlive-coordinator`: start a loop that appends its process id to the file `target` every
/// 100 ms, as a plain child of the worker (so in its job). Should the harness die, the worker
/// ends when its channel closes, and the loop would stay unless something outside the plugin
/// ends the job.
pub fn outlive_coordinator(target: &str) {
    start_loop("outlive-coordinator", target, 0, "in the worker's job");
}

/// `daemon`: start the loop of `outlive-coordinator` out of the worker's job
/// (`CREATE_BREAKAWAY_FROM_JOB`), then one detached from the console in a process group of
/// its own, the ways a Windows program leaves its parent behind.
pub fn daemon(target: &str) {
    /// `CREATE_BREAKAWAY_FROM_JOB`, `DETACHED_PROCESS` and `CREATE_NEW_PROCESS_GROUP`.
    const BREAKAWAY: u32 = 0x0100_0000;
    const DETACHED: u32 = 0x0000_0008 | 0x0000_0200;
    start_loop("daemon", target, BREAKAWAY, "out of the worker's job");
    start_loop(
        "daemon",
        target,
        DETACHED,
        "detached, in a process group of its own",
    );
}

/// Start this library's [`faulty_append_forever`] under `rundll32.exe`, appending to `target`,
/// with the process creation `flags`; say so as `fault`, `where_` it runs.
fn start_loop(fault: &str, target: &str, flags: u32, where_: &str) {
    let library = match deliberate::own_path() {
        Ok(path) => path,
        Err(e) => return say(fault, &format!("cannot find its own library: {e}")),
    };
    let child = Command::new("rundll32.exe")
        .raw_arg(format!("\"{}\",faulty_append_forever", library.display()))
        .env(APPEND_TO_VARIABLE, target)
        .creation_flags(flags)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    match child {
        Ok(child) => {
            say(fault, &format!("started {} {where_}", child.id()));
            std::mem::forget(child);
        }
        Err(e) => say(fault, &format!("cannot start a loop {where_}: {e}")),
    }
}

/// The loop of `outlive-coordinator` and `daemon`, called by `rundll32.exe` (whose four
/// arguments, a window, an instance, a command line and a show flag, it does not use): append
/// this process's id to the file [`APPEND_TO_VARIABLE`] names every 100 ms, for ever.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "system" fn faulty_append_forever(
    _window: usize,
    _instance: usize,
    _line: usize,
    _show: i32,
) {
    use std::io::Write;
    let Ok(target) = std::env::var(APPEND_TO_VARIABLE) else {
        return;
    };
    loop {
        if let Ok(mut file) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&target)
        {
            let _ = writeln!(file, "{}", std::process::id());
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// The Windows calls of these faults that have no safe wrapper.
mod deliberate {
    #![allow(unsafe_code)]

    use std::io;
    use windows_sys::Win32::Foundation::{CloseHandle, INVALID_HANDLE_VALUE};

    /// The id of the process that started this one, from a snapshot of the system's
    /// processes.
    pub fn parent_process_id() -> io::Result<u32> {
        use windows_sys::Win32::System::Diagnostics::ToolHelp::{
            CreateToolhelp32Snapshot, Process32FirstW, Process32NextW, PROCESSENTRY32W,
            TH32CS_SNAPPROCESS,
        };
        let me = std::process::id();
        // SAFETY: a snapshot of the processes: two integer arguments, no pointer.
        let snapshot = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0) };
        if snapshot == INVALID_HANDLE_VALUE {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: an all-zero PROCESSENTRY32W is a valid value (integers and arrays of them).
        let mut entry: PROCESSENTRY32W = unsafe { std::mem::zeroed() };
        entry.dwSize = std::mem::size_of::<PROCESSENTRY32W>() as u32;
        let mut parent = None;
        // SAFETY: the snapshot handle is open; `entry` is a live value whose size field is set,
        // as both calls require.
        let mut more = unsafe { Process32FirstW(snapshot, &mut entry) } != 0;
        while more {
            if entry.th32ProcessID == me {
                parent = Some(entry.th32ParentProcessID);
                break;
            }
            // SAFETY: as for the first call.
            more = unsafe { Process32NextW(snapshot, &mut entry) } != 0;
        }
        // SAFETY: the snapshot's handle, closed once.
        unsafe { CloseHandle(snapshot) };
        parent.ok_or_else(|| io::Error::other("this process is not in the snapshot"))
    }

    /// End the process `pid` with exit code 1.
    pub fn terminate(pid: u32) -> io::Result<()> {
        use windows_sys::Win32::System::Threading::{
            OpenProcess, TerminateProcess, PROCESS_TERMINATE,
        };
        // SAFETY: integer arguments; a null handle is the refusal, checked below.
        let process = unsafe { OpenProcess(PROCESS_TERMINATE, 0, pid) };
        if process.is_null() {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: the handle just opened, with the right to terminate.
        let ended = unsafe { TerminateProcess(process, 1) };
        let error = io::Error::last_os_error();
        // SAFETY: the handle just opened, closed once.
        unsafe { CloseHandle(process) };
        if ended == 0 {
            return Err(error);
        }
        Ok(())
    }

    /// The path of this library (the module that holds this function's code).
    pub fn own_path() -> io::Result<std::path::PathBuf> {
        use std::os::windows::ffi::OsStringExt;
        use windows_sys::Win32::System::LibraryLoader::{
            GetModuleFileNameW, GetModuleHandleExW, GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS,
            GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
        };
        let mut module = std::ptr::null_mut();
        let address = own_path as *const () as *const u16;
        // SAFETY: with FROM_ADDRESS the second argument is an address inside a module (this
        // function's), not a string; UNCHANGED_REFCOUNT takes no reference to release;
        // `module` is a live place for the handle.
        let found = unsafe {
            GetModuleHandleExW(
                GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS
                    | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                address,
                &mut module,
            )
        };
        if found == 0 {
            return Err(io::Error::last_os_error());
        }
        let mut name = vec![0u16; 32768];
        // SAFETY: the module's handle just found; the buffer and its length are those of
        // `name`.
        let length = unsafe { GetModuleFileNameW(module, name.as_mut_ptr(), name.len() as u32) };
        if length == 0 {
            return Err(io::Error::last_os_error());
        }
        name.truncate(length as usize);
        Ok(std::ffi::OsString::from_wide(&name).into())
    }
}
