//! The output folder of a run, and resuming an interrupted one.
//!
//! A folder belongs to one tournament: `tournament.json` ([`tournament_record`]) pins it to
//! everything that decides which games are played and how. A run into a folder that holds games
//! of the same tournament keeps them and plays the rest of the schedule; a folder of another
//! tournament is refused before anything is touched, unless `--restart` discards its games.
//! A run refused before its first game leaves no folder behind that it created.

use crate::host::sandbox::Enforced;
use anyhow::{bail, Context};
use harness_core::plan::config::{OpeningOrder, OpeningSource, PluginRef, SandboxMode, Tournament};
use harness_core::plan::openings::OpeningSet;
use harness_core::plan::schedule::PairedSchedule;
use harness_core::record::digest::{file_digest, fnv1a};
use harness_core::record::journal::{self, GGF_FILE, JSONL_FILE};
use harness_core::record::run_folder::RunFolder;
use harness_core::record::tournament_changes;
use harness_core::record::tournament_record::{
    AdjudicationRecord, EnforcedRecord, EngineRecord, EngineTime, NpsReference, OpeningOrderRecord,
    OpeningSourceRecord, OpeningsRecord, PluginRecord, ShardRecord, SprtRecord, TournamentRecord,
    TOURNAMENT_FILE,
};
use harness_core::record::GameRecord;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The output folder of a run being prepared.
pub struct OutputFolder {
    pub dir: PathBuf,
    /// Whether this run created it (and so removes it if it is refused before any game).
    created: bool,
}

impl OutputFolder {
    /// Make sure `dir/logs` exists.
    pub fn create(dir: &Path) -> anyhow::Result<OutputFolder> {
        let created = !dir.exists();
        let logs = dir.join("logs");
        std::fs::create_dir_all(&logs)
            .with_context(|| format!("cannot create {}", logs.display()))?;
        Ok(OutputFolder {
            dir: dir.to_path_buf(),
            created,
        })
    }

    /// The folder the engines' stderr logs go to.
    pub fn logs(&self) -> PathBuf {
        self.dir.join("logs")
    }

