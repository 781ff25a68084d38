//! The aggregator of a sharded tune (`harness tune --aggregate`): θ from the shards' files.
//!
//! Each shard folder `<out>/shard-I-of-N` holds the games it played (`games.jsonl`) and the
//! iterations it began (`tune-dispatch.jsonl`: Δ, the values played, the gain index k read from
//! `tune-theta.json` at the time). [`aggregate`] reads them all and applies iterations 1, 2, …
//! in the order of their numbers while each is complete (both games of its pair, all four
//! against an opponent), exactly as one machine applies a result: the update of the gain index
//! the iteration was dispatched with, added to θ as it is after the iterations before it. It
//! stops at the first iteration not complete; the ones complete behind it wait for it.
//!
//! Nothing is carried from one look to the next: the same files give the same θ, so the
//! aggregator may be killed, requeued or run twice (see the module above for what the order
//! costs in freshness). [`aggregate_shards`] is the aggregator's loop: a look, θ's file and
//! `tune.jsonl` written when more iterations are applied, and with `--watch` the next look after
//! an interval (`host::signals::WatchPause`, which `merge --watch` waits with too).

use super::Tuner;
use crate::play::resume::{same_tournament, tournament_text};
use anyhow::{bail, Context};
use harness_core::plan::config::Tournament;
use harness_core::plan::schedule::Shard;
use harness_core::record::journal::{read_journal, JSONL_FILE};
use harness_core::record::tournament_record::TOURNAMENT_FILE;
use harness_core::record::tune::{read_lines, Dispatch, DISPATCH_FILE};
use harness_core::record::tune::{rewrite_lines, ThetaFile, TUNE_FILE};
use harness_core::record::GameRecord;
use harness_core::stats::spsa::Param;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What one look at the shards gives.
#[derive(Debug)]
pub struct Aggregate {
    /// θ after the iterations applied, and their lines.
    pub tuner: Tuner,
    /// Shard folders found (with a `tournament.json`), and the N of their `shard-I-of-N`.
    pub shards: usize,
    pub count: Option<usize>,
    /// Games journaled over all shards.
    pub games: usize,
    /// Iterations complete but not applied: they wait behind the first incomplete one.
    pub waiting: usize,
}

/// The shard folders in `dir` (`shard-I-of-N`, all of one N), in order of I.
pub fn shard_folders(dir: &Path) -> anyhow::Result<Vec<(Shard, PathBuf)>> {
    let folders = match harness_core::record::run_folder::RunFolder::at(dir).shards() {
        Ok(folders) => folders,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => bail!("cannot read {}: {e}", dir.display()),
    };
    let mut out: Vec<(Shard, PathBuf)> = folders
        .into_iter()
        .filter_map(|path| {
            let shard = Shard::from_folder_name(path.file_name()?.to_str()?)?;
            Some((shard, path))
        })
        .collect();
    out.sort_by_key(|(s, _)| s.index);
    if let Some((first, _)) = out.first() {
        if let Some((other, path)) = out.iter().find(|(s, _)| s.count != first.count) {
            bail!(
                "{}: a shard of {} beside shards of {}: one tune's shards share one N",
                path.display(),
                other.count,
                first.count
            );
        }
    }
    Ok(out)
}

/// Read every shard of the tune match `m` (unsharded; its output folder holds the shard
/// folders) and apply the complete iterations in order, to a fresh `tuner`. Shard folders of
/// another tournament are refused; a folder without `tournament.json` is a shard not begun.
pub fn aggregate(m: &Tournament, plugin_dir: &Path, tuner: Tuner) -> anyhow::Result<Aggregate> {
    if m.out.join(DISPATCH_FILE).exists() {
        bail!(
            "{} holds a tune played on one machine (its {DISPATCH_FILE}), not the shards of one",
            m.out.display()
        );
    }
    let folders = shard_folders(&m.out)?;
    let openings = m.openings.load()?;
    let tournament_json = tournament_text(m, &openings, plugin_dir);
    let mut dispatches: BTreeMap<u64, (Dispatch, &Path)> = BTreeMap::new();
    let mut by_iteration: BTreeMap<u64, Vec<GameRecord>> = BTreeMap::new();
    let mut tuner = tuner;
    let (mut shards, mut games) = (0, 0);
    for (_, folder) in &folders {
        let written = match std::fs::read_to_string(folder.join(TOURNAMENT_FILE)) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => bail!(
                "cannot read {}: {e}",
                folder.join(TOURNAMENT_FILE).display()
            ),
        };
        if !same_tournament(&written, &tournament_json, true) {
            bail!(
                "{}: games of another tournament or tune (its {TOURNAMENT_FILE} differs from {}'s)",
                folder.display(),
                m.source
            );
        }
        shards += 1;
        // The journal before the dispatches: a shard writes an iteration's dispatch before its
        // first game, so every game read here has its dispatch in the file read after it.
        let journal = folder.join(JSONL_FILE);
        if journal.exists() {
            for r in read_journal(&journal)? {
                games += 1;
                by_iteration
                    .entry(tuner.iteration_of_pair(r.pair))
                    .or_default()
                    .push(r);
            }
        }
        for d in read_lines::<Dispatch>(&folder.join(DISPATCH_FILE))? {
            if let Some((_, other)) = dispatches.get(&d.iteration) {
                bail!(
                    "iteration {} was begun by two shards ({} and {})",
                    d.iteration,
                    other.display(),
                    folder.display()
                );
            }
            dispatches.insert(d.iteration, (d, folder));
        }
    }
    let round_games = tuner.round_games;
    let complete = |games: Option<&Vec<GameRecord>>| games.map_or(0, Vec::len) >= round_games;
    let mut next = 1;
    while next <= tuner.schedule.iterations && complete(by_iteration.get(&next)) {
        let Some((d, folder)) = dispatches.get(&next) else {
            bail!("iteration {next} has its games but no shard's {DISPATCH_FILE} holds it");
        };
        // The θ it was played around must be one this aggregation wrote: θ after its k − 1
        // first iterations (a θ file left from an earlier tune would give another).
        let expected: Option<Vec<f64>> = match d.k.checked_sub(1) {
            Some(0) => Some(tuner.params.iter().map(|p| p.start).collect()),
            Some(applied) => tuner
                .lines
                .get(applied as usize - 1)
                .map(|l| l.theta.values()),
            None => None,
        };
        if d.k > next || expected.as_deref() != Some(&d.theta.values()[..]) {
            bail!(
                "{}: iteration {next} was begun around θ = {:?} with {} iterations applied, which this aggregation never wrote: was {} left from an earlier tune? Remove the shard folders and that file, and tune again",
                folder.join(DISPATCH_FILE).display(),
                d.theta.values(),
                d.k.saturating_sub(1),
                m.out.join(harness_core::record::tune::THETA_FILE).display()
            );
        }
        let mut round = by_iteration.remove(&next).expect("complete");
        if round.len() > round_games {
            bail!(
                "iteration {next}: {} games journaled for a round of {round_games}: a game is in two shards",
                round.len()
            );
        }
        round.sort_by_key(|r| r.game);
        tuner.begun.insert(next, d.clone());
        for r in &round {
            tuner
                .take(r)
                .with_context(|| format!("iteration {next} (game {})", r.game + 1))?;
        }
        next += 1;
    }
    let waiting = by_iteration
        .iter()
        .filter(|(_, g)| g.len() >= round_games)
        .count();
    Ok(Aggregate {
        count: folders.first().map(|(s, _)| s.count),
        tuner,
        shards,
        games,
        waiting,
    })
}

