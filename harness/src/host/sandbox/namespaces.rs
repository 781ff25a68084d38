//! Namespaces of its own for each sandboxed worker, where the system gives them.
//!
//! The supervisor ([`crate::host::supervisor`]) makes them in two steps, as bubblewrap does:
//!
//! 1. [`unshare_outside`], in the supervisor itself: new PID and IPC namespaces, and a new
//!    user namespace for an ordinary user (root needs none to make the others, and keeps the
//!    right to join the worker's cgroups). The supervisor stays where it was (a new PID
//!    namespace takes the children made from then on); its first child is PID 1 of the new
//!    one, the *init*. An ordinary user is root inside its user namespace (its own user id
//!    outside, and nothing else mapped), so that the init keeps its capabilities there
//!    through `exec`; the worker drops every one of them before the plugin loads.
//! 2. [`set_up_inside`], in the init: a mount namespace of its own (made here, not in the
//!    supervisor, so that the supervisor keeps the system's `/proc`), every mount private, a
//!    fresh `/proc` showing the namespace's processes only, and a `tmpfs` on the scratch
//!    folder of `disk-limit` bytes and [`SCRATCH_INODES`] files. An ordinary user's processes
//!    are capped at [`super::PROCESS_CAP`] tasks there (`RLIMIT_NPROC`, which Linux counts per
//!    user namespace from 5.14).
//!
//! What that gives: the engine sees no process outside its namespace (not the coordinator's
//! command line, not its opponent) and can signal none; its System V objects and message
//! queues are its own and end with it; what it writes in its scratch folder is memory
//! (counted against the worker's memory cgroup where one holds it, and bounded by the
//! `tmpfs`'s size everywhere), gone with the namespace; and when the init ends, the kernel
//! kills every process left in the namespace. Each piece that cannot be made is a line of
//! `missing`, and the rest is made.

use rustix::thread::UnshareFlags;
use std::path::Path;

/// The most files and folders a worker's scratch `tmpfs` holds. An engine writes a few (a
/// log, a table, a book); each costs the kernel memory outside the size limit.
pub const SCRATCH_INODES: u64 = 4096;

/// What was made of the namespaces, and what was not (each with its reason).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Made {
    /// `user`, `pid`, `ipc`, `mount`, `proc`, `tmpfs`, `task cap`: the pieces made.
    pub namespaces: Vec<String>,
    pub missing: Vec<String>,
}

/// Step 1, in the supervisor before it starts the init: the user (ordinary users only), PID
/// and IPC namespaces. An error leaves the supervisor where it was.
pub fn unshare_outside() -> Result<Made, String> {
    let uid = rustix::process::geteuid();
    let gid = rustix::process::getegid();
    let user = !uid.is_root();
    let mut flags = UnshareFlags::NEWPID | UnshareFlags::NEWIPC;
    if user {
        flags |= UnshareFlags::NEWUSER;
    }
    // SAFETY: `unshare_unsafe` is unsafe only for `CLONE_FILES` (threads that would no longer
    // share descriptors); these flags do not include it, and the supervisor has one thread.
    unsafe { rustix::thread::unshare_unsafe(flags) }
        .map_err(|e| format!("no namespaces of its own (unshare: {e})"))?;
    let mut made = Made::default();
    if user {
        // Root inside, this user outside, nothing else: the init keeps its capabilities in
        // the namespace through `exec`. `setgroups` must be refused before a group map.
        let maps = [
            ("/proc/self/uid_map", format!("0 {} 1\n", uid.as_raw())),
            ("/proc/self/setgroups", "deny\n".to_string()),
            ("/proc/self/gid_map", format!("0 {} 1\n", gid.as_raw())),
        ];
        for (file, text) in maps {
            std::fs::write(file, text).map_err(|e| format!("cannot write {file}: {e}"))?;
        }
        made.namespaces.push("user".to_string());
    }
    made.namespaces
        .extend(["pid".to_string(), "ipc".to_string()]);
    Ok(made)
}

/// Step 2, in the init (PID 1 of the new namespace) before it starts the worker: the mount
/// namespace, `/proc`, the scratch `tmpfs` of `size` bytes and the task cap. Adds to `made`
/// what it made and what it could not.
pub fn set_up_inside(scratch: &Path, size: u64, made: &mut Made) {
    use rustix::mount::{mount, mount_change, MountFlags, MountPropagationFlags};
    // SAFETY: as in `unshare_outside`: no `CLONE_FILES`, and the init has one thread.
    if let Err(e) = unsafe { rustix::thread::unshare_unsafe(UnshareFlags::NEWNS) } {
        made.missing.push(format!(
            "no mount namespace of its own (unshare: {e}): the system's /proc and a scratch folder on disk"
        ));
        return;
    }
    made.namespaces.push("mount".to_string());
    // Nothing mounted here may reach the system's mount table, nor the other way.
    if let Err(e) = mount_change(
        "/",
        MountPropagationFlags::REC | MountPropagationFlags::PRIVATE,
    ) {
        made.missing.push(format!(
            "the mounts cannot be made private ({e}): the system's /proc and a scratch folder on disk"
        ));
        return;
    }
    let quiet = MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC;
    match mount("proc", "/proc", "proc", quiet, None) {
        Ok(()) => made.namespaces.push("proc".to_string()),
        Err(e) => made.missing.push(format!(
            "no /proc of its own ({e}): the engine sees the system's processes"
        )),
    }
    let options = format!("size={size},nr_inodes={SCRATCH_INODES},mode=0700");
    let options = std::ffi::CString::new(options).unwrap_or_default();
    match mount(
        "tmpfs",
        scratch,
        "tmpfs",
        MountFlags::NOSUID | MountFlags::NODEV,
        options.as_c_str(),
    ) {
        Ok(()) => made.namespaces.push("tmpfs".to_string()),
        Err(e) => made.missing.push(format!(
            "no tmpfs for the scratch folder ({e}): the disk limit is checked while the engine searches"
        )),
    }
    if in_a_user_namespace() {
        cap_tasks(made);
    }
}

/// Whether this process is in a user namespace other than the system's: its user map is not
/// the whole range onto itself. (Root in the system's namespace gets no `RLIMIT_NPROC`: once
/// the worker drops its capabilities, that would count every process of root.)
fn in_a_user_namespace() -> bool {
    std::fs::read_to_string("/proc/self/uid_map")
        .is_ok_and(|map| map.split_whitespace().collect::<Vec<_>>() != ["0", "0", "4294967295"])
}

/// `RLIMIT_NPROC` at [`super::PROCESS_CAP`]: in a user namespace of its own (Linux 5.14 and
/// later) it counts this namespace's tasks of its user, so it is the worker's task cap where
/// no pids cgroup can be made (an ordinary user).
fn cap_tasks(made: &mut Made) {
    let cap = u64::from(super::PROCESS_CAP);
    let limit = rustix::process::Rlimit {
        current: Some(cap),
        maximum: Some(cap),
    };
    match rustix::process::setrlimit(rustix::process::Resource::Nproc, limit) {
        Ok(()) => made.namespaces.push("task cap".to_string()),
        Err(e) => made
            .missing
            .push(format!("no task cap (RLIMIT_NPROC: {e})")),
    }
}
