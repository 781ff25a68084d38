//! The results of a run's finished games: the journal (the coordinator is its only
//! writer), the running totals and sequential test, the claims on further games, and what went
//! wrong. It needs no engine: the coordinator ([`super::tournament`]) feeds it what its game
//! tasks hand back, and its rules (a decision lets only the pairs begun finish, a stop file
//! starts no new pair, a fatal error or a failed write starts nothing more) are tested here.

use super::game::FromGame;
use harness_core::events::{Event, EventSink};
use harness_core::plan::config::{SprtConfig, Tournament};
use harness_core::plan::schedule::ScheduledGame;
use harness_core::record::journal::Journal;
use harness_core::record::run_clock::{Elapsed, SessionClock};
use harness_core::record::GameRecord;
use harness_core::stats::running::PairResult;
use harness_core::stats::running::RunningTotals;
use harness_core::stats::sprt::{Decision, SprtStatus};
use std::collections::BTreeMap;
use std::path::Path;

/// What the coordinator tells its caller as the run goes on.
pub enum Progress<'a> {
    /// Every engine started and answered the pre-flight's move (the tournament is good to
    /// play): the moment for the first line.
    Started,
    /// Something the user should know that does not stop the run (a pre-flight's illegal
    /// reply, an engine that could not start for a game, which is played again).
    Warning(String),
    /// An earlier run's games in the output folder are kept; `extended` when this run raises
    /// its pairs, `(pairs before, pairs now)`; `decided` when the earlier games had already
    /// decided the test (then only the pairs begun are completed).
    Resuming {
        held: usize,
        planned: usize,
        to_play: usize,
        journal: &'a Path,
        extended: Option<(u64, u64)>,
        decided: Option<Decision>,
    },
    /// A game finished (and is in the journal); `finished` counts the run's games so far,
    /// earlier runs' included.
    GameFinished {
        record: &'a GameRecord,
        finished: usize,
        planned: usize,
    },
    /// A game completed its pair. `records` are the finished games so far (in the order they
    /// finished, without their moves); `sprt` is the test on them.
    PairFinished {
        pair: &'a PairResult,
        sprt: Option<&'a SprtStatus>,
        records: &'a [GameRecord],
        /// The run's time so far (its earlier sessions' included).
        elapsed: Elapsed,
    },
    /// The run is over (records sorted by game number): the moment to write final files, before
    /// the live view hears it. `complete` when every game of the run's share is in.
    Finished {
        records: &'a [GameRecord],
        elapsed: Elapsed,
        complete: bool,
    },
}

/// The results of finished games: the journal, the running totals and test, the claims on
/// further games, and what went wrong. No engine is needed to drive it.
pub(super) struct Results<'t> {
    pub(super) journal: Journal,
    pub(super) totals: RunningTotals,
    pub(super) claims: Claims<'t>,
    /// The sequential test's state when it crossed a bound.
    pub(super) decided: Option<SprtStatus>,
    /// Every finished game of the run's folder, earlier runs' first (without their moves).
    pub(super) records: Vec<GameRecord>,
    pub(super) planned: usize,
    pub(super) write_error: Option<anyhow::Error>,
    pub(super) fatal: Option<anyhow::Error>,
    /// Per engine, the games of this session it could not be started for.
    pub(super) start_failures: BTreeMap<String, u64>,
    pub(super) t: &'t Tournament,
}

