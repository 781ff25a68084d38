//! The coordinator: plays a tournament's schedule on a pool of engine workers.
//!
//! `concurrency` game threads take the scheduled games in order; each borrows one idle worker
//! per engine from the pool (or starts one) and returns it after the game if it is still
//! healthy, so workers are reused across games and a failed worker is replaced. Finished games
//! go over a channel to the coordinator's thread, the journal's only writer, which appends each
//! one at once and prints a line per finished pair. Statistics are computed afterwards from the
//! records alone.
//!
//! Before the first game every engine is started once, so a missing plugin, a plugin of the
//! wrong ABI version or a bad option stops the run with a clear error before anything is
//! written.

use crate::events::{ControlState, Event, EventSink, RunControl};
use crate::host::engine_host::WorkerSpec;
use crate::host::{EngineHost, HostError};
use crate::plan::config::{OpeningSource, Tournament};
use crate::plan::openings::{self, OpeningSet};
use crate::plan::schedule::{PairedSchedule, ScheduledGame};
use crate::play::game::{play_game, GameSetup};
use crate::record::journal::{recover, Journal, FINGERPRINT_FILE, GGF_FILE, JSONL_FILE};
use crate::record::GameOutcome;
use crate::record::GameRecord;
use crate::stats;
use crate::stats::sprt::{Decision, SprtStatus};
use anyhow::{bail, Context};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Mutex};

/// Idle workers per engine index.
struct WorkerPool {
    specs: Vec<WorkerSpec>,
    idle: Mutex<Vec<Vec<EngineHost>>>,
}

impl WorkerPool {
    fn take(&self, engine: usize) -> Result<EngineHost, HostError> {
        if let Some(h) = self
            .idle
            .lock()
            .expect("pool lock")
            .get_mut(engine)
            .and_then(Vec::pop)
        {
            return Ok(h);
        }
        EngineHost::spawn(&self.specs[engine])
    }

    fn give_back(&self, engine: usize, host: EngineHost) {
        if host.is_alive() {
            self.idle.lock().expect("pool lock")[engine].push(host);
        }
    }

    fn shutdown(&self) {
        let all: Vec<EngineHost> = self
            .idle
            .lock()
            .expect("pool lock")
            .drain(..)
            .flatten()
            .collect();
        let threads: Vec<_> = all
            .into_iter()
            .map(|h| std::thread::spawn(move || h.shutdown()))
            .collect();
        for t in threads {
            let _ = t.join();
        }
    }
}

/// What a game thread hands to the coordinator.
enum FromGame {
    Finished(Box<GameRecord>),
    /// Games cannot go on (neither engine's worker starts): the run ends with this error.
    Fatal(anyhow::Error),
}

/// Who watches a run: the live event stream and the scheduling control (both unused by the
/// plain progress output).
#[derive(Clone, Default)]
pub struct Observer {
    pub events: EventSink,
    pub control: std::sync::Arc<RunControl>,
}

/// What a finished run hands back.
pub struct RunSummary {
    pub records: Vec<GameRecord>,
    pub out_dir: PathBuf,
    /// The sequential test's final state, when the tournament has one.
    pub sprt: Option<SprtStatus>,
}

/// The state of the tournament's sequential test for these records (candidate = first engine).
pub fn sprt_status(t: &Tournament, records: &[GameRecord]) -> Option<SprtStatus> {
    let sprt = t.sprt.as_ref()?;
    let (a, b) = (&t.engines[0].name, &t.engines[1].name);
    Some(
        sprt.params
            .status(&crate::stats::match_stats(&outcomes(records), a, b)),
    )
}

/// Load the opening set a tournament names.
pub fn load_openings(t: &Tournament) -> anyhow::Result<OpeningSet> {
    Ok(match &t.openings.source {
        OpeningSource::File(path) => openings::load_openings(path)?,
        OpeningSource::Builtin(name) => {
            openings::builtin(name).with_context(|| format!("no built-in opening set `{name}`"))?
        }
    })
}

