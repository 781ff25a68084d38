//! `clock.json`: a run's elapsed time, kept in its folder across its sessions, the one clock
//! every view of the run reads.
//!
//! A run may be played in several sessions: stopped (a signal, a stop file, a crash) and
//! resumed, or extended with more pairs. Its elapsed time is the sum of the sessions that
//! played: a resume adds its own, a session with nothing to play (running a finished run
//! again) adds none, and the time between sessions is not the run's. The coordinator of each
//! session owns a [`SessionClock`]: it starts when the session starts preparing (engines
//! started and asked for a move count), writes `clock.json` when it knows it plays, again now
//! and then while it plays, and at its end. A session killed without its end leaves the
//! total as last written, which is what the next session starts from.
//!
//! Readers:
//! - the live views (terminal, `run --serve`): the run's start event carries the time before
//!   the event ([`SessionClock::total`]); they add their own clock to it;
//! - a folder followed by another process (`serve DIR`): [`ClockFile::elapsed_at`];
//! - the run's end (`verdict.json`), the reports and the progress lines: [`Elapsed`], the
//!   total with the session's own part;
//! - `merge`: [`of_shards`], the span from the first shard's start to the last one's
//!   last write, and the sum of the shards' totals, each under its own key.
//!
//! A folder written before this file existed kept its run's time in `verdict.json` (or its
//! last `report.json`): [`earlier`] takes it from there. Schema: `reports/clock.schema.json`.

use anyhow::Context;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub use super::verdict_record::Elapsed;

/// The file's name in a run folder.
pub const CLOCK_FILE: &str = "clock.json";

/// How often a playing session rewrites `clock.json` at most (what a killed session loses).
pub const SAVE_INTERVAL: Duration = Duration::from_secs(2);

/// `clock.json` as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClockFile {
    /// The run's elapsed time: every session that played, as of `written_unix`.
    pub elapsed_seconds: f64,
    /// Of which the latest session's own.
    pub session_seconds: f64,
    /// How many sessions played.
    pub sessions: u32,
    /// When the run's first session started (Unix time, seconds).
    pub first_started_unix: f64,
    /// When the latest session started.
    pub session_started_unix: f64,
    /// When this was written.
    pub written_unix: f64,
    /// True while the latest session plays (a session killed without its end stays `true`).
    pub running: bool,
}

/// A merged run's time from its shards' clocks: the span from the first start to the last
/// write, and the sum of the totals. `None` when no shard has a clock (shards written
/// before `clock.json` existed: their sum alone is in their verdicts).
pub fn of_shards(clocks: &[ClockFile]) -> Option<Elapsed> {
    let first = clocks
        .iter()
        .map(|c| c.first_started_unix)
        .min_by(f64::total_cmp)?;
    let last = clocks
        .iter()
        .map(|c| c.written_unix)
        .max_by(f64::total_cmp)?;
    let sum: f64 = clocks.iter().map(|c| c.elapsed_seconds).sum();
    Some(Elapsed {
        total: seconds(last - first),
        session: None,
        shards_sum: Some(seconds(sum)),
    })
}

/// Non-negative, finite seconds as a duration (anything else is zero).
fn seconds(s: f64) -> Duration {
    if s.is_finite() && s > 0.0 {
        Duration::from_secs_f64(s)
    } else {
        Duration::ZERO
    }
}

fn unix(t: SystemTime) -> f64 {
    t.duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs_f64()
}

impl ClockFile {
    /// `dir`'s clock; `None` when it has none (a missing file), an error naming the file when
    /// it cannot be read or parsed.
    pub fn read(dir: &Path) -> anyhow::Result<Option<ClockFile>> {
        let folder = super::run_folder::RunFolder::at(dir);
        let path = folder.file(CLOCK_FILE);
        let Some(text) = folder.read_file(CLOCK_FILE)? else {
            return Ok(None);
        };
        serde_json::from_str(&text)
            .map(Some)
            .with_context(|| format!("{}: not a run's clock", path.display()))
    }

    /// The run's elapsed time at `now`, for a reader that is not the session's coordinator: a
    /// running session's time grows with the reader's clock from its start.
    pub fn elapsed_at(&self, now: SystemTime) -> Duration {
        if !self.running {
            return seconds(self.elapsed_seconds);
        }
        let earlier = self.elapsed_seconds - self.session_seconds;
        seconds(earlier + (unix(now) - self.session_started_unix).max(self.session_seconds))
    }

