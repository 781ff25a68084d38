//! The browser view's model of one run, kept by a thread of its own and published as
//! snapshots through a `watch` channel: a viewer only ever borrows the latest snapshot, so a
//! slow or stalled browser is left behind (it skips to the newest when it reads again), never
//! a queue that grows and never back-pressure into the coordinator.
//!
//! The model is the run model every view reads (`show::run_model::RunModel`), fed from one of
//! two sources:
//! the coordinator's events (`run --serve`: live games move by move), or the folder's journals
//! (`serve DIR`: finished games, a sharded run's shards included, followed from their last
//! offset as `merge --watch` follows them). A game's snapshot is published at most every
//! [`GAME_INTERVAL`], the run's at most every [`RUN_INTERVAL`].

use super::snapshot;
use crate::show::folder_run::{FolderEnd, FolderRun};
use crate::show::run_model::RunModel;
use harness_core::events::Event;
use harness_core::record::verdict_record::Conclusion;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// The most often a game's snapshot is published (a move reaches the page within about this).
pub const GAME_INTERVAL: Duration = Duration::from_millis(100);
/// The most often the run's snapshot is published.
pub const RUN_INTERVAL: Duration = Duration::from_millis(400);
/// How often a folder's journals are looked at.
const FOLLOW_INTERVAL: Duration = Duration::from_millis(500);
/// How many finished games keep their last snapshot (a viewer of a game that just ended sees
/// its end; older games are read from the journal).
const KEEP_FINISHED: usize = 64;

/// One published state of a run: its name once known, its page's JSON and each recent game's.
#[derive(Default)]
pub struct Published {
    /// The run's name as its pages show it ([`crate::show::text::run_name`]).
    pub name: Option<Arc<str>>,
    pub run: Arc<str>,
    pub games: BTreeMap<usize, Arc<str>>,
}

/// Where a run's model comes from.
pub enum Source {
    /// The coordinator's events of the run this process plays into the folder `dir`, and the
    /// run's name: when the events end (the run has ended and written its verdict), the run's
    /// wall time is the folder's `verdict.json`'s.
    Events {
        events: Receiver<Event>,
        name: String,
        dir: PathBuf,
    },
    /// A run folder (or a folder of shard folders) on disk.
    Folder(PathBuf),
}

/// Start the thread that keeps the model of `source`; the receiver of its snapshots. The
/// thread ends when the events end (the run is over), or, for a folder, when every receiver
/// is gone.
pub fn start(source: Source) -> watch::Receiver<Arc<Published>> {
    let (tx, rx) = watch::channel(Arc::new(Published::default()));
    std::thread::spawn(move || {
        let mut model = Model::new(tx);
        match source {
            Source::Events { events, name, dir } => {
                model.name = Some(Arc::from(name));
                model.follow_events(&events, &dir)
            }
            Source::Folder(dir) => model.follow_folder(&dir),
        }
    });
    rx
}

/// The model and what changed since it was last published.
struct Model {
    model: RunModel,
    tx: watch::Sender<Arc<Published>>,
    name: Option<Arc<str>>,
    run: Arc<str>,
    games: BTreeMap<usize, Arc<str>>,
    finished: Vec<usize>,
    dirty_games: BTreeSet<usize>,
    dirty_run: bool,
    run_at: Instant,
    games_at: Instant,
    /// When each game's last move was heard (ms since the Unix epoch): sent with the game, so
    /// that a viewer can tell how old what it shows is.
    moved_at: BTreeMap<usize, u64>,
    /// Whether games are published: from events (whole games), not from a folder's
    /// followed journals (results without moves: a game's page reads its journal line).
    publishes_games: bool,
}

impl Model {
    fn new(tx: watch::Sender<Arc<Published>>) -> Model {
        Model {
            model: RunModel::new(),
            tx,
            name: None,
            run: Arc::from("{}"),
            games: BTreeMap::new(),
            finished: Vec::new(),
            dirty_games: BTreeSet::new(),
            dirty_run: true,
            run_at: Instant::now() - RUN_INTERVAL,
            games_at: Instant::now() - GAME_INTERVAL,
            moved_at: BTreeMap::new(),
            publishes_games: true,
        }
    }

