//! The hostile faults made of Linux's own calls: the attack suite the sandbox's promises are
//! tried by (`tests/e2e/sandbox*.rs`).

use super::say;
use crate::Fault;
use std::io::Write;
use std::process::{Command, Stdio};

/// Commit `fault` (a hostile fault of this module, or `answer-ahead`) against `target`.
pub fn strike(fault: Fault, target: &str) {
    match fault {
        Fault::KillParent => kill_parent(),
        Fault::ExecShell => exec_shell(target),
        Fault::ForkBomb => fork_bomb(target),
        Fault::ConnectUnix => connect_unix(target),
        Fault::Impersonate => impersonate(target),
        Fault::Daemon => daemon(target),
        Fault::PrlimitParent => prlimit_parent(),
        Fault::LimitOpponent => limit_opponent(),
        Fault::RootPowers => root_powers(),
        Fault::InheritedFd => inherited_fd(target),
        Fault::Shm => shm(),
        Fault::AllocateChildren => allocate_children(),
        Fault::ChannelFlood => channel_flood(),
        Fault::Namespaces => namespaces(),
        Fault::Clone3 => clone3(),
        Fault::SysvAttach => sysv_attach(target),
        Fault::MqOpen => mq_open(target),
        Fault::OutliveCoordinator => outlive_coordinator(target),
        Fault::AnswerAhead => crate::unfair::answer_ahead(),
        _ => {}
    }
}

/// The coordinator's environment, its variables separated by NUL (`/proc/PID/environ`).
pub fn coordinator_environment() -> std::io::Result<String> {
    let bytes = std::fs::read(format!("/proc/{}/environ", coordinator()))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// `harness supervise` (the worker's supervisor, or the init of its namespaces). Where the
/// walk ends inside a PID namespace (a parent of 0), the last process seen: the init.
fn coordinator() -> u32 {
    let field = |pid: u32, n: usize| -> Option<u32> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let after = stat.rsplit_once(')')?.1;
        after.split_whitespace().nth(n)?.parse().ok()
    };
    let supervises = |pid: u32| {
        std::fs::read(format!("/proc/{pid}/cmdline"))
            .map(|c| c.split(|&b| b == 0).nth(1) == Some(b"supervise".as_slice()))
            .unwrap_or(false)
    };
    let mut pid = std::os::unix::process::parent_id();
    while supervises(pid) {
        match field(pid, 1) {
            Some(parent) if parent != 0 => pid = parent,
            _ => break,
        }
    }
    pid
}

