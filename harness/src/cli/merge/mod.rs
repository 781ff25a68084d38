//! `harness merge`: the shards of one tournament merged into one output folder, with the same
//! tables, reports and exit code as `run`; and `harness merge --watch`, the distributed
//! sequential test that stops every shard once it decides.
//!
//! Folders: each argument is a shard's (or any run's) output folder, or a folder holding
//! `shard-I-of-N` folders (the layout `run --shard` makes). Every folder must come from the same
//! tournament (`tournament.json` equal but for the shard); the merged folder gets that
//! tournament's `tournament.json` without a shard, so `harness run` into it would resume the
//! whole tournament.
//!
//! The decision of a merged sequential test is the one recorded where the test crossed a bound:
//! `decision.json`, written by the watcher, when the output folder has one; otherwise the first
//! crossing walking the complete pairs in pair order. The final statistics count every game.
//! The watcher is [`watch`].

mod watch;

use super::output::{say, say_raw};
use crate::cli::exit;
use crate::play::conductor::{Ending, Short};
use crate::play::resume::{extension, same_tournament};
use crate::show::table;
use anyhow::{bail, Context};
use harness_core::plan::config::{ClockScale, Tournament};
use harness_core::plan::recorded::tournament_of;
use harness_core::plan::schedule::PairedSchedule;
use harness_core::record::decision_record::DecisionRecord;
use harness_core::record::journal::{write_durably, JSONL_FILE};
use harness_core::record::merge::JournalIndex;
use harness_core::record::run_clock::{ClockFile, Elapsed};
use harness_core::record::tournament_record::TournamentRecord;
use harness_core::record::tournament_record::TOURNAMENT_FILE;
use harness_core::record::GameRecord;
use harness_core::stats::sprt::SprtStatus;
use harness_core::stats::verdict::{self, Outcome};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Merge the output folders of a tournament's shards (or folders holding shard-I-of-N
/// folders) into one: journal in game order, GGF, reports, tables; exit code as for `run`.
/// With --watch: follow the shards' journals, evaluate the sequential test every interval
/// and, when it decides, write decision.json and the stop file and run --on-decision.
#[derive(clap::Args)]
pub struct Args {
    /// Shard output folders, or folders holding shard-I-of-N folders.
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// The merged folder (default: the folder the shard folders are in).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Follow the shards as they play and stop them when the test decides.
    #[arg(long)]
    watch: bool,
    /// Seconds between two looks at the journals (with --watch).
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = crate::cli::parse_seconds, allow_negative_numbers = true)]
    interval: std::time::Duration,
    /// The file the shards watch (`run --stop-file`): written when the test decides.
    #[arg(long, value_name = "PATH")]
    stop_file: Option<PathBuf>,
    /// A shell command run when the test decides (e.g. `scancel --state=PENDING $JOB`).
    #[arg(long, value_name = "CMD")]
    on_decision: Option<String>,
    /// Record the merged run in this results ledger (a file path, sqlite://PATH or
    /// postgres://USER@HOST/DB; default: the HARNESS_LEDGER variable); checked before anything
    /// is written.
    #[arg(long, value_name = "URL", conflicts_with = "watch")]
    ledger: Option<String>,
    #[command(flatten)]
    ledger_choice: crate::cli::run_ledger::LedgerChoice,
}

/// The shard folders below the arguments: a folder holding `shard-I-of-N` sub-folders stands
/// for them, whether or not an earlier merge wrote its output into it; any other folder with a
/// `tournament.json` or a journal is one (`allow_none`: a watcher may start before any shard
/// has made its folder, or the folder they go in).
pub(super) fn shard_folders(dirs: &[PathBuf], allow_none: bool) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for dir in dirs {
        if !dir.is_dir() {
            if allow_none {
                continue;
            }
            bail!("{}: no such folder", dir.display());
        }
        let shards = harness_core::record::run_folder::RunFolder::at(dir)
            .shards()
            .with_context(|| format!("cannot read {}", dir.display()))?;
        if !shards.is_empty() {
            out.extend(shards);
        } else if dir.join(TOURNAMENT_FILE).exists() || dir.join(JSONL_FILE).exists() {
            out.push(dir.clone());
        } else if !allow_none {
            bail!(
                "{}: neither an output folder (no {TOURNAMENT_FILE}, no {JSONL_FILE}) nor a folder of shard-I-of-N folders",
                dir.display()
            );
        }
    }
    Ok(out)
}

