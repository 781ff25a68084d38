//! What the ledger records of a run, read from its output folder alone: `run-id` (made if an
//! older run has none), `tournament.json` (engines, digests, options, conditions), the journal
//! (each game's result, not its moves) and the last report's verdict.

use anyhow::Context;
use harness_core::record::journal::{read_journal, JSONL_FILE};
use harness_core::record::run_folder::RunFolder;
pub use harness_core::record::tournament_record::OpeningSourceRecord;
use harness_core::record::tournament_record::{
    AdjudicationRecord, Enforced, EnforcedRecord, EngineTime, NpsReference, TournamentRecord,
    TOURNAMENT_FILE,
};
use harness_core::record::{run_id, GameRecord};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::Path;

/// One run as the ledger keeps it.
#[derive(Clone, Debug, PartialEq)]
pub struct RunEntry {
    pub id: String,
    /// The run's folder, as an absolute path: the folder it was read from, and for a shard
    /// its shards' folder (so that a run is one folder in every store, whichever of its
    /// shards or its merge was added first; a merge into another folder names that one).
    pub folder: String,
    pub host: String,
    pub harness_version: String,
    /// The tournament file (`source`) and format.
    pub source: String,
    pub format: String,
    /// What makes two runs' results comparable, as canonical JSON: each engine's time control,
    /// the opening set (not its seed: other seeds of one set are samples of the same thing),
    /// adjudication, the margin and stall timeout, the NPS reference.
    pub conditions: String,
    /// The `[sprt]` table as `tournament.json` pins it (JSON), when the run has one.
    pub sprt: Option<String>,
    /// The verdict of the run's last report (JSON), when it ended; never a shard's.
    pub verdict: Option<String>,
    /// The games of the whole run (of every shard, for a shard).
    pub planned_games: u64,
    /// The folder's `tournament.json`, whole: `ledger stats` rebuilds the tournament from it.
    pub tournament: String,
    pub engines: Vec<EngineEntry>,
    pub games: Vec<GameEntry>,
}

/// One engine of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineEntry {
    pub index: usize,
    pub name: String,
    /// FNV-1a of the plugin file: with the options, the player.
    pub digest: String,
    /// The options as JSON (`[["Depth","3"]]`).
    pub options: String,
    pub bench: Option<u64>,
    /// The commit that claims this build (`build = { … }`), when the tournament says.
    pub build: harness_core::plan::config::Build,
}

/// One game's result.
#[derive(Clone, Debug, PartialEq)]
pub struct GameEntry {
    pub game: u64,
    pub pair: u64,
    pub black: String,
    pub white: String,
    /// Black's disc difference (±64 for a forfeit).
    pub score: i64,
    pub termination: String,
    pub forfeit_by: Option<String>,
    pub time_ms_black: u64,
    pub time_ms_white: u64,
}

impl GameEntry {
    /// The result of record `r`.
    pub fn of(r: &GameRecord) -> GameEntry {
        GameEntry {
            game: r.game as u64,
            pair: r.pair as u64,
            black: r.black.clone(),
            white: r.white.clone(),
            score: i64::from(r.score),
            termination: r.termination.as_str().to_string(),
            forfeit_by: r.forfeit_by.map(|c| {
                match c {
                    othello_board::Color::Black => "black",
                    othello_board::Color::White => "white",
                }
                .to_string()
            }),
            time_ms_black: r.time_ms.black,
            time_ms_white: r.time_ms.white,
        }
    }
}

