//! The hostile faults: what a plugin with the user's rights could do to the user and the
//! harness, tried for real against the path or port of the `Target` option. Each says on
//! stderr (the engine's log) what it did or what the system refused, in one line that starts
//! with `faulty: <fault>:`, and then the search answers its normal move, so that a sandbox
//! that blocks the harm leaves the game normal.

use std::io::{Read, Write};
use std::process::{Command, Stdio};

/// The most processes `fork-bomb` starts: where no cap holds (a run with the sandbox off, a
/// machine without a pids cgroup) it stops here rather than take the machine down.
pub const FORK_BOMB_LIMIT: usize = 4096;

/// How many bytes of the secret `read-secret` reports.
pub const SECRET_BYTES: usize = 8;

/// One line on stderr, written at once.
fn say(fault: &str, what: &str) {
    let line = format!("faulty: {fault}: {what}\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
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

/// `kill-parent`: SIGKILL to the parent process (the coordinator).
pub fn kill_parent() {
    let parent = std::os::unix::process::parent_id();
    let sent = rustix::process::Pid::from_raw(parent as i32)
        .ok_or(rustix::io::Errno::SRCH)
        .and_then(|p| rustix::process::kill_process(p, rustix::process::Signal::KILL));
    match sent {
        Ok(()) => say("kill-parent", &format!("sent SIGKILL to {parent}")),
        Err(e) => say(
            "kill-parent",
            &format!(
                "cannot send SIGKILL to {parent}: {}",
                std::io::Error::from(e)
            ),
        ),
    }
}

/// `exec-shell`: run `/bin/sh -c 'touch TARGET'` (its own complaints go to stderr too).
pub fn exec_shell(target: &str) {
    let quoted = format!("'{}'", target.replace('\'', "'\\''"));
    let status = Command::new("/bin/sh")
        .arg("-c")
        .arg(format!("touch {quoted}"))
        .stdin(Stdio::null())
        .status();
    match status {
        Ok(s) if s.success() => say("exec-shell", &format!("touched {target}")),
        Ok(s) => say("exec-shell", &format!("`touch {target}` failed: {s}")),
        Err(e) => say("exec-shell", &format!("cannot run /bin/sh: {e}")),
    }
}

/// `fork-bomb`: start processes that sleep until one cannot start (or [`FORK_BOMB_LIMIT`]);
/// they stay in the worker's process group, which ends with the worker.
pub fn fork_bomb() {
    let mut started = 0;
    let end = loop {
        if started == FORK_BOMB_LIMIT {
            break format!("stopped at its own limit of {FORK_BOMB_LIMIT}");
        }
        let child = Command::new("/bin/sleep")
            .arg("3600")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        match child {
            // Never waited for: the process group's end reaps them.
            Ok(child) => std::mem::forget(child),
            Err(e) => break format!("then: {e}"),
        }
        started += 1;
    };
    say("fork-bomb", &format!("started {started} processes, {end}"));
}
