//! The sandbox of an engine worker: what the kernel holds a plugin to, whatever its code does.
//!
//! The coordinator prepares each sandboxed worker before it starts:
//! - its channel is one end of a socket pair, inherited as standard input ([`descriptors`]):
//!   there is no socket path to connect to, so no plugin can speak for another engine's worker;
//! - its cgroups ([`cgroup`]), made by the coordinator and joined by the worker before anything
//!   of the plugin runs: at most [`PROCESS_CAP`] tasks, `memory-limit` for the whole cgroup,
//!   and an end of everything inside at once, whatever sessions or groups the plugin makes;
//! - its environment: the names of [`ENVIRONMENT`] and the engine's `sandbox-env`, no others
//!   (no ledger password, token or cloud key reaches a plugin);
//! - its scratch folder ([`scratch`]), its current directory and `TMPDIR`;
//! - its supervisor ([`crate::host::supervisor`]), which puts it in new user (an ordinary
//!   user's), PID, mount and IPC namespaces where the system gives them ([`namespaces`]): its
//!   own `/proc`, System V objects and message queues, a `tmpfs` scratch folder of
//!   `disk-limit` bytes, and nothing left of it once it ends.
//!
//! The worker closes every descriptor it inherited but its channel, joins its cgroups, then
//! confines itself ([`confine`]) while it has one thread and before the plugin loads; what it
//! starts afterwards (threads, the `external` plugin's program and that program's children)
//! inherits it all:
//! - no capabilities ([`capabilities`]): a worker started by root is not root inside;
//! - Landlock ([`file_rules`]): read and execute the system's libraries and programs, the
//!   plugin file and the paths the engine was allowed (`sandbox-read`, and option values that
//!   name public files, and the installation of a command's interpreter, [`option_paths`]);
//!   write only in the scratch folder and in the
//!   `sandbox-write` paths, and make no device node there; no TCP; signals and abstract Unix
//!   sockets scoped to the sandbox where the kernel has scopes;
//! - seccomp ([`syscall_filter`]): no new socket of any family, nothing that acts on another
//!   process (limits, priorities, affinity, tracing, memory), no clock, hostname, mounts,
//!   namespaces, devices, System V IPC or POSIX message queues, new session, BPF, io_uring,
//!   and more; `clone3` answered "not implemented", so that threads start through `clone`.
//!
//! The kernel may enforce less than asked (an old kernel, no cgroup to make): the worker says
//! what was enforced ([`Enforced`]) in its first message, the coordinator adds what it knows
//! itself (the cgroup), and `required` refuses to load the plugin where Landlock, seccomp or
//! the dropping of capabilities cannot be enforced in full. What the sandbox does not cover is
//! in docs/guide/sandbox.md.

// The kernel's confinements, the cgroups and the namespaces are Linux's. On another system each of these
// modules is a stand-in of the same interface (`other_systems/`) that refuses with the reason,
// which the sandbox records as missing: `strict` runs without it and says so, `required`
// refuses.
#[cfg_attr(not(target_os = "linux"), path = "other_systems/capabilities.rs")]
mod capabilities;
#[cfg_attr(not(target_os = "linux"), path = "other_systems/cgroup.rs")]
pub mod cgroup;
#[cfg_attr(windows, path = "windows/descriptors.rs")]
pub mod descriptors;
#[cfg_attr(not(target_os = "linux"), path = "other_systems/file_rules.rs")]
mod file_rules;
mod interpreter;
#[cfg_attr(not(target_os = "linux"), path = "other_systems/namespaces.rs")]
pub mod namespaces;
pub use interpreter::{resolve_shim, ResolvedShim};
pub mod scratch;
#[cfg_attr(not(target_os = "linux"), path = "other_systems/syscall_filter.rs")]
mod syscall_filter;

use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub use capabilities::held as capabilities_held;
pub use file_rules::SYSTEM_READ;
pub use syscall_filter::inside_a_filter;