impl RunEntry {
    /// The run whose output folder is `dir` (a plain or merged run, or one shard: a shard's
    /// id is its shards' folder's). Its `run-id` is made when it has none.
    pub fn read(dir: &Path) -> anyhow::Result<RunEntry> {
        let record = TournamentRecord::read(dir)?;
        let pinned_path = dir.join(TOURNAMENT_FILE);
        let shard = record.shard.is_some();
        let folder = RunFolder::at(dir);
        let id_dir = if shard { folder.run_dir() } else { dir };
        let id = run_id::ensure(id_dir)?;
        let journal = dir.join(JSONL_FILE);
        let records = if journal.exists() {
            read_journal(&journal)?
        } else {
            Vec::new()
        };
        let t = harness_core::plan::recorded::tournament_of(&record)
            .with_context(|| format!("{}: cannot rebuild the tournament", pinned_path.display()))?;
        let engines = record
            .engines
            .iter()
            .enumerate()
            .map(|(index, e)| EngineEntry {
                index,
                name: e.name.clone(),
                digest: e.player_digest(),
                options: serde_json::to_string(&e.options).expect("plain strings"),
                bench: e.bench,
                build: e.build.clone().unwrap_or_default(),
            })
            .collect();
        // A shard holds no verdict of its run (an older harness's shard reported one): the
        // merge records it.
        let verdict = harness_core::record::verdict_record::Conclusion::read(dir)?
            .and_then(|c| c.verdict)
            .filter(|_| !shard)
            .map(|verdict| serde_json::to_string(&verdict).expect("plain values"));
        let schedule = t.schedule(record.openings.count as usize);
        Ok(RunEntry {
            id,
            // A shard's run is its shards' folder's, where the merge writes by default.
            folder: std::path::absolute(id_dir)
                .unwrap_or_else(|_| id_dir.to_path_buf())
                .display()
                .to_string(),
            host: harness_os::host_name(),
            harness_version: env!("CARGO_PKG_VERSION").to_string(),
            source: t.source.clone(),
            format: t.format.as_str().to_string(),
            conditions: conditions(&record),
            sprt: record
                .sprt
                .as_ref()
                .map(|s| serde_json::to_value(s).expect("plain values").to_string()),
            verdict,
            // The whole run's games, a shard's too: the ledger counts the run's progress.
            planned_games: schedule.games_of(None).count() as u64,
            tournament: record.text(),
            engines,
            games: records.iter().map(GameEntry::of).collect(),
        })
    }
}

/// The conditions of a tournament (see [`RunEntry::conditions`]), as canonical JSON
/// (serde_json's maps are sorted): the ledger's comparability class. Its keys and values are
/// those every version has stored, so that runs of this version join the series of earlier
/// ones; with one more, `fair_play`, for a timed run (a clock or a move time) of a version
/// that stops engines between turns and charges the margin (`margin_rule`): such runs are
/// not compared with timed runs of earlier versions, whose engines could take time from
/// each other. Runs under depth and node limits, where neither rule changes a game, keep
/// their class.
fn conditions(record: &TournamentRecord) -> String {
    // `10s`, `10s+0.1s` and `0.5s/move` are timed; `depth 6` and `100000 nodes` are not
    // (`TimeControl`'s words).
    let timed = |text: &str| !text.contains(' ');
    let timed_run = timed(&record.time)
        || record
            .engines
            .iter()
            .any(|e| e.time.as_ref().is_some_and(|t| timed(&t.control)));
    let class = Conditions {
        time: record.time.clone(),
        engine_time: record.engines.iter().map(|e| e.time.clone()).collect(),
        margin_ms: record.margin_ms,
        stall_timeout_ms: record.stall_timeout_ms,
        openings: ConditionsOpenings {
            source: record.openings.source.clone(),
            count: record.openings.count,
            fnv1a: record.openings.fnv1a.clone(),
        },
        adjudication: record.adjudication.clone(),
        nps_reference: record.nps_reference.clone(),
        fair_play: match (timed_run, &record.margin_rule) {
            (true, Some(rule)) => Some(fair_play(record, rule)),
            _ => None,
        },
        other: Default::default(),
    };
    // Through a JSON value, whose maps are sorted: the text every version has stored.
    serde_json::to_value(&class)
        .expect("plain values")
        .to_string()
}

/// A conditions class as stored (see [`RunEntry::conditions`]): its keys are those every
/// version wrote, sorted, `fair_play` only where a version of the fair-play rules played a
/// timed run; keys of a newer version are kept as read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Conditions {
    pub time: String,
    /// Each engine's own time rules, `null` for one without.
    pub engine_time: Vec<Option<EngineTime>>,
    pub margin_ms: u64,
    pub stall_timeout_ms: u64,
    pub openings: ConditionsOpenings,
    pub adjudication: Option<AdjudicationRecord>,
    pub nps_reference: Option<NpsReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fair_play: Option<String>,
    /// Keys of a newer version, kept as read.
    #[serde(flatten)]
    pub other: serde_json::Map<String, Value>,
}

