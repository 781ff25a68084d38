//! `harness merge --watch`: the distributed sequential test. It follows the shards' journals
//! as they grow, evaluates the test on complete pairs every interval and, when it decides,
//! writes `decision.json` and the stop file and runs `--on-decision`.

use super::super::output::say;
use super::{schedule_of, shard_folders, Args};
use crate::host::signals::WatchPause;
use crate::play::resume::same_tournament;
use crate::show::text;
use anyhow::{bail, Context};
use harness_core::plan::recorded::tournament_of;
use harness_core::record::decision_record::{DecisionRecord, DECISION_FILE};
use harness_core::record::journal::JSONL_FILE;
use harness_core::record::merge::JournalFollower;
use harness_core::record::tournament_record::TOURNAMENT_FILE;
use harness_core::stats::running::RunningTotals;
use harness_core::stats::sprt::{Decision, MatchTally, SprtStatus};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Follow the shards' journals, evaluate the test every interval and stop everything when it
/// decides.
pub(super) fn watch(args: Args) -> anyhow::Result<i32> {
    let started = Instant::now();
    let interval = args.interval;
    let mut pause = WatchPause::new(interval)?;
    // Wait for the first shard to write its tournament.json: a watcher may start first.
    let mut said = false;
    let tournament_json = loop {
        let folders = shard_folders(&args.dirs, true)?;
        if let Some(f) = folders.iter().find(|f| f.join(TOURNAMENT_FILE).exists()) {
            break std::fs::read_to_string(f.join(TOURNAMENT_FILE))?;
        }
        if !said {
            said = true;
            say!("{}", waiting_line(&args.dirs, interval));
        }
        if let Some(signal) = pause.wait() {
            say!("{signal}: the watch ends before any shard began");
            return Ok(crate::cli::exit::UNDECIDED);
        }
    };
    let t = tournament_of(
        &harness_core::record::tournament_record::TournamentRecord::parse(&tournament_json)?,
    )
    .context("cannot rebuild the tournament")?;
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
    if let Some(decision) = DecisionRecord::decision_in(&out)? {
        write_stop_file(&stop_file, Some(decision))?;
        let meaning = text::decision_meaning(decision, &sprt.params, &a, &b).unwrap_or_default();
        say!(
            "already decided: {} ({meaning}), as {} records; the stop file {} is in place (remove {} to watch again)",
            text::decision_label(decision),
            out.join(DECISION_FILE).display(),
            stop_file.display(),
            DECISION_FILE
        );
        return Ok(crate::cli::exit::of_decision(decision));
    }
    let planned = schedule_of(&t, &tournament_json)?.games.len();
    let mut shards = Shards {
        tournament_json,
        followers: BTreeMap::new(),
        seen: HashSet::new(),
        totals: RunningTotals::new(planned / 2, Some((sprt.params, &a, &b))),
        records: Vec::new(),
    };
    say!(
        "watching {} for {a} vs {b} ({planned} games planned), every {:.1} s; stop file {}",
        args.dirs
            .iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
        interval.as_secs_f64(),
        stop_file.display()
    );
    loop {
        let new_games = shards.look(&args.dirs)?;
        let status = shards.totals.sprt_status().expect("a test is configured");
        if new_games > 0 {
            say!(
                "{:>8.1} s  {} of {planned} games from {} shards  LLR {:+.2} [{:+.2}, {:+.2}] after {} observations",
                started.elapsed().as_secs_f64(),
                shards.seen.len(),
                shards.followers.len(),
                status.llr,
                status.lower,
                status.upper,
                status.observations
            );
        }
        if status.decision != Decision::Continue {
            // H1 on forfeits alone is no measurement (H0 stays a decision: not stronger).
            if status.decision == Decision::AcceptH1 {
                if let Some(code) = unmeasured_crossing(&shards, [&a, &b], &stop_file)? {
                    return Ok(code);
                }
            }
            let tally = shards.totals.tally().expect("a test is configured");
            let decision = Decided {
                out: &out,
                stop_file: &stop_file,
                on_decision: args.on_decision.as_deref(),
            };
            return decision.record(&status, tally, started);
        }
        if shards.seen.len() >= planned {
            say!("every game is in and the test did not decide");
            return Ok(crate::cli::exit::UNDECIDED);
        }
        if let Some(signal) = pause.wait() {
            say!(
                "{signal}: the watch ends undecided after {} of {planned} games (the shards go on)",
                shards.seen.len()
            );
            return Ok(crate::cli::exit::UNDECIDED);
        }
    }
}

