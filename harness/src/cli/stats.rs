//! `harness stats`: the tables of a journal, recomputed from its records alone.

use super::exit;
use super::output::say_raw;
use crate::show::{report, table};
use harness_core::record::analysis::read_analysis;
use harness_core::record::journal;
use std::path::{Path, PathBuf};

/// Recompute the statistics of a finished or interrupted run from its games.jsonl (or its
/// output folder).
#[derive(clap::Args)]
pub struct Args {
    /// An output folder or its games.jsonl.
    file: PathBuf,
    /// Print the folder's run as the terminal's live screen shows it at this size (`120x40`,
    /// `80x24`), as text, instead of the tables: what a spectator of the run would see now
    /// (a folder that another process plays included).
    #[arg(long, value_name = "WxH", value_parser = screen_size)]
    screen: Option<(u16, u16)>,
}

/// `120x40` as (120, 40); at least 40 x 12, the smallest screen the view lays out.
fn screen_size(text: &str) -> Result<(u16, u16), String> {
    let (w, h) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("`{text}`: expected WIDTHxHEIGHT, such as 120x40"))?;
    let number = |s: &str| {
        s.trim()
            .parse::<u16>()
            .map_err(|_| format!("`{text}`: expected WIDTHxHEIGHT, such as 120x40"))
    };
    let (w, h) = (number(w)?, number(h)?);
    if w < 40 || h < 12 {
        return Err(format!("`{text}`: the screen is at least 40x12"));
    }
    Ok((w, h))
}

/// The tables of a journal; with the sequential test when the journal's folder pins a
/// tournament that has one. A game number found more than once is counted once (the first
/// record), and said.
pub fn run(args: Args) -> anyhow::Result<i32> {
    if let Some((width, height)) = args.screen {
        let folder = if args.file.is_dir() {
            args.file.clone()
        } else {
            args.file.parent().unwrap_or(Path::new(".")).to_path_buf()
        };
        let model = crate::show::folder_run::model_of(&folder).ok_or_else(|| {
            anyhow::anyhow!(
                "{}: no tournament.json: not an output folder of `harness run` or `merge`",
                folder.display()
            )
        })?;
        let state = crate::show::tui::state::State::of(model);
        say_raw!(
            "{}",
            crate::show::tui::view::screen_text(&state, width, height, std::time::Instant::now())
        );
        return Ok(exit::SUCCESS);
    }
    let path = journal::journal_path(&args.file);
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
    let folder = path.parent().unwrap_or(Path::new("."));
    // The folder's tournament, where it has one: its engine order orients the tables, and its
    // test is stated.
    let tournament = harness_core::record::tournament_record::TournamentRecord::read(folder)
        .ok()
        .and_then(|record| harness_core::plan::recorded::tournament_of(&record).ok());
    let engines = tournament
        .as_ref()
        .map(|t| t.engine_names())
        .unwrap_or_default();
    say_raw!("{}", table::final_tables(&records, &engines));
    let analysis = read_analysis(folder)?;
    if !analysis.is_empty() {
        let a = report::analysis_report(&analysis, &records);
        say_raw!("{}", table::analysis_table(&a.engines, a.from_empties));
        for note in a.notes() {
            say_raw!("{note}\n");
        }
    }
    if let Some(t) = &tournament {
        if let Some(status) = super::reports::run_test(t, folder, &records) {
            let never_moved =
                harness_core::stats::verdict::never_moved(&t.engine_names(), &records);
            say_raw!(
                "{}",
                table::test_summary(
                    &status,
                    (&t.engines[0].name, &t.engines[1].name),
                    harness_core::stats::verdict::decision_measures(status.decision, &never_moved)
                )
            );
        }
    }
    Ok(exit::SUCCESS)
}