/// Outcomes for the statistics from journal records.
pub fn outcomes(records: &[GameRecord]) -> Vec<GameOutcome> {
    records.iter().map(GameRecord::outcome).collect()
}

/// Play the tournament `t`, with plugins named by bare name looked up in `plugin_dir`.
/// `progress` receives each printed progress line.
/// With `restart`, the games of an earlier run in the output folder are discarded first;
/// otherwise they are kept and the run resumes after them.
/// `observer` receives the live event stream and may pause or stop the scheduling of games.
pub fn run(
    t: &Tournament,
    plugin_dir: &Path,
    restart: bool,
    observer: &Observer,
    mut progress: impl FnMut(&str),
) -> anyhow::Result<RunSummary> {
    let events = &observer.events;
    let control = &*observer.control;
    let openings = load_openings(t)?;
    let schedule = PairedSchedule::for_tournament(t, openings.openings.len());

    // Resume: the games of an earlier run of the same tournament in this folder are kept, the
    // rest of the schedule is played. A different tournament is refused.
    let fingerprint = fingerprint(t, &openings, plugin_dir);
    let fingerprint_path = t.out.join(FINGERPRINT_FILE);
    let journal_path = t.out.join(JSONL_FILE);
    if restart {
        for name in [JSONL_FILE, GGF_FILE, FINGERPRINT_FILE] {
            let _ = std::fs::remove_file(t.out.join(name));
        }
        crate::show::report::remove_reports(&t.out);
    }
    let previous = if journal_path.exists() {
        // Check before touching anything: a refused run leaves the folder as it was.
        let written = std::fs::read_to_string(&fingerprint_path).unwrap_or_default();
        let held = crate::record::journal::read_journal(&journal_path)?.len();
        if held > 0 && written.trim() != fingerprint.trim() {
            bail!(
                "{}: the output folder holds {} games of a different tournament (its {} does not match {}: \
                 engines, options, plugin files, openings or time control changed); \
                 give another `out`, or pass --restart to discard them and start over",
                t.out.display(),
                held,
                FINGERPRINT_FILE,
                t.source
            );
        }
        let previous = recover(&t.out)?;
        check_against_schedule(&previous, &schedule, &t.engines, &openings)
            .with_context(|| format!("{}: cannot resume", journal_path.display()))?;
        previous
    } else {
        Vec::new()
    };
    let done: std::collections::HashSet<usize> = previous.iter().map(|r| r.game).collect();
    let todo: Vec<&ScheduledGame> = schedule
        .games
        .iter()
        .filter(|g| !done.contains(&g.index))
        .collect();
    if !previous.is_empty() {
        progress(&format!(
            "resuming: {} of {} games already in {}, {} to play",
            previous.len(),
            schedule.games.len(),
            journal_path.display(),
            todo.len()
        ));
    }

    let out_existed = t.out.exists();
    let logs = t.out.join("logs");
    std::fs::create_dir_all(&logs).with_context(|| format!("cannot create {}", logs.display()))?;
    // A run refused before its first game leaves no output behind.
    let undo_output = || {
        if !out_existed {
            let _ = std::fs::remove_dir_all(&t.out);
        }
    };
    let mut specs = Vec::new();
    for e in &t.engines {
        let plugin = e.plugin.resolve(plugin_dir);
        if !plugin.exists() {
            undo_output();
            bail!(
                "{}: engine `{}`: plugin not found at {} (build the engines with `cargo build --release --workspace`, or give a path)",
                t.source,
                e.name,
                plugin.display()
            );
        }
        specs.push(WorkerSpec {
            name: e.name.clone(),
            plugin,
            options: e.options.clone(),
            stderr_log: Some(logs.join(format!("{}.stderr.log", sanitize(&e.name)))),
        });
    }

    // Start every engine once: load errors and bad options end the run before any game.
    let mut idle = Vec::new();
    for spec in &specs {
        match EngineHost::spawn(spec) {
            Ok(host) => idle.push(vec![host]),
            Err(e) => {
                drop(idle);
                undo_output();
                return Err(anyhow::Error::new(e).context(t.source.clone()));
            }
        }
    }
    let pool = WorkerPool {
        specs,
        idle: Mutex::new(idle),
    };
    if previous.is_empty() || !fingerprint_path.exists() {
        crate::record::journal::write_durably(&fingerprint_path, fingerprint.as_bytes())
            .with_context(|| format!("cannot write {}", fingerprint_path.display()))?;
    }

    let mut journal = Journal::open(&t.out)?;
    events.send(Event::RunStarted {
        engines: t.engines.iter().map(|e| e.name.clone()).collect(),
        total_games: schedule.games.len(),
        already_played: previous.clone(),
        time_control: t.time.to_string(),
        sprt: t.sprt.map(|s| s.params),
    });
    let names: Vec<&str> = t.engines.iter().map(|e| e.name.as_str()).collect();
    let mut totals = RunningTotals::new(t, schedule.games.len() / 2);
    for r in &records_before(&previous) {
        totals.add(r);
    }
    let claims = Mutex::new(Claims {
        next: 0,
        max_pair: None,
        closed: false,
    });
    // A resumed run whose test had already decided only completes the pairs it had begun.
    let mut sprt = totals
        .sprt_status()
        .filter(|s| s.decision != Decision::Continue);
    if sprt.is_some() {
        let last_begun = previous.iter().map(|r| r.pair).max();
        let mut c = claims.lock().expect("claims lock");
        c.max_pair = last_begun;
        c.closed = last_begun.is_none();
    }
    let started = std::time::Instant::now();
    let mut last_report = started;
    let threads = t.concurrency.max(1).min(todo.len().max(1));
    // A rendezvous channel: a game thread hands its record over before starting another game,
    // so the coordinator (journal, SPRT decision) is never more than one game per thread behind.
    let (tx, rx) = mpsc::sync_channel::<FromGame>(0);
    let mut records = previous;
    let mut write_error = None;
    let mut fatal: Option<anyhow::Error> = None;

    std::thread::scope(|scope| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (pool, todo, openings, names, claims) = (&pool, &todo, &openings, &names, &claims);
            scope.spawn(move || loop {
                // Paused: wait; finishing or stopping: start nothing new.
                loop {
                    match control.get() {
                        ControlState::Running => break,
                        ControlState::Paused => {
                            std::thread::sleep(std::time::Duration::from_millis(50))
                        }
                        ControlState::Finishing | ControlState::Stopping => return,
                    }
                }
                let Some(g) = claims.lock().expect("claims lock").claim(todo) else {
                    return;
                };
                let setup = GameSetup {
                    scheduled: g,
                    opening: &openings.openings[g.opening],
                    names: [names[g.black], names[g.white]],
                    time: &t.time,
                    margin: t.margin,
                    stall_timeout: t.stall_timeout,
                };
                let record = match (pool.take(g.black), pool.take(g.white)) {
                    (Ok(mut b), Ok(mut w)) => {
                        let r = play_game(&setup, [&mut b, &mut w], events, control);
                        if r.is_none() {
                            // Abandoned by a stop: its workers may be mid-search.
                            b.kill();
                            w.kill();
                            return;
                        }
                        pool.give_back(g.black, b);
                        pool.give_back(g.white, w);
                        r.expect("checked above")
                    }
                    (Err(b), Err(w)) => {
                        // Neither engine can start: the machine, not an engine, is at fault
                        // (no processes or descriptors left?). Stop handing out games.
                        let fatal = anyhow::anyhow!(
                            "game {}: cannot start a worker for either engine ({b}; {w})",
                            g.index + 1
                        );
                        let _ = tx.send(FromGame::Fatal(fatal));
                        return;
                    }
                    // A worker that cannot even be restarted forfeits the game; the other
                    // engine's healthy worker goes back to the pool.
                    (Err(e), Ok(w)) => {
                        pool.give_back(g.white, w);
                        crate::play::game::forfeit_before_start(
                            &setup,
                            othello_board::Color::Black,
                            &e,
                        )
                    }
                    (Ok(b), Err(e)) => {
                        pool.give_back(g.black, b);
                        crate::play::game::forfeit_before_start(
                            &setup,
                            othello_board::Color::White,
                            &e,
                        )
                    }
                };
                if tx.send(FromGame::Finished(Box::new(record))).is_err() {
                    return;
                }
            });
        }
        drop(tx);

        let mut report_cost = std::time::Duration::ZERO;
        for message in rx {
            let record = match message {
                FromGame::Finished(record) => *record,
                FromGame::Fatal(e) => {
                    claims.lock().expect("claims lock").closed = true;
                    fatal.get_or_insert(e);
                    continue;
                }
            };
            if write_error.is_none() {
                if let Err(e) = journal.append(&record) {
                    write_error = Some(e);
                    // Stop handing out games; those in flight finish and are dropped.
                    claims.lock().expect("claims lock").closed = true;
                }
            }
            let light = record.without_moves();
            if write_error.is_none() {
                events.send(Event::GameFinished { record });
            }
            let finished_pair = totals.add(&light);
            records.push(light);
            let Some(mut line) = finished_pair else {
                continue;
            };
            if let Some(status) = totals.sprt_status() {
                line.push_str(&format!(
                    "  LLR {:+.2} [{:+.2}, {:+.2}]",
                    status.llr, status.lower, status.upper
                ));
                if status.decision != Decision::Continue && sprt.is_none() {
                    // Decided: finish the pairs already begun, start no new pair.
                    claims.lock().expect("claims lock").stop_after_begun(&todo);
                    sprt = Some(status);
                }
            }
            progress(&line);
            // Refresh the reports now and then (they only read the records); a report costs
            // time proportional to the games, so long runs refresh less often.
            if last_report.elapsed() >= REPORT_REFRESH.max(report_cost * 20) {
                let t0 = std::time::Instant::now();
                write_reports(t, &records, started.elapsed(), false);
                report_cost = t0.elapsed();
                last_report = std::time::Instant::now();
            }
        }
    });
    pool.shutdown();
    if let Some(e) = write_error {
        return Err(e.context(format!(
            "cannot append to the journal in {}",
            t.out.display()
        )));
    }
    if let Some(e) = fatal {
        return Err(e.context(format!(
            "the run stopped; its {} finished games are in {} and running it again resumes it",
            records.len(),
            t.out.display()
        )));
    }
    records.sort_by_key(|r| r.game);
    write_reports(t, &records, started.elapsed(), true);
    events.send(Event::RunFinished);
    // The final LLR counts every finished game, including the pairs completed after the
    // decision; the decision is the one taken when the LLR crossed a bound.
    let mut final_sprt = sprt_status(t, &records);
    if let (Some(f), Some(decided)) = (final_sprt.as_mut(), sprt.as_ref()) {
        f.decision = decided.decision;
    }
    Ok(RunSummary {
        sprt: final_sprt,
        records,
        out_dir: t.out.clone(),
    })
}