    /// The total and the session's part, as the run's end and reports state them.
    pub fn elapsed(&self) -> Elapsed {
        Elapsed {
            total: seconds(self.elapsed_seconds),
            session: Some(seconds(self.session_seconds)),
            shards_sum: None,
        }
    }
}

/// The time a folder's earlier sessions played: its clock's total, or, in a folder written
/// before `clock.json` existed, the time its end recorded.
pub fn earlier(dir: &Path) -> anyhow::Result<(Duration, Option<ClockFile>)> {
    if let Some(file) = ClockFile::read(dir)? {
        return Ok((seconds(file.elapsed_seconds), Some(file)));
    }
    let older = super::verdict_record::Conclusion::read(dir)?
        .and_then(|c| c.elapsed)
        .map_or(Duration::ZERO, |e| e.total);
    Ok((older, None))
}

/// The clock of the session that plays a run (see the module's docs).
#[derive(Debug)]
pub struct SessionClock {
    dir: std::path::PathBuf,
    /// The earlier sessions' time.
    earlier: Duration,
    /// When this session started, by the monotonic clock and the wall clock.
    started: Instant,
    started_at: SystemTime,
    /// The run's first start (this session's, for a new run).
    first_started_unix: f64,
    /// Sessions before this one.
    sessions: u32,
    /// Whether this session plays (and so counts, and writes).
    plays: bool,
    /// The session's time once it ended (every later reading says the same).
    ended: Option<Duration>,
    saved: Option<Instant>,
}

impl SessionClock {
    /// The session of `dir` that started at `started`: reads the earlier sessions' time.
    pub fn start(dir: &Path, started: Instant) -> anyhow::Result<SessionClock> {
        let (earlier, file) = earlier(dir)?;
        let started_at = SystemTime::now()
            .checked_sub(started.elapsed())
            .unwrap_or_else(SystemTime::now);
        let first_started_unix = match &file {
            Some(f) => f.first_started_unix,
            // An older folder that played: its run's id says when it first started.
            None if earlier > Duration::ZERO => {
                super::run_id::started_at(dir).map_or(unix(started_at), unix)
            }
            None => unix(started_at),
        };
        Ok(SessionClock {
            dir: dir.to_path_buf(),
            earlier,
            started,
            started_at,
            first_started_unix,
            sessions: file.map_or(u32::from(earlier > Duration::ZERO), |f| f.sessions),
            plays: false,
            ended: None,
            saved: None,
        })
    }

    /// This session plays games: from now on it counts, and `clock.json` says so.
    pub fn plays(&mut self) -> anyhow::Result<()> {
        self.plays = true;
        self.save(true)
    }

    /// This session's own time (zero for one that plays nothing), up to its end.
    pub fn session(&self) -> Duration {
        match (self.plays, self.ended) {
            (false, _) => Duration::ZERO,
            (true, Some(ended)) => ended,
            (true, None) => self.started.elapsed(),
        }
    }

    /// The run's time: the earlier sessions' and this one's.
    pub fn total(&self) -> Duration {
        self.earlier + self.session()
    }

    /// The total with this session's part (none for a session that played nothing: the
    /// run's time is its earlier sessions').
    pub fn elapsed(&self) -> Elapsed {
        Elapsed {
            total: self.total(),
            session: self.plays.then(|| self.session()),
            shards_sum: None,
        }
    }

    /// Rewrite `clock.json` when the last write is [`SAVE_INTERVAL`] old.
    pub fn save_now_and_then(&mut self) -> anyhow::Result<()> {
        if self.saved.is_some_and(|t| t.elapsed() < SAVE_INTERVAL) {
            return Ok(());
        }
        self.save(true)
    }

    /// The session ends: its time is written as final (nothing, for a session that did not
    /// play).
    pub fn end(&mut self) -> anyhow::Result<()> {
        if self.ended.is_none() {
            self.ended = Some(self.session());
        }
        self.save(false)
    }

