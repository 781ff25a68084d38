//! One plugin outside a tournament, hosted in a worker exactly as in a game.
//!
//! - [`solve`]: `harness solve`, exact solves of OBF test positions;
//! - [`analyze`]: `harness analyze`, a run's games scored against exact solves;
//! - [`bench`]: `harness bench`, a plugin's signature and speed over [`positions`];
//! - [`check`]: `harness check`, a plugin's compliance suite;
//! - [`frontend`]: `harness nboard` and `harness gtp`, a plugin served to a GUI.

pub mod analyze;
pub mod bench;
pub mod check;
pub mod frontend;
pub mod positions;
pub mod solve;

use crate::host::sandbox::Confinement;
use anyhow::Context;
use harness_core::plan::config::{PluginRef, SandboxMode};
use std::path::{Path, PathBuf};

/// The plugin file a tool's `--engine` names (a path, or a bare name looked up in
/// `plugin_dir` or beside the harness binary) and its options with `--threads` folded in
/// as the `Threads` option, replacing any `--option Threads=…`.
pub(crate) fn tool_engine(
    engine: &str,
    plugin_dir: Option<&Path>,
    options: &[(String, String)],
    threads: Option<u32>,
) -> anyhow::Result<(PathBuf, Vec<(String, String)>)> {
    let plugin = PluginRef::parse(engine, Path::new(""))
        .locate(plugin_dir)
        .context("cannot find the harness binary's folder")?;
    let mut options = options.to_vec();
    if let Some(t) = threads {
        options.retain(|(n, _)| !n.eq_ignore_ascii_case("Threads"));
        options.push(("Threads".to_string(), t.to_string()));
    }
    Ok((plugin, options))
}

/// A worker started for `harness bench` or `check`: the plugin with its options, and
/// `Threads = 1` when the plugin declares that option (so that node counts repeat).
pub(crate) async fn start_single_threaded(
    name: &str,
    plugin: &Path,
    options: &[(String, String)],
    sandbox: &Option<Confinement>,
) -> anyhow::Result<crate::host::EngineHost> {
    let worker = crate::host::WorkerSpec {
        name: name.to_string(),
        plugin: plugin.to_path_buf(),
        options: options.to_vec(),
        stderr_log: None,
        memory_limit: None,
        sandbox: sandbox.clone(),
        between_turns: crate::host::turns::BetweenTurns::Stopped,
    };
    start_worker_single_threaded(&worker).await
}

/// [`start_single_threaded`] for a full worker spec (a memory limit, a log).
pub(crate) async fn start_worker_single_threaded(
    worker: &crate::host::WorkerSpec,
) -> anyhow::Result<crate::host::EngineHost> {
    let mut host = crate::host::EngineHost::spawn(worker).await?;
    if host.plugin.options.iter().any(|o| o.name == "Threads") {
        host.set_option("Threads", "1").await?;
    }
    Ok(host)
}

/// The worker sandbox of a tool's plugin under `--sandbox MODE` (no extra paths: the option
/// values that name files are readable, [`crate::host::sandbox::option_paths`]; no CPU cap).
pub(crate) fn confinement(mode: SandboxMode) -> Option<Confinement> {
    let settings = harness_core::plan::config::Sandbox {
        mode,
        ..Default::default()
    };
    Confinement::of(&settings, None)
}