/// A crossing of H1's bound made of games in which an engine never moved: no decision
/// is recorded, and the shards are stopped all the same (there is nothing to measure); the
/// exit code, 2. `None` when both engines moved.
fn unmeasured_crossing(
    shards: &Shards,
    engines: [&String; 2],
    stop_file: &Path,
) -> anyhow::Result<Option<i32>> {
    let names = engines.map(String::clone);
    let silent = harness_core::stats::verdict::never_moved(&names, &shards.records);
    if silent.is_empty() {
        return Ok(None);
    }
    let reasons: Vec<String> = silent.iter().map(ToString::to_string).collect();
    write_stop_file(stop_file, None)?;
    say!(
        "{}: the test crossed a bound, but {}; no decision is recorded, and the shards were told to stop ({})",
        harness_core::stats::verdict::Outcome::Unmeasured.label(),
        reasons.join("; "),
        stop_file.display()
    );
    Ok(Some(crate::cli::exit::ERROR))
}

/// The shards as the watcher follows them: a reader per journal, the games counted so far.
struct Shards {
    /// The tournament every shard must belong to.
    tournament_json: String,
    followers: BTreeMap<PathBuf, JournalFollower>,
    seen: HashSet<usize>,
    totals: RunningTotals,
    /// The games counted, without their moves: who was measured ([`harness_core::stats::verdict::never_moved`]).
    records: Vec<harness_core::record::GameRecord>,
}

impl Shards {
    /// Look at the journals once (a new shard's folder joins): the number of new games.
    fn look(&mut self, dirs: &[PathBuf]) -> anyhow::Result<usize> {
        for folder in shard_folders(dirs, true)? {
            if !self.followers.contains_key(&folder) {
                if let Ok(text) = std::fs::read_to_string(folder.join(TOURNAMENT_FILE)) {
                    if !same_tournament(&text, &self.tournament_json, true) {
                        bail!("{}: a shard of another tournament", folder.display());
                    }
                }
                let follower = JournalFollower::new(folder.join(JSONL_FILE));
                self.followers.insert(folder, follower);
            }
        }
        let mut new_games = 0;
        for (folder, follower) in self.followers.iter_mut() {
            let polled = follower
                .poll()
                .with_context(|| format!("cannot read {}", folder.join(JSONL_FILE).display()))?;
            for r in polled.records {
                if self.seen.insert(r.game) {
                    new_games += 1;
                    self.totals.add(&r);
                    self.records.push(r.without_moves());
                }
            }
        }
        Ok(new_games)
    }
}

/// Write the file the shards watch (`run --stop-file`), with the decision in it (`None`: the
/// run measured nothing, `unmeasured`).
fn write_stop_file(stop_file: &Path, decision: Option<Decision>) -> anyhow::Result<()> {
    if let Some(parent) = stop_file.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    let word = decision.map_or("unmeasured", text::decision_label);
    std::fs::write(stop_file, format!("{word}\n"))
        .with_context(|| format!("cannot write the stop file {}", stop_file.display()))
}

/// Where a decision goes: `decision.json` in the output folder, the stop file, the command.
struct Decided<'a> {
    out: &'a Path,
    stop_file: &'a Path,
    on_decision: Option<&'a str>,
}

impl Decided<'_> {
    /// The test decided: record it, stop the shards, run the command; the exit code is the
    /// decision.
    fn record(
        &self,
        status: &SprtStatus,
        tally: &MatchTally,
        started: Instant,
    ) -> anyhow::Result<i32> {
        let Decided {
            out,
            stop_file,
            on_decision,
        } = *self;
        let decision = DecisionRecord {
            decision: status.decision,
            llr: status.llr,
            lower_bound: status.lower,
            upper_bound: status.upper,
            observations: status.observations,
            candidate: tally.a.clone(),
            baseline: tally.b.clone(),
            wins: tally.wins,
            draws: tally.draws,
            losses: tally.losses,
            pentanomial: tally.pentanomial.map(u64::from),
            params: status.params,
            decided_at_unix: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64()),
            watch_seconds: started.elapsed().as_secs_f64(),
        };
        std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
        let path = decision.write(out)?;
        write_stop_file(stop_file, Some(status.decision))?;
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
        Ok(crate::cli::exit::of_decision(status.decision))
    }
}

/// What a watch that starts before any shard says: where it looks, why it found nothing, and
/// how often it looks again.
fn waiting_line(dirs: &[PathBuf], interval: Duration) -> String {
    let names: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    format!(
        "merge --watch: no shard has begun in {} yet ({}); looking again every {:.1} s",
        names.join(", "),
        if dirs.iter().any(|d| !d.is_dir()) {
            "no such folder yet"
        } else {
            "no shard folder holds a tournament.json"
        },
        interval.as_secs_f64()
    )
}