/// The `tournament.json` of every folder, checked to pin one tournament; the first one's text.
fn common_tournament(folders: &[PathBuf]) -> anyhow::Result<String> {
    let mut first: Option<(PathBuf, String)> = None;
    for folder in folders {
        let path = folder.join(TOURNAMENT_FILE);
        let text = std::fs::read_to_string(&path).with_context(|| {
            format!(
                "{}: no {TOURNAMENT_FILE}: not an output folder of `harness run`",
                folder.display()
            )
        })?;
        match &first {
            None => first = Some((folder.clone(), text)),
            Some((first_folder, first_text)) => {
                if !same_tournament(first_text, &text, true) {
                    bail!(
                        "{} and {} hold games of different tournaments (their {TOURNAMENT_FILE} differ: engines, options, plugin files, openings or time control)",
                        first_folder.display(),
                        folder.display()
                    );
                }
            }
        }
    }
    first.map(|(_, text)| text).context("no folder to merge")
}

/// The merged folder: `--out`, or the one folder all shard folders are in.
fn output_folder(
    out: Option<PathBuf>,
    dirs: &[PathBuf],
    folders: &[PathBuf],
) -> anyhow::Result<PathBuf> {
    if let Some(out) = out {
        return Ok(out);
    }
    if let [dir] = dirs {
        if !folders.contains(dir) {
            return Ok(dir.clone());
        }
    }
    let parents: BTreeSet<&Path> = folders.iter().filter_map(|f| f.parent()).collect();
    match parents.into_iter().collect::<Vec<_>>()[..] {
        [parent] => Ok(parent.to_path_buf()),
        _ => bail!("the folders have no common parent: give --out"),
    }
}

/// `tournament.json` without its shard: the merged folder's, with the shards' clock scales
/// merged (each shard's own measure is not the merged run's).
fn unsharded(text: &str, scale: Option<&ClockScale>) -> anyhow::Result<String> {
    let mut record = TournamentRecord::parse(text)?;
    record.shard = None;
    record.clock_scale = scale.cloned();
    Ok(record.text())
}

/// With NPS-scaled clocks, the scales the shards measured (each folder's `tournament.json`
/// keeps its own).
fn clock_scales(folders: &[PathBuf]) -> anyhow::Result<Vec<ClockScale>> {
    let mut scales = Vec::new();
    for folder in folders {
        let record = TournamentRecord::read(folder)?;
        scales.extend(record.clock_scale);
    }
    Ok(scales)
}

/// The schedule a `tournament.json` pins, of the tournament `t` rebuilt from it.
fn schedule_of(t: &Tournament, tournament_json: &str) -> anyhow::Result<PairedSchedule> {
    let record = TournamentRecord::parse(tournament_json)?;
    Ok(t.schedule(record.openings.count as usize))
}

/// The sequential test of `t` on the records of `folder` (in game order), decided as
/// [`harness_core::stats::test_decision`] says (the watcher's `decision.json` when the folder has
/// one). `None` without a test.
pub(super) fn test_of(
    t: &Tournament,
    records: &[GameRecord],
    folder: &Path,
) -> anyhow::Result<Option<SprtStatus>> {
    Ok(t.test_status(records, DecisionRecord::decision_in(folder)?))
}

