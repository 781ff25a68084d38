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

use super::output::{say, say_raw};
use crate::plan::config::Tournament;
use crate::plan::schedule::{PairedSchedule, Shard};
use crate::play::resume::{same_tournament, shard_of, tournament_of};
use crate::record::journal::{write_durably, FINGERPRINT_FILE, JSONL_FILE};
use crate::record::merge::{JournalFollower, JournalIndex};
use crate::record::GameRecord;
use crate::show::{report, table, text};
use crate::stats::running::RunningTotals;
use crate::stats::sprt::{Decision, MatchTally, SprtStatus};
use crate::stats::verdict;
use anyhow::{bail, Context};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The file the watcher writes when the test decides.
pub const DECISION_FILE: &str = "decision.json";

/// What `harness merge` is given.
pub struct MergeArgs {
    pub dirs: Vec<PathBuf>,
    pub out: Option<PathBuf>,
    pub watch: bool,
    pub interval: f64,
    pub stop_file: Option<PathBuf>,
    pub on_decision: Option<String>,
}

/// The shard folders below the arguments: a folder holding `shard-I-of-N` sub-folders stands
/// for them, whether or not an earlier merge wrote its output into it; any other folder with a
/// `tournament.json` or a journal is one (`allow_none`: a watcher may start before any shard
/// has made its folder, or the folder they go in).
fn shard_folders(dirs: &[PathBuf], allow_none: bool) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for dir in dirs {
        if !dir.is_dir() {
            if allow_none {
                continue;
            }
            bail!("{}: no such folder", dir.display());
        }
        let mut shards: Vec<PathBuf> = std::fs::read_dir(dir)
            .with_context(|| format!("cannot read {}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.is_dir()
                    && p.file_name()
                        .and_then(|n| n.to_str())
                        .and_then(Shard::from_folder_name)
                        .is_some()
            })
            .collect();
        shards.sort();
        if !shards.is_empty() {
            out.extend(shards);
        } else if dir.join(FINGERPRINT_FILE).exists() || dir.join(JSONL_FILE).exists() {
            out.push(dir.clone());
        } else if !allow_none {
            bail!(
                "{}: neither an output folder (no {FINGERPRINT_FILE}, no {JSONL_FILE}) nor a folder of shard-I-of-N folders",
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
        let path = folder.join(FINGERPRINT_FILE);
        let text = std::fs::read_to_string(&path).with_context(|| {
            format!(
                "{}: no {FINGERPRINT_FILE}: not an output folder of `harness run`",
                folder.display()
            )
        })?;
        match &first {
            None => first = Some((folder.clone(), text)),
            Some((first_folder, first_text)) => {
                if !same_tournament(first_text, &text, true) {
                    bail!(
                        "{} and {} hold games of different tournaments (their {FINGERPRINT_FILE} differ: engines, options, plugin files, openings or time control)",
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

/// `tournament.json` without its shard: the merged folder's.
fn unsharded(text: &str) -> anyhow::Result<String> {
    let mut v: serde_json::Value = serde_json::from_str(text).context("tournament.json")?;
    if let Some(o) = v.as_object_mut() {
        o.remove("shard");
    }
    Ok(serde_json::to_string_pretty(&v)? + "\n")
}

/// The schedule a `tournament.json` pins.
fn schedule_of(t: &Tournament, fingerprint: &str) -> anyhow::Result<PairedSchedule> {
    let v: serde_json::Value = serde_json::from_str(fingerprint)?;
    let count = v["openings"]["count"]
        .as_u64()
        .context("tournament.json: no opening count")? as usize;
    Ok(t.schedule(count))
}

/// The decision a sequential test took where it first crossed a bound, walking the games in
/// game order (complete pairs in pair order); `None` if it never crossed.
fn first_crossing(t: &Tournament, records: &[GameRecord]) -> Option<SprtStatus> {
    let sprt = t.sprt?;
    let mut totals = RunningTotals::new(
        records.len() / 2,
        Some((sprt.params, &t.engines[0].name, &t.engines[1].name)),
    );
    for r in records {
        if totals.add(r).is_some() {
            let status = totals.sprt_status()?;
            if status.decision != Decision::Continue {
                return Some(status);
            }
        }
    }
    None
}

/// The sequential test of `t` on the records of `folder` (in game order): the LLR of every
/// game, with the decision taken at the crossing (the watcher's `decision.json` when the folder
/// has one, else the first crossing in game order). `None` without a test.
pub(super) fn test_of(
    t: &Tournament,
    records: &[GameRecord],
    folder: &Path,
) -> anyhow::Result<Option<SprtStatus>> {
    let decided = match recorded_decision(folder)? {
        Some(d) => Some(d),
        None => first_crossing(t, records).map(|s| s.decision),
    };
    let mut status = t.sprt_status(records);
    if let (Some(s), Some(d)) = (status.as_mut(), decided) {
        s.decision = d;
    }
    Ok(status)
}

/// The decision the watcher recorded in `folder`, if it did.
fn recorded_decision(folder: &Path) -> anyhow::Result<Option<Decision>> {
    let path = folder.join(DECISION_FILE);
    if !path.exists() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{}: not JSON", path.display()))?;
    let decision = serde_json::from_value(v["decision"].clone())
        .with_context(|| format!("{}: no decision", path.display()))?;
    Ok(Some(decision))
}

/// `harness merge` (and `--watch`).
pub fn merge(args: MergeArgs) -> anyhow::Result<i32> {
    if args.watch {
        return watch(args);
    }
    let started = Instant::now();
    let folders = shard_folders(&args.dirs, false)?;
    let fingerprint = common_tournament(&folders)?;
    let out = output_folder(args.out, &args.dirs, &folders)?;
    if folders.contains(&out) {
        bail!(
            "{}: the output folder is one of the folders to merge; give another --out",
            out.display()
        );
    }
    let existing = out.join(FINGERPRINT_FILE);
    if existing.exists() {
        let text = std::fs::read_to_string(&existing)?;
        if let Some(shard) = shard_of(&text) {
            bail!(
                "{}: the output folder is shard {shard} of a run; give another --out (nothing was written)",
                out.display()
            );
        }
        if !same_tournament(&text, &fingerprint, true) {
            bail!(
                "{}: the output folder holds another tournament's {FINGERPRINT_FILE}; give another --out (nothing was written)",
                out.display()
            );
        }
    } else if out.join(JSONL_FILE).exists() {
        bail!(
            "{}: the output folder holds a {JSONL_FILE} of unknown origin; give another --out (nothing was written)",
            out.display()
        );
    }
    let mut t = tournament_of(&fingerprint).context("cannot rebuild the tournament")?;
    t.out = out.clone();
    let schedule = schedule_of(&t, &fingerprint)?;
    // The GGF lines are spooled next to the shard folders while the journals are read.
    let spool_dir = folders[0].parent().unwrap_or(Path::new("."));
    let mut index = JournalIndex::build(&folders, spool_dir)?;
    // The schedule's view: what is missing, which pairs are incomplete.
    let missing: Vec<usize> = schedule
        .games
        .iter()
        .map(|g| g.index)
        .filter(|g| !index.games.contains_key(g))
        .collect();
    let mut per_pair: BTreeMap<usize, usize> = BTreeMap::new();
    for g in index.games.values() {
        *per_pair.entry(g.record.pair).or_default() += 1;
    }
    let incomplete: Vec<usize> = per_pair
        .iter()
        .filter(|(_, &n)| n == 1)
        .map(|(&p, _)| p)
        .collect();

    index.write(&out)?;
    let (duplicates, torn) = (index.duplicates, index.torn.clone());
    let records = index.into_records();
    write_durably(
        &out.join(FINGERPRINT_FILE),
        unsharded(&fingerprint)?.as_bytes(),
    )
    .with_context(|| format!("cannot write {}", out.join(FINGERPRINT_FILE).display()))?;
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
    if !missing.is_empty() {
        let shown: Vec<String> = missing
            .iter()
            .take(20)
            .map(|g| (g + 1).to_string())
            .collect();
        say!(
            "missing: {} games ({}{})",
            missing.len(),
            shown.join(", "),
            if missing.len() > 20 { ", …" } else { "" }
        );
    }
    if !incomplete.is_empty() {
        let shown: Vec<String> = incomplete
            .iter()
            .take(20)
            .map(|p| (p + 1).to_string())
            .collect();
        say!(
            "incomplete pairs (one game of two): {} ({}{})",
            incomplete.len(),
            shown.join(", "),
            if incomplete.len() > 20 { ", …" } else { "" }
        );
    }

    let status = test_of(&t, &records, &out)?;
    let decided = status
        .as_ref()
        .is_some_and(|s| s.decision != Decision::Continue);
    let input = report::ReportInput {
        tournament: &t,
        records: &records,
        elapsed: None,
        finished: missing.is_empty() || decided,
    };
    if let Err(e) = report::write_reports(&out, &input) {
        eprintln!(
            "warning: cannot write the reports in {}: {e:#}",
            out.display()
        );
    }
    say_raw!("{}", table::final_tables(&records));
    say!(
        "\n{} games merged in {:.1} s; journal: {}",
        records.len(),
        started.elapsed().as_secs_f64(),
        out.join(JSONL_FILE).display()
    );
    if let Some(s) = &status {
        say_raw!(
            "{}",
            table::sprt_summary(s, &t.engines[0].name, &t.engines[1].name)
        );
    }
    let broken = verdict::broken_rules(&t.fail_rules(), &records);
    for b in &broken {
        say!("FAIL: {b}");
    }
    if broken.is_empty() && status.is_none() && !missing.is_empty() {
        // Not every game is in: the tournament is not over.
        return Ok(verdict::exit::UNDECIDED);
    }
    Ok(verdict::exit_code(status.map(|s| s.decision), &broken))
}

/// `harness merge --watch`: follow the shards' journals, evaluate the test every interval and
/// stop everything when it decides.
fn watch(args: MergeArgs) -> anyhow::Result<i32> {
    let started = Instant::now();
    let interval = Duration::from_secs_f64(args.interval.max(0.01));
    let mut pause = WatchPause::new(interval)?;
    // Wait for the first shard to write its tournament.json: a watcher may start first.
    let (fingerprint, t) = loop {
        let folders = shard_folders(&args.dirs, true)?;
        if let Some(f) = folders.iter().find(|f| f.join(FINGERPRINT_FILE).exists()) {
            let text = std::fs::read_to_string(f.join(FINGERPRINT_FILE))?;
            let t = tournament_of(&text).context("cannot rebuild the tournament")?;
            break (text, t);
        }
        if let Some(signal) = pause.wait() {
            say!("{signal}: the watch ends before any shard began");
            return Ok(verdict::exit::UNDECIDED);
        }
    };
    let Some(sprt) = t.sprt else {
        bail!(
            "{}: the tournament has no [sprt] table: nothing to decide",
            t.source
        );
    };
    let stop_file = args
        .stop_file
        .clone()
        .or_else(|| t.stop_file.clone())
        .context(
        "give --stop-file (or a stop-file key in the tournament): the shards must be told to stop",
    )?;
    let out = match &args.out {
        Some(o) => o.clone(),
        None => match &args.dirs[..] {
            [dir] => dir.clone(),
            _ => bail!("give --out: where decision.json goes"),
        },
    };
    let (a, b) = (t.engines[0].name.clone(), t.engines[1].name.clone());
    // A watcher started again after the test decided (a requeued job, a second command) keeps
    // the decision taken at the crossing: it makes sure the shards are told, and changes
    // nothing.
    if let Some(decision) = recorded_decision(&out)? {
        write_stop_file(&stop_file, decision)?;
        let meaning = text::decision_meaning(decision, &sprt.params, &a, &b).unwrap_or_default();
        say!(
            "already decided: {} ({meaning}), as {} records; the stop file {} is in place (remove {} to watch again)",
            text::decision_label(decision),
            out.join(DECISION_FILE).display(),
            stop_file.display(),
            DECISION_FILE
        );
        return Ok(verdict::exit_code(Some(decision), &[]));
    }
    let planned = schedule_of(&t, &fingerprint)?.games.len();
    let mut totals = RunningTotals::new(planned / 2, Some((sprt.params, &a, &b)));
    let mut followers: BTreeMap<PathBuf, JournalFollower> = BTreeMap::new();
    let mut seen: HashSet<usize> = HashSet::new();
    say!(
        "watching {} for {} vs {} ({} games planned), every {:.1} s; stop file {}",
        args.dirs
            .iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
        a,
        b,
        planned,
        interval.as_secs_f64(),
        stop_file.display()
    );
    loop {
        let folders = shard_folders(&args.dirs, true)?;
        for folder in &folders {
            if !followers.contains_key(folder) {
                if let Ok(text) = std::fs::read_to_string(folder.join(FINGERPRINT_FILE)) {
                    if !same_tournament(&text, &fingerprint, true) {
                        bail!("{}: a shard of another tournament", folder.display());
                    }
                }
                followers.insert(
                    folder.clone(),
                    JournalFollower::new(folder.join(JSONL_FILE)),
                );
            }
        }
        let mut new_games = 0;
        for (folder, follower) in followers.iter_mut() {
            let polled = follower
                .poll()
                .with_context(|| format!("cannot read {}", folder.join(JSONL_FILE).display()))?;
            for r in polled.records {
                if seen.insert(r.game) {
                    new_games += 1;
                    totals.add(&r);
                }
            }
        }
        let status = totals.sprt_status().expect("a test is configured");
        if new_games > 0 {
            say!(
                "{:>8.1} s  {} of {} games from {} shards  LLR {:+.2} [{:+.2}, {:+.2}] after {} observations",
                started.elapsed().as_secs_f64(),
                seen.len(),
                planned,
                followers.len(),
                status.llr,
                status.lower,
                status.upper,
                status.observations
            );
        }
        if status.decision != Decision::Continue {
            return decided(
                &out,
                &stop_file,
                args.on_decision.as_deref(),
                &status,
                totals.tally().expect("a test is configured"),
                started,
            );
        }
        if seen.len() >= planned {
            say!("every game is in and the test did not decide");
            return Ok(verdict::exit::UNDECIDED);
        }
        if let Some(signal) = pause.wait() {
            say!(
                "{signal}: the watch ends undecided after {} of {} games (the shards go on)",
                seen.len(),
                planned
            );
            return Ok(verdict::exit::UNDECIDED);
        }
    }
}

/// The watcher's wait between two looks at the journals, on a small tokio runtime: the next
/// look comes after the interval, or SIGINT/SIGTERM ends the watch at once. The journals are
/// looked at on a timer by necessity: shards on other nodes write them to a shared file system,
/// whose changes no notification of this node's kernel reports.
struct WatchPause {
    runtime: tokio::runtime::Runtime,
    interval: Duration,
    sigint: tokio::signal::unix::Signal,
    sigterm: tokio::signal::unix::Signal,
}

impl WatchPause {
    fn new(interval: Duration) -> anyhow::Result<WatchPause> {
        use tokio::signal::unix::{signal, SignalKind};
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("cannot start the watcher's runtime")?;
        let _entered = runtime.enter();
        Ok(WatchPause {
            sigint: signal(SignalKind::interrupt()).context("cannot handle SIGINT")?,
            sigterm: signal(SignalKind::terminate()).context("cannot handle SIGTERM")?,
            interval,
            runtime,
        })
    }

    /// Wait one interval; the name of the signal that ended the wait early, if one did.
    fn wait(&mut self) -> Option<&'static str> {
        let (sigint, sigterm) = (&mut self.sigint, &mut self.sigterm);
        self.runtime.block_on(async {
            tokio::select! {
                () = tokio::time::sleep(self.interval) => None,
                _ = sigint.recv() => Some("SIGINT"),
                _ = sigterm.recv() => Some("SIGTERM"),
            }
        })
    }
}

/// Write the file the shards watch (`run --stop-file`), with the decision in it.
fn write_stop_file(stop_file: &Path, decision: Decision) -> anyhow::Result<()> {
    if let Some(parent) = stop_file.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    std::fs::write(stop_file, format!("{}\n", text::decision_label(decision)))
        .with_context(|| format!("cannot write the stop file {}", stop_file.display()))
}

/// The test decided: record it, stop the shards, run the command; the exit code is the
/// decision.
fn decided(
    out: &Path,
    stop_file: &Path,
    on_decision: Option<&str>,
    status: &SprtStatus,
    tally: &MatchTally,
    started: Instant,
) -> anyhow::Result<i32> {
    let decision = serde_json::json!({
        "decision": status.decision,
        "llr": status.llr,
        "lower_bound": status.lower,
        "upper_bound": status.upper,
        "observations": status.observations,
        "candidate": tally.a,
        "baseline": tally.b,
        "wins": tally.wins,
        "draws": tally.draws,
        "losses": tally.losses,
        "pentanomial": tally.pentanomial,
        "params": status.params,
        "decided_at_unix": std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64()),
        "watch_seconds": started.elapsed().as_secs_f64(),
    });
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let path = out.join(DECISION_FILE);
    write_durably(
        &path,
        (serde_json::to_string_pretty(&decision)? + "\n").as_bytes(),
    )
    .with_context(|| format!("cannot write {}", path.display()))?;
    write_stop_file(stop_file, status.decision)?;
    say!(
        "decided: {} ({}; LLR {:+.3}, bounds [{:+.3}, {:+.3}]); wrote {} and the stop file {}",
        text::decision_label(status.decision),
        text::decision_meaning(status.decision, &status.params, &tally.a, &tally.b)
            .unwrap_or_default(),
        status.llr,
        status.lower,
        status.upper,
        path.display(),
        stop_file.display()
    );
    if let Some(cmd) = on_decision {
        say!("running: {cmd}");
        match std::process::Command::new("sh").arg("-c").arg(cmd).status() {
            Ok(s) if s.success() => {}
            Ok(s) => eprintln!("warning: the --on-decision command ended with {s}"),
            Err(e) => eprintln!("warning: cannot run the --on-decision command: {e}"),
        }
    }
    Ok(verdict::exit_code(Some(status.decision), &[]))
}
