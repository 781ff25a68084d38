//! What a ledger store does, whichever kind it is: record a run, list the runs, give one run's
//! games back, and hand `ledger history` its input ([`super::open`] opens one by its URL). The embedded SQLite file and a team's
//! PostgreSQL server implement it with the same tables; the rows they read are turned into the
//! harness's types here, once for both.

use super::entry::RunEntry;
use super::history::{EngineSeen, GameSeen};
use harness_core::plan::config::Build;
use harness_core::record::verdict_record::RunVerdict;
use harness_core::record::{GameRecord, Termination};

/// A results ledger, open.
pub trait LedgerStore: Send {
    /// Record `run`: the run's row is made or brought up to date (a resumed run's verdict),
    /// its engines replaced, its games added once each. Returns the games that were new.
    fn add(&mut self, run: &RunEntry) -> anyhow::Result<usize>;

    /// Every run in the order first recorded, with its number of games and its engines.
    fn runs(&mut self) -> anyhow::Result<Vec<RunRow>>;

    /// Run `id`: the `tournament.json` it pins and its games in game order, as records
    /// without moves (result, termination, forfeit, times, the opening's index from the
    /// schedule: [`place_openings`]); `None` for an unknown run.
    fn run(&mut self, id: &str) -> anyhow::Result<Option<(String, Vec<GameRecord>)>>;

    /// Every engine of every run (in the order recorded) and every game, as `ledger history`
    /// rates them.
    fn history_input(&mut self) -> anyhow::Result<(Vec<EngineSeen>, Vec<GameSeen>)>;
}

/// What the `meta` table says a ledger is.
pub const KIND: &str = "othello-harness-ledger";

/// The schema version this harness writes, in either store (their tables are the same, each
/// migration written for both).
pub const SCHEMA_VERSION: i64 = 1;

/// The tables of schema version 1, the same in both stores: `order` is the column that keeps
/// the order runs were first recorded in (empty for SQLite, whose `rowid` keeps it) and
/// `time` the type of `recorded`. Integers are `BIGINT` (SQLite gives them integer affinity).
pub fn tables_v1(order: &str, time: &str) -> String {
    format!(
        r#"
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs (
    {order}
    id TEXT PRIMARY KEY,
    recorded {time} NOT NULL,
    folder TEXT NOT NULL,
    host TEXT NOT NULL,
    harness_version TEXT NOT NULL,
    source TEXT NOT NULL,
    format TEXT NOT NULL,
    conditions TEXT NOT NULL,
    sprt TEXT,
    verdict TEXT,
    planned_games BIGINT NOT NULL,
    tournament TEXT NOT NULL
);
CREATE INDEX runs_by_conditions ON runs (conditions);
CREATE TABLE engines (
    run_id TEXT NOT NULL REFERENCES runs (id),
    idx BIGINT NOT NULL,
    name TEXT NOT NULL,
    digest TEXT NOT NULL,
    options TEXT NOT NULL,
    bench BIGINT,
    build_commit TEXT,
    build_ref TEXT,
    build_date TEXT,
    build_label TEXT,
    PRIMARY KEY (run_id, idx)
);
CREATE INDEX engines_by_player ON engines (digest, options);
CREATE TABLE games (
    run_id TEXT NOT NULL REFERENCES runs (id),
    game BIGINT NOT NULL,
    pair BIGINT NOT NULL,
    black TEXT NOT NULL,
    white TEXT NOT NULL,
    score BIGINT NOT NULL,
    termination TEXT NOT NULL,
    forfeit_by TEXT,
    time_ms_black BIGINT NOT NULL,
    time_ms_white BIGINT NOT NULL,
    PRIMARY KEY (run_id, game)
);
"#
    )
}

/// A run as `ledger runs` lists it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RunRow {
    pub id: String,
    /// When it was first recorded, UTC, `YYYY-MM-DD HH:MM:SS`.
    pub recorded: String,
    pub folder: String,
    pub source: String,
    /// The conditions class as an object (as `ledger history --json` gives it).
    pub conditions: serde_json::Value,
    pub games: u64,
    pub planned_games: u64,
    /// How the run ended (its `verdict.json`'s verdict), when it did.
    pub verdict: Option<RunVerdict>,
    /// Its engines in tournament order.
    pub engines: Vec<EngineRow>,
    /// A sharded run without a verdict yet: each shard's games recorded of its planned ones
    /// ([`shard_progress`]); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shards: Option<Vec<ShardProgress>>,
    /// Openings that repeat within a pairing of the run's recorded games, as every view says
    /// it ([`repeated_openings`]); null when none repeats.
    pub repeated_openings: Option<harness_core::stats::openings::RepeatedOpenings>,
}