use super::worker_description::SelfConfinement;
use harness_core::record::tournament_record::{Sandbox, SandboxMode};

/// The most tasks (processes and threads together) a sandboxed worker and everything it
/// starts may have at once.
pub const PROCESS_CAP: u32 = 256;

/// The environment variables a sandboxed worker gets from the coordinator's (besides every
/// `LC_*`, and `TMPDIR`, which is its scratch folder): what programs need to start and to
/// speak the user's language. Anything else (passwords, tokens, keys) stays out unless the
/// engine's `sandbox-env` names it.
pub const ENVIRONMENT: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LANGUAGE",
    "TERM",
    "TZ",
    "RUST_BACKTRACE",
];

/// The variables of this process's environment that a sandboxed worker gets
/// ([`allowed_variable`]).
pub fn environment(extra: &[String]) -> Vec<(OsString, OsString)> {
    std::env::vars_os()
        .filter(|(name, _)| allowed_variable(&name.to_string_lossy(), extra))
        .collect()
}

/// Whether a sandboxed worker may have the variable `name`: [`ENVIRONMENT`], what the system's
/// own programs need (`crate::host::system::ENVIRONMENT`: on Windows `SystemRoot`, `PATHEXT`,
/// …), `LC_*`, the variables naming its scratch folder (`TMPDIR`; on Windows `TEMP` and `TMP`
/// too) and the names in `extra` (`sandbox-env`). Names are compared as the system does (on
/// Windows, without case: `Path` is `PATH`).
pub fn allowed_variable(name: &str, extra: &[String]) -> bool {
    use crate::host::system;
    let listed = |list: &[&str]| list.iter().any(|v| system::same_variable(v, name));
    listed(ENVIRONMENT)
        || listed(system::ENVIRONMENT)
        || listed(system::SCRATCH_VARIABLES)
        || name.starts_with("LC_")
        || extra.iter().any(|e| system::same_variable(e, name))
}

/// What a worker is told to confine itself to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Confinement {
    /// Refuse to load the plugin where the kernel cannot enforce Landlock, seccomp and the
    /// dropping of capabilities in full (`sandbox = "required"`); otherwise run with what the
    /// kernel enforces (`"strict"`).
    pub required: bool,
    /// Files and folders the engine may read and execute, beyond the system's.
    pub read: Vec<PathBuf>,
    /// Files and folders the engine may write, beyond its scratch folder.
    pub write: Vec<PathBuf>,
    /// Environment variables passed to the engine beyond [`ENVIRONMENT`] (`sandbox-env`).
    pub env: Vec<String>,
    /// The most bytes its scratch folder and its log may hold together (`disk-limit`),
    /// checked by the coordinator ([`disk_used`]); each file the worker writes is held to it
    /// by `RLIMIT_FSIZE` too.
    pub disk_limit: u64,
    /// The cores the engine declares (its `threads` or `Threads`): its cgroup's CPU is capped
    /// at them with [`cgroup::CPU_SLACK_PERCENT`] more, where a cpu controller can be used
    /// (`None`: no cap asked, as for the tools' single plugin).
    pub cpu_threads: Option<u32>,
    /// The most bytes of the worker's stderr (and of what it starts) the coordinator copies
    /// into the engine's log (`log-limit`): the worker writes to a pipe, never to the file.
    pub log_limit: u64,
}

impl Confinement {
    /// The sandbox of an engine's setting (`None`: `sandbox = "off"`), its CPU capped at the
    /// `cpu_threads` it declares (`None`: no cap, as for the tools' single plugin); the one
    /// place a setting becomes what a worker is held to.
    pub fn of(settings: &Sandbox, cpu_threads: Option<u32>) -> Option<Confinement> {
        (settings.mode != SandboxMode::Off).then(|| Confinement {
            required: settings.mode == SandboxMode::Required,
            read: settings.read.clone(),
            write: settings.write.clone(),
            env: settings.env.clone(),
            disk_limit: settings.disk_limit.unwrap_or(DISK_LIMIT),
            cpu_threads,
            log_limit: settings.log_limit.unwrap_or(LOG_LIMIT),
        })
    }
}