/// `kill-parent`: SIGKILL to the coordinator (found above the worker's supervisor).
pub fn kill_parent() {
    let parent = coordinator();
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

/// `fork-bomb`: start processes that sleep until one cannot start (or the number `target`
/// names); they stay in the worker's process group, which ends with the worker.
pub fn fork_bomb(target: &str) {
    super::fork_bomb_with(target, || {
        Command::new("/bin/sleep")
            .arg("3600")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
    });
}

/// `connect-unix`: connect to the Unix socket at the path `target` and write a line (a team
/// ledger's PostgreSQL socket, another program's control socket, a coordinator's).
pub fn connect_unix(target: &str) {
    match std::os::unix::net::UnixStream::connect(target) {
        Ok(mut s) => {
            let _ = s.write_all(b"faulty was here\n");
            say("connect-unix", &format!("connected to {target}"));
        }
        Err(e) => say("connect-unix", &format!("cannot connect to {target}: {e}")),
    }
}

/// How long `impersonate` watches for a coordinator's socket.
pub const IMPERSONATE_WATCH: std::time::Duration = std::time::Duration::from_secs(2);

/// `impersonate`: watch the folder `target` (the coordinator's temporary folder) for a
/// coordinator's socket (`othello-harness-*.sock`) for [`IMPERSONATE_WATCH`], connect to each
/// one that appears and speak as a worker whose plugin failed to load: a coordinator that took
/// the connection for its next worker would lose that engine's game to this plugin's words.
pub fn impersonate(target: &str) {
    let started = std::time::Instant::now();
    let mut tried = Vec::new();
    while started.elapsed() < IMPERSONATE_WATCH {
        let sockets = std::fs::read_dir(target)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                let name = p.file_name().unwrap_or_default().to_string_lossy();
                name.starts_with("othello-harness-") && name.ends_with(".sock")
            });
        for socket in sockets.collect::<Vec<_>>() {
            if tried.contains(&socket) {
                continue;
            }
            let spoken = std::os::unix::net::UnixStream::connect(&socket).and_then(|mut s| {
                s.write_all(b"{\"type\":\"failed\",\"message\":\"impersonated by faulty\"}\n")
            });
            match spoken {
                Ok(()) => say("impersonate", &format!("spoke on {}", socket.display())),
                Err(e) => say(
                    "impersonate",
                    &format!("cannot connect to {}: {e}", socket.display()),
                ),
            }
            tried.push(socket);
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    if tried.is_empty() {
        say(
            "impersonate",
            &format!("no coordinator socket appeared in {target}"),
        );
    }
}

/// `daemon`: start a shell loop in a process group of its own, deaf to SIGTERM and SIGHUP,
/// that appends its process id to the file `target` every 100 ms, and a second one through
/// `setsid` (a new session): both would outlive the worker's process group.
pub fn daemon(target: &str) {
    let script = loop_script(target);
    start_loop("daemon", &script, true, "in a process group of its own");
    // The loop lets go of the pipe at once, so that `setsid`'s own error is all it carries.
    let session = Command::new("setsid")
        .arg("-f")
        .arg("/bin/sh")
        .arg("-c")
        .arg(format!("exec 2>/dev/null; {script}"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output();
    match session {
        Ok(out) if out.status.success() => say("daemon", "started one in a session of its own"),
        Ok(out) => say(
            "daemon",
            &format!(
                "setsid failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        ),
        Err(e) => say("daemon", &format!("cannot run setsid: {e}")),
    }
}

/// `outlive-coordinator`: clear the worker's parent-death signal (its own guard against a
/// dead coordinator) and start a shell loop in the worker's process group, deaf to SIGTERM and
/// SIGHUP, that appends its process id to the file `target` every 100 ms. Should the
/// coordinator die, the worker exits when its channel closes, and the loop would stay unless
/// something outside the plugin ends the group.
pub fn outlive_coordinator(target: &str) {
    match rustix::process::set_parent_process_death_signal(None) {
        Ok(()) => say("outlive-coordinator", "cleared the parent-death signal"),
        Err(e) => say(
            "outlive-coordinator",
            &format!(
                "cannot clear the parent-death signal: {}",
                std::io::Error::from(e)
            ),
        ),
    }
    let script = loop_script(target);
    start_loop(
        "outlive-coordinator",
        &script,
        false,
        "in the worker's group",
    );
}

/// A shell loop deaf to SIGTERM and SIGHUP that appends its process id to the file `target`
/// every 100 ms.
fn loop_script(target: &str) -> String {
    let quoted = format!("'{}'", target.replace('\'', "'\\''"));
    format!("trap '' TERM HUP; while :; do echo $$ >> {quoted}; sleep 0.1; done")
}

/// Start `script` in the background (in a process group of its own when `own_group`), and
/// say so as `fault`, `where_` it runs.
fn start_loop(fault: &str, script: &str, own_group: bool, where_: &str) {
    use std::os::unix::process::CommandExt;
    let mut command = Command::new("/bin/sh");
    command
        .arg("-c")
        .arg(script)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if own_group {
        command.process_group(0);
    }
    match command.spawn() {
        Ok(child) => {
            say(fault, &format!("started {} {where_}", child.id()));
            std::mem::forget(child);
        }
        Err(e) => say(fault, &format!("cannot start a loop: {e}")),
    }
}

/// The process ids of the coordinator's other workers (the opponent's), found in `/proc` by
/// the mark they share with this one (none where `/proc` shows only this worker's namespace).
fn siblings() -> Vec<i32> {
    let me = std::process::id() as i32;
    // This worker's mark, `worker --coordinator PID`, which the opponent's worker shares.
    let own = std::fs::read("/proc/self/cmdline").unwrap_or_default();
    let words: Vec<&[u8]> = own.split(|&b| b == 0).collect();
    let mark = words
        .windows(3)
        .find(|w| w[0] == b"worker" && w[1] == b"--coordinator");
    let Some(mark) = mark.map(|w| w.concat()) else {
        return Vec::new();
    };
    let entries = std::fs::read_dir("/proc").into_iter().flatten().flatten();
    entries
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| pid != me)
        .filter(|&pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let words: Vec<&[u8]> = cmdline.split(|&b| b == 0).collect();
            words.windows(3).any(|w| w.concat() == mark)
        })
        .collect()
}

/// `prlimit-parent`: set the coordinator's file size limit to 1 byte (its next write past
/// that kills it with SIGXFSZ).
pub fn prlimit_parent() {
    let parent = coordinator();
    let one = rustix::process::Rlimit {
        current: Some(1),
        maximum: Some(1),
    };
    let set = rustix::process::Pid::from_raw(parent as i32)
        .ok_or(rustix::io::Errno::SRCH)
        .and_then(|p| rustix::process::prlimit(Some(p), rustix::process::Resource::Fsize, one));
    match set {
        Ok(_) => say(
            "prlimit-parent",
            &format!("limited {parent}'s files to 1 byte"),
        ),
        Err(e) => say(
            "prlimit-parent",
            &format!("cannot limit {parent}'s files: {}", std::io::Error::from(e)),
        ),
    }
}

/// `limit-opponent`: give every other worker of the coordinator (the opponent's) a CPU time
/// limit of 1 second, past which the kernel kills it, and the lowest priority.
pub fn limit_opponent() {
    let found = siblings();
    if found.is_empty() {
        say("limit-opponent", "found no other worker to limit");
    }
    for pid in found {
        let Some(p) = rustix::process::Pid::from_raw(pid) else {
            continue;
        };
        let one_second = rustix::process::Rlimit {
            current: Some(1),
            maximum: Some(1),
        };
        let limited = rustix::process::prlimit(Some(p), rustix::process::Resource::Cpu, one_second);
        match limited {
            Ok(_) => say("limit-opponent", &format!("limited {pid} to 1 s of CPU")),
            Err(e) => say(
                "limit-opponent",
                &format!("cannot limit {pid}'s CPU: {}", std::io::Error::from(e)),
            ),
        }
        match rustix::process::setpriority_process(Some(p), 19) {
            Ok(()) => say("limit-opponent", &format!("reniced {pid} to 19")),
            Err(e) => say(
                "limit-opponent",
                &format!("cannot renice {pid}: {}", std::io::Error::from(e)),
            ),
        }
    }
}

/// `root-powers`: what root may do and an engine never needs, each tried harmlessly: set the
/// hostname to what it is, `reboot` with a wrong magic number (refused with "Invalid
/// argument" when permitted, "Operation not permitted" when not), make `/dev/null`'s device
/// node in the current folder (removed at once); and the capabilities held.
pub fn root_powers() {
    let name = rustix::system::uname().nodename().to_bytes().to_vec();
    match rustix::system::sethostname(&name) {
        Ok(()) => say("root-powers", "sethostname: set"),
        Err(e) => say(
            "root-powers",
            &format!("sethostname: {}", std::io::Error::from(e)),
        ),
    }
    say(
        "root-powers",
        &format!("reboot: {}", crate::reboot_with_a_wrong_magic()),
    );
    let node = std::path::Path::new("faulty-device-node");
    let made = rustix::fs::mknodat(
        rustix::fs::CWD,
        node,
        rustix::fs::FileType::CharacterDevice,
        rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        rustix::fs::makedev(1, 3),
    );
    match made {
        Ok(()) => {
            let _ = std::fs::remove_file(node);
            say("root-powers", "mknod: made a device node")
        }
        Err(e) => say(
            "root-powers",
            &format!("mknod: {}", std::io::Error::from(e)),
        ),
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let effective = status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .unwrap_or("?")
        .trim();
    say("root-powers", &format!("CapEff {effective}"));
}

/// `inherited-fd`: append a line to every descriptor this process has open on the file
/// `target` (one the coordinator inherited from the shell that started it, such as
/// `5>>file`), found through `/proc/self/fd`.
pub fn inherited_fd(target: &str) {
    let wanted = std::path::Path::new(target);
    let open: Vec<i32> = std::fs::read_dir("/proc/self/fd")
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| std::fs::read_link(e.path()).is_ok_and(|l| l == wanted))
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .collect();
    if open.is_empty() {
        return say(
            "inherited-fd",
            &format!("no descriptor of {target} is open"),
        );
    }
    for fd in open {
        let line = b"{\"faulty\":\"a line on an inherited descriptor\"}\n";
        match crate::write_to_descriptor(fd, line) {
            Ok(()) => say(
                "inherited-fd",
                &format!("wrote to descriptor {fd} of {target}"),
            ),
            Err(e) => say(
                "inherited-fd",
                &format!("cannot write to descriptor {fd}: {e}"),
            ),
        }
    }
}

/// `shm`: make a 1 MiB System V shared memory segment (which outlives every process unless
/// removed) and say its id.
pub fn shm() {
    match crate::make_shared_memory(1 << 20) {
        Ok(id) => say("shm", &format!("made segment {id}")),
        Err(e) => say("shm", &format!("cannot make a segment: {e}")),
    }
}

/// How many child processes `allocate-children` starts, and how many MiB each holds.
pub const ALLOCATING_CHILDREN: usize = 4;
pub const CHILD_MIB: usize = 80;

/// `allocate-children`: start [`ALLOCATING_CHILDREN`] shells that each hold [`CHILD_MIB`] MiB
/// in a variable for 2 s (each under any per-process limit), wait for them, and say how many
/// held their memory.
pub fn allocate_children() {
    let script = format!(
        "x=$(head -c {} /dev/zero | tr '\\0' a); echo held; sleep 2",
        CHILD_MIB << 20
    );
    let children: Vec<_> = (0..ALLOCATING_CHILDREN)
        .filter_map(|_| {
            Command::new("/bin/sh")
                .arg("-c")
                .arg(&script)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .ok()
        })
        .collect();
    let held = children
        .into_iter()
        .filter_map(|c| c.wait_with_output().ok())
        .filter(|out| out.stdout.starts_with(b"held"))
        .count();
    say(
        "allocate-children",
        &format!("{held} of {ALLOCATING_CHILDREN} children held {CHILD_MIB} MiB each"),
    );
}

/// How many bytes `channel-flood` writes to its worker's channel.
pub const CHANNEL_FLOOD_BYTES: usize = 256 << 20;

/// The worker's channel to the coordinator: the lowest socket among this process's
/// descriptors past the standard three.
pub fn channel_descriptor() -> Option<i32> {
    std::fs::read_dir("/proc/self/fd")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let fd: i32 = e.file_name().to_str()?.parse().ok()?;
            let link = std::fs::read_link(e.path()).ok()?;
            (fd > 2 && link.to_string_lossy().starts_with("socket:")).then_some(fd)
        })
        .min()
}

/// `channel-flood`: from a thread of its own, write [`CHANNEL_FLOOD_BYTES`] of live reports
/// straight to the worker's channel to the coordinator (the first socket among its
/// descriptors, bypassing the worker's own rate limit), while the search answers its move as
/// usual: the flood goes on while the coordinator waits for the other engine.
pub fn channel_flood() {
    let Some(fd) = channel_descriptor() else {
        return say("channel-flood", "no socket among its descriptors");
    };
    say("channel-flood", &format!("flooding descriptor {fd}"));
    std::thread::spawn(move || {
        let line = b"{\"type\":\"info\",\"search\":1,\"info\":{\"depth\":1,\"selectivity\":0,\"score\":0.0,\"nodes\":1,\"time_ms\":0,\"pv\":[]}}\n";
        let block: Vec<u8> = line
            .iter()
            .copied()
            .cycle()
            .take(line.len() * 8192)
            .collect();
        let mut written = 0;
        while written < CHANNEL_FLOOD_BYTES {
            if crate::write_to_descriptor(fd, &block).is_err() {
                break;
            }
            written += block.len();
        }
    });
}

/// The namespace flags `namespaces` asks `clone` for, one at a time, with their names.
pub const NAMESPACES: [(&str, u64); 7] = [
    ("CLONE_NEWNS", 0x0002_0000),
    ("CLONE_NEWCGROUP", 0x0200_0000),
    ("CLONE_NEWUTS", 0x0400_0000),
    ("CLONE_NEWIPC", 0x0800_0000),
    ("CLONE_NEWUSER", 0x1000_0000),
    ("CLONE_NEWPID", 0x2000_0000),
    ("CLONE_NEWNET", 0x4000_0000),
];

/// `namespaces`: `clone` a child in each new namespace of [`NAMESPACES`] in turn (the child
/// exits at once), and say for each whether one was made.
pub fn namespaces() {
    for (name, flag) in NAMESPACES {
        match crate::clone_a_child(flag) {
            Ok(()) => say("namespaces", &format!("{name}: made one")),
            Err(e) => say("namespaces", &format!("{name}: refused: {e}")),
        }
    }
}

/// `clone3`: make a child with the raw `clone3` call (it exits at once), then start a thread
/// and a process as the standard library does, and say how each went.
pub fn clone3() {
    match crate::clone3_a_child() {
        Ok(()) => say("clone3", "made a process"),
        Err(e) => say("clone3", &format!("refused: {e}")),
    }
    match std::thread::Builder::new().spawn(|| ()).map(|t| t.join()) {
        Ok(_) => say("clone3", "a thread started"),
        Err(e) => say("clone3", &format!("cannot start a thread: {e}")),
    }
    match Command::new("/bin/true").stdin(Stdio::null()).status() {
        Ok(_) => say("clone3", "a process started"),
        Err(e) => say("clone3", &format!("cannot start a process: {e}")),
    }
}

/// `sysv-attach`: attach the System V shared memory segment whose id is `target` (and
/// detach it), then remove it: a segment of another program of the same user, read and
/// destroyed.
pub fn sysv_attach(target: &str) {
    let Ok(id) = target.parse::<i32>() else {
        return say("sysv-attach", &format!("no segment id in {target:?}"));
    };
    match crate::attach_shared_memory(id) {
        Ok(()) => say("sysv-attach", &format!("attached segment {id}")),
        Err(e) => say("sysv-attach", &format!("cannot attach segment {id}: {e}")),
    }
    match crate::remove_shared_memory(id) {
        Ok(()) => say("sysv-attach", &format!("removed segment {id}")),
        Err(e) => say("sysv-attach", &format!("cannot remove segment {id}: {e}")),
    }
}

/// `mq-open`: make the POSIX message queue named `target` (which outlives every process
/// unless removed) and leave it.
pub fn mq_open(target: &str) {
    match crate::make_message_queue(target) {
        Ok(()) => say("mq-open", &format!("made queue {target}")),
        Err(e) => say("mq-open", &format!("cannot make queue {target}: {e}")),
    }
}