/// The repeated openings of a run's games (records as [`LedgerStore::run`] gives them, the
/// openings placed from the schedule); `None` when no pairing repeats an opening.
pub fn repeated_openings(
    records: &[GameRecord],
) -> Option<harness_core::stats::openings::RepeatedOpenings> {
    let outcomes = harness_core::record::outcomes(records);
    let matches = harness_core::stats::all_matches(&outcomes);
    harness_core::stats::openings::RepeatedOpenings::of(matches.iter().map(|m| m.clusters()))
}

/// One shard of a sharded run, as far as the ledger holds it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ShardProgress {
    /// `I/N`.
    pub shard: String,
    pub games: u64,
    pub planned: u64,
}

/// The shards of a run whose stored `tournament.json` (`tournament_json`) is a shard's, with how many
/// of each shard's games `records` holds; `None` for a run that is not sharded.
pub fn shard_progress(tournament_json: &str, records: &[GameRecord]) -> Option<Vec<ShardProgress>> {
    let record =
        harness_core::record::tournament_record::TournamentRecord::parse(tournament_json).ok()?;
    let count = record.shard?.count;
    let schedule = harness_core::plan::recorded::schedule_of(&record).ok()?;
    let held: std::collections::HashSet<usize> = records.iter().map(|r| r.game).collect();
    Some(
        (0..count)
            .map(|index| {
                let shard = harness_core::plan::schedule::Shard { index, count };
                let (mut games, mut planned) = (0, 0);
                for g in schedule.games_of(Some(shard)) {
                    planned += 1;
                    games += u64::from(held.contains(&g.index));
                }
                ShardProgress {
                    shard: format!("{index}/{count}"),
                    games,
                    planned,
                }
            })
            .collect(),
    )
}

/// Sets each record's opening index from the schedule of the run's stored `tournament.json`
/// (`tournament_json`): the ledger keeps no opening per game, and the statistics count the pairs of one
/// opening as one cluster (`stats::openings`). Records stay as they are when the tournament
/// cannot be rebuilt, and so does a game the schedule does not hold.
pub fn place_openings(tournament_json: &str, records: &mut [GameRecord]) {
    let Ok(record) =
        harness_core::record::tournament_record::TournamentRecord::parse(tournament_json)
    else {
        return;
    };
    if record.openings.count == 0 {
        return;
    }
    let Ok(schedule) = harness_core::plan::recorded::schedule_of(&record) else {
        return;
    };
    for r in records {
        if let Some(g) = schedule.games.get(r.game) {
            r.opening.index = g.opening;
        }
    }
}

/// An engine of a listed run: the player (digest and options) and the build that claims it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct EngineRow {
    pub name: String,
    pub digest: String,
    pub options: serde_json::Value,
    pub build: Build,
}

/// The columns of a stored game, in the order both stores select them.
pub struct StoredGame {
    pub game: i64,
    pub pair: i64,
    pub black: String,
    pub white: String,
    pub score: i32,
    pub termination: String,
    pub forfeit_by: Option<String>,
    pub time_ms_black: i64,
    pub time_ms_white: i64,
}

impl StoredGame {
    /// The result as a person reads it: `pair 1, mm-g +12 normal`.
    fn result_text(&self) -> String {
        format!(
            "pair {}, {}-{} {:+} {}",
            self.pair + 1,
            self.black,
            self.white,
            self.score,
            self.termination
        )
    }

