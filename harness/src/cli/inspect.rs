//! The small commands that look at something: `stats` (a journal's tables), `perft` (the move
//! generator's speed and correctness), `info` (a plugin's metadata).

use super::output::{say, say_raw};
use crate::record::journal;
use crate::show::table;
use othello_board::{Board, PassRule};
use std::path::Path;
use std::time::Instant;

/// `harness stats`: the tables of a journal; with the sequential test when the journal's
/// folder pins a tournament that has one. A game number found more than once is counted once
/// (the first record), and said.
pub fn stats(file: &Path) -> anyhow::Result<()> {
    let path = if file.is_dir() {
        file.join(journal::JSONL_FILE)
    } else {
        file.to_path_buf()
    };
    let mut records = journal::read_journal(&path)?;
    anyhow::ensure!(!records.is_empty(), "{}: no finished games", path.display());
    let read = records.len();
    let mut seen = std::collections::HashSet::new();
    records.retain(|r| seen.insert(r.game));
    if records.len() < read {
        eprintln!(
            "warning: {}: {} records repeat a game number already read (a journal appended twice?); each game is counted once, its first record kept",
            path.display(),
            read - records.len()
        );
    }
    say_raw!("{}", table::final_tables(&records));
    let folder = path.parent().unwrap_or(Path::new("."));
    if let Ok(pinned) = std::fs::read_to_string(folder.join(journal::FINGERPRINT_FILE)) {
        if let Ok(t) = crate::play::resume::tournament_of(&pinned) {
            let mut in_order = records.clone();
            in_order.sort_by_key(|r| r.game);
            if let Some(status) = super::merge::test_of(&t, &in_order, folder)? {
                say_raw!(
                    "{}",
                    table::sprt_summary(&status, &t.engines[0].name, &t.engines[1].name)
                );
            }
        }
    }
    Ok(())
}

/// `harness perft`: leaves of the game tree from the start position, and their rate.
pub fn perft(depth: u32, mode: u8) {
    let rule = if mode == 1 {
        PassRule::PassIsAMove
    } else {
        PassRule::PassIsFree
    };
    let started = Instant::now();
    let leaves = othello_board::perft(Board::START, depth, rule);
    let secs = started.elapsed().as_secs_f64();
    say!(
        "perft {depth} (mode {mode}): {leaves} leaves in {secs:.3} s, {:.3e} leaves/s",
        leaves as f64 / secs.max(1e-9)
    );
}

/// `harness info`: a plugin's metadata and options.
pub fn info(plugin: &str, plugin_dir: Option<&Path>) -> anyhow::Result<()> {
    use anyhow::Context;
    let path = crate::plan::config::PluginRef::parse(plugin, Path::new(""))
        .locate(plugin_dir)
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
    Ok(())
}
