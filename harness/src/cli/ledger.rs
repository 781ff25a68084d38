//! `harness ledger`: runs remembered across folders and commits (`ledger`).

use super::exit;
use super::output::{say, say_raw};
use super::run_ledger::located;
use crate::show::report::commits::AnchorBy;
use anyhow::Context;
use harness_core::record::tournament_record::TOURNAMENT_FILE;
use harness_ledger::history::HistoryRow;
use harness_ledger::Access;
use harness_ledger::{LedgerStore, RunEntry, LEDGER_ENV};
use std::path::{Path, PathBuf};

/// Record runs in a results ledger, and read them back.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Record the runs of output folders (finished, interrupted, sharded or merged); a game
    /// already recorded is not counted again.
    Add {
        /// Output folders of `harness run` or `harness merge` (a folder of shard folders adds
        /// each shard).
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        #[command(flatten)]
        at: Location,
    },
    /// The Results table and the sequential test of one recorded run, as `harness stats`
    /// prints them for its folder.
    Stats {
        /// The run's id (`ledger runs` lists them).
        run: String,
        #[command(flatten)]
        at: Location,
    },
    /// Elo over commits: one row per player (a plugin digest with its options) in commit
    /// order, from a joint rating of every comparable result; one series per engine name and
    /// conditions class.
    History {
        /// Only this engine name's series.
        #[arg(long)]
        engine: Option<String>,
        /// The player at 0 Elo: a commit, label, ref or digest prefix (default: the first
        /// player of each series).
        #[arg(long, value_name = "BUILD")]
        anchor: Option<String>,
        /// One JSON object per row instead of the table.
        #[arg(long)]
        json: bool,
        /// Also write the history as a page: Elo over commits with interval bars, per series.
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
        #[command(flatten)]
        at: Location,
    },
    /// Build A against build B, in every conditions class that has both: head to head where
    /// they met, and through the joint rating of every comparable game, each with its 95%
    /// interval and games. A and B are named as --anchor names a build.
    Compare {
        /// The build rated (a label, ref, commit or digest prefix, NAME@…).
        a: String,
        /// The build it is rated against.
        b: String,
        /// One JSON object per conditions class instead of the text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        at: Location,
    },
    /// List the recorded runs: id, when, conditions, games.
    Runs {
        /// One JSON object per run instead of the table.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        at: Location,
    },
}

/// Where the ledger is.
#[derive(clap::Args)]
struct Location {
    /// The ledger: a file path, sqlite://PATH or postgres://USER@HOST/DB (else the
    /// HARNESS_LEDGER variable).
    #[arg(long, value_name = "URL")]
    ledger: Option<String>,
}

impl Location {
    /// The ledger named.
    fn url(&self) -> anyhow::Result<harness_ledger::LedgerUrl> {
        located(self.ledger.as_deref())?
            .ok_or_else(|| anyhow::anyhow!("no ledger: give --ledger URL or set {LEDGER_ENV}"))
    }

    /// The ledger, opened to record runs (and made, for a new file).
    fn open(&self) -> anyhow::Result<Box<dyn LedgerStore>> {
        harness_ledger::open(&self.url()?, Access::Write)
    }

    /// The ledger, opened to read it: one that does not exist is an error, never made.
    fn read(&self) -> anyhow::Result<Box<dyn LedgerStore>> {
        harness_ledger::open(&self.url()?, Access::Read)
    }
}

/// The command.
pub fn run(args: Args) -> anyhow::Result<i32> {
    match args.command {
        Command::Add { dirs, at } => add(&dirs, &at),
        Command::Runs { json, at } => runs(json, &at),
        Command::Stats { run, at } => stats(&run, &at),
        Command::Compare { a, b, json, at } => {
            let (engines, games) = at.read()?.history_input()?;
            compare(
                &harness_ledger::history::compare(&engines, &games, &a, &b)?,
                json,
            )
        }
        Command::History {
            engine,
            anchor,
            json,
            html,
            at,
        } => {
            let found = {
                let (engines, games) = at.read()?.history_input()?;
                harness_ledger::history::history(
                    &engines,
                    &games,
                    engine.as_deref(),
                    anchor.as_deref(),
                )?
            };
            for note in &found.notes {
                eprintln!("note: {note}");
            }
            if let Some(file) = html {
                write_history_page(&found.rows, &file)?;
            }
            history(&found.rows, json)
        }
    }
}