/// The default `disk-limit` of a sandboxed engine: its scratch folder and log together.
pub const DISK_LIMIT: u64 = 1 << 30;

/// The default `log-limit` of a sandboxed engine: what the coordinator copies of its stderr
/// into its log, per worker.
pub const LOG_LIMIT: u64 = 16 << 20;

/// The most entries of a scratch folder [`disk_used`] counts: past it the folder counts as
/// full (no engine needs that many files, and a walk of more would cost the coordinator).
const DISK_ENTRIES: usize = 100_000;

/// The bytes the files under `folder` take on disk (allocated blocks: a sparse file counts
/// what it holds, not its length); `u64::MAX` past [`DISK_ENTRIES`] entries.
pub fn disk_used(folder: &Path) -> u64 {
    let mut total = 0;
    let mut seen = 0;
    let mut folders = vec![folder.to_path_buf()];
    while let Some(dir) = folders.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            seen += 1;
            if seen > DISK_ENTRIES {
                return u64::MAX;
            }
            let Ok(meta) = entry.path().symlink_metadata() else {
                continue;
            };
            total += crate::host::system::allocated_bytes(&meta);
            if meta.is_dir() {
                folders.push(entry.path());
            }
        }
    }
    total
}

pub use harness_core::record::tournament_record::Enforced;

/// A Unix socket listening at `path`, for `harness check` to see whether a confined engine can
/// connect to one.
pub fn listen_on_a_unix_socket(path: &Path) -> std::io::Result<crate::host::system::LocalListener> {
    crate::host::system::listen_locally(path)
}

/// The number of threads of this process.
fn threads() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("Threads:"))?;
    line["Threads:".len()..].trim().parse().ok()
}

/// Confine this process (the worker, with one thread) as `confinement` says, writing in its
/// scratch folder. An error means nothing of the plugin may run: `required` could not be met, or
/// the process already had a second thread (which would escape Landlock and keep its
/// capabilities).
pub fn confine(confinement: &SelfConfinement) -> Result<Enforced, String> {
    if let Some(n @ 2..) = threads() {
        return Err(format!(
            "the sandbox must be applied before a second thread starts ({n} threads)"
        ));
    }
    let mut enforced = Enforced::default();
    if let Err(e) = capabilities::drop_all() {
        enforced.missing.push(e);
    }
    let mut write = vec![confinement.scratch.clone()];
    write.extend(confinement.write.iter().cloned());
    match file_rules::restrict(&confinement.read, &write) {
        Ok(landlocked) => {
            enforced.landlock_abi = landlocked.abi;
            enforced.landlock_full = landlocked.full && landlocked.abi > 0;
            if landlocked.abi == 0 {
                enforced
                    .missing
                    .push("no Landlock in this kernel".to_string());
            } else if !landlocked.full {
                enforced.missing.push(format!(
                    "Landlock ABI {} lacks some rights (TCP from ABI 4, scopes from ABI 6)",
                    landlocked.abi
                ));
            }
        }
        Err(e) => enforced.missing.push(e),
    }
    match syscall_filter::install() {
        Ok(()) => enforced.seccomp = true,
        Err(e) => enforced.missing.push(e),
    }
    enforced.capabilities = capabilities::held();
    if enforced.capabilities.is_some_and(|c| c != 0) {
        enforced
            .missing
            .push("the worker still holds capabilities".to_string());
    }
    if confinement.required && !enforced.confines_fully() {
        return Err(format!(
            "sandbox = \"required\", and this kernel cannot enforce it: {}",
            enforced.missing.join("; ")
        ));
    }
    Ok(enforced)
}