/// What pins an output folder to a tournament: everything that decides which games are played
/// and how (not `concurrency` or `out`, which may change between a run and its resumption).
fn fingerprint(t: &Tournament, openings: &OpeningSet, plugin_dir: &Path) -> String {
    let engines: Vec<serde_json::Value> = t
        .engines
        .iter()
        .map(|e| {
            // The plugin file's contents count: a rebuilt engine is a different engine.
            let file = e.plugin.resolve(plugin_dir);
            let digest = std::fs::read(&file)
                .map(|b| format!("{:016x}", fnv1a(&b)))
                .unwrap_or_default();
            serde_json::json!({
                "name": e.name,
                "plugin": format!("{:?}", e.plugin),
                "plugin_fnv1a": digest,
                "options": e.options,
            })
        })
        .collect();
    let opening_texts: Vec<&str> = openings.openings.iter().map(|o| o.text.as_str()).collect();
    let value = serde_json::json!({
        "format": t.format.as_str(),
        "pairs": t.pairs,
        "time": t.time.to_string(),
        "margin_ms": t.margin.as_millis() as u64,
        "stall_timeout_ms": t.stall_timeout.as_millis() as u64,
        "openings": {
            "source": format!("{:?}", t.openings.source),
            "order": format!("{:?}", t.openings.order),
            "start": t.openings.start,
            "count": openings.openings.len(),
            "fnv1a": format!("{:016x}", fnv1a(opening_texts.join("\n").as_bytes())),
        },
        "sprt": t.sprt.map(|s| format!("{s:?}")),
        "engines": engines,
    });
    serde_json::to_string_pretty(&value).expect("JSON of plain values") + "\n"
}

