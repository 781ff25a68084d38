//! The Landlock ruleset of a worker: which files it may read and execute, where it may write,
//! no TCP bind or connect, and (where the kernel has scopes) no signal and no abstract Unix
//! socket beyond its own sandbox.
//!
//! The writable places get every right but device nodes and device ioctls (`MAKE_CHAR`,
//! `MAKE_BLOCK`, `IOCTL_DEV`), which no engine needs.
//!
//! Landlock acts on the calling thread and on what it starts afterwards (threads, children,
//! programs they run), so it is applied while the worker has one thread. It is negotiated
//! with the kernel: on an older kernel the crate enforces what that kernel knows (best effort)
//! and says so, and [`Landlocked`] records the ABI version and whether all was enforced.

use landlock::{
    path_beneath_rules, Access, AccessFs, AccessNet, LandlockStatus, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope, ABI,
};
use std::path::{Path, PathBuf};

/// The Landlock ABI whose rights the ruleset asks for: 4 brought TCP bind and connect, 6 the
/// scopes (signals, abstract Unix sockets).
const ASKED: ABI = ABI::V6;

/// The kernel's Landlock ABI versions this crate knows, with their numbers.
const VERSIONS: [(ABI, u32); 10] = [
    (ABI::V1, 1),
    (ABI::V2, 2),
    (ABI::V3, 3),
    (ABI::V4, 4),
    (ABI::V5, 5),
    (ABI::V6, 6),
    (ABI::V7, 7),
    (ABI::V8, 8),
    (ABI::V9, 9),
    (ABI::V10, 10),
];

/// System folders and files every worker may read (and execute): the dynamic loader's files,
/// the libraries and programs of the system, the process and CPU views that runtimes read.
/// Those absent on this machine are skipped. Not `/etc` as a whole (it holds keys and
/// password hashes), not `/home`, `/root` or `/tmp`.
pub const SYSTEM_READ: &[&str] = &[
    "/usr",
    "/lib",
    "/lib32",
    "/lib64",
    "/bin",
    "/sbin",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/ld.so.preload",
    "/etc/localtime",
    "/etc/nsswitch.conf",
    "/etc/passwd",
    "/etc/group",
    "/etc/alternatives",
    "/proc",
    "/sys/devices/system/cpu",
    "/sys/fs/cgroup",
    "/dev/urandom",
    "/dev/random",
    "/dev/zero",
];

/// Device files every worker may write (a program's standard streams sent nowhere).
const SYSTEM_WRITE_FILES: &[&str] = &["/dev/null"];

/// What Landlock enforced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Landlocked {
    /// The kernel's Landlock ABI version (0: no Landlock).
    pub abi: u32,
    /// Every right asked for is enforced (false on a kernel older than [`ASKED`]).
    pub full: bool,
}

/// The kernel's Landlock ABI version of `status` (0 without Landlock).
fn abi_number(status: &LandlockStatus) -> u32 {
    match status {
        LandlockStatus::Available {
            kernel_abi: Some(v),
            ..
        } => u32::try_from(*v).unwrap_or(0),
        LandlockStatus::Available { effective_abi, .. } => VERSIONS
            .iter()
            .find(|(abi, _)| abi == effective_abi)
            .map_or(0, |&(_, n)| n),
        _ => 0,
    }
}

/// Confine the calling thread (and what it starts) to reading `read` and the system paths and
/// writing in `write`, with TCP, foreign signals and abstract sockets denied.
pub fn restrict(read: &[PathBuf], write: &[PathBuf]) -> Result<Landlocked, String> {
    let fail = |e: landlock::RulesetError| format!("Landlock: {e}");
    let read_access = AccessFs::from_read(ASKED);
    let all = AccessFs::from_all(ASKED);
    // Everything in the writable places but device nodes and device ioctls: a root plugin
    // could otherwise make the disk's block device in its scratch folder and write through it.
    let writable = all & !(AccessFs::MakeChar | AccessFs::MakeBlock | AccessFs::IoctlDev);
    let system: Vec<&Path> = SYSTEM_READ.iter().map(Path::new).collect();
    let devices: Vec<&Path> = SYSTEM_WRITE_FILES.iter().map(Path::new).collect();
    let status = Ruleset::default()
        .handle_access(all)
        .map_err(fail)?
        .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
        .map_err(fail)?
        .scope(Scope::AbstractUnixSocket | Scope::Signal)
        .map_err(fail)?
        .create()
        .map_err(fail)?
        .add_rules(path_beneath_rules(system, read_access))
        .map_err(fail)?
        .add_rules(path_beneath_rules(
            devices,
            read_access | AccessFs::WriteFile,
        ))
        .map_err(fail)?
        .add_rules(path_beneath_rules(read, read_access))
        .map_err(fail)?
        .add_rules(path_beneath_rules(write, writable))
        .map_err(fail)?
        .restrict_self()
        .map_err(fail)?;
    Ok(Landlocked {
        abi: abi_number(&status.landlock),
        full: status.ruleset == RulesetStatus::FullyEnforced,
    })
}