    /// The run is refused before its first game: remove the folder if this run created it.
    pub fn abandon(&self) {
        if self.created {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }

    /// [`OutputFolder::abandon`], except when `e` is an engine that cannot start: its error
    /// names the engine's stderr log in the folder's `logs/`, which stays for the user to
    /// read (a folder without a journal is a fresh start for the next run).
    pub fn abandon_unless_it_explains(&self, e: &anyhow::Error) {
        if !super::pool::CannotStart::is_cause_of(e) {
            self.abandon();
        }
    }
}

/// Check that a run could create and write its output folder, and leave nothing behind
/// (`--dry-run`): the folders a run would create are created and removed again, and a file is
/// written and removed in the output folder. Only trying tells: a permission check says yes to
/// root in `/proc`, where nothing can be created.
pub fn check_writable(dir: &Path) -> anyhow::Result<()> {
    if dir.exists() && !dir.is_dir() {
        bail!(
            "{}: the output folder is a file, not a folder",
            dir.display()
        );
    }
    // The folders that do not exist yet, outermost last.
    let missing: Vec<&Path> = dir
        .ancestors()
        .take_while(|a| !a.as_os_str().is_empty() && !a.exists())
        .collect();
    std::fs::create_dir_all(dir)
        .with_context(|| format!("{}: cannot create the output folder", dir.display()))?;
    let probe = dir.join(format!(".harness-dry-run-{}", std::process::id()));
    let written = std::fs::write(&probe, b"");
    let _ = std::fs::remove_file(&probe);
    for created in &missing {
        let _ = std::fs::remove_dir(created);
    }
    written.with_context(|| format!("{}: cannot write in the output folder", dir.display()))
}

/// What a run's journal and reports are given in its output folder's free space, beyond the
/// engines' logs.
const JOURNAL_ROOM: u64 = 16 << 20;

/// The free space a run needs in its output folder before its first game: each engine's log
/// at its `log-limit` (an engine without the sandbox, whose log has no cap, at the default)
/// and [`JOURNAL_ROOM`] for the journal and reports.
pub fn space_needed(t: &Tournament) -> u64 {
    let logs: u64 = t
        .engines
        .iter()
        .map(|e| {
            e.sandbox
                .log_limit
                .unwrap_or(crate::host::sandbox::LOG_LIMIT)
        })
        .sum();
    logs + JOURNAL_ROOM
}

/// Refuse a run whose output folder's file system has less than `needed` bytes free (for a
/// folder not made yet, the nearest one above it that exists): a full disk would keep the
/// journal from recording games.
pub fn check_free_space(dir: &Path, needed: u64) -> anyhow::Result<()> {
    let Some(existing) = dir.ancestors().find(|a| a.exists()) else {
        return Ok(());
    };
    let free = harness_os::files::free_space(existing).with_context(|| {
        format!(
            "{}: cannot read its file system's free space",
            existing.display()
        )
    })?;
    // A system that cannot tell (harness_os::files::free_space) is not checked.
    let Some(free) = free else {
        return Ok(());
    };
    if free < needed {
        bail!(
            "{}: its file system has {} MiB free, and a run needs {} MiB before its first game (each engine's log at its log-limit, and {} MiB for the journal and reports); free some space or choose another output folder",
            dir.display(),
            free >> 20,
            needed.div_ceil(1 << 20),
            JOURNAL_ROOM >> 20
        );
    }
    Ok(())
}

/// The files of an earlier run that `--restart` sets aside: the journal, its GGF copy, the
/// `tournament.json`, its id, its end (`verdict.json`, and a watcher's `decision.json`), its
/// clock, and whatever later stages wrote from them (`also`: the reports).
const RUN_FILES: [&str; 7] = [
    JSONL_FILE,
    GGF_FILE,
    TOURNAMENT_FILE,
    harness_core::record::run_id::RUN_ID_FILE,
    harness_core::record::verdict_record::VERDICT_FILE,
    harness_core::record::decision_record::DECISION_FILE,
    harness_core::record::run_clock::CLOCK_FILE,
];

/// Set the games of an earlier run in `dir` aside (`--restart`): its files, and the files
/// named in `also`, move into a new folder `dir/discarded-<UTC time>`, which is returned
/// (`None` when there was nothing to move). Nothing is deleted.
pub fn set_aside(dir: &Path, also: &[&str]) -> anyhow::Result<Option<PathBuf>> {
    let present: Vec<&str> = RUN_FILES
        .iter()
        .chain(also)
        .copied()
        .filter(|name| dir.join(name).exists())
        .collect();
    if present.is_empty() {
        return Ok(None);
    }
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let mut aside = dir.join(format!("discarded-{}", utc_stamp(stamp)));
    let mut n = 1;
    while aside.exists() {
        n += 1;
        aside = dir.join(format!("discarded-{}-{n}", utc_stamp(stamp)));
    }
    std::fs::create_dir(&aside).with_context(|| format!("cannot create {}", aside.display()))?;
    for name in present {
        std::fs::rename(dir.join(name), aside.join(name)).with_context(|| {
            format!(
                "cannot move {} into {}",
                dir.join(name).display(),
                aside.display()
            )
        })?;
    }
    Ok(Some(aside))
}

/// `20261125T141813Z` for seconds since the Unix epoch (UTC; no time zone data needed).
fn utc_stamp(secs: u64) -> String {
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // The civil date of a day count (Howard Hinnant's algorithm, days from 1970-01-01).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}{month:02}{day:02}T{:02}{:02}{:02}Z",
        rest / 3_600,
        rest % 3_600 / 60,
        rest % 60
    )
}