    /// What a read of the folder gave; a failure is the run's error on its page (and on
    /// standard error, once), and reads as nothing.
    fn readable<T>(&mut self, read: anyhow::Result<T>) -> Option<T> {
        read.map_err(|e| self.folder_error(format!("{e:#}"))).ok()
    }

    /// A folder's file that cannot be read: the run's error on its page, said on standard
    /// error once.
    fn folder_error(&mut self, text: String) {
        if self.model.folder_error.as_deref() != Some(&text) {
            eprintln!("warning: {text}");
            self.model.folder_error = Some(text);
            self.model.mark_stale();
            self.dirty_run = true;
        }
    }

    /// Apply one event, noting what it changed.
    fn hear(&mut self, event: Event) {
        let game = match &event {
            Event::Moved { game, .. } => {
                let ms = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_millis() as u64);
                self.moved_at.insert(*game, ms);
                Some(*game)
            }
            Event::GameStarted { game, .. } | Event::Thinking { game, .. } => Some(*game),
            Event::GameFinished { record } => {
                self.finished.push(record.game);
                Some(record.game)
            }
            _ => None,
        };
        if self.publishes_games {
            self.dirty_games.extend(game);
        }
        self.dirty_run = true;
        self.model.apply(event, Instant::now());
    }

    /// Publish what changed: the changed games and the run, each when its interval passed.
    fn publish(&mut self) {
        let now = Instant::now();
        let run_due = self.dirty_run && now.duration_since(self.run_at) >= RUN_INTERVAL;
        let games_due =
            !self.dirty_games.is_empty() && now.duration_since(self.games_at) >= GAME_INTERVAL;
        if !games_due && !run_due {
            return;
        }
        if games_due {
            self.games_at = now;
        }
        let dirty = if games_due {
            std::mem::take(&mut self.dirty_games)
        } else {
            BTreeSet::new()
        };
        for game in dirty {
            let g = self
                .model
                .live
                .get(&game)
                .or_else(|| self.model.recent.iter().find(|g| g.game == game));
            if let Some(g) = g {
                let mut snapshot = snapshot::game(g, &[], now);
                snapshot.moved_at_ms = self.moved_at.get(&game).copied();
                self.games.insert(game, Arc::from(json(&snapshot)));
            }
        }
        while self.finished.len() > KEEP_FINISHED {
            let old = self.finished.remove(0);
            self.games.remove(&old);
            self.moved_at.remove(&old);
        }
        if run_due {
            self.model.refresh();
            let mut run = snapshot::run(&self.model, now);
            run.name = self.name.as_deref();
            self.run = Arc::from(json(&run));
            self.run_at = now;
            self.dirty_run = false;
        }
        self.tx.send_replace(Arc::new(Published {
            name: self.name.clone(),
            run: self.run.clone(),
            games: self.games.clone(),
        }));
    }

    /// What the folder's own files say of the run that the journals do not
    /// ([`FolderEnd`]); a file that cannot be read is the run's error on its page, and said on
    /// standard error once.
    fn hear_the_folder(&mut self, dir: &Path) {
        let FolderEnd {
            decision,
            ended,
            elapsed,
            error,
        } = FolderEnd::read(dir, std::time::SystemTime::now());
        if let Some(text) = error {
            self.folder_error(text);
        }
        if decision != self.model.recorded_decision || elapsed != self.model.recorded_elapsed {
            self.model.recorded_decision = decision;
            self.model.recorded_elapsed = elapsed;
            self.model.mark_stale();
            self.dirty_run = true;
        }
        if ended && !self.model.run_finished {
            self.hear(Event::RunFinished);
        }
    }

    fn follow_events(&mut self, events: &Receiver<Event>, dir: &Path) {
        loop {
            match events.recv_timeout(GAME_INTERVAL) {
                Ok(event) => {
                    self.hear(event);
                    while let Ok(more) = events.try_recv() {
                        self.hear(more);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
            self.publish();
        }
        self.model.finish(Instant::now());
        // The run's wall time as the command that played it measured it (its start included),
        // as every other view of the run states it.
        let conclusion = self.readable(Conclusion::read(dir)).flatten();
        if let Some(elapsed) = conclusion.and_then(|c| c.elapsed) {
            self.model.recorded_elapsed = Some(elapsed.total);
            self.model.mark_stale();
        }
        self.dirty_run = true;
        self.run_at = Instant::now() - RUN_INTERVAL;
        self.games_at = Instant::now() - GAME_INTERVAL;
        self.publish();
    }

    fn follow_folder(&mut self, dir: &Path) {
        self.publishes_games = false;
        self.model.live_known = false;
        let mut folder = FolderRun::default();
        loop {
            if !folder.started {
                if let Some((start, name)) = folder.start(dir) {
                    self.name = Some(Arc::from(name));
                    self.hear(start);
                }
            }
            if folder.started {
                for record in folder.poll(dir) {
                    self.hear(Event::GameFinished {
                        record: Box::new(record),
                    });
                }
                let (done, total) = self.model.progress();
                if done >= total && total > 0 && !self.model.run_finished {
                    self.hear(Event::RunFinished);
                }
                self.hear_the_folder(dir);
            }
            self.run_at = self.run_at.min(Instant::now() - RUN_INTERVAL);
            self.publish();
            if self.tx.is_closed() {
                return;
            }
            std::thread::park_timeout(FOLLOW_INTERVAL);
        }
    }
}

/// A snapshot's JSON text (plain values: it always serialises).
fn json(snapshot: &impl serde::Serialize) -> String {
    serde_json::to_string(snapshot).expect("JSON of plain values")
}

pub use crate::show::folder_run::run_name;

#[cfg(test)]
mod tests {
    //! The feed's promises, on real run folders (the project's own journal, `tournament.json`
    //! and `verdict.json` writers) and on events heard directly. The intervals are tested with
    //! the instants the model keeps (the last publication of the games and of the run) set by
    //! hand, never by sleeping.

    use super::*;
    use harness_core::record::journal::Journal;
    use harness_core::record::tournament_record::TournamentRecord;
    use harness_core::record::verdict_record::{Outcome, RunVerdict};
    use harness_core::record::GameRecord;

    /// A scratch folder, removed when dropped.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Scratch {
            let dir = std::env::temp_dir().join(format!("feed-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// Game `game` of the match of `a` and `b` (each pair's first game with `a` Black), won by
    /// Black by 2 discs.
    fn game(game: usize) -> GameRecord {
        let (black, white) = if game.is_multiple_of(2) {
            ("a", "b")
        } else {
            ("b", "a")
        };
        GameRecord::skeleton(game, black, white, 2)
    }

    /// Append the games `games` to the journal of `dir` (made if needed).
    fn journal(dir: &Path, games: impl IntoIterator<Item = usize>) {
        let mut journal = Journal::open(dir).unwrap();
        for g in games {
            journal.append(&game(g)).unwrap();
        }
    }

    /// Write the `tournament.json` of a match of `a` and `b` over `pairs` pairs in `dir`.
    fn pin_tournament(dir: &Path, pairs: usize) {
        let text = format!(
            "[tournament]\nformat = \"match\"\npairs = {pairs}\n\n[time]\ndepth = 2\n\n\
             [openings]\nbuiltin = \"xot-small\"\n\n[[engine]]\nname = \"a\"\nplugin = \"greedy\"\n\n\
             [[engine]]\nname = \"b\"\nplugin = \"greedy\"\n"
        );
        let t = harness_core::plan::config::parse(&text, "t.toml", dir).unwrap();
        let openings = t.openings.load().unwrap();
        let json = crate::play::resume::tournament_text(&t, &openings, Path::new("/nowhere"));
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(
            dir.join(harness_core::record::tournament_record::TOURNAMENT_FILE),
            json,
        )
        .unwrap();
    }

    /// A model publishing into a channel nobody reads: `follow_folder` looks once and returns.
    fn unread_model() -> Model {
        let (tx, _) = watch::channel(Arc::new(Published::default()));
        Model::new(tx)
    }

    /// A model and the receiver of what it publishes.
    fn watched_model() -> (Model, watch::Receiver<Arc<Published>>) {
        let (tx, rx) = watch::channel(Arc::new(Published::default()));
        (Model::new(tx), rx)
    }

    /// The model hears that game `g` finished.
    fn finished(model: &mut Model, g: usize) {
        model.hear(Event::GameFinished {
            record: Box::new(game(g)),
        });
    }

    /// An instant ahead of the clock: a publication stamped with it is less than an interval
    /// old however long the test takes to get to the next one.
    fn ahead() -> Instant {
        Instant::now() + Duration::from_secs(3600)
    }

    /// The game numbers of the model's finished games, in the order it heard them.
    fn heard(model: &Model) -> Vec<usize> {
        model.model.records.iter().map(|r| r.game).collect()
    }

    /// A shard's games, then the merge of the shards into the folder above them, are each
    /// returned once: the merged journal repeats what the shards said, and only a game no
    /// journal had before is new.
    #[test]
    fn a_game_is_polled_once_across_a_shards_journal_and_its_merge() {
        let scratch = Scratch::new("shard-and-merge");
        let dir = &scratch.0;
        let mut folder = FolderRun::default();
        // No shard yet: the folder's own journal is followed (it has none so far).
        assert!(folder.poll(dir).is_empty());
        journal(&dir.join("shard-0-of-2"), [0, 1]);
        journal(&dir.join("shard-1-of-2"), [2, 3]);
        let mut first: Vec<usize> = folder.poll(dir).iter().map(|r| r.game).collect();
        first.sort_unstable();
        assert_eq!(first, [0, 1, 2, 3]);
        // The merge writes every game again, into the folder's own journal.
        journal(dir, 0..4);
        assert!(folder.poll(dir).is_empty(), "the merge's games again");
        journal(&dir.join("shard-0-of-2"), [4]);
        let fresh: Vec<usize> = folder.poll(dir).iter().map(|r| r.game).collect();
        assert_eq!(fresh, [4]);
    }

    /// A folder's games count as the coordinator's events count them: once each, also where a
    /// shard's journal holds a game twice (a shard run again after a kill).
    #[test]
    fn a_game_counts_once_whether_heard_or_read_from_the_folder() {
        let mut heard_live = unread_model();
        heard_live.hear(Event::RunStarted {
            engines: vec!["a".into(), "b".into()],
            total_games: 8,
            already_played: Vec::new(),
            time_control: "depth 2".into(),
            sprt: None,
            elapsed_before: std::time::Duration::ZERO,
        });
        for g in 0..5 {
            finished(&mut heard_live, g);
        }
        let scratch = Scratch::new("heard-or-read");
        let dir = &scratch.0;
        for shard in ["shard-0-of-2", "shard-1-of-2"] {
            pin_tournament(&dir.join(shard), 4);
        }
        journal(&dir.join("shard-0-of-2"), [0, 1, 2, 1]);
        journal(&dir.join("shard-1-of-2"), [3, 4]);
        let mut read = unread_model();
        read.follow_folder(dir);
        let mut games = heard(&read);
        games.sort_unstable();
        assert_eq!(games, heard(&heard_live));
        assert_eq!(read.model.progress(), (5, 8));
        assert_eq!(heard_live.model.progress(), (5, 8));
    }

    /// Finished games keep their last snapshot up to [`KEEP_FINISHED`] of them, the latest.
    #[test]
    fn the_finished_games_kept_are_the_latest_up_to_the_cap() {
        let (mut model, rx) = watched_model();
        let games = KEEP_FINISHED + 10;
        for g in 0..games {
            finished(&mut model, g);
            // Each game published as it ends (its interval passed).
            model.games_at = Instant::now() - GAME_INTERVAL;
            model.publish();
        }
        let latest: Vec<usize> = (games - KEEP_FINISHED..games).collect();
        assert_eq!(model.games.keys().copied().collect::<Vec<_>>(), latest);
        let published = rx.borrow();
        assert_eq!(published.games.keys().copied().collect::<Vec<_>>(), latest);
        assert_eq!(model.finished.len(), KEEP_FINISHED);
    }

    /// A game's snapshot goes out only once [`GAME_INTERVAL`] passed since the games were last
    /// published; the publication is stamped with its time.
    #[test]
    fn a_game_waits_for_the_game_interval() {
        let (mut model, mut rx) = watched_model();
        let before = Instant::now();
        finished(&mut model, 0);
        model.publish();
        assert!(model.games_at >= before && model.games_at <= Instant::now());
        assert!(rx.borrow_and_update().games.contains_key(&0));
        model.games_at = ahead();
        model.run_at = ahead();
        finished(&mut model, 1);
        model.publish();
        assert!(!rx.has_changed().unwrap(), "published within the interval");
        assert!(model.dirty_games.contains(&1), "kept for later");
        model.games_at = Instant::now() - GAME_INTERVAL;
        model.publish();
        assert!(rx.borrow_and_update().games.contains_key(&1));
    }

    /// The run's snapshot goes out only once [`RUN_INTERVAL`] passed since it was last
    /// published: a game published in between leaves the run's as it was.
    #[test]
    fn the_run_waits_for_the_run_interval() {
        let (mut model, mut rx) = watched_model();
        let before = Instant::now();
        finished(&mut model, 0);
        model.publish();
        assert!(model.run_at >= before && model.run_at <= Instant::now());
        let run = rx.borrow_and_update().run.clone();
        model.run_at = ahead();
        model.games_at = Instant::now() - GAME_INTERVAL;
        finished(&mut model, 1);
        model.publish();
        let published = rx.borrow_and_update().clone();
        assert!(published.games.contains_key(&1), "the game went out");
        assert!(Arc::ptr_eq(&published.run, &run), "the run waits");
        assert!(model.dirty_run);
        model.run_at = Instant::now() - RUN_INTERVAL;
        model.publish();
        assert!(!Arc::ptr_eq(&rx.borrow_and_update().run, &run));
        assert!(!model.dirty_run);
    }

    /// A followed folder publishes the run, never a game's snapshot (a game's page reads its
    /// journal line): its games are results without moves.
    #[test]
    fn a_followed_folder_publishes_no_game_snapshots() {
        let scratch = Scratch::new("no-game-snapshots");
        let dir = &scratch.0;
        pin_tournament(dir, 2);
        journal(dir, 0..3);
        let mut model = unread_model();
        model.follow_folder(dir);
        assert!(!model.publishes_games);
        assert_eq!(model.model.progress(), (3, 4));
        assert!(model.games.is_empty() && model.dirty_games.is_empty());
        let published = model.tx.borrow();
        assert!(published.games.is_empty());
        assert_eq!(published.name.as_deref(), Some(run_name_of(dir).as_str()));
    }

    /// The name the feed gives the run pinned in `dir`.
    fn run_name_of(dir: &Path) -> String {
        let record = TournamentRecord::read(dir).unwrap();
        run_name(&harness_core::plan::recorded::tournament_of(&record).unwrap())
    }

    /// A folder whose run ended (its `verdict.json`) is finished, games missing or not, and
    /// marked so once: looking at the folder again changes nothing and publishes nothing.
    #[test]
    fn a_run_that_ended_is_marked_finished_once() {
        let scratch = Scratch::new("finished-once");
        let dir = &scratch.0;
        pin_tournament(dir, 2);
        journal(dir, 0..2);
        Conclusion {
            finished: false,
            verdict: Some(RunVerdict {
                exit_code: 3,
                outcome: Outcome::Interrupted,
                reasons: vec!["stopped".into()],
                start_failures: Default::default(),
            }),
            elapsed: Some(harness_core::record::run_clock::Elapsed::total(
                Duration::from_secs(7),
            )),
        }
        .write(dir)
        .unwrap();
        let mut model = unread_model();
        model.follow_folder(dir);
        assert_eq!(model.model.progress(), (2, 4), "games missing");
        assert!(model.model.run_finished);
        assert!(!model.dirty_run);
        let published = Arc::clone(&model.tx.borrow());
        model.hear_the_folder(dir);
        assert!(!model.dirty_run, "the run marked finished again");
        model.run_at = Instant::now() - RUN_INTERVAL;
        model.publish();
        assert!(Arc::ptr_eq(&published, &model.tx.borrow()));
    }
}