impl<'t> Results<'t> {
    /// The results of a run that has `previous` games already and plays `todo` of `planned`.
    pub(super) fn new(
        t: &'t Tournament,
        journal: Journal,
        previous: Vec<GameRecord>,
        planned: usize,
    ) -> Results<'t> {
        let sprt_of_run = t.sprt.filter(|_| t.shard.is_none());
        let mut totals = RunningTotals::new(
            planned / 2,
            sprt_of_run.map(|s| {
                (
                    s.params,
                    t.engines[0].name.as_str(),
                    t.engines[1].name.as_str(),
                )
            }),
        );
        let mut earlier: Vec<&GameRecord> = previous.iter().collect();
        earlier.sort_by_key(|r| r.game);
        for r in earlier {
            totals.add(r);
        }
        let mut claims = Claims::new(t.stop_file.as_deref());
        // A resumed run whose test had already decided only completes the pairs it had begun.
        let decided = totals
            .sprt_status()
            .filter(|s| s.decision != Decision::Continue);
        if decided.is_some() {
            let last_begun = previous.iter().map(|r| r.pair).max();
            claims.max_pair = last_begun;
            claims.closed = last_begun.is_none();
        }
        Results {
            journal,
            totals,
            claims,
            decided,
            records: previous,
            planned,
            write_error: None,
            fatal: None,
            start_failures: BTreeMap::new(),
            t,
        }
    }

    /// The test this run decides on: a shard never decides on its own sample (the decision is
    /// global, `merge --watch`).
    pub(super) fn sprt_of_run(&self) -> Option<SprtConfig> {
        self.t.sprt.filter(|_| self.t.shard.is_none())
    }

    /// A game task's end: a finished game is journaled, counted and told; a decision of the
    /// test lets the pairs begun finish and starts no new one; a fatal error or a failed write
    /// starts no more games.
    pub(super) fn take(
        &mut self,
        message: FromGame,
        events: &EventSink,
        clock: &SessionClock,
        progress: &mut impl FnMut(Progress),
    ) {
        let record = match message {
            // Abandoned by a stop: not recorded, a resumed run plays it again. A game whose
            // engine could not start is the coordinator's to play again, never a result.
            FromGame::Abandoned | FromGame::StartFailed { .. } => return,
            FromGame::Finished(record) => *record,
            FromGame::Fatal(e) => {
                self.claims.closed = true;
                self.fatal.get_or_insert(e);
                return;
            }
        };
        if self.write_error.is_none() {
            if let Err(e) = self.journal.append(&record) {
                self.write_error = Some(e);
                // Start no more games; those in flight finish and are dropped.
                self.claims.closed = true;
            }
        }
        let light = record.without_moves();
        if self.write_error.is_none() {
            progress(Progress::GameFinished {
                record: &light,
                finished: self.records.len() + 1,
                planned: self.planned,
            });
            events.send(Event::GameFinished {
                record: Box::new(record),
            });
        }
        let finished_pair = self.totals.add(&light);
        self.records.push(light);
        let Some(pair) = finished_pair else {
            return;
        };
        let status = self.totals.sprt_status();
        if let Some(status) = &status {
            if status.decision != Decision::Continue && self.decided.is_none() {
                // Decided: finish the pairs already begun, start no new pair.
                self.claims.stop_after_begun();
                self.decided = Some(status.clone());
            }
        }
        progress(Progress::PairFinished {
            pair: &pair,
            sprt: status.as_ref(),
            records: &self.records,
            elapsed: clock.elapsed(),
        });
    }
}

/// Which scheduled games may still start. Only the coordinator's loop claims games and lowers
/// the limit, so no game can slip past a decision half-checked.
pub(super) struct Claims<'f> {
    /// Index into the games to play of the next one to hand out.
    pub(super) next: usize,
    /// The pair of the last game handed out.
    pub(super) last_pair: Option<usize>,
    /// Games of a pair above this are not started (set when the SPRT decides).
    pub(super) max_pair: Option<usize>,
    /// Nothing more is started (a journal write failed, or nothing was begun).
    pub(super) closed: bool,
    /// Checked before each new pair: once it exists, no new pair is started.
    pub(super) stop_file: Option<&'f Path>,
    pub(super) stopped_by_file: bool,
}