/// The openings of a conditions class.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConditionsOpenings {
    pub source: OpeningSourceRecord,
    pub count: u64,
    pub fnv1a: String,
}

/// The fair-play rules a timed run's games were played under, as one class: whether every
/// engine was stopped between its turns, the margin rule, and what the kernel gave every
/// engine's workers beside (a CPU cap, PID namespaces of their own). Runs of a machine that
/// gives less are kept apart from those of one that gives more.
fn fair_play(record: &TournamentRecord, margin_rule: &str) -> String {
    // A version that recorded no routes stopped every engine.
    let stopped = record.stop_routes.values().all(|r| !r.starts_with("none"));
    let mut words = vec![
        match stopped {
            true => "turns stopped".to_string(),
            false => "turns not all stopped".to_string(),
        },
        format!("margin {margin_rule}"),
    ];
    // By engine; an engine without a sandbox (`"off"`) has neither.
    let engines: Vec<Option<&Enforced>> = record
        .sandbox_enforced
        .iter()
        .flat_map(|by_engine| by_engine.values().map(EnforcedRecord::enforced))
        .collect();
    let every = |has: &dyn Fn(&Enforced) -> bool| {
        !engines.is_empty() && engines.iter().all(|e| e.is_some_and(has))
    };
    if every(&|e| e.cpu_cap_percent.is_some()) {
        words.push("CPU capped".to_string());
    }
    if every(&|e| e.namespaces.iter().any(|n| n == "pid")) {
        words.push("PID namespaces".to_string());
    }
    words.join(", ")
}

