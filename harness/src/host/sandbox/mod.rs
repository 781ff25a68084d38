//! The sandbox of an engine worker: what the kernel holds a plugin to, whatever its code does.
//!
//! The worker confines itself after its socket to the coordinator is connected and before
//! any other thread starts or the plugin loads ([`confine`]); what it starts afterwards
//! (threads, the `external` plugin's program and that program's children) inherits it all:
//! - Landlock ([`file_rules`]): read and execute the system's libraries and programs, the
//!   plugin file and the paths the engine was allowed (`sandbox-read`, and option values that
//!   name existing files or folders, [`option_paths`]); write only in the worker's scratch
//!   folder (its current directory and `TMPDIR`, made and removed by the coordinator,
//!   [`scratch`]) and in the `sandbox-write` paths; no TCP bind or connect; signals and
//!   abstract Unix sockets scoped to the sandbox where the kernel has scopes;
//! - seccomp ([`syscall_filter`]): no tracing, no other process's memory, no mounts, BPF,
//!   performance counters, keyrings, kexec or io_uring, no socket but `AF_UNIX`;
//! - a pids cgroup ([`process_cap`]): at most [`PROCESS_CAP`] tasks, root included.
//!
//! The kernel may enforce less than asked (an old kernel, no cgroup to make): the worker says
//! what was enforced ([`Enforced`]) in its first message, and `required` refuses to load the
//! plugin where Landlock or seccomp cannot be enforced in full. What the sandbox does not
//! cover is in the README ("Running engines you do not trust").

mod file_rules;
mod process_cap;
pub mod scratch;
mod syscall_filter;

use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

pub use file_rules::SYSTEM_READ;
pub use process_cap::remove as remove_process_cap;

/// The most tasks (processes and threads together) a sandboxed worker and everything it
/// starts may have at once.
pub const PROCESS_CAP: u32 = 256;

/// What a worker is told to confine itself to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Confinement {
    /// Refuse to load the plugin where the kernel cannot enforce Landlock and seccomp in full
    /// (`sandbox = "required"`); otherwise run with what the kernel enforces (`"strict"`).
    pub required: bool,
    /// Files and folders the engine may read and execute, beyond the system's.
    pub read: Vec<PathBuf>,
    /// Files and folders the engine may write, beyond its scratch folder.
    pub write: Vec<PathBuf>,
}

/// What the kernel enforced in a worker.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Enforced {
    /// The kernel's Landlock ABI version (0: no Landlock).
    pub landlock_abi: u32,
    /// Every Landlock right asked for is enforced (false on a kernel older than ABI 6).
    pub landlock_full: bool,
    /// The seccomp filter is installed.
    pub seccomp: bool,
    /// The cap on tasks, where a pids cgroup could be made.
    pub process_cap: Option<u32>,
    /// What could not be enforced, and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
}

impl Enforced {
    /// Landlock (every right asked for) and seccomp are enforced: what `required` demands,
    /// and short of which `strict` warns. A missing process cap is recorded, not warned of
    /// (no pids cgroup can be made without root or a delegated controller).
    pub fn confines_fully(&self) -> bool {
        self.landlock_full && self.seccomp
    }
}

impl fmt::Display for Enforced {
    /// `Landlock ABI 7, seccomp, at most 256 tasks`, or what is missing.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.landlock_abi, self.landlock_full) {
            (0, _) => f.write_str("no Landlock")?,
            (abi, true) => write!(f, "Landlock ABI {abi}")?,
            (abi, false) => write!(f, "Landlock ABI {abi} (partial)")?,
        }
        f.write_str(if self.seccomp {
            ", seccomp"
        } else {
            ", no seccomp"
        })?;
        match self.process_cap {
            Some(cap) => write!(f, ", at most {cap} tasks"),
            None => f.write_str(", no process cap"),
        }
    }
}

/// What a worker tells the coordinator of its sandbox in its first message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkerSandbox {
    pub enforced: Enforced,
    /// The worker's pids cgroup folder, for the coordinator to remove when the worker is gone.
    pub cgroup: Option<PathBuf>,
}

/// The number of threads of this process.
fn threads() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("Threads:"))?;
    line["Threads:".len()..].trim().parse().ok()
}