fn stats(id: &str, at: &Location) -> anyhow::Result<i32> {
    let mut ledger = at.read()?;
    // The run's id: `id` itself, or the one run whose id starts with it.
    let runs = ledger.runs()?;
    let full_id = if runs.iter().any(|r| r.id == id) {
        id.to_string()
    } else {
        let ids: Vec<&str> = runs
            .iter()
            .map(|r| r.id.as_str())
            .filter(|r| !id.is_empty() && r.starts_with(id))
            .collect();
        match &ids[..] {
            [one] => one.to_string(),
            [] => anyhow::bail!("no run `{id}` in the ledger (`harness ledger runs` lists them)"),
            several => anyhow::bail!(
                "`{id}` is the start of {} runs' ids: {}; give more of it",
                several.len(),
                several.join(", ")
            ),
        }
    };
    let found = ledger
        .run(&full_id)?
        .with_context(|| format!("run `{full_id}` went away"))?;
    // The run's verdict as recorded: the games the ledger keeps hold no moves, so whether an
    // engine ever moved is the recorded verdict's to say.
    let unmeasured = runs
        .iter()
        .find(|r| r.id == full_id)
        .and_then(|r| r.verdict.as_ref())
        .is_some_and(|v| v.outcome == harness_core::record::verdict_record::Outcome::Unmeasured);
    let (tournament_json, records) = found;
    anyhow::ensure!(!records.is_empty(), "run `{id}`: no finished games");
    let t = harness_core::record::tournament_record::TournamentRecord::parse(&tournament_json)
        .and_then(|record| harness_core::plan::recorded::tournament_of(&record))
        .with_context(|| format!("run `{id}`: cannot rebuild its tournament"))?;
    let (results, _) = crate::show::table::results_tables_within(
        &records,
        &t.engine_names(),
        crate::show::table::terminal_width(),
    );
    say_raw!("{results}");
    if let Some(status) = t.test_status(&records, None) {
        say_raw!(
            "{}",
            crate::show::table::test_summary(
                &status,
                (&t.engines[0].name, &t.engines[1].name),
                !unmeasured
            )
        );
    }
    Ok(exit::SUCCESS)
}

fn add(dirs: &[PathBuf], at: &Location) -> anyhow::Result<i32> {
    let mut ledger = at.open()?;
    for dir in dirs {
        // A folder of shard folders adds each shard, and its merge when it has one.
        let mut folders = super::merge::shard_folders(std::slice::from_ref(dir), false)?;
        if !folders.contains(dir) && dir.join(TOURNAMENT_FILE).exists() {
            folders.push(dir.clone());
        }
        for folder in folders {
            let entry = RunEntry::read(&folder)?;
            let added = ledger
                .add(&entry)
                .with_context(|| format!("cannot record {}", folder.display()))?;
            say!(
                "{}: run {}: {} games, {added} new",
                folder.display(),
                entry.id,
                entry.games.len()
            );
        }
    }
    Ok(exit::SUCCESS)
}

fn runs(json: bool, at: &Location) -> anyhow::Result<i32> {
    let mut ledger = at.read()?;
    let mut rows = ledger.runs()?;
    for r in rows.iter_mut() {
        let Some((tournament_json, records)) = ledger.run(&r.id)? else {
            continue;
        };
        // A run without a verdict may be a sharded one whose merge is not recorded yet.
        if r.verdict.is_none() {
            r.shards = harness_ledger::store::shard_progress(&tournament_json, &records);
        }
        r.repeated_openings = harness_ledger::store::repeated_openings(&records);
    }
    if json {
        for r in &rows {
            say_raw!("{}\n", serde_json::to_string(r)?);
        }
        return Ok(exit::SUCCESS);
    }
    say_raw!(
        "{:<28} {:<19} {:>7} {:>8}  {:<16} {:<20} folder\n",
        "run",
        "recorded (UTC)",
        "games",
        "planned",
        "outcome",
        "source"
    );
    for r in &rows {
        let outcome = match (&r.verdict, &r.shards) {
            (Some(v), _) => v.outcome.key().to_string(),
            (None, Some(shards)) => {
                let done = shards.iter().filter(|s| s.games == s.planned).count();
                format!("shards {done}/{} done", shards.len())
            }
            (None, None) => "-".to_string(),
        };
        say_raw!(
            "{:<28} {:<19} {:>7} {:>8}  {:<16} {:<20} {}\n",
            r.id,
            r.recorded,
            r.games,
            r.planned_games,
            outcome,
            r.source,
            r.folder
        );
        // The run's warning under its row, indented.
        if let Some(repeated) = &r.repeated_openings {
            for line in repeated.lines().lines() {
                say_raw!("  {line}\n");
            }
        }
    }
    Ok(exit::SUCCESS)
}

/// The history page of `rows` in `file`.
fn write_history_page(rows: &[HistoryRow], file: &Path) -> anyhow::Result<()> {
    let page = history_page(rows, AnchorBy::Flag)?;
    std::fs::write(file, page).with_context(|| format!("cannot write {}", file.display()))?;
    say!("history page: {}", file.display());
    Ok(())
}

/// The whole ledger's history page as `serve` shows it, every series, anchored at each
/// series' first build or at `anchor` (`?anchor=BUILD`, as `ledger history --anchor` takes it).
pub(super) fn ledger_history_page(
    ledger: &mut dyn LedgerStore,
    anchor: Option<&str>,
) -> anyhow::Result<String> {
    let (engines, games) = ledger.history_input()?;
    let found = harness_ledger::history::history(&engines, &games, None, anchor)?;
    history_page(&found.rows, AnchorBy::Address)
}