    /// The game as a record without moves; an error for a termination this harness does not
    /// know.
    pub fn into_record(self) -> anyhow::Result<GameRecord> {
        let mut r = GameRecord::skeleton(self.game as usize, &self.black, &self.white, self.score);
        r.pair = self.pair as usize;
        r.termination = termination(&self.termination)?;
        r.forfeit_by = self.forfeit_by.and_then(|c| match c.as_str() {
            "black" => Some(othello_board::Color::Black),
            "white" => Some(othello_board::Color::White),
            _ => None,
        });
        r.time_ms.black = self.time_ms_black as u64;
        r.time_ms.white = self.time_ms_white as u64;
        Ok(r)
    }
}

/// Refuse to add `run` when the ledger already holds one of its game numbers with another
/// result (`stored`: the run's recorded games): two folders with one run id but different
/// games. The error names the games; nothing is added.
pub fn refuse_conflicts(run: &RunEntry, stored: &[StoredGame]) -> anyhow::Result<()> {
    let held: std::collections::HashMap<i64, &StoredGame> =
        stored.iter().map(|s| (s.game, s)).collect();
    let mut differing: Vec<(u64, String, String)> = Vec::new();
    for g in &run.games {
        let Some(theirs) = held.get(&(g.game as i64)) else {
            continue;
        };
        let mine = StoredGame {
            game: g.game as i64,
            pair: g.pair as i64,
            black: g.black.clone(),
            white: g.white.clone(),
            score: g.score as i32,
            termination: g.termination.clone(),
            forfeit_by: g.forfeit_by.clone(),
            time_ms_black: 0,
            time_ms_white: 0,
        };
        // The times may differ (another machine played the same game); the result may not.
        let result = |s: &StoredGame| {
            (
                s.pair,
                s.black.clone(),
                s.white.clone(),
                s.score,
                s.termination.clone(),
                s.forfeit_by.clone(),
            )
        };
        if result(&mine) != result(theirs) {
            differing.push((g.game + 1, theirs.result_text(), mine.result_text()));
        }
    }
    differing.sort_by_key(|d| d.0);
    let Some((game, theirs, mine)) = differing.first() else {
        return Ok(());
    };
    let numbers: Vec<String> = differing.iter().map(|d| d.0.to_string()).collect();
    anyhow::bail!(
        "run {}: the ledger holds game(s) {} of this run with other results than {} (game {game}: {theirs} in the ledger, {mine} in the folder): two folders with one run id but different games (a folder copied and played on in both places, a cache restored twice); nothing was added. To keep both, give this folder a run of its own: remove its run-id file and add it again",
        run.id,
        numbers.join(", "),
        run.folder
    )
}

/// The SPRT outcome history shows beside a player: the run's `outcome`, for the first engine
/// (the one tested) of a run with a test.
pub fn outcome(idx: i64, verdict: Option<&str>, sprt: Option<&str>) -> Option<String> {
    if idx != 0 || sprt.is_none() {
        return None;
    }
    let verdict: RunVerdict = serde_json::from_str(verdict?).ok()?;
    Some(verdict.outcome.key().to_string())
}

/// The termination stored as `text` (`normal`, `time_forfeit`, …); one this harness does not
/// know (a newer harness wrote it) is an error, never read as a normal game.
pub fn termination(text: &str) -> anyhow::Result<Termination> {
    serde_json::from_value(serde_json::Value::String(text.to_string())).map_err(|_| {
        anyhow::anyhow!(
            "a recorded game's termination `{text}` is not one this harness knows (a newer harness wrote it?); upgrade the harness"
        )
    })
}

/// Whether a game with this stored termination was lost by a forfeit (history leaves those out
/// of the rating), by the record's own rule ([`Termination::is_forfeit`]).
pub fn forfeited(text: &str) -> anyhow::Result<bool> {
    Ok(termination(text)?.is_forfeit())
}

/// A run's stored conditions as an object (the text as a JSON string where it is not JSON).
pub fn conditions_json(text: String) -> serde_json::Value {
    serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text))
}

/// An engine's stored options as JSON (`{}` where the text is not).
pub fn options_json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_terminations_read_by_the_records_rule() {
        assert!(!forfeited("normal").unwrap());
        assert!(!forfeited("adjudicated").unwrap());
        assert!(forfeited("time_forfeit").unwrap());
        assert!(forfeited("engine_error").unwrap());
        let err = forfeited("resigned").unwrap_err();
        assert!(err.to_string().contains("`resigned`"), "{err}");
    }
}