/// `harness merge` (and `--watch`).
pub fn run(args: Args) -> anyhow::Result<i32> {
    if args.watch {
        return watch::watch(args);
    }
    let mut ledger = crate::cli::run_ledger::RunLedger::for_run(
        args.ledger.as_deref(),
        &args.ledger_choice,
        false,
    )?;
    let started = Instant::now();
    let folders = shard_folders(&args.dirs, false)?;
    let tournament_json = common_tournament(&folders)?;
    let out = output_folder(args.out, &args.dirs, &folders)?;
    check_output_folder(&out, &folders, &tournament_json)?;
    let mut t = tournament_of(&TournamentRecord::parse(&tournament_json)?)
        .context("cannot rebuild the tournament")?;
    t.out = out.clone();
    let schedule = schedule_of(&t, &tournament_json)?;
    // The GGF lines are spooled next to the shard folders while the journals are read.
    let spool_dir = folders[0].parent().unwrap_or(Path::new("."));
    let mut index = JournalIndex::build(&folders, spool_dir)?;
    let gaps = Gaps::of(&schedule, &index);
    index.write(&out)?;
    let (duplicates, torn) = (index.duplicates, index.torn.clone());
    let records = index.into_records();
    // Each shard measured its own clock scale: the merged folder states their spread.
    t.clock_scale = ClockScale::of_shards(&clock_scales(&folders)?);
    write_durably(
        &out.join(TOURNAMENT_FILE),
        unsharded(&tournament_json, t.clock_scale.as_ref())?.as_bytes(),
    )
    .with_context(|| format!("cannot write {}", out.join(TOURNAMENT_FILE).display()))?;
    say!(
        "merged {} folders into {}: {} games of {} planned ({} found twice and kept once{})",
        folders.len(),
        out.join(JSONL_FILE).display(),
        records.len(),
        schedule.games.len(),
        duplicates,
        if torn.is_empty() {
            String::new()
        } else {
            format!(
                "; a torn last line left out in {}",
                torn.iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    );
    gaps.say();
    if let Some(s) = t.clock_scale.as_ref().and_then(|c| c.shards) {
        say!(
            "clock scale over {} of {} folders: x{:.3} to x{:.3} (spread {:.1}%)",
            s.count,
            folders.len(),
            s.lowest,
            s.highest,
            (s.highest / s.lowest - 1.0) * 100.0
        );
    }
    let status = test_of(&t, &records, &out)?;
    say_raw!("{}", table::final_tables(&records, &t.engine_names()));
    let elapsed = run_time(&folders)?;
    say_merged(records.len(), started, elapsed, &out);
    let short = if gaps.missing.is_empty() {
        Short::No
    } else {
        Short::Missing(format!(
            "the shards hold {} of the schedule's {} games",
            records.len(),
            schedule.games.len()
        ))
    };
    let ending = Ending::of(&t, &records, status.as_ref().map(|s| s.decision), short);
    if let Some(s) = &status {
        say_raw!(
            "{}",
            table::test_summary(
                s,
                (&t.engines[0].name, &t.engines[1].name),
                verdict::decision_measures(s.decision, &ending.never_moved),
            )
        );
    }
    for b in &ending.broken {
        say!("FAIL: {b}");
    }
    let v = &ending.verdict;
    if v.outcome == Outcome::Unmeasured {
        say!("{}: {}", v.outcome.label(), v.reasons.join("; "));
    }
    let code = exit::of(v.outcome);
    let conclusion = ending.record(code, Default::default());
    // An analysis made before the merge (of this folder) still describes its games.
    crate::cli::reports::write_reports(
        &t,
        &records,
        elapsed,
        v.outcome != Outcome::Incomplete,
        Some(&conclusion),
    );
    Ok(crate::cli::run_ledger::RunLedger::record_or_fail(
        ledger.as_mut(),
        &out,
        &args.ledger_choice,
        code,
        exit::ERROR,
    ))
}

/// The merge's last line: the games, how long the merge took, the run's time over its shards.
fn say_merged(games: usize, started: Instant, elapsed: Option<Elapsed>, out: &Path) {
    say!(
        "\n{} games merged in {:.1} s{}; journal: {}",
        games,
        started.elapsed().as_secs_f64(),
        elapsed
            .map(|e| format!(
                "; the run took {}",
                crate::show::text::elapsed_words(
                    e.total.as_secs_f64(),
                    None,
                    e.shards_sum.map(|d| d.as_secs_f64())
                )
            ))
            .unwrap_or_default(),
        out.join(JSONL_FILE).display()
    );
}

/// A merged run's time from its shards' clocks (`record::run_clock`): the span from the
/// first shard's start to the last one's last write, and the shards' sum. `None` when no shard
/// has a clock (shards played before `clock.json` existed).
fn run_time(folders: &[PathBuf]) -> anyhow::Result<Option<Elapsed>> {
    let mut clocks = Vec::new();
    for folder in folders {
        clocks.extend(ClockFile::read(folder)?);
    }
    Ok(harness_core::record::run_clock::of_shards(&clocks))
}

/// The merged folder may be written: it is not one of the folders merged, not a shard, and
/// holds nothing of another tournament. Checked before anything is written.
fn check_output_folder(
    out: &Path,
    folders: &[PathBuf],
    tournament_json: &str,
) -> anyhow::Result<()> {
    if folders.iter().any(|f| f == out) {
        bail!(
            "{}: the output folder is one of the folders to merge; give another --out",
            out.display()
        );
    }
    let existing = out.join(TOURNAMENT_FILE);
    if existing.exists() {
        let text = std::fs::read_to_string(&existing)?;
        if let Some(shard) = TournamentRecord::parse(&text).ok().and_then(|r| r.shard) {
            let shard = harness_core::plan::schedule::Shard {
                index: shard.index,
                count: shard.count,
            };
            bail!(
                "{}: the output folder is shard {shard} of a run; give another --out (nothing was written)",
                out.display()
            );
        }
        // A merge of shards extended to more pairs replaces the merge of fewer.
        if !same_tournament(&text, tournament_json, true)
            && extension(&text, tournament_json, true).is_none()
        {
            bail!(
                "{}: the output folder holds another tournament's {TOURNAMENT_FILE}; give another --out (nothing was written)",
                out.display()
            );
        }
    } else if out.join(JSONL_FILE).exists() {
        bail!(
            "{}: the output folder holds a {JSONL_FILE} of unknown origin; give another --out (nothing was written)",
            out.display()
        );
    }
    Ok(())
}

/// What the merged journals lack against the schedule: games not played, pairs with one game.
struct Gaps {
    missing: Vec<usize>,
    incomplete: Vec<usize>,
}

impl Gaps {
    fn of(schedule: &PairedSchedule, index: &JournalIndex) -> Gaps {
        let missing = schedule
            .games
            .iter()
            .map(|g| g.index)
            .filter(|g| !index.games.contains_key(g))
            .collect();
        let mut per_pair: BTreeMap<usize, usize> = BTreeMap::new();
        for g in index.games.values() {
            *per_pair.entry(g.record.pair).or_default() += 1;
        }
        let incomplete = per_pair
            .iter()
            .filter(|(_, &n)| n == 1)
            .map(|(&p, _)| p)
            .collect();
        Gaps {
            missing,
            incomplete,
        }
    }

    /// The lists, numbered from 1 as people read them (at most 20 of each).
    fn say(&self) {
        let shown = |numbers: &[usize]| {
            let first: Vec<String> = numbers
                .iter()
                .take(20)
                .map(|n| (n + 1).to_string())
                .collect();
            format!(
                "{}{}",
                first.join(", "),
                if numbers.len() > 20 { ", …" } else { "" }
            )
        };
        if !self.missing.is_empty() {
            say!(
                "missing: {} games ({})",
                self.missing.len(),
                shown(&self.missing)
            );
        }
        if !self.incomplete.is_empty() {
            say!(
                "incomplete pairs (one game of two): {} ({})",
                self.incomplete.len(),
                shown(&self.incomplete)
            );
        }
    }
}
