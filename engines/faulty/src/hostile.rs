//! The hostile faults: what a plugin with the user's rights could do to the user and the
//! harness, tried for real against the path or port of the `Target` option. Each says on
//! stderr (the engine's log) what it did or what the system refused, in one line that starts
//! with `faulty: <fault>:`, and then the search answers its normal move, so that a sandbox
//! that blocks the harm leaves the game normal.
//!
//! The faults written with the standard library alone (files, a TCP connection, the
//! environment, the disk, the texts of errors) are here and run on every system. The rest
//! are the system's own calls, in a module per system ([`system`]): Linux's whole attack
//! suite; on Windows the forms a Windows plugin would use (ending the harness's process,
//! starting processes, leaving its job object, a shell); elsewhere each says it is not on
//! this system and the search plays on.

use crate::Fault;
use std::io::{Read, Write};

/// The attacks made of the system's own calls.
#[cfg_attr(target_os = "linux", path = "hostile/linux.rs")]
#[cfg_attr(windows, path = "hostile/windows.rs")]
#[cfg_attr(not(any(target_os = "linux", windows)), path = "hostile/other.rs")]
pub mod system;

/// The most processes `fork-bomb` starts when `Target` names no number: where no cap holds (a
/// run with the sandbox off, a machine without a pids cgroup) it stops here rather than take
/// the machine down.
pub const FORK_BOMB_LIMIT: usize = 4096;

/// How many bytes of the secret `read-secret` reports.
pub const SECRET_BYTES: usize = 8;

/// Commit the hostile fault `fault` (or `answer-ahead`, the unfair fault built on the
/// system's channel lookup) against `target`; the node count to answer with where the fault
/// reports one (`read-secret`). Any other fault does nothing here.
pub fn strike(fault: Fault, target: &str) -> Option<u64> {
    match fault {
        Fault::WriteJournal => write_journal(target),
        Fault::DeleteOutput => delete_output(target),
        Fault::ReadSecret => return Some(read_secret(target)),
        Fault::Connect => connect(target),
        Fault::Environ => environ(target),
        Fault::HugeError => panic!("{}", huge_error()),
        Fault::EscapeText => panic!("{}", ESCAPE_TEXT),
        Fault::FillDisk => fill_disk(target),
        other => system::strike(other, target),
    }
    None
}

/// One line on stderr, written at once.
pub(crate) fn say(fault: &str, what: &str) {
    let line = format!("faulty: {fault}: {what}\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
}

/// `fork-bomb`'s loop, with the system's process to start: start processes with `start`
/// until one cannot start, or until the number `target` names ([`FORK_BOMB_LIMIT`] when it
/// names none) have; then say how many. They are never waited for: the worker's process group
/// or job ends them with it.
pub fn fork_bomb_with(
    target: &str,
    mut start: impl FnMut() -> std::io::Result<std::process::Child>,
) {
    let limit = target.trim().parse().unwrap_or(FORK_BOMB_LIMIT);
    let mut started = 0;
    let end = loop {
        if started == limit {
            break format!("stopped at its own limit of {limit}");
        }
        match start() {
            Ok(child) => std::mem::forget(child),
            Err(e) => break format!("then: {e}"),
        }
        started += 1;
    };
    say("fork-bomb", &format!("started {started} processes, {end}"));
}

/// `write-journal`: append a line to the file `target`.
pub fn write_journal(target: &str) {
    let appended = std::fs::OpenOptions::new()
        .append(true)
        .open(target)
        .and_then(|mut f| f.write_all(b"{\"faulty\":\"a line the engine wrote\"}\n"));
    match appended {
        Ok(()) => say("write-journal", &format!("appended a line to {target}")),
        Err(e) => say("write-journal", &format!("cannot append to {target}: {e}")),
    }
}

/// `delete-output`: remove the folder `target` and everything in it.
pub fn delete_output(target: &str) {
    match std::fs::remove_dir_all(target) {
        Ok(()) => say("delete-output", &format!("removed {target}")),
        Err(e) => say("delete-output", &format!("cannot remove {target}: {e}")),
    }
}

/// `read-secret`: read the file `target`; its first [`SECRET_BYTES`] bytes, as a
/// little-endian number, are what the search reports as its node count (0 when unread).
pub fn read_secret(target: &str) -> u64 {
    let mut first = [0u8; SECRET_BYTES];
    let read = std::fs::File::open(target).and_then(|mut f| f.read(&mut first));
    match read {
        Ok(n) => {
            let text = String::from_utf8_lossy(&first[..n]).into_owned();
            say("read-secret", &format!("read {target}: {text:?}"));
            u64::from_le_bytes(first)
        }
        Err(e) => {
            say("read-secret", &format!("cannot read {target}: {e}"));
            0
        }
    }
}

/// `connect`: open a TCP connection to `127.0.0.1:target`.
pub fn connect(target: &str) {
    let address = format!("127.0.0.1:{target}");
    match std::net::TcpStream::connect(&address) {
        Ok(mut s) => {
            let _ = s.write_all(b"faulty was here\n");
            say("connect", &format!("connected to {address}"));
        }
        Err(e) => say("connect", &format!("cannot connect to {address}: {e}")),
    }
}

/// `environ`: report whether the variable named `target` is in this process's environment,
/// and whether the coordinator's environment can be read (on Linux, `/proc/PID/environ`).
pub fn environ(target: &str) {
    match std::env::var(target) {
        Ok(value) => say("environ", &format!("has {target}={value}")),
        Err(_) => say("environ", &format!("no {target} here")),
    }
    match system::coordinator_environment() {
        Ok(variables) => {
            let found = variables
                .split('\0')
                .find(|kv| kv.starts_with(&format!("{target}=")))
                .map(str::to_string);
            say(
                "environ",
                &format!("read the coordinator's environment: {found:?}"),
            )
        }
        Err(e) => say(
            "environ",
            &format!("cannot read the coordinator's environment: {e}"),
        ),
    }
}

/// The message of `huge-error`'s panic: [`HUGE_ERROR_BYTES`] bytes that start with terminal
/// escape sequences and HTML.
pub fn huge_error() -> String {
    let mut message =
        String::from("faulty: \u{1b}]0;pwned\u{7}\u{1b}[2J<img src=x onerror=alert(1)> ");
    message.push_str(&"x".repeat(HUGE_ERROR_BYTES));
    message
}

/// How long `huge-error`'s message is.
pub const HUGE_ERROR_BYTES: usize = 16 << 20;

/// `escape-text`: the text of `escape-text`'s panic: terminal escape sequences (a new title,
/// a cleared screen), a line break, HTML, and a right-to-left override (U+202E: what follows
/// it is shown reversed, `exe.txt` as `txt.exe`).
pub const ESCAPE_TEXT: &str = "faulty: \u{1b}]0;pwned\u{7}\u{1b}[2J\r\nforged line \
    <script>alert(1)</script> **bold** reversed \u{202e}exe.txt";

/// `fill-disk`: write `target` MiB in files of 1 MiB in the current folder (the scratch
/// folder under the sandbox), or until a write fails; then say how much was written.
pub fn fill_disk(target: &str) {
    let wanted: usize = target.parse().unwrap_or(64);
    let block = vec![0x5au8; 1 << 20];
    let mut written = 0;
    let end = loop {
        if written == wanted {
            break "all of it".to_string();
        }
        let name = format!("faulty-fill-{}-{written}", std::process::id());
        if let Err(e) = std::fs::write(&name, &block) {
            break format!("then: {e}");
        }
        written += 1;
    };
    say("fill-disk", &format!("wrote {written} MiB, {end}"));
}
