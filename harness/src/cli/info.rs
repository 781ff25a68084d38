//! `harness info`: a plugin's metadata and options, loaded in a worker as a run loads it, and
//! what the kernel enforced of that worker's sandbox.

use super::exit;
use super::output::say;
use crate::host::{EngineHost, WorkerSpec};
use anyhow::Context;
use harness_core::plan::config::PluginRef;
use std::path::{Path, PathBuf};

/// Load a plugin and print its metadata and options.
#[derive(clap::Args)]
pub struct Args {
    /// A library path, or a bare name (lib<NAME>.so next to the harness binary, as in a
    /// tournament file).
    plugin: String,
    /// Folder where a bare name is looked up.
    #[arg(long)]
    plugin_dir: Option<PathBuf>,
    #[command(flatten)]
    sandbox: super::SandboxFlag,
}

/// A plugin's metadata and options.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let path = PluginRef::parse(&args.plugin, Path::new(""))
        .locate(args.plugin_dir.as_deref())
        .context("cannot find the harness binary's folder")?;
    let spec = WorkerSpec {
        name: args.plugin.clone(),
        plugin: path,
        options: Vec::new(),
        stderr_log: None,
        memory_limit: None,
        sandbox: crate::tools::confinement(args.sandbox.mode),
        between_turns: crate::host::turns::BetweenTurns::Stopped,
    };
    let runtime = crate::host::session_runtime().context("cannot start the runtime")?;
    let host = runtime.block_on(EngineHost::spawn(&spec))?;
    let (info, enforced) = (host.plugin.clone(), host.sandbox.clone());
    runtime.block_on(host.shutdown());
    say!("path     {}", info.path.display());
    say!("name     {}", info.name);
    say!("version  {}", info.version);
    say!("author   {}", info.author);
    say!("abi      {}.{}", info.abi_major, info.abi_minor);
    match &enforced {
        Some(e) => say!("sandbox  {} ({e})", args.sandbox.mode),
        None => say!("sandbox  off"),
    }
    say!(
        "options  {}",
        if info.options.is_empty() {
            "(none)"
        } else {
            ""
        }
    );
    for o in &info.options {
        let range = match o.kind.as_str() {
            "int" | "float" => format!(" {}..={}", o.min, o.max),
            "enum" => format!(" {{{}}}", o.values.join("|")),
            _ => String::new(),
        };
        say!(
            "  {:<14} {:<6} default {:<10}{range}  {}",
            o.name,
            o.kind,
            o.default,
            o.help
        );
    }
    Ok(exit::SUCCESS)
}
