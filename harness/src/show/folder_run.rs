//! A run folder read as a run, for the views of a run that another process plays or played
//! (`serve DIR`, `stats DIR --screen`): its start from the first `tournament.json` found (the
//! folder's or a shard's), its finished games from its journals (the folder's own, or each
//! shard's), and what its own files say that the journals do not ([`FolderEnd`]: the
//! watcher's decision, the run's end, its time).

use crate::show::run_model::RunModel;
use harness_core::events::Event;
use harness_core::record::journal::JSONL_FILE;
use harness_core::record::merge::JournalFollower;
use harness_core::record::run_clock::ClockFile;
use harness_core::record::run_folder::RunFolder;
use harness_core::record::tournament_record::TournamentRecord;
use harness_core::record::verdict_record::Conclusion;
use harness_core::record::GameRecord;
use harness_core::stats::sprt::Decision;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// A run folder's journals, followed: the folder's own, or each shard's.
#[derive(Default)]
pub struct FolderRun {
    pub started: bool,
    followers: BTreeMap<PathBuf, JournalFollower>,
    seen: HashSet<usize>,
}

impl FolderRun {
    /// The run's start, from the first `tournament.json` found (the folder's or a shard's):
    /// its engines, its games, its time control and its test; and the run's name.
    pub fn start(&mut self, dir: &Path) -> Option<(Event, String)> {
        let record = RunFolder::at(dir)
            .journal_folders()
            .iter()
            .find_map(|f| TournamentRecord::read(f).ok())?;
        let t = harness_core::plan::recorded::tournament_of(&record).ok()?;
        let openings = record.openings.count as usize;
        self.started = true;
        let start = Event::RunStarted {
            engines: t.engines.iter().map(|e| e.name.clone()).collect(),
            total_games: t.schedule(openings).games_of(None).count(),
            already_played: Vec::new(),
            time_control: t.time_description(),
            sprt: t.sprt.map(|s| s.params),
            elapsed_before: Duration::ZERO,
        };
        Some((start, run_name(&t)))
    }

    /// The games finished since the last look, each once (a shard's and its merge's alike).
    pub fn poll(&mut self, dir: &Path) -> Vec<GameRecord> {
        for folder in RunFolder::at(dir).journal_folders() {
            self.followers
                .entry(folder.clone())
                .or_insert_with(|| JournalFollower::new(folder.join(JSONL_FILE)));
        }
        let mut fresh = Vec::new();
        for follower in self.followers.values_mut() {
            let Ok(polled) = follower.poll() else {
                continue;
            };
            fresh.extend(
                polled
                    .records
                    .into_iter()
                    .filter(|r| self.seen.insert(r.game)),
            );
        }
        fresh
    }
}

/// The name the views give the run of `t` (its engines, as the coordinator plays them).
pub fn run_name(t: &harness_core::plan::config::Tournament) -> String {
    let engines: Vec<&str> = t.engines.iter().map(|e| e.name.as_str()).collect();
    crate::show::text::run_name(t.format.as_str(), &engines)
}

/// What a folder's own files say of its run that its journals do not.
#[derive(Debug, Default)]
pub struct FolderEnd {
    /// The watcher's decision (`decision.json`).
    pub decision: Option<Decision>,
    /// The run ended (its `verdict.json` says so).
    pub ended: bool,
    /// The run's time: its verdict's once it ended, else its clock's at `now` (growing while
    /// a session plays).
    pub elapsed: Option<Duration>,
    /// A file that is there but cannot be read, named with why: the run is shown without it.
    pub error: Option<String>,
}

impl FolderEnd {
    pub fn read(dir: &Path, now: SystemTime) -> FolderEnd {
        let mut error = None;
        let decision = readable(
            harness_core::record::decision_record::DecisionRecord::decision_in(dir),
            &mut error,
        );
        let conclusion = readable(Conclusion::read(dir), &mut error);
        let ended = conclusion
            .as_ref()
            .is_some_and(|c| c.finished || c.verdict.is_some());
        let elapsed = match &conclusion {
            Some(c) if ended => c.elapsed.map(|e| e.total),
            _ => readable(ClockFile::read(dir), &mut error).map(|clock| clock.elapsed_at(now)),
        };
        FolderEnd {
            decision,
            ended,
            elapsed,
            error,
        }
    }
}

/// What a read gave; a failure is kept (the last one) and reads as nothing.
fn readable<T>(read: anyhow::Result<Option<T>>, error: &mut Option<String>) -> Option<T> {
    read.unwrap_or_else(|e| {
        *error = Some(format!("{e:#}"));
        None
    })
}

/// The run of `dir` as it stands now, read whole (the terminal's screen of `stats --screen`).
pub fn model_of(dir: &Path) -> Option<RunModel> {
    let now = Instant::now();
    let mut folder = FolderRun::default();
    let (start, _) = folder.start(dir)?;
    let mut model = RunModel::new();
    model.live_known = false;
    model.apply(start, now);
    // Whole records (their moves too, which the followed journals leave out): the game on
    // screen shows its final board.
    for record in RunFolder::at(dir).games() {
        model.apply(
            Event::GameFinished {
                record: Box::new(record),
            },
            now,
        );
    }
    let end = FolderEnd::read(dir, SystemTime::now());
    model.recorded_decision = end.decision;
    model.recorded_elapsed = end.elapsed;
    model.folder_error = end.error;
    let (done, total) = model.progress();
    if end.ended || (done >= total && total > 0) {
        model.finish(now);
    }
    model.refresh();
    Some(model)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run file that is there but cannot be read (a watcher's decision, the verdict, the
    /// clock) is the run's error, naming the file, never read as "none".
    #[test]
    fn a_broken_run_file_is_the_run_s_error_naming_it() {
        let dir = std::env::temp_dir().join(format!("folder-end-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let now = SystemTime::now();
        assert_eq!(FolderEnd::read(&dir, now).error, None);
        for file in ["decision.json", "verdict.json", "clock.json"] {
            std::fs::write(dir.join(file), "{\"torn").unwrap();
            let error = FolderEnd::read(&dir, now).error.unwrap_or_default();
            assert!(error.contains(file), "{file}: {error}");
            std::fs::remove_file(dir.join(file)).unwrap();
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