/// Confine this process (the worker, with one thread) as `confinement` says, writing in
/// `scratch`. An error means nothing of the plugin may run: `required` could not be met, or
/// the process already had a second thread (which would escape Landlock).
pub fn confine(confinement: &Confinement, scratch: &Path) -> Result<WorkerSandbox, String> {
    if let Some(n @ 2..) = threads() {
        return Err(format!(
            "the sandbox must be applied before a second thread starts ({n} threads)"
        ));
    }
    let mut enforced = Enforced::default();
    let cgroup = match process_cap::join(PROCESS_CAP) {
        Ok(dir) => {
            enforced.process_cap = Some(PROCESS_CAP);
            Some(dir)
        }
        Err(e) => {
            enforced.missing.push(format!("no process cap: {e}"));
            None
        }
    };
    let mut write = vec![scratch.to_path_buf()];
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
    if confinement.required && !enforced.confines_fully() {
        let mut unmet = enforced.missing.clone();
        unmet.retain(|m| !m.starts_with("no process cap"));
        return Err(format!(
            "sandbox = \"required\", and this kernel cannot enforce it: {}",
            unmet.join("; ")
        ));
    }
    Ok(WorkerSandbox { enforced, cgroup })
}

/// Try, from this process, three things the sandbox forbids: create the file `write`, open a
/// TCP connection to `127.0.0.1:port`, and signal the parent (signal 0: the permission check
/// alone). Each is `None` when it succeeded, else the refusal.
pub fn probe(write: &Path, port: u16) -> (Option<String>, Option<String>, Option<String>) {
    let refusal = |r: std::io::Result<()>| r.err().map(|e| e.to_string());
    let wrote = std::fs::write(write, b"written from inside the sandbox\n");
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let connected = std::net::TcpStream::connect_timeout(&address, PROBE_TIMEOUT).map(drop);
    let parent = std::os::unix::process::parent_id() as i32;
    let signalled = rustix::process::Pid::from_raw(parent)
        .ok_or(rustix::io::Errno::SRCH)
        .and_then(rustix::process::test_kill_process)
        .map_err(std::io::Error::from);
    (refusal(wrote), refusal(connected), refusal(signalled))
}

/// How long [`probe`] waits for its TCP connection.
const PROBE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// The existing files and folders that an engine's option values name, which its sandbox lets
/// it read: a value that is a path, each word of a command line that is a path (`external`'s
/// `Command`), and the folder of a command's program, also when found through `PATH`.
/// Relative paths are taken from the coordinator's current folder. Only paths that every user
/// may read count: a private file (a key, mode 0600) is never handed to an engine on the
/// strength of an option value alone; `sandbox-read` allows it.
pub fn option_paths(options: &[(String, String)]) -> Vec<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let mut paths = Vec::new();
    let mut add = |p: PathBuf| {
        let Ok(p) = p.canonicalize() else {
            return;
        };
        let public = p
            .metadata()
            .is_ok_and(|m| m.permissions().mode() & 0o004 != 0);
        if public && !paths.contains(&p) {
            paths.push(p);
        }
    };
    for (_, value) in options {
        if value.is_empty() {
            continue;
        }
        add(PathBuf::from(value));
        let words = shlex::split(value).unwrap_or_default();
        for word in &words {
            if word.contains('/') {
                add(PathBuf::from(word));
            }
        }
        if let Some(program) = words.first().and_then(|w| program_path(w)) {
            if let Some(folder) = program.parent() {
                add(folder.to_path_buf());
            }
        }
    }
    paths
}

/// The file a command's first word runs: itself when it holds a slash, else the first
/// executable file of that name in `PATH`.
fn program_path(word: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let runnable = |p: &Path| {
        p.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
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
    fn what_was_enforced_reads_as_a_line() {
        let full = Enforced {
            landlock_abi: 7,
            landlock_full: true,
            seccomp: true,
            process_cap: Some(256),
            missing: Vec::new(),
        };
        assert_eq!(
            full.to_string(),
            "Landlock ABI 7, seccomp, at most 256 tasks"
        );
        assert_eq!(
            Enforced::default().to_string(),
            "no Landlock, no seccomp, no process cap"
        );
    }
}