/// The games an earlier run of `t` left in its output folder, checked against `schedule`, with
/// the journal made consistent (a torn last line cut off, `games.ggf` rebuilt). A folder
/// holding games of another tournament is an error that names it and leaves it as it was.
pub fn earlier_games(
    t: &Tournament,
    tournament_json: &str,
    schedule: &PairedSchedule,
    openings: &OpeningSet,
) -> anyhow::Result<Vec<GameRecord>> {
    let journal_path = t.out.join(JSONL_FILE);
    if !journal_path.exists() {
        return Ok(Vec::new());
    }
    // Check before touching anything: a refused run leaves the folder as it was.
    let written = TournamentRecord::written_text(&t.out)?;
    let held = journal::read_journal(&journal_path)?.len();
    let extended = extension(&written, tournament_json, false).is_some();
    let mended = || {
        journal::read_journal(&journal_path)
            .is_ok_and(|records| mends_unmeasured_engines(&written, tournament_json, &records))
    };
    if held > 0 && !same_tournament(&written, tournament_json, false) && !extended && !mended() {
        let changed = tournament_changes(&written, tournament_json);
        bail!(
            "{}: the output folder holds {} games of a different tournament (its {} does not match {}{}); \
             give another `out`, or pass --restart to move them into a discarded-<time> folder inside it and start over \
             (of all the values only `pairs` may change, and only upward: that extends the run)",
            t.out.display(),
            held,
            TOURNAMENT_FILE,
            t.source,
            if changed.is_empty() {
                String::new()
            } else {
                format!(": {}", changed.join("; "))
            }
        );
    }
    let previous = journal::recover(&t.out)?;
    check_against_schedule(&previous, schedule, t, openings)
        .with_context(|| format!("{}: cannot resume", journal_path.display()))?;
    Ok(previous)
}