    fn save(&mut self, running: bool) -> anyhow::Result<()> {
        if !self.plays {
            return Ok(());
        }
        let session = self.session();
        let file = ClockFile {
            elapsed_seconds: (self.earlier + session).as_secs_f64(),
            session_seconds: session.as_secs_f64(),
            sessions: self.sessions + 1,
            first_started_unix: self.first_started_unix,
            session_started_unix: unix(self.started_at),
            written_unix: unix(SystemTime::now()),
            running,
        };
        let path = self.dir.join(CLOCK_FILE);
        let text = serde_json::to_string_pretty(&file).expect("JSON of plain values") + "\n";
        super::journal::write_durably(&path, text.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
        self.saved = Some(Instant::now());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("clock-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn sessions_add_up_and_a_session_that_plays_nothing_adds_nothing() {
        let dir = folder("sessions");
        // A first session that played 3 s, ended.
        let mut first = SessionClock::start(&dir, Instant::now() - Duration::from_secs(3)).unwrap();
        first.plays().unwrap();
        first.end().unwrap();
        let after_first = ClockFile::read(&dir).unwrap().unwrap();
        assert!((after_first.elapsed_seconds - 3.0).abs() < 0.5);
        assert_eq!(after_first.sessions, 1);
        assert!(!after_first.running);
        // A resume that plays 2 s more: 5 s in all, 2 s its own.
        let mut second =
            SessionClock::start(&dir, Instant::now() - Duration::from_secs(2)).unwrap();
        second.plays().unwrap();
        let running = ClockFile::read(&dir).unwrap().unwrap();
        assert!(running.running);
        // A reader elsewhere sees the run's time grow from the session's start.
        let later = SystemTime::now() + Duration::from_secs(10);
        let seen = running.elapsed_at(later).as_secs_f64();
        assert!((seen - 15.0).abs() < 0.5, "{seen}");
        second.end().unwrap();
        let after_second = ClockFile::read(&dir).unwrap().unwrap();
        // Ended, every reading is the one written.
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(
            second.elapsed().total.as_secs_f64(),
            after_second.elapsed_seconds
        );
        assert!((after_second.elapsed_seconds - 5.0).abs() < 0.5);
        assert!((after_second.session_seconds - 2.0).abs() < 0.5);
        assert_eq!(after_second.sessions, 2);
        assert_eq!(
            after_second.first_started_unix,
            after_first.first_started_unix
        );
        // Ended, it stops growing.
        assert_eq!(
            after_second.elapsed_at(later),
            Duration::from_secs_f64(after_second.elapsed_seconds)
        );
        // Run again with nothing to play: the total is kept, the file untouched.
        let mut third = SessionClock::start(&dir, Instant::now() - Duration::from_secs(4)).unwrap();
        assert_eq!(third.session(), Duration::ZERO);
        assert!((third.total().as_secs_f64() - 5.0).abs() < 0.5);
        third.end().unwrap();
        assert_eq!(ClockFile::read(&dir).unwrap().unwrap(), after_second);
        assert_eq!(third.elapsed().session, None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_older_folder_starts_from_its_recorded_end_and_a_broken_clock_is_an_error() {
        let dir = folder("older");
        std::fs::write(
            dir.join(super::super::verdict_record::VERDICT_FILE),
            r#"{"finished": false, "elapsed_seconds": 6.0,
                "verdict": {"exit_code": 3, "outcome": "interrupted", "reasons": []}}"#,
        )
        .unwrap();
        let clock = SessionClock::start(&dir, Instant::now()).unwrap();
        assert!((clock.total().as_secs_f64() - 6.0).abs() < 0.1);
        std::fs::write(dir.join(CLOCK_FILE), "{\"elapsed_sec").unwrap();
        let e = SessionClock::start(&dir, Instant::now()).unwrap_err();
        assert!(format!("{e:#}").contains(CLOCK_FILE), "{e:#}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_merged_run_has_its_shards_span_and_their_sum() {
        let shard = |first: f64, written: f64, elapsed: f64| ClockFile {
            elapsed_seconds: elapsed,
            session_seconds: elapsed,
            sessions: 1,
            first_started_unix: first,
            session_started_unix: first,
            written_unix: written,
            running: false,
        };
        // Two shards in parallel: 100-160 and 110-150.
        let e = of_shards(&[shard(100.0, 160.0, 60.0), shard(110.0, 150.0, 40.0)]).unwrap();
        assert_eq!(e.total, Duration::from_secs(60));
        assert_eq!(e.shards_sum, Some(Duration::from_secs(100)));
        assert_eq!(of_shards(&[]), None);
    }
}
