//! Engine hosting: every engine instance runs in its own worker process.
//!
//! - `plugin`: loading a plugin library and calling it through the C ABI;
//! - `protocol`: the framed messages between coordinator and worker (JSON lines);
//! - `worker`: the worker process (`harness worker`), which loads one plugin, creates one
//!   instance and serves the coordinator's requests;
//! - `worker_description`: what a worker is told to be, one typed description the coordinator
//!   writes and the worker reads;
//! - `supervisor`: the process between the coordinator and each worker (`harness supervise`),
//!   outside the plugin's reach, which ends everything the worker started when the worker or
//!   the coordinator ends, and the init of a sandboxed worker's namespaces;
//! - `sandbox`: what the kernel holds a worker to (its cgroups, no capabilities, Landlock,
//!   seccomp), the scratch folder it writes in and the environment it gets;
//! - `engine_text`: every string a worker sends, bounded and made printable on arrival;
//! - `stderr_log`: the end of an engine's stderr log, quoted when the engine cannot start;
//! - `turns`: an engine runs only on its own turn (stopped between turns, its CPU time there
//!   measured);
//! - `engine_host`: the coordinator's handle on a worker ([`EngineHost`]): spawning, the
//!   handshake, and a search with deadlines; async, on the caller's tokio runtime.
//!
//! The protocol runs over one end of a socket pair that the coordinator hands the worker as its
//! standard input (the worker moves it aside at once), never over the worker's stdout, so a
//! plugin that prints cannot corrupt it (the worker's stdout goes to /dev/null, its stderr to a
//! log file), and there is no socket path another process could connect to. A worker that dies or stops answering costs its
//! engine the game in progress; the coordinator replaces it.

pub mod affinity;
pub mod engine_host;
pub mod engine_text;
#[cfg(unix)]
pub mod parent_death;
pub mod plugin;
pub mod protocol;
pub mod sandbox;
pub mod signals;
pub mod stderr_log;
#[cfg_attr(windows, path = "windows/supervisor.rs")]
pub mod supervisor;
pub mod system;
pub mod turns;
pub mod worker;
pub mod worker_description;

/// The runtime of a one-engine session (`harness solve`, the front-ends): a current-thread
/// runtime on which the session blocks for each call to its [`EngineHost`]. A tournament has a
/// multi-thread runtime of its own (`play::conductor::runtime`).
pub fn session_runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
}

pub use engine_host::{
    EngineHost, ExactAnswer, HostError, MoveReply, Quit, SearchBudget, WorkerSpec,
};
pub use plugin::{LoadError, OptionInfo, Plugin, PluginInfo};
pub use sandbox::Probed;