/// Whether two `tournament.json` texts pin the same tournament: their essences
/// ([`TournamentRecord::essence`]) are equal. False when either is not a record.
pub fn same_tournament(a: &str, b: &str, any_shard: bool) -> bool {
    match (essence(a, any_shard), essence(b, any_shard)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// What an output folder holds for a run of a tournament ([`folder_holds`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Held {
    /// No games: a run starts there.
    Nothing,
    /// Games of this tournament and no other: a run resumes them.
    This,
    /// Games of another tournament.
    Another,
}

/// What `dir` holds for a run of the tournament `tournament_json`: the games of its own
/// journal, judged by [`same_tournament`] as a run resuming there judges them (`any_shard`
/// for a shard's run, whose own folder is one inside), and those of the shards' folders
/// inside it (`shard-I-of-N`), which must be of the same tournament, any shard. Games of the
/// same tournament with fewer pairs are this tournament's too: the run extends them
/// ([`extension`]). A journal that cannot be read counts as another tournament's games.
pub fn folder_holds(dir: &Path, tournament_json: &str, any_shard: bool) -> Held {
    let mut folders = vec![(dir.to_path_buf(), any_shard)];
    let shards = RunFolder::at(dir).shards().unwrap_or_default();
    folders.extend(shards.into_iter().map(|shard| (shard, true)));
    let mut held = Held::Nothing;
    for (folder, any_shard) in folders {
        let journal = folder.join(JSONL_FILE);
        if !journal.exists() || journal::read_journal(&journal).is_ok_and(|r| r.is_empty()) {
            continue;
        }
        let written = std::fs::read_to_string(folder.join(TOURNAMENT_FILE)).unwrap_or_default();
        let extended = extension(&written, tournament_json, any_shard).is_some();
        if !same_tournament(&written, tournament_json, any_shard) && !extended {
            return Held::Another;
        }
        held = Held::This;
    }
    held
}

/// What of a `tournament.json` decides the games ([`TournamentRecord::essence`]); `None`
/// when the text is not a record.
fn essence(text: &str, any_shard: bool) -> Option<TournamentRecord> {
    Some(TournamentRecord::parse(text).ok()?.essence(any_shard))
}

/// Whether `current` differs from `written` only in the definitions (command, plugin file,
/// options, …) of engines that hold no move of their own in `records`: a fix of an engine that
/// could not play, which the run may resume with (its games are kept; the mended engine's
/// forfeits stay its results). Engines keep their names and order.
pub fn mends_unmeasured_engines(written: &str, current: &str, records: &[GameRecord]) -> bool {
    let (Some(mut a), Some(mut b)) = (essence(written, false), essence(current, false)) else {
        return false;
    };
    let (x, y) = (
        std::mem::take(&mut a.engines),
        std::mem::take(&mut b.engines),
    );
    if a != b || x.len() != y.len() || x == y {
        return false;
    }
    x.iter().zip(&y).all(|(p, q)| {
        p.name == q.name && (p == q || !harness_core::stats::verdict::has_moved(&p.name, records))
    })
}

/// Whether `current` claims other builds for its engines (`build`) than `written` does.
pub fn claims_changed(written: &str, current: &str) -> bool {
    let claims = |text: &str| {
        TournamentRecord::parse(text)
            .ok()
            .map(|r| r.engines.into_iter().map(|e| e.build).collect::<Vec<_>>())
    };
    claims(written) != claims(current)
}

/// A run extended: the tournament `current` is the one `written` pins with more pairs and
/// nothing else changed, `(pairs written, pairs now)`. Its schedule begins with the written
/// one's (rounds in order, the same opening draw), so the games played stay games of it and
/// only the new pairs are played. `None` for the same tournament or any other change.
pub fn extension(written: &str, current: &str, any_shard: bool) -> Option<(u64, u64)> {
    let (x, mut y) = (essence(written, any_shard)?, essence(current, any_shard)?);
    let (before, after) = (x.pairs, y.pairs);
    y.pairs = before;
    (x == y && after > before).then_some((before, after))
}

/// What differs between the `tournament.json` of a folder and a run's, in the words of
/// [`tournament_changes::changes`] (`pairs 4 → 6`, `engines[0].plugin /a/liba.so → /b/libb.so
/// (another plugin)`), their essences compared. Empty when either is not a record.
pub fn tournament_changes(written: &str, current: &str) -> Vec<String> {
    match (essence(written, false), essence(current, false)) {
        (Some(a), Some(b)) => tournament_changes::changes(&a, &b),
        _ => Vec::new(),
    }
}

/// What pins an output folder to a tournament (`tournament.json`, see
/// [`TournamentRecord`]): everything that decides which games are played and how (not
/// `concurrency` or `out`, which may change between a run and its resumption), and the shard;
/// plus the tournament file's text, which `merge` rebuilds the tournament from (not compared,
/// see [`same_tournament`]).
pub fn tournament_record(
    t: &Tournament,
    openings: &OpeningSet,
    plugin_dir: &Path,
) -> TournamentRecord {
    let engines = t
        .engines
        .iter()
        .map(|e| EngineRecord {
            name: e.name.clone(),
            plugin: plugin_record(&e.plugin),
            // The plugin file's contents count: a rebuilt engine is a different engine.
            plugin_fnv1a: file_digest(&e.plugin.resolve(plugin_dir)),
            options: e.options.clone(),
            sandbox: Some(e.sandbox.pin()),
            // The optional keys only when set, so that the runs of earlier versions resume.
            memory_limit: e.memory_limit,
            bench: e.bench,
            build: e.build.clone(),
            time: e.time.map(|rules| EngineTime {
                control: rules.control.to_string(),
                margin_ms: rules.margin.as_millis() as u64,
                stall_timeout_ms: rules.stall_timeout.as_millis() as u64,
                other: Default::default(),
            }),
            command_fnv1a: command_digests(&e.options),
            ponder: e.ponder,
            threads: e.threads,
            other: serde_json::Map::new(),
        })
        .collect();
    let opening_texts: Vec<&str> = openings.openings.iter().map(|o| o.text.as_str()).collect();
    let adjudication = t.adjudication.as_ref().map(|a| AdjudicationRecord {
        exact_at_empties: a.exact_at_empties,
        solver: plugin_record(&a.solver),
        solver_fnv1a: file_digest(&a.solver.resolve(plugin_dir)),
        solver_options: a.solver_options.clone(),
        solve_timeout_ms: a.solve_timeout.as_millis() as u64,
        sandbox: (t.sandbox != SandboxMode::default()).then_some(t.sandbox),
        other: Default::default(),
    });
    TournamentRecord {
        format: t.format.as_str().to_string(),
        pairs: t.pairs as u64,
        time: t.time.control.to_string(),
        margin_ms: t.time.margin.as_millis() as u64,
        stall_timeout_ms: t.time.stall_timeout.as_millis() as u64,
        margin_rule: Some(crate::play::clock::MARGIN_RULE.to_string()),
        openings: OpeningsRecord {
            source: match &t.openings.source {
                OpeningSource::Builtin(name) => OpeningSourceRecord::Builtin(name.clone()),
                OpeningSource::File(path) => OpeningSourceRecord::File(path.display().to_string()),
            },
            order: match t.openings.order {
                OpeningOrder::Sequential => OpeningOrderRecord::Sequential,
                OpeningOrder::Shuffled { seed } => OpeningOrderRecord::Shuffled { seed },
            },
            start: t.openings.start as u64,
            count: openings.openings.len() as u64,
            fnv1a: format!("{:016x}", fnv1a(opening_texts.join("\n").as_bytes())),
            other: Default::default(),
        },
        sprt: t.sprt.map(|s| SprtRecord {
            params: s.params,
            fail_on_crash: s.fail_on_crash,
            fail_on_forfeit: s.fail_on_forfeit,
            other: Default::default(),
        }),
        engines,
        adjudication,
        nps_reference: t.nps.map(|nps| NpsReference {
            nodes_per_second: nps.nodes_per_second,
            engine: t.engines[nps.engine].name.clone(),
            other: Default::default(),
        }),
        shard: t.shard.map(|shard| ShardRecord {
            index: shard.index,
            count: shard.count,
        }),
        tune: t.tune.as_ref().map(|tune| tune.pin()),
        // This run's own measure, not the tournament's: not compared (see [`same_tournament`]).
        clock_scale: t.clock_scale.clone(),
        sandbox_enforced: None,
        stop_routes: Default::default(),
        definition: Some(t.definition.clone()),
        other: serde_json::Map::new(),
    }
}

/// The digest of each file the option values name: a value that is a path to a file, each
/// word of a command line that is one, and the program a command's first word runs when it
/// is found through `PATH` (`python3`); by absolute path. An edited script or a new program
/// is then another engine (see `EngineRecord::command_fnv1a`).
fn command_digests(options: &[(String, String)]) -> std::collections::BTreeMap<String, String> {
    let mut digests = std::collections::BTreeMap::new();
    let mut add = |path: PathBuf| {
        if let Ok(path) = path.canonicalize() {
            if path.is_file() {
                let digest = file_digest(&path);
                digests.insert(path.display().to_string(), digest);
            }
        }
    };
    for (_, value) in options {
        let words = harness_os::command_line::words(value).unwrap_or_default();
        for (i, word) in words.iter().enumerate() {
            if harness_os::command_line::names_a_path(word) {
                add(PathBuf::from(word));
            } else if i == 0 && words.len() > 1 {
                // The program the sandbox looks up the same way for its installation.
                if let Some(program) = crate::host::sandbox::program_path(word) {
                    add(program);
                }
            }
        }
    }
    digests
}

/// [`tournament_record`]'s text, as `tournament.json` holds it.
pub fn tournament_text(t: &Tournament, openings: &OpeningSet, plugin_dir: &Path) -> String {
    tournament_record(t, openings, plugin_dir).text()
}

/// `tournament.json`'s text with what the kernel enforced of each engine's sandbox, by name
/// (`"off"` for an engine without one), and how each engine was stopped between turns.
pub fn with_enforced(tournament_json: &str, enforced: &[super::pool::StartedAs]) -> String {
    let Ok(mut record) = TournamentRecord::parse(tournament_json) else {
        return tournament_json.to_string();
    };
    let by_engine = enforced
        .iter()
        .map(|started| {
            let record = match &started.sandbox {
                Some(e) => EnforcedRecord::Confined(e.clone()),
                None => EnforcedRecord::off(),
            };
            (started.name.clone(), record)
        })
        .collect();
    record.sandbox_enforced = Some(by_engine);
    record.stop_routes = enforced
        .iter()
        .map(|started| (started.name.clone(), started.stop_route.clone()))
        .collect();
    record.text()
}

/// What the kernel gave an engine's workers that bears on fair play, as a resume compares it:
/// whether the worker was stopped between its turns, the CPU cap, and the namespaces made.
/// The rest of [`Enforced`] (Landlock's version, the filter) is recorded and not compared.
fn fair_play_terms(enforced: Option<&Enforced>, stop_route: Option<&str>) -> String {
    let stopped = match stop_route {
        None => "stop between turns not recorded".to_string(),
        Some(route) if route.starts_with("none") => format!("not stopped between turns ({route})"),
        Some(_) => "stopped between turns".to_string(),
    };
    let cap = match enforced.and_then(|e| e.cpu_cap_percent) {
        Some(percent) => format!("CPU capped at {percent}%"),
        None => "no CPU cap".to_string(),
    };
    let mut namespaces: Vec<&str> = enforced
        .into_iter()
        .flat_map(|e| e.namespaces.iter().map(String::as_str))
        .collect();
    namespaces.sort_unstable();
    let namespaces = match namespaces.is_empty() {
        true => "no namespaces of its own".to_string(),
        false => format!("namespaces {}", namespaces.join(", ")),
    };
    format!("{stopped}, {cap}, {namespaces}")
}

/// The engines whose fair-play conditions ([`fair_play_terms`]) differ between the games an
/// output folder holds (its `tournament.json`, `written`) and this run's workers: a resume
/// that mixed them would put games played under other rules into one result. Empty when
/// they agree, and for a folder of a version that recorded neither.
pub fn fair_play_changes(written: &str, started: &[super::pool::StartedAs]) -> Vec<String> {
    let Ok(record) = TournamentRecord::parse(written) else {
        return Vec::new();
    };
    if record.sandbox_enforced.is_none() && record.stop_routes.is_empty() {
        return Vec::new();
    }
    started
        .iter()
        .filter_map(|now| {
            // `"off"` (no sandbox) is not a record of what was enforced: none was.
            let then = record
                .sandbox_enforced
                .as_ref()
                .and_then(|by_engine| by_engine.get(&now.name))
                .and_then(EnforcedRecord::enforced);
            let before =
                fair_play_terms(then, record.stop_routes.get(&now.name).map(String::as_str));
            let after = fair_play_terms(now.sandbox.as_ref(), Some(&now.stop_route));
            (before != after).then(|| format!("{}: {before} then, {after} now", now.name))
        })
        .collect()
}

/// How a plugin was named, in `tournament.json`.
fn plugin_record(plugin: &PluginRef) -> PluginRecord {
    match plugin {
        PluginRef::Name(name) => PluginRecord::Name(name.clone()),
        PluginRef::Path(path) => PluginRecord::Path(path.display().to_string()),
    }
}

/// Every record of a journal being resumed must be a game of this schedule, played by the
/// engines the schedule names, and appear once.
pub fn check_against_schedule(
    records: &[GameRecord],
    schedule: &PairedSchedule,
    t: &Tournament,
    openings: &OpeningSet,
) -> anyhow::Result<()> {
    let engines = &t.engines;
    let mut seen = HashSet::new();
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
        if let Some(shard) = t.shard.filter(|s| !s.plays_round(g.round)) {
            bail!(
                "game {} is in round {}, which shard {shard} does not play",
                r.game,
                g.round
            );
        }
        if !seen.insert(r.game) {
            bail!("game {} is recorded twice", r.game);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stamps of the folders `--restart` sets aside: UTC, to the second, leap days included.
    #[test]
    fn utc_stamps() {
        assert_eq!(utc_stamp(0), "19700101T000000Z");
        // date -u -d @1795616293 +%Y%m%dT%H%M%SZ
        assert_eq!(utc_stamp(1_795_616_293), "20261125T141813Z");
        assert_eq!(utc_stamp(951_782_400), "20000229T000000Z");
    }

    /// tournament.json is plain JSON of the resolved tournament, never Rust debug text
    /// (`Name("strong")`, `Shuffled { seed: 7331 }`).
    #[test]
    fn tournament_json_is_plain_json() {
        let text = r#"
[tournament]
format = "match"
pairs = 3
[time]
move-time = 0.5
[openings]
builtin = "xot-small"
order = "shuffled"
seed = 7331
[sprt]
elo0 = 0
elo1 = 5
[[engine]]
name = "a"
plugin = "strong"
[[engine]]
name = "b"
plugin = "dir/libb.so"
"#;
        let mut t = harness_core::plan::config::parse(text, "t.toml", Path::new("/x")).unwrap();
        t.shard = Some(harness_core::plan::schedule::Shard { index: 1, count: 4 });
        let openings = t.openings.load().unwrap();
        let json = tournament_text(&t, &openings, Path::new("/nowhere"));
        for debug in [
            "Name(",
            "Path(",
            "Shuffled {",
            "Builtin(",
            "SprtConfig",
            "Some(",
        ] {
            assert!(!json.contains(debug), "{debug} in {json}");
        }
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["engines"][0]["plugin"]["name"], "strong");
        assert_eq!(v["engines"][1]["plugin"]["path"], "/x/dir/libb.so");
        assert_eq!(v["openings"]["order"]["shuffled"]["seed"], 7331);
        assert_eq!(v["openings"]["source"]["builtin"], "xot-small");
        assert_eq!(v["sprt"]["params"]["elo1"], 5.0);
        assert_eq!(v["shard"]["index"], 1);
        let record = TournamentRecord::parse(&json).unwrap();
        assert_eq!(record.text(), json, "read and written back byte for byte");
        let shard = record.shard.map(|s| harness_core::plan::schedule::Shard {
            index: s.index,
            count: s.count,
        });
        assert_eq!(shard, t.shard);
        // The definition rebuilds the tournament; it does not take part in the comparison.
        assert_eq!(
            harness_core::plan::recorded::tournament_of(&record)
                .unwrap()
                .engines,
            t.engines
        );
        let mut other = v.clone();
        other["definition"]["text"] = serde_json::json!("# a comment\n");
        assert!(same_tournament(&json, &other.to_string(), false));
        other["shard"]["index"] = serde_json::json!(2);
        assert!(!same_tournament(&json, &other.to_string(), false));
        assert!(same_tournament(&json, &other.to_string(), true));
        // A refusal says what changed.
        other["pairs"] = serde_json::json!(6);
        assert_eq!(
            tournament_changes(&json, &other.to_string()),
            ["pairs 3 → 6", "shard.index 1 → 2"]
        );
        // In words, never JSON: another plugin file is another plugin (its digest going
        // without saying), the same file with other contents a rebuilt one.
        let mut changed = v.clone();
        changed["engines"][0]["plugin_fnv1a"] = serde_json::json!("0000000000000001");
        changed["engines"][1]["plugin"] = serde_json::json!({ "path": "/y/libc.so" });
        changed["engines"][1]["plugin_fnv1a"] = serde_json::json!("0000000000000002");
        changed["sprt"] = serde_json::Value::Null;
        let changes = tournament_changes(&json, &changed.to_string());
        assert_eq!(changes.len(), 3, "{changes:#?}");
        assert!(
            changes[0].starts_with("engines[0].plugin_fnv1a ")
                && changes[0].ends_with("→ 0000000000000001 (the plugin file changed: a rebuilt engine is another engine)"),
            "{changes:#?}"
        );
        assert_eq!(
            changes[1],
            "engines[1].plugin /x/dir/libb.so → /y/libc.so (another plugin)"
        );
        assert!(
            changes[2].starts_with("sprt ")
                && changes[2].contains("elo1 5")
                && changes[2].ends_with(" → none"),
            "{changes:#?}"
        );
        for change in &changes {
            assert!(!change.contains(['{', '"']), "JSON in {change}");
        }
        // A folder of a version before the margin rule (no `margin_rule`) was played under
        // the rule that forgave the margin on every move: it does not resume under this one,
        // nor does a run whose engine now ponders.
        let mut earlier = v.clone();
        earlier.as_object_mut().unwrap().remove("margin_rule");
        assert!(!same_tournament(&earlier.to_string(), &json, false));
        assert_eq!(
            tournament_changes(&earlier.to_string(), &json),
            ["margin_rule none → charged"]
        );
        let mut pondering = v.clone();
        pondering["engines"][0]["ponder"] = serde_json::json!(true);
        assert_eq!(
            tournament_changes(&json, &pondering.to_string()),
            ["engines[0].ponder false → true"]
        );
    }
}