/// Earlier games in schedule order, as the running totals expect them.
fn records_before(previous: &[GameRecord]) -> Vec<GameRecord> {
    let mut v: Vec<GameRecord> = previous.iter().map(GameRecord::without_moves).collect();
    v.sort_by_key(|r| r.game);
    v
}

/// FNV-1a, 64 bits: a stable digest (the same in every build and version) for the fingerprint.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Every record of a journal being resumed must be a game of this schedule, played by the
/// engines the schedule names, and appear once.
fn check_against_schedule(
    records: &[GameRecord],
    schedule: &PairedSchedule,
    engines: &[crate::plan::config::EngineConfig],
    openings: &OpeningSet,
) -> anyhow::Result<()> {
    let mut seen = std::collections::HashSet::new();
    for r in records {
        let Some(g) = schedule.games.get(r.game) else {
            bail!(
                "game {} is not in the schedule of {} games",
                r.game,
                schedule.games.len()
            );
        };
        let expected = (
            &engines[g.black].name,
            &engines[g.white].name,
            g.pair,
            g.opening,
        );
        if (&r.black, &r.white, r.pair, r.opening.index) != expected {
            bail!(
                "game {} was {} vs {} (pair {}, opening {}), the schedule says {} vs {} (pair {}, opening {})",
                r.game, r.black, r.white, r.pair, r.opening.index, expected.0, expected.1, expected.2, expected.3
            );
        }
        if openings.openings[g.opening].text != r.opening.text {
            bail!(
                "game {} started from `{}`, opening {} is now `{}`",
                r.game,
                r.opening.text,
                g.opening,
                openings.openings[g.opening].text
            );
        }
        if !seen.insert(r.game) {
            bail!("game {} is recorded twice", r.game);
        }
    }
    Ok(())
}