/// A conditions class (see [`RunEntry::conditions`]) as a person reads it:
/// `depth 2, xot-large (3623 openings), margin 0.2 s, stall 10 s`; one this version cannot
/// read is shown as JSON.
pub fn conditions_text(c: &Value) -> String {
    let Ok(c) = serde_json::from_value::<Conditions>(c.clone()) else {
        return c.to_string();
    };
    let seconds = |ms: u64| format!("{} s", ms as f64 / 1000.0);
    let mut parts = vec![c.time.clone()];
    parts.extend(c.engine_time.iter().enumerate().filter_map(|(i, t)| {
        t.as_ref()
            .map(|t| format!("engine {} {}", i + 1, t.control))
    }));
    parts.push(format!(
        "{} ({} openings)",
        c.openings.source, c.openings.count
    ));
    parts.push(format!("margin {}", seconds(c.margin_ms)));
    parts.push(format!("stall {}", seconds(c.stall_timeout_ms)));
    parts.extend(c.fair_play.clone());
    if let Some(a) = &c.adjudication {
        parts.push(format!(
            "adjudicated by {} at {} empties ({} per solve)",
            a.solver,
            a.exact_at_empties,
            seconds(a.solve_timeout_ms)
        ));
    }
    if let Some(n) = &c.nps_reference {
        parts.push(format!(
            "clocks scaled to {} nodes/s of {}",
            n.nodes_per_second, n.engine
        ));
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `tournament.json` of `time` (as `TimeControl` words it), with or without the margin
    /// rule of the versions that stop engines between turns.
    fn record(time: &str, margin_rule: Option<&str>) -> TournamentRecord {
        let mut text = format!(
            r#"{{"format":"match","pairs":1,"time":"{time}","margin_ms":200,"stall_timeout_ms":60000,
            "openings":{{"source":{{"builtin":"xot-small"}},"order":"sequential","start":0,"count":3623,"fnv1a":"0000000000000000"}},
            "sprt":null,"engines":[]"#
        );
        if let Some(rule) = margin_rule {
            text.push_str(&format!(r#","margin_rule":"{rule}""#));
        }
        text.push('}');
        TournamentRecord::parse(&text).unwrap()
    }

    /// Timed runs of this version are a class of their own, apart from those of versions
    /// whose engines could take time from each other; depth- and node-limited runs, where
    /// neither rule changes a game, stay in the class of earlier versions.
    #[test]
    fn timed_runs_under_the_fair_play_rules_are_a_class_of_their_own() {
        for time in ["1s+0.02s", "4s", "0.5s/move"] {
            let (new, old) = (record(time, Some("charged")), record(time, None));
            assert_ne!(conditions(&new), conditions(&old), "{time}");
            let words = conditions_text(&serde_json::from_str(&conditions(&new)).unwrap());
            assert!(words.contains("turns stopped, margin charged"), "{words}");
        }
        for time in ["depth 2", "100000 nodes"] {
            let (new, old) = (record(time, Some("charged")), record(time, None));
            assert_eq!(conditions(&new), conditions(&old), "{time}");
        }
    }

    /// What the kernel gave the workers splits timed runs: a run where an engine was not
    /// stopped between turns, or where its CPU was not capped or its workers shared the PID
    /// namespace, is not in the class of one where every engine had all three.
    #[test]
    fn what_the_kernel_gave_the_workers_is_part_of_the_class() {
        let enforced = |cap: bool, pid: bool| {
            let mut e = serde_json::json!({"landlock_abi": 6, "landlock_full": true, "seccomp": true, "process_cap": 256});
            if cap {
                e["cpu_cap_percent"] = 125.into();
            }
            if pid {
                e["namespaces"] = serde_json::json!(["user", "pid", "ipc", "mount"]);
            }
            let e: EnforcedRecord = serde_json::from_value(e).unwrap();
            [("a".to_string(), e.clone()), ("b".to_string(), e)].into()
        };
        let run = |cap: bool, pid: bool, route_b: &str| {
            let mut r = record("1s+0.02s", Some("charged"));
            r.sandbox_enforced = Some(enforced(cap, pid));
            r.stop_routes = [("a", "cgroup.freeze"), ("b", route_b)]
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .into();
            r
        };
        let full = conditions(&run(true, true, "SIGSTOP"));
        let words = conditions_text(&serde_json::from_str(&full).unwrap());
        assert!(
            words.contains("turns stopped, margin charged, CPU capped, PID namespaces"),
            "{words}"
        );
        // The route itself (freezer or signals) does not split: both stop the engine.
        assert_eq!(full, conditions(&run(true, true, "cgroup.freeze")));
        for other in [
            run(false, true, "SIGSTOP"),
            run(true, false, "SIGSTOP"),
            run(true, true, "none (ponder = true)"),
        ] {
            assert_ne!(conditions(&other), full);
        }
    }

    /// The conditions class of folders written before the record was typed to its leaves
    /// (`tests/fixtures/tournament-json`), as the harness at 1321fc4 stored it in its ledger:
    /// runs of this version join the same series.
    #[test]
    fn the_class_of_earlier_folders_is_the_one_they_were_stored_under() {
        let dir =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/tournament-json");
        let class = |name: &str| {
            conditions(
                &TournamentRecord::parse(&std::fs::read_to_string(dir.join(name)).unwrap())
                    .unwrap(),
            )
        };
        assert_eq!(
            class("adjudicated-sprt-file-openings.json"),
            r#"{"adjudication":{"exact_at_empties":12,"sandbox":"off","solve_timeout_ms":5000,"solver":{"name":"strong"},"solver_fnv1a":"9563fca680855f4b","solver_options":[["Hash","16"]]},"engine_time":[{"control":"2s+0.02s","margin_ms":200,"stall_timeout_ms":60000},null],"fair_play":"turns not all stopped, margin charged","margin_ms":200,"nps_reference":{"engine":"g","nodes_per_second":100000},"openings":{"count":18,"fnv1a":"f3782f498c872dae","source":{"file":"op.txt"}},"stall_timeout_ms":60000,"time":"1s+0.01s"}"#
        );
        assert_eq!(
            class("tune.json"),
            r#"{"adjudication":null,"engine_time":[null,null,null],"margin_ms":200,"nps_reference":null,"openings":{"count":3623,"fnv1a":"920f820784ce6a94","source":{"builtin":"xot-small"}},"stall_timeout_ms":60000,"time":"depth 1"}"#
        );
        let words = conditions_text(
            &serde_json::from_str(&class("adjudicated-sprt-file-openings.json")).unwrap(),
        );
        assert_eq!(
            words,
            "1s+0.01s, engine 1 2s+0.02s, openings of op.txt (18 openings), margin 0.2 s, stall 60 s, \
             turns not all stopped, margin charged, adjudicated by strong at 12 empties (5 s per solve), \
             clocks scaled to 100000 nodes/s of g"
        );
    }
}
