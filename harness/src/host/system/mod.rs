//! What the host asks of the operating system about processes, one file per system family:
//! `unix.rs` (Linux and macOS) and `windows.rs`. Each gives the same names:
//!
//! - the worker's **launch**: [`launcher`] (Unix: the worker's supervisor, which starts it;
//!   Windows: the worker itself) and [`SUPERVISED`] (whether a supervisor speaks first);
//! - its **channel**: [`Channel`] (the coordinator's end before the worker starts, made async
//!   once it has: [`Reader`], [`Writer`]) and, in the worker, [`WorkerChannel`] from
//!   [`take_channel`];
//! - its **group**: [`Group`], everything the worker started, killed at once;
//! - how a process **ended**: [`exit_signal`];
//! - the worker's **limits** on itself: [`limit_memory`], [`limit_file_size`].
//!
//! Windows' file also holds the cores a process may run on and the pinning of a worker to
//! some (`allowed_cores`, `pin`), which `host::affinity` calls; Linux's are in that module,
//! and macOS has none.
//!
//! Where a system cannot give a piece, its file says so in the function's documentation and
//! returns the reason as an error; the sandbox records it as missing.

#[cfg_attr(unix, path = "unix.rs")]
#[cfg_attr(windows, path = "windows.rs")]
mod imp;

pub use imp::*;