/// Which scheduled games the game threads may still start. Claiming a game and lowering the
/// limit happen under one lock, so no game can slip past a decision half-checked.
struct Claims {
    /// Index into the games to play of the next one to hand out.
    next: usize,
    /// Games of a pair above this are not started (set when the SPRT decides).
    max_pair: Option<usize>,
    /// Nothing more is started (a journal write failed, or nothing was begun).
    closed: bool,
}

impl Claims {
    fn claim<'g>(&mut self, todo: &[&'g ScheduledGame]) -> Option<&'g ScheduledGame> {
        let g = *todo.get(self.next)?;
        if self.closed || self.max_pair.is_some_and(|m| g.pair > m) {
            return None;
        }
        self.next += 1;
        Some(g)
    }

    /// Let the pairs already begun finish; start no new pair.
    fn stop_after_begun(&mut self, todo: &[&ScheduledGame]) {
        match self.next.checked_sub(1) {
            Some(last) => {
                let pair = todo[last].pair;
                self.max_pair = Some(self.max_pair.map_or(pair, |m| m.min(pair)));
            }
            None => self.closed = true,
        }
    }
}

/// Running totals the coordinator keeps as games arrive, so that each finished pair costs the
/// same work however long the run is (the statistics at the end are computed afresh from the
/// records).
struct RunningTotals {
    total_pairs: usize,
    pairs_done: usize,
    /// The first game of each pair whose partner has not arrived yet.
    open_pairs: HashMap<usize, GameRecord>,
    /// Per pairing (first engine, second engine): points of each and games.
    scores: HashMap<(String, String), (f64, f64, usize)>,
    /// The SPRT of the candidate (first engine) against the baseline, with its sample.
    sprt: Option<(
        crate::stats::sprt::SprtParams,
        String,
        crate::stats::MatchStats,
    )>,
}