/// What a worker could do of what its sandbox forbids ([`probe`]): for each attempt, `None`
/// where it succeeded, else the system's refusal; and what the worker holds.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Probed {
    /// A file written outside the scratch folder.
    pub write: Option<String>,
    /// A TCP connection to the coordinator's port.
    pub connect: Option<String>,
    /// Signal 0 to the coordinator (the permission check alone).
    pub signal: Option<String>,
    /// A connection to a Unix socket at a path (what a coordinator socket would be).
    #[serde(default)]
    pub socket: Option<String>,
    /// `prlimit` on the coordinator, setting the file size limit it gave the worker (a change
    /// in nothing but the permission).
    #[serde(default)]
    pub prlimit: Option<String>,
    /// A character device node (`/dev/null`'s numbers) made in the scratch folder.
    #[serde(default)]
    pub device: Option<String>,
    /// The capabilities held (effective, permitted, inheritable, ambient together).
    #[serde(default)]
    pub capabilities: Option<u64>,
    /// The names of the worker's environment variables.
    #[serde(default)]
    pub environment: Vec<String>,
    /// The processes the worker sees in `/proc` (`None`: it cannot list it). In a PID
    /// namespace with a `/proc` of its own: its init and itself.
    #[serde(default)]
    pub processes_seen: Option<usize>,
    /// Whether the worker's scratch folder (its current folder) is a `tmpfs`, as `statfs`
    /// says (`None`: it cannot tell).
    #[serde(default)]
    pub scratch_on_tmpfs: Option<bool>,
}

/// Try, from this process, what the sandbox forbids: create the file `write`, open a TCP
/// connection to `127.0.0.1:port`, signal the `coordinator`, connect to the Unix socket
/// `socket`, `prlimit` the coordinator and make a device node in the current folder; and say
/// which capabilities and environment variables this process holds. (In a PID namespace of
/// its own, the coordinator's process id names no process: refused as "no such process".)
pub fn probe(write: &Path, port: u16, socket: &Path, coordinator: u32) -> Probed {
    let refusal = |r: std::io::Result<()>| r.err().map(|e| e.to_string());
    let wrote = std::fs::write(write, b"written from inside the sandbox\n");
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let connected = std::net::TcpStream::connect_timeout(&address, PROBE_TIMEOUT).map(drop);
    let signalled = crate::host::system::try_to_signal(coordinator);
    let joined = crate::host::system::try_to_connect_locally(socket);
    let (limited, made) = limit_and_device(coordinator);
    Probed {
        write: refusal(wrote),
        connect: refusal(connected),
        signal: refusal(signalled),
        socket: refusal(joined),
        prlimit: refusal(limited),
        device: refusal(made),
        capabilities: capabilities::held(),
        environment: std::env::vars_os()
            .map(|(name, _)| name.to_string_lossy().into_owned())
            .collect(),
        processes_seen: std::fs::read_dir("/proc").ok().map(|entries| {
            entries
                .flatten()
                .filter(|e| {
                    e.file_name()
                        .to_str()
                        .is_some_and(|n| n.parse::<u32>().is_ok())
                })
                .count()
        }),
        scratch_on_tmpfs: on_tmpfs(),
    }
}