/// The history page of `rows`; `anchor_by`: how its reader names another anchor.
fn history_page(rows: &[HistoryRow], anchor_by: AnchorBy) -> anyhow::Result<String> {
    use crate::show::report::commits::{CommitBuild, CommitSeries};
    let mut series: Vec<CommitSeries> = Vec::new();
    let mut current = None;
    for r in rows {
        if current != Some((r.series, &r.engine)) {
            current = Some((r.series, &r.engine));
            series.push(CommitSeries {
                engine: r.engine.clone(),
                conditions: harness_ledger::entry::conditions_text(&r.conditions),
                class: r.series + 1,
                anchor: r.anchor.as_ref().map(|a| (a.build.clone(), a.named)),
                anchor_by,
                builds: Vec::new(),
            });
        }
        let elo = match (r.elo, r.low, r.high) {
            (Some(e), Some(l), Some(h)) => Some((e, l, h)),
            _ => None,
        };
        series
            .last_mut()
            .expect("a series")
            .builds
            .push(CommitBuild {
                commits: r.commits.clone(),
                labels: r.labels.clone(),
                digest: r.digest.clone(),
                elo,
                games: r.games,
                runs: r.runs,
                verdicts: r.verdicts.clone(),
                order_known: r.order_known,
            });
    }
    crate::show::report::commits::html(&series)
}

fn history(rows: &[HistoryRow], json: bool) -> anyhow::Result<i32> {
    if json {
        for r in rows {
            say_raw!("{}\n", serde_json::to_string(r)?);
        }
        return Ok(exit::SUCCESS);
    }
    let mut series = None;
    for r in rows {
        if series != Some((r.series, r.engine.clone())) {
            series = Some((r.series, r.engine.clone()));
            let relative = match &r.anchor {
                Some(a) if a.named => format!("Elo relative to {} (--anchor)", a.build),
                Some(a) => format!(
                    "Elo relative to {}, the series' first rated build (--anchor BUILD picks another)",
                    a.build
                ),
                None => "no build of this series is rated".to_string(),
            };
            say_raw!(
                "\n{} under conditions #{}: {}\n{relative}\n{:<24} {:>8} {:>20} {:>6} {:>5}  {:<12} {:<16} verdicts\n",
                r.engine,
                r.series + 1,
                harness_ledger::entry::conditions_text(&r.conditions),
                "commits",
                "Elo",
                "95% interval",
                "games",
                "runs",
                "labels",
                "options"
            );
        }
        let mut commits = if r.commits.is_empty() {
            format!("({})", &r.digest[..r.digest.len().min(8)])
        } else {
            r.commits.join(",")
        };
        if !r.order_known {
            commits.push('?');
        }
        let (elo, interval) = match (r.elo, r.low, r.high) {
            (Some(e), Some(l), Some(h)) => (format!("{e:+.1}"), format!("[{l:+.1}, {h:+.1}]")),
            _ => ("-".to_string(), "-".to_string()),
        };
        let or_dash = |t: String| if t.is_empty() { "-".to_string() } else { t };
        let options = harness_ledger::history::options_text(&r.options.to_string());
        say_raw!(
            "{commits:<24} {elo:>8} {interval:>20} {:>6} {:>5}  {:<12} {:<16} {}\n",
            r.games,
            r.runs,
            or_dash(r.labels.join(",")),
            or_dash(options),
            r.verdicts.join(",")
        );
    }
    if rows.iter().any(|r| !r.order_known) {
        say_raw!("\n?: no build date fixes the place of this row (no date, or one another build shares): placed in the order recorded\n");
    }
    Ok(exit::SUCCESS)
}

fn compare(found: &[harness_ledger::history::Comparison], json: bool) -> anyhow::Result<i32> {
    for c in found {
        if json {
            say_raw!("{}\n", serde_json::to_string(c)?);
            continue;
        }
        say_raw!(
            "conditions #{}: {}\nA = {}\nB = {}\n",
            c.series + 1,
            harness_ledger::entry::conditions_text(&c.conditions),
            c.a,
            c.b
        );
        let bound = |x: Option<f64>, inf: &str| x.map_or(inf.to_string(), |v| format!("{v:+.1}"));
        match &c.head_to_head {
            Some(h) => say_raw!(
                "  head to head: {} games, A {}-{}-{} (W-D-L), score {:.1}%, Elo {} [{}, {}] (pentanomial)\n",
                h.games,
                h.wins,
                h.draws,
                h.losses,
                100.0 * h.score,
                h.elo.map_or("-".to_string(), |e| format!("{e:+.1}")),
                bound(h.low, "-inf"),
                bound(h.high, "+inf")
            ),
            None => say_raw!("  head to head: they never met\n"),
        }
        match &c.joint {
            Some(j) => say_raw!(
                "  joint fit:    Elo {:+.1} [{:+.1}, {:+.1}] (A {} games, B {} games, against any build of the class)\n",
                j.elo,
                j.low,
                j.high,
                j.games_a,
                j.games_b
            ),
            None => say_raw!("  joint fit:    no games connect A to B\n"),
        }
    }
    Ok(exit::SUCCESS)
}
