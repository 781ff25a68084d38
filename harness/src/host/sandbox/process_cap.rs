//! The cap on a worker's processes and threads: a pids cgroup of its own.
//!
//! `RLIMIT_NPROC` cannot do this job: it does not bind root, and it counts every process and
//! thread of the user, not of the worker. A pids cgroup counts the tasks of its members and
//! their descendants, for root too. The worker makes one beside its own cgroup (v1's pids
//! hierarchy, or v2 where the pids controller is delegated), sets `pids.max` and moves itself
//! in before the plugin loads; what it starts is born inside. The coordinator removes the
//! folder once the worker's group is killed ([`remove`]), and each new worker removes those
//! of workers that are gone (a coordinator killed before it could). Where no cgroup can be
//! made (no pids controller, no right to write the hierarchy) the record says why.

use std::path::{Path, PathBuf};

/// The name of a worker's cgroup folder, followed by the worker's process id.
const PREFIX: &str = "othello-harness-worker-";

/// The cgroup folder of the pids controller that holds this process, from
/// `/proc/self/mountinfo` (where the controller is mounted) and `/proc/self/cgroup` (where in
/// it this process is).
fn own_pids_cgroup() -> Result<PathBuf, String> {
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo")
        .map_err(|e| format!("/proc/self/mountinfo: {e}"))?;
    let membership = std::fs::read_to_string("/proc/self/cgroup")
        .map_err(|e| format!("/proc/self/cgroup: {e}"))?;
    for line in mountinfo.lines() {
        let Some((mount, fs)) = line.split_once(" - ") else {
            continue;
        };
        let mount_point = mount.split(' ').nth(4).unwrap_or_default();
        let mut fs = fs.split(' ');
        let (kind, super_options) = (fs.next(), fs.nth(1).unwrap_or_default());
        let v1_pids = kind == Some("cgroup") && super_options.split(',').any(|o| o == "pids");
        let v2 = kind == Some("cgroup2")
            && std::fs::read_to_string(Path::new(mount_point).join("cgroup.controllers"))
                .is_ok_and(|c| c.split_whitespace().any(|c| c == "pids"));
        if !(v1_pids || v2) {
            continue;
        }
        let wanted = |controllers: &str| {
            if v1_pids {
                controllers.split(',').any(|c| c == "pids")
            } else {
                controllers.is_empty()
            }
        };
        let path = membership.lines().find_map(|l| {
            let mut parts = l.splitn(3, ':');
            let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
            wanted(controllers).then(|| path.trim_start_matches('/').to_string())
        });
        if let Some(path) = path {
            return Ok(Path::new(mount_point).join(path));
        }
    }
    Err("no pids cgroup controller is mounted".to_string())
}

/// Remove the cgroup folders of workers that are gone (their process ids no longer exist).
fn sweep(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix(PREFIX)) else {
            continue;
        };
        let gone = pid
            .parse::<i32>()
            .ok()
            .and_then(rustix::process::Pid::from_raw)
            .is_some_and(|p| rustix::process::test_kill_process(p) == Err(rustix::io::Errno::SRCH));
        if gone {
            let _ = std::fs::remove_dir(entry.path());
        }
    }
}

/// Make this process's own pids cgroup with at most `cap` tasks and move into it; returns its
/// folder.
pub fn join(cap: u32) -> Result<PathBuf, String> {
    let parent = own_pids_cgroup()?;
    sweep(&parent);
    let dir = parent.join(format!("{PREFIX}{}", std::process::id()));
    let io = |what: &str, e: std::io::Error| format!("{}: {what}: {e}", dir.display());
    match std::fs::create_dir(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(io("cannot make the cgroup", e)),
    }
    let joined = std::fs::write(dir.join("pids.max"), cap.to_string())
        .map_err(|e| io("pids.max", e))
        .and_then(|()| {
            std::fs::write(dir.join("cgroup.procs"), std::process::id().to_string())
                .map_err(|e| io("cgroup.procs", e))
        });
    if joined.is_err() {
        let _ = std::fs::remove_dir(&dir);
    }
    joined.map(|()| dir)
}

/// Remove a worker's cgroup folder (after its processes are gone; a folder still in use stays,
/// and the next worker's sweep removes it).
pub fn remove(dir: &Path) {
    let _ = std::fs::remove_dir(dir);
}
