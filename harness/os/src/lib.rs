//! The bottom part of the harness's seam for the operating system: what `harness-core` and
//! `harness-ledger` need of it, each answer written once per system family. The other part,
//! everything about processes (starting a worker and its channel, its group or job, killing
//! it and all it started, caps, stopping it between turns, namespaces, affinity, the
//! sandbox, signals), is the program's `host` stage (`docs/architecture.md`, "The seam for
//! the operating system").
//!
//! Each function says what it does on each system; where a system cannot give what Linux
//! gives, the function does the best that system allows and its documentation says what is
//! missing (never an error that stops a run for it). `cfg(unix)`, `cfg(windows)` and
//! `cfg(target_os = …)` appear in this crate, the `host` stage and where the program chooses
//! its allocator, nowhere else (the tidy test `os_seam` holds it).
//!
//! - [`host_name`]: the machine's name, for run ids and the ledger.
//! - [`files`]: a positional read, a folder's sync after a rename (durability), whether a
//!   file is private to its owner (PostgreSQL's password file).
//! - [`postgres_socket_folder`]: where a local PostgreSQL server listens when a URL names no
//!   host.
//! - [`command_line`]: an option's command line split into words as the system's programs
//!   split theirs, and which words name files.

pub mod command_line;
pub mod files;

use std::path::Path;

/// The machine's name: the kernel's host name on Linux (`/proc/sys/kernel/hostname`), the
/// node name of `uname` on other Unix systems, `COMPUTERNAME` on Windows; empty when it
/// cannot be told.
pub fn host_name() -> String {
    host_name_of_system().trim().to_string()
}

#[cfg(target_os = "linux")]
fn host_name_of_system() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default()
}

#[cfg(all(unix, not(target_os = "linux")))]
fn host_name_of_system() -> String {
    rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned()
}

#[cfg(windows)]
fn host_name_of_system() -> String {
    std::env::var("COMPUTERNAME").unwrap_or_default()
}

/// The folder of a local PostgreSQL server's Unix socket, where a connection without a host
/// goes as libpq's would: Debian's `/var/run/postgresql` when it exists. `None` (connect to
/// `localhost` over TCP) where it does not, and always on Windows, where libpq has no socket
/// default either.
pub fn postgres_socket_folder() -> Option<&'static str> {
    const FOLDER: &str = "/var/run/postgresql";
    (cfg!(unix) && Path::new(FOLDER).is_dir()).then_some(FOLDER)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_host_has_a_name() {
        let name = super::host_name();
        assert!(!name.is_empty() && name == name.trim(), "`{name}`");
    }
}