/// What [`aggregate_shards`] tells its caller as it goes.
pub enum Progress<'a> {
    /// θ and `tune.jsonl` were written, with more iterations applied than the last look.
    Applied(&'a Aggregate),
    /// A look failed; the watcher looks again after its interval.
    Retrying(&'a anyhow::Error),
}

/// How [`aggregate_shards`] ended.
pub enum Ended {
    /// Every iteration is applied: the last look.
    Complete(Box<Aggregate>),
    /// Not every iteration is, and there is no watch: aggregate again later.
    Pending { applied: u64 },
    /// A signal or the stop file ended the watch (`why`), after `applied` iterations (`None`:
    /// while looking again after a failed look).
    Stopped { why: String, applied: Option<u64> },
}

/// `harness tune --aggregate`: apply the shards' complete iterations to the tuned parameters
/// `params` of tune `t` (played as the match `m`), once, or with `watch` every interval until
/// all are applied, writing θ's file and `tune.jsonl` each time more are. A watcher rides out
/// a bad look (a file caught while a shared file system catches up) and gives up on the third
/// in a row: the error then holds. Once the tune's stop file exists it makes one more look and
/// ends (Slurm's merge job writes it when every shard has ended, so that an aggregator whose
/// shards left iterations unplayed ends too, instead of watching until its time limit).
pub fn aggregate_shards(
    t: &Tournament,
    m: &Tournament,
    plugin_dir: &Path,
    params: Vec<Param>,
    watch: Option<Duration>,
    mut progress: impl FnMut(Progress),
) -> anyhow::Result<Ended> {
    let cfg = t.tune.as_ref().expect("a [tune] table");
    let tuned = t.engines[cfg.engine].name.clone();
    let mut pause = watch
        .map(crate::host::signals::WatchPause::new)
        .transpose()?;
    let mut last_applied = None;
    let mut failures = 0;
    loop {
        // The stop file is looked for before the look, so that the look made after it appears
        // is the last: one written once every shard has ended (as Slurm's merge job does)
        // leaves θ with every iteration the shards completed.
        let stop_seen = match &t.stop_file {
            Some(f) if f.exists() => Some(format!("the stop file {}", f.display())),
            _ => None,
        };
        let a = match aggregate(m, plugin_dir, Tuner::new(cfg, params.clone(), &tuned)) {
            Ok(a) => a,
            Err(e) if pause.is_some() && failures < 2 => {
                failures += 1;
                progress(Progress::Retrying(&e));
                if let Some(signal) = pause
                    .as_mut()
                    .and_then(crate::host::signals::WatchPause::wait)
                {
                    let why = signal.to_string();
                    return Ok(Ended::Stopped { why, applied: None });
                }
                continue;
            }
            Err(e) => return Err(e),
        };
        failures = 0;
        let applied = a.tuner.applied;
        if last_applied != Some(applied) {
            std::fs::create_dir_all(&m.out)
                .with_context(|| format!("cannot create {}", m.out.display()))?;
            ThetaFile {
                applied,
                theta: a.tuner.theta_values(),
                tune: cfg.pin(),
            }
            .write(&m.out)?;
            rewrite_lines(&m.out.join(TUNE_FILE), &a.tuner.lines)?;
            progress(Progress::Applied(&a));
            last_applied = Some(applied);
        }
        if applied >= cfg.schedule.iterations {
            return Ok(Ended::Complete(Box::new(a)));
        }
        let Some(pause) = pause.as_mut() else {
            return Ok(Ended::Pending { applied });
        };
        let stopped = match stop_seen {
            Some(why) => Some(why),
            None => pause.wait().map(str::to_string),
        };
        if let Some(why) = stopped {
            return Ok(Ended::Stopped {
                why,
                applied: Some(applied),
            });
        }
    }
}
