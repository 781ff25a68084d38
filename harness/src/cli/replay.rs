//! `harness replay`: step through a run's finished games on the board.

use super::exit;
use super::output::say_raw;
use crate::show::tui::replay;
use std::io::IsTerminal;
use std::path::PathBuf;

/// Step through the finished games of a run on the board (full-screen on a terminal;
/// otherwise the game's final board as text).
#[derive(clap::Args)]
pub struct Args {
    /// The output folder or its games.jsonl.
    file: PathBuf,
    /// Game number as shown on screen (the journal's `game` + 1); default: the first game.
    game: Option<usize>,
}

/// Full-screen on a terminal; otherwise the final board as text.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let mut opened = replay::open(&args.file, args.game)?;
    if std::io::stdout().is_terminal() {
        replay::interactive(opened)?;
    } else {
        say_raw!("{}", replay::as_text(&mut opened));
    }
    Ok(exit::SUCCESS)
}
