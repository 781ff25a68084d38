//! `harness info`: a plugin's metadata and options, as its worker would load it.

use super::exit;
use super::output::say;
use crate::plan::config::PluginRef;
use anyhow::Context;
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
}

/// A plugin's metadata and options.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let path = PluginRef::parse(&args.plugin, Path::new(""))
        .locate(args.plugin_dir.as_deref())
        .context("cannot find the harness binary's folder")?;
    let (_, info) = crate::host::Plugin::load(&path)?;
    say!("path     {}", info.path.display());
    say!("name     {}", info.name);
    say!("version  {}", info.version);
    say!("author   {}", info.author);
    say!("abi      {}.{}", info.abi_major, info.abi_minor);
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