impl<'f> Claims<'f> {
    /// Claims on a fresh list of games to play, watching `stop_file`.
    fn new(stop_file: Option<&'f Path>) -> Claims<'f> {
        Claims {
            next: 0,
            last_pair: None,
            max_pair: None,
            closed: false,
            stop_file,
            stopped_by_file: false,
        }
    }

    /// The next game of `todo` that may start, if any.
    pub(super) fn claim(&mut self, todo: &[ScheduledGame]) -> Option<ScheduledGame> {
        let g = *todo.get(self.next)?;
        if self.closed || self.max_pair.is_some_and(|m| g.pair > m) {
            return None;
        }
        let new_pair = self.last_pair != Some(g.pair);
        if new_pair && self.stop_file.is_some_and(Path::exists) {
            self.stopped_by_file = true;
            self.stop_after_begun();
            return None;
        }
        self.next += 1;
        self.last_pair = Some(g.pair);
        Some(g)
    }

    /// Let the pairs already begun finish; start no new pair.
    pub(super) fn stop_after_begun(&mut self) {
        match self.last_pair {
            Some(pair) => self.max_pair = Some(self.max_pair.map_or(pair, |m| m.min(pair))),
            None => self.closed = true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness_core::record::journal::JSONL_FILE;

    /// A match's schedule of `pairs` pairs: games 2p and 2p+1 are pair p.
    fn todo(pairs: usize) -> Vec<ScheduledGame> {
        (0..2 * pairs)
            .map(|i| ScheduledGame {
                index: i,
                pair: i / 2,
                round: i / 2,
                opening: i / 2,
                black: i % 2,
                white: 1 - i % 2,
            })
            .collect()
    }

    #[test]
    fn claims_hand_out_games_in_order_and_stop_after_the_pairs_begun() {
        let todo = todo(3);
        let mut claims = Claims::new(None);
        let pairs: Vec<usize> = (0..3)
            .filter_map(|_| claims.claim(&todo))
            .map(|g| g.pair)
            .collect();
        assert_eq!(pairs, [0, 0, 1]);
        // Decided with pair 1 half begun: its second game still starts, pair 2 never does.
        claims.stop_after_begun();
        assert_eq!(claims.claim(&todo).map(|g| g.index), Some(3));
        assert_eq!(claims.claim(&todo), None);
        // Nothing begun: nothing starts.
        let mut fresh = Claims::new(None);
        fresh.stop_after_begun();
        assert_eq!(fresh.claim(&todo), None);
    }

    #[test]
    fn a_stop_file_starts_no_new_pair() {
        let dir = std::env::temp_dir().join(format!("claims-stop-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let stop = dir.join("stop");
        let todo = todo(2);
        let mut claims = Claims::new(Some(&stop));
        assert_eq!(claims.claim(&todo).map(|g| g.index), Some(0));
        std::fs::write(&stop, "").unwrap();
        // The pair begun is completed, the next one is not started.
        assert_eq!(claims.claim(&todo).map(|g| g.index), Some(1));
        assert_eq!(claims.claim(&todo), None);
        assert!(claims.stopped_by_file);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A finished game as the results take it: `score` from Black's view.
    fn finished(game: usize, black: &str, white: &str, score: i32) -> FromGame {
        FromGame::Finished(Box::new(GameRecord::skeleton(game, black, white, score)))
    }

    /// The results of a match with a test that decides after a few won pairs: each game is
    /// journaled and counted, the decision is taken at the crossing and lets only the pair
    /// begun finish; a fatal error starts nothing more.
    #[test]
    fn the_results_decide_and_close_the_claims() {
        let dir = std::env::temp_dir().join(format!("results-{}", std::process::id()));
        let toml = "[tournament]\nformat = \"match\"\npairs = 100\n[time]\ndepth = 1\n\
                    [openings]\nbuiltin = \"xot-small\"\n[sprt]\nelo0 = 0\nelo1 = 200\n\
                    alpha = 0.2\nbeta = 0.2\n[[engine]]\nname = \"a\"\nplugin = \"x\"\n\
                    [[engine]]\nname = \"b\"\nplugin = \"y\"\n";
        let t = harness_core::plan::config::parse(toml, "t.toml", &dir).unwrap();
        let journal = Journal::open(&dir).unwrap();
        let mut results = Results::new(&t, journal, Vec::new(), 200);
        let clock = SessionClock::start(&dir, std::time::Instant::now()).unwrap();
        let todo = todo(100);
        let mut pairs_heard = 0;
        let mut decided_at = None;
        let mut game = 0;
        while decided_at.is_none() {
            // Claim the pair's two games, then a's wins in both.
            for _ in 0..2 {
                assert_eq!(results.claims.claim(&todo).map(|g| g.index), Some(game));
                let (black, white, score) = if game % 2 == 0 {
                    ("a", "b", 20)
                } else {
                    ("b", "a", -20)
                };
                results.take(
                    finished(game, black, white, score),
                    &EventSink::none(),
                    &clock,
                    &mut |p| {
                        if let Progress::PairFinished { .. } = p {
                            pairs_heard += 1;
                        }
                    },
                );
                game += 1;
            }
            if results.decided.is_some() {
                decided_at = Some(game);
            }
            assert!(game < 200, "never decided");
        }
        assert_eq!(
            results.decided.as_ref().unwrap().decision,
            Decision::AcceptH1
        );
        assert_eq!(pairs_heard, game / 2);
        // Decided after a complete pair: no game of a later pair starts.
        assert_eq!(results.claims.claim(&todo), None);
        let journaled = harness_core::record::journal::read_journal(&dir.join(JSONL_FILE)).unwrap();
        assert_eq!(journaled.len(), game);
        assert_eq!(results.records.len(), game);
        // A fatal error closes the claims and is kept for the end.
        results.claims.max_pair = None;
        results.take(
            FromGame::Fatal(anyhow::anyhow!("no workers")),
            &EventSink::none(),
            &clock,
            &mut |_| {},
        );
        assert!(results.fatal.is_some() && results.claims.closed);
        assert_eq!(results.claims.claim(&todo), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