/// Whether the current folder is on a `tmpfs` (Linux's namespaces put one there); `None`
/// where it cannot be told.
fn on_tmpfs() -> Option<bool> {
    #[cfg(target_os = "linux")]
    {
        /// `statfs`'s file system type of a `tmpfs`.
        const TMPFS_MAGIC: u64 = 0x0102_1994;
        rustix::fs::statfs(".")
            .ok()
            .map(|fs| fs.f_type as u64 == TMPFS_MAGIC)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// The probe's `prlimit` of the coordinator and its device node in the current folder, each
/// refused or done. Other systems have neither call: each is refused with that reason.
fn limit_and_device(coordinator: u32) -> (std::io::Result<()>, std::io::Result<()>) {
    #[cfg(target_os = "linux")]
    {
        let limited = rustix::process::Pid::from_raw(coordinator as i32)
            .ok_or(rustix::io::Errno::SRCH)
            .and_then(|p| {
                // The worker's own limit, inherited from the coordinator: the same value.
                let same = rustix::process::getrlimit(rustix::process::Resource::Fsize);
                rustix::process::prlimit(Some(p), rustix::process::Resource::Fsize, same)
            })
            .map(drop)
            .map_err(std::io::Error::from);
        let node = Path::new("probe-device-node");
        let made = rustix::fs::mknodat(
            rustix::fs::CWD,
            node,
            rustix::fs::FileType::CharacterDevice,
            rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
            rustix::fs::makedev(1, 3),
        )
        .map_err(std::io::Error::from);
        if made.is_ok() {
            let _ = std::fs::remove_file(node);
        }
        (limited, made)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = coordinator;
        let missing = |call: &str| {
            Err(std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                format!("this system has no {call}"),
            ))
        };
        (missing("prlimit"), missing("mknodat"))
    }
}

/// How long [`probe`] waits for its TCP connection.
const PROBE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// The existing files and folders that an engine's option values name, which its sandbox lets
/// it read: a value that is a path, each word of a command line that is a path (`external`'s
/// `Command`) and the folder of each such word that is a file (a script's own folder, where
/// the modules it imports lie), the folder of a command's program, also when found through `PATH`, and the
/// installation that program runs from ([`interpreter`]: a pyenv root, a virtual environment
/// and its Python, a conda installation). Relative paths are taken from the coordinator's
/// current folder. Only what every user may
/// read counts: a private file (a key, mode 0600) is never handed to an engine on the strength
/// of an option value alone, and neither is a folder holding one anywhere beneath it (nor one
/// of more than [`PUBLIC_FOLDER_ENTRIES`] entries, which is not walked); `sandbox-read` allows
/// either. A folder refused so is said once on stderr, with the path that stopped it.
pub fn option_paths(options: &[(String, String)]) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    let mut add = |p: PathBuf, installation: bool| {
        let Ok(p) = p.canonicalize() else {
            return;
        };
        if paths.contains(&p) {
            return;
        }
        match (
            installation,
            public_installation_or_folder(&p, installation),
        ) {
            (_, Ok(())) => paths.push(p),
            // An installation left closed stops the worker's start: [`closed_installations`].
            (true, Err(_)) => {}
            (false, Err(Some(why))) => say_once_not_granted(&p, &why),
            (false, Err(None)) => {}
        }
    };
    for (_, value) in options {
        if value.is_empty() {
            continue;
        }
        add(PathBuf::from(value), false);
        let words = harness_os::command_line::words(value).unwrap_or_default();
        for word in &words {
            if harness_os::command_line::names_a_path(word) {
                let path = PathBuf::from(word);
                // A script's or program's own folder: the files beside it (a module it
                // imports, its weights) are part of it.
                if path.is_file() {
                    if let Some(folder) = path.parent().filter(|f| !f.as_os_str().is_empty()) {
                        add(folder.to_path_buf(), false);
                    }
                }
                add(path, false);
            }
        }
        if let Some(program) = words.first().and_then(|w| program_path(w)) {
            if let Some(folder) = program.parent() {
                add(folder.to_path_buf(), false);
            }
            for installation in interpreter::installations(&program) {
                add(installation, true);
            }
        }
    }
    paths
}

/// The most entries of a folder named by an option that are looked at for a private file.
pub const PUBLIC_FOLDER_ENTRIES: usize = 10_000;

/// The most entries of an interpreter's installation looked at for a private file (a pyenv
/// root with a few Pythons holds over 100,000).
pub const INSTALLATION_ENTRIES: usize = 1_000_000;

/// [`public`] for a folder an option names, or for an `installation` ([`public_installation`]).
fn public_installation_or_folder(path: &Path, installation: bool) -> Result<(), Option<String>> {
    if installation {
        public_installation(path)
    } else {
        public(path, PUBLIC_FOLDER_ENTRIES)
    }
}