impl RunningTotals {
    fn new(t: &Tournament, total_pairs: usize) -> RunningTotals {
        let sprt = t.sprt.as_ref().map(|s| {
            let (a, b) = (&t.engines[0].name, &t.engines[1].name);
            (s.params, a.clone(), crate::stats::match_stats(&[], a, b))
        });
        RunningTotals {
            total_pairs,
            pairs_done: 0,
            open_pairs: HashMap::new(),
            scores: HashMap::new(),
            sprt,
        }
    }

    /// Count a game; when it completes its pair, the progress line of that pair.
    fn add(&mut self, record: &GameRecord) -> Option<String> {
        if let Some((_, candidate, stats)) = &mut self.sprt {
            let hp = |score: i32| (score.signum() + 1) as u32;
            match hp(if &record.black == candidate {
                record.score
            } else {
                -record.score
            }) {
                2 => stats.wins += 1,
                1 => stats.draws += 1,
                _ => stats.losses += 1,
            }
        }
        let first = self.open_pairs.remove(&record.pair);
        let Some(first) = first else {
            self.open_pairs.insert(record.pair, record.clone());
            return None;
        };
        let mut pair = [first, record.clone()];
        pair.sort_by_key(|g| g.game);
        let (a, b) = (pair[0].black.clone(), pair[0].white.clone());
        // From the first game's Black engine's view; not a colour-swapped pair: counted in no
        // pair statistic.
        let seen_by_a = stats::pair_observation(&pair[0].outcome(), &pair[1].outcome(), &a)?;
        self.pairs_done += 1;
        let pa = f64::from(seen_by_a.half_points[0] + seen_by_a.half_points[1]) / 2.0;
        let da = [pair[0].score, -pair[1].score];
        let entry = self.scores.entry((a.clone(), b.clone())).or_default();
        entry.0 += pa;
        entry.1 += 2.0 - pa;
        entry.2 += 2;
        // An SPRT runs on a match, so the candidate is in every pair.
        if let Some((_, candidate, stats)) = &mut self.sprt {
            let games = (pair[0].outcome(), pair[1].outcome());
            if let Some(seen) = stats::pair_observation(&games.0, &games.1, candidate) {
                stats.pentanomial[(seen.half_points[0] + seen.half_points[1]) as usize] += 1;
                stats.pairs += 1;
                stats.pair_disc_sums.push(seen.disc_sum);
            }
        }
        let mut line = format!(
            "pair {:>4}/{}  {a} vs {b}  {pa}-{}  (discs {:+}, {:+})  running {a} {}-{} {b} in {} games",
            self.pairs_done,
            self.total_pairs,
            2.0 - pa,
            da[0],
            da[1],
            entry.0,
            entry.1,
            entry.2
        );
        for g in pair.iter().filter(|g| g.termination.is_forfeit()) {
            line.push_str(&format!("  [forfeit: {}]", g.reason));
        }
        Some(line)
    }

    fn sprt_status(&self) -> Option<SprtStatus> {
        self.sprt
            .as_ref()
            .map(|(params, _, stats)| params.status(stats))
    }
}

/// How often the reports are rewritten during a run.
const REPORT_REFRESH: std::time::Duration = std::time::Duration::from_secs(2);

/// Write report.json, report.md and report.html; a failure is reported, not fatal (the
/// journal is the record of the run).
fn write_reports(
    t: &Tournament,
    records: &[GameRecord],
    elapsed: std::time::Duration,
    finished: bool,
) {
    let input = crate::show::report::ReportInput {
        tournament: t,
        records,
        elapsed: Some(elapsed),
        finished,
    };
    if let Err(e) = crate::show::report::write_reports(&t.out, &input) {
        eprintln!(
            "warning: cannot write the reports in {}: {e:#}",
            t.out.display()
        );
    }
}

/// A name safe for a file name.
fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}
