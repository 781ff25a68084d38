//! `harness nboard` and `harness gtp`: a plugin served over a text protocol on stdin/stdout.

use super::exit;
use crate::tools::frontend::{gtp, nboard, FrontendArgs};
use std::path::PathBuf;

/// The engine of a front-end session.
#[derive(clap::Args)]
pub struct Args {
    /// Plugin: a library path or a bare name (looked up next to the harness binary).
    #[arg(long)]
    engine: String,
    /// Engine option NAME=VALUE (repeatable).
    #[arg(long = "option", value_parser = super::parse_option)]
    options: Vec<(String, String)>,
    /// Folder where a bare plugin name is looked up.
    #[arg(long)]
    plugin_dir: Option<PathBuf>,
    /// Search every move to this depth (overrides the protocol's own settings).
    #[arg(long)]
    depth: Option<u32>,
    /// Search every move for this many seconds.
    #[arg(long, value_name = "SECONDS", conflicts_with = "depth", value_parser = super::parse_seconds, allow_negative_numbers = true)]
    move_time: Option<std::time::Duration>,
    #[command(flatten)]
    sandbox: super::SandboxFlag,
}

impl Args {
    fn frontend(self) -> FrontendArgs {
        FrontendArgs {
            engine: self.engine,
            plugin_dir: self.plugin_dir,
            options: self.options,
            depth: self.depth,
            move_time: self.move_time.map(|d| d.as_secs_f64()),
            sandbox: self.sandbox.mode,
        }
    }
}

/// An NBoard session until `quit` or the end of the input.
pub fn nboard(args: Args) -> anyhow::Result<i32> {
    let input = std::io::BufReader::new(std::io::stdin());
    nboard::serve(&args.frontend(), input, std::io::stdout().lock())?;
    Ok(exit::SUCCESS)
}

/// A GTP session until `quit` or the end of the input.
pub fn gtp(args: Args) -> anyhow::Result<i32> {
    let input = std::io::BufReader::new(std::io::stdin());
    gtp::serve(&args.frontend(), input, std::io::stdout().lock())?;
    Ok(exit::SUCCESS)
}