/// The installations that the programs of an engine's command lines run from
/// ([`interpreter`]) which its sandbox would leave closed: not every user may read all that is
/// in them, and no path of `read` (its `sandbox-read`) holds them. Each with the option whose
/// command runs from it and why it stays closed. The program could not start: the worker's
/// start is refused with this ([`describe_closed`]).
pub fn closed_installations(
    options: &[(String, String)],
    read: &[PathBuf],
) -> Vec<(String, PathBuf, String)> {
    let mut closed = Vec::new();
    for (key, value) in options {
        let words = harness_os::command_line::words(value).unwrap_or_default();
        let Some(program) = words.first().and_then(|w| program_path(w)) else {
            continue;
        };
        for installation in interpreter::installations(&program) {
            if read.iter().any(|r| installation.starts_with(r)) {
                continue;
            }
            if let Err(why) = public_installation(&installation) {
                let why = why.unwrap_or_else(|| "it is private".to_string());
                closed.push((key.clone(), installation, why));
            }
        }
    }
    closed
}

/// What to say of an installation [`closed_installations`] found: the path, why, and the
/// `sandbox-read` that opens it.
pub fn describe_closed((option, path, why): &(String, PathBuf, String)) -> String {
    format!(
        "the program of option `{option}` runs from {}, which the sandbox does not open to it \
         ({why}): name it in sandbox-read (`sandbox-read = [\"{}\"]` in the engine's table, or \
         `--engine …,sandbox-read={}`) if the engine may read everything in it",
        path.display(),
        path.display(),
        path.display()
    )
}

/// [`public`] for an interpreter's installation, walked once per process: every worker of a
/// run starts the same program, and an installation is large.
fn public_installation(path: &Path) -> Result<(), Option<String>> {
    type Walked = Vec<(PathBuf, Result<(), Option<String>>)>;
    static WALKED: std::sync::Mutex<Walked> = std::sync::Mutex::new(Vec::new());
    let mut walked = WALKED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, result)) = walked.iter().find(|(p, _)| p == path) {
        return result.clone();
    }
    let result = public(path, INSTALLATION_ENTRIES);
    walked.push((path.to_path_buf(), result.clone()));
    result
}

/// Whether every user may read `path`, and for a folder, everything beneath it (symbolic
/// links aside: Landlock checks where they lead), looking at no more than `most` entries.
/// `Err(None)`: a private file or folder itself, quietly left out; `Err(Some(why))`: a folder
/// left out for what is beneath it.
fn public(path: &Path, most: usize) -> Result<(), Option<String>> {
    let readable = crate::host::system::readable_by_all;
    let meta = path.metadata().map_err(|_| None)?;
    if !readable(&meta) {
        return Err(None);
    }
    if !meta.is_dir() {
        return Ok(());
    }
    let mut folders = vec![path.to_path_buf()];
    let mut seen = 0;
    while let Some(folder) = folders.pop() {
        let entries =
            std::fs::read_dir(&folder).map_err(|e| Some(format!("{}: {e}", folder.display())))?;
        for entry in entries.flatten() {
            seen += 1;
            if seen > most {
                return Err(Some(format!("it holds more than {most} entries")));
            }
            let Ok(meta) = entry.path().symlink_metadata() else {
                continue;
            };
            if meta.file_type().is_symlink() {
                continue;
            }
            if !readable(&meta) {
                return Err(Some(format!("{} is private", entry.path().display())));
            }
            if meta.is_dir() {
                folders.push(entry.path());
            }
        }
    }
    Ok(())
}

/// Say once per process, on stderr, that the folder `path` an option named (or the
/// installation a command runs from) is not opened to the engine, and why.
fn say_once_not_granted(path: &Path, why: &str) {
    static SAID: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());
    let mut said = SAID.lock().unwrap_or_else(|e| e.into_inner());
    if !said.iter().any(|p| p == path) {
        said.push(path.to_path_buf());
        eprintln!(
            "note: the folder {} that an option names or runs from is not opened to the engine ({why}); if the engine needs it, open it with `sandbox-read = [\"{}\"]` in its table or `--engine …,sandbox-read={}`",
            path.display(),
            path.display(),
            path.display()
        );
    }
}

