//! No supervisor process on Windows: the coordinator starts each worker itself
//! ([`crate::host::system`]), and its job object holds what it starts. The
//! hidden `harness supervise` command refuses, with that reason.

use std::ffi::OsString;
use std::path::Path;

/// What a supervisor would be told (the Unix supervisor's arguments).
pub struct Supervision {
    pub coordinator: u32,
    pub namespaces: Option<(std::path::PathBuf, u64)>,
    pub worker: Vec<OsString>,
}

/// Refused: there is no supervisor on Windows.
pub fn run(_setup: &Supervision) -> anyhow::Result<()> {
    anyhow::bail!("`harness supervise` is the Unix supervisor of a worker; on Windows the coordinator starts its workers itself")
}

/// Refused: there are no namespaces on Windows.
pub fn init(_scratch: &Path, _size: u64, _worker: &[OsString]) -> anyhow::Result<()> {
    anyhow::bail!("`harness supervise --init` makes Linux namespaces; Windows has none")
}