/// The file a command's first word runs: itself when it holds a slash, else the first
/// executable file of that name in `PATH`.
pub fn program_path(word: &str) -> Option<PathBuf> {
    let runnable = |p: &Path| {
        p.metadata()
            .is_ok_and(|m| crate::host::system::runnable(&m))
    };
    if word.contains('/') {
        let p = PathBuf::from(word);
        return runnable(&p).then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(word))
        .find(|p| runnable(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_paths_are_existing_paths_and_a_commands_folder() {
        let here = std::env::current_dir().unwrap().canonicalize().unwrap();
        let sh = program_path("sh")
            .expect("sh in PATH")
            .canonicalize()
            .unwrap();
        let options = vec![
            ("Depth".to_string(), "5".to_string()),
            ("EvalFile".to_string(), here.display().to_string()),
            (
                "Command".to_string(),
                "sh -c 'true' /no/such/file".to_string(),
            ),
        ];
        let paths = option_paths(&options);
        assert!(paths.contains(&here), "{paths:?}");
        assert!(
            paths.contains(&sh.parent().unwrap().to_path_buf()),
            "{paths:?}"
        );
        assert!(!paths.iter().any(|p| p.ends_with("file")), "{paths:?}");
    }

    #[test]
    fn a_folder_with_a_private_file_beneath_is_not_opened_by_an_option() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("option-paths-{}", std::process::id()));
        let inner = dir.join("data");
        std::fs::create_dir_all(&inner).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&inner, std::fs::Permissions::from_mode(0o755)).unwrap();
        let public_file = inner.join("book");
        std::fs::write(&public_file, "public").unwrap();
        std::fs::set_permissions(&public_file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let named = |p: &Path| vec![("Folder".to_string(), p.display().to_string())];
        let dir = dir.canonicalize().unwrap();
        assert_eq!(option_paths(&named(&dir)), vec![dir.clone()]);
        let key = inner.join("key");
        std::fs::write(&key, "secret").unwrap();
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(option_paths(&named(&dir)), Vec::<PathBuf>::new());
        assert_eq!(option_paths(&named(&key)), Vec::<PathBuf>::new());
        let book = public_file.canonicalize().unwrap();
        assert_eq!(option_paths(&named(&book)), vec![book.clone()]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn what_was_enforced_reads_as_a_line() {
        let full = Enforced {
            landlock_abi: 7,
            landlock_full: true,
            seccomp: true,
            process_cap: Some(256),
            capabilities: Some(0),
            contained_by: Some("cgroup.kill".to_string()),
            cpu_cap_percent: Some(125),
            namespaces: Vec::new(),
            missing: Vec::new(),
            other: Default::default(),
        };
        assert_eq!(
            full.to_string(),
            "Landlock ABI 7, seccomp, at most 256 tasks, no capabilities, CPU at most 125% of a core, contained by cgroup.kill"
        );
        let apart = Enforced {
            namespaces: vec!["pid".to_string(), "tmpfs".to_string()],
            ..full.clone()
        };
        assert!(apart
            .to_string()
            .ends_with("cgroup.kill, namespaces: pid tmpfs"));
        // A record older than the cap reads as it was.
        let old = r#"{"landlock_abi":7,"landlock_full":true,"seccomp":true,"process_cap":256}"#;
        let old: Enforced = serde_json::from_str(old).unwrap();
        assert_eq!(old.cpu_cap_percent, None);
        let rooted = Enforced {
            capabilities: Some(0x1f),
            ..full.clone()
        };
        assert!(!rooted.confines_fully());
        assert!(rooted.to_string().contains("capabilities 0x1f held"));
        assert_eq!(
            Enforced::default().to_string(),
            "no Landlock, no seccomp, no process cap"
        );
    }
}
