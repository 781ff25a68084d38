//! The embedded ledger: one SQLite file, no server.
//!
//! The schema is versioned by `PRAGMA user_version` and built by numbered migrations
//! ([`MIGRATIONS`]); a file whose version is newer than this harness knows is refused, so an
//! older harness never writes into a newer ledger. The file says what it is in its `meta`
//! table (`kind` = [`KIND`]): an SQLite database of something else is refused too. WAL mode and
//! a busy timeout let several processes add runs at once; each run is added in one
//! transaction, its games with `INSERT OR IGNORE` on (run, game), so a game is there once
//! however often its folder is added.

use super::entry::RunEntry;
use anyhow::{bail, Context};
use rusqlite::{params, Connection, OpenFlags, OptionalExtension};
use std::path::Path;
use std::time::Duration;

/// What the `meta` table says a ledger is.
pub const KIND: &str = "othello-harness-ledger";

/// How long a writer waits for another's lock before it gives up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// The schema, one migration per version: migration `i` takes a ledger from version `i` to
/// `i + 1`.
const MIGRATIONS: [&str; 1] = [r#"
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    recorded TEXT NOT NULL,
    folder TEXT NOT NULL,
    host TEXT NOT NULL,
    harness_version TEXT NOT NULL,
    source TEXT NOT NULL,
    format TEXT NOT NULL,
    conditions TEXT NOT NULL,
    sprt TEXT,
    verdict TEXT,
    planned_games INTEGER NOT NULL,
    tournament TEXT NOT NULL
);
CREATE INDEX runs_by_conditions ON runs (conditions);
CREATE TABLE engines (
    run_id TEXT NOT NULL REFERENCES runs (id),
    idx INTEGER NOT NULL,
    name TEXT NOT NULL,
    digest TEXT NOT NULL,
    options TEXT NOT NULL,
    bench INTEGER,
    build_commit TEXT,
    build_ref TEXT,
    build_date TEXT,
    build_label TEXT,
    PRIMARY KEY (run_id, idx)
);
CREATE INDEX engines_by_player ON engines (digest, options);
CREATE TABLE games (
    run_id TEXT NOT NULL REFERENCES runs (id),
    game INTEGER NOT NULL,
    pair INTEGER NOT NULL,
    black TEXT NOT NULL,
    white TEXT NOT NULL,
    score INTEGER NOT NULL,
    termination TEXT NOT NULL,
    forfeit_by TEXT,
    time_ms_black INTEGER NOT NULL,
    time_ms_white INTEGER NOT NULL,
    PRIMARY KEY (run_id, game)
);
"#];

/// The schema version this harness writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// An open SQLite ledger.
pub struct SqliteLedger {
    conn: Connection,
}

/// A run as `ledger runs` lists it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RunRow {
    pub id: String,
    pub recorded: String,
    pub folder: String,
    pub source: String,
    pub conditions: String,
    pub games: u64,
    pub planned_games: u64,
    pub verdict: Option<serde_json::Value>,
    /// Its engines in tournament order.
    pub engines: Vec<EngineRow>,
}

/// An engine of a listed run: the player (digest and options) and the build that claims it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct EngineRow {
    pub name: String,
    pub digest: String,
    pub options: serde_json::Value,
    pub build: crate::plan::config::Build,
}

impl SqliteLedger {
    /// Open the ledger at `path`, made (with the current schema) when the file is missing or
    /// empty; an older ledger is migrated. A file that is not a ledger, or a ledger of a newer
    /// harness, is an error, and the file is left as it was.
    pub fn open(path: &Path) -> anyhow::Result<SqliteLedger> {
        let fresh = std::fs::metadata(path).map_or(true, |m| m.len() == 0);
        if !fresh {
            check_kind(path)?;
        }
        let conn = Connection::open(path)
            .with_context(|| format!("{}: cannot open the ledger", path.display()))?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .with_context(|| format!("{}: cannot use WAL mode", path.display()))?;
        let mut ledger = SqliteLedger { conn };
        ledger
            .migrate()
            .with_context(|| format!("{}: cannot prepare the ledger", path.display()))?;
        Ok(ledger)
    }

    /// Bring the schema to [`SCHEMA_VERSION`], one migration per transaction; a concurrent
    /// opener that migrated first is seen under the write lock.
    fn migrate(&mut self) -> anyhow::Result<()> {
        loop {
            let tx = self
                .conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let version: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
            if version >= SCHEMA_VERSION {
                return Ok(());
            }
            tx.execute_batch(MIGRATIONS[version as usize])?;
            if version == 0 {
                tx.execute(
                    "INSERT INTO meta (key, value) VALUES ('kind', ?1)",
                    params![KIND],
                )?;
            }
            tx.pragma_update(None, "user_version", version + 1)?;
            tx.commit()?;
        }
    }

    /// Record `run`: the run's row is made or brought up to date (a resumed run's verdict),
    /// its engines replaced, its games added once each. Returns the games that were new.
    pub fn add(&mut self, run: &RunEntry) -> anyhow::Result<usize> {
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        tx.execute(
            "INSERT INTO runs (id, recorded, folder, host, harness_version, source, format, \
             conditions, sprt, verdict, planned_games, tournament) \
             VALUES (?1, datetime('now'), ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) \
             ON CONFLICT (id) DO UPDATE SET verdict = COALESCE(excluded.verdict, verdict), \
             planned_games = MAX(planned_games, excluded.planned_games), \
             tournament = CASE WHEN excluded.planned_games >= planned_games \
             THEN excluded.tournament ELSE tournament END",
            params![
                run.id,
                run.folder,
                run.host,
                run.harness_version,
                run.source,
                run.format,
                run.conditions,
                run.sprt,
                run.verdict,
                run.planned_games as i64,
                run.tournament
            ],
        )?;
        for e in &run.engines {
            tx.execute(
                "INSERT INTO engines (run_id, idx, name, digest, options, bench, build_commit, \
                 build_ref, build_date, build_label) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) \
                 ON CONFLICT (run_id, idx) DO UPDATE SET name = excluded.name, \
                 digest = excluded.digest, options = excluded.options, bench = excluded.bench, \
                 build_commit = excluded.build_commit, build_ref = excluded.build_ref, \
                 build_date = excluded.build_date, build_label = excluded.build_label",
                params![
                    run.id,
                    e.index as i64,
                    e.name,
                    e.digest,
                    e.options,
                    e.bench.map(|b| b as i64),
                    e.build.commit,
                    e.build.git_ref,
                    e.build.date,
                    e.build.label
                ],
            )?;
        }
        let mut added = 0;
        {
            let mut insert = tx.prepare(
                "INSERT OR IGNORE INTO games (run_id, game, pair, black, white, score, \
                 termination, forfeit_by, time_ms_black, time_ms_white) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )?;
            for g in &run.games {
                added += insert.execute(params![
                    run.id,
                    g.game as i64,
                    g.pair as i64,
                    g.black,
                    g.white,
                    g.score,
                    g.termination,
                    g.forfeit_by,
                    g.time_ms_black as i64,
                    g.time_ms_white as i64
                ])?;
            }
        }
        tx.commit()?;
        Ok(added)
    }

    /// Every run in the order first recorded, with its number of games.
    pub fn runs(&self) -> anyhow::Result<Vec<RunRow>> {
        let mut query = self.conn.prepare(
            "SELECT r.id, r.recorded, r.folder, r.source, r.conditions, \
             (SELECT COUNT(*) FROM games g WHERE g.run_id = r.id), r.planned_games, r.verdict \
             FROM runs r ORDER BY r.rowid",
        )?;
        let rows = query.query_map([], |row| {
            let verdict: Option<String> = row.get(7)?;
            Ok(RunRow {
                id: row.get(0)?,
                recorded: row.get(1)?,
                folder: row.get(2)?,
                source: row.get(3)?,
                conditions: row.get(4)?,
                games: row.get::<_, i64>(5)? as u64,
                planned_games: row.get::<_, i64>(6)? as u64,
                verdict: verdict.and_then(|v| serde_json::from_str(&v).ok()),
                engines: Vec::new(),
            })
        })?;
        let mut runs: Vec<RunRow> = rows.collect::<Result<_, _>>()?;
        let mut engines = self.conn.prepare(
            "SELECT name, digest, options, build_commit, build_ref, build_date, build_label \
             FROM engines WHERE run_id = ?1 ORDER BY idx",
        )?;
        for run in &mut runs {
            run.engines = engines
                .query_map(params![run.id], |row| {
                    let options: String = row.get(2)?;
                    Ok(EngineRow {
                        name: row.get(0)?,
                        digest: row.get(1)?,
                        options: serde_json::from_str(&options).unwrap_or_default(),
                        build: crate::plan::config::Build {
                            commit: row.get(3)?,
                            git_ref: row.get(4)?,
                            date: row.get(5)?,
                            label: row.get(6)?,
                        },
                    })
                })?
                .collect::<Result<_, _>>()?;
        }
        Ok(runs)
    }

    /// Run `id`: the `tournament.json` it pins and its games in game order, as records
    /// without moves (result, termination, forfeit, times); `None` for an unknown run.
    pub fn run(
        &self,
        id: &str,
    ) -> anyhow::Result<Option<(String, Vec<crate::record::GameRecord>)>> {
        let pinned: Option<String> = self
            .conn
            .query_row(
                "SELECT tournament FROM runs WHERE id = ?1",
                params![id],
                |r| r.get(0),
            )
            .optional()?;
        let Some(pinned) = pinned else {
            return Ok(None);
        };
        let mut query = self.conn.prepare(
            "SELECT game, pair, black, white, score, termination, forfeit_by, time_ms_black, \
             time_ms_white FROM games WHERE run_id = ?1 ORDER BY game",
        )?;
        let rows = query.query_map(params![id], |row| {
            let mut r = crate::record::GameRecord::skeleton(
                row.get::<_, i64>(0)? as usize,
                &row.get::<_, String>(2)?,
                &row.get::<_, String>(3)?,
                row.get::<_, i64>(4)? as i32,
            );
            r.pair = row.get::<_, i64>(1)? as usize;
            let termination: String = row.get(5)?;
            r.termination = serde_json::from_value(serde_json::Value::String(termination))
                .unwrap_or(crate::record::Termination::Normal);
            let forfeit_by: Option<String> = row.get(6)?;
            r.forfeit_by = forfeit_by.and_then(|c| match c.as_str() {
                "black" => Some(othello_board::Color::Black),
                "white" => Some(othello_board::Color::White),
                _ => None,
            });
            r.time_ms.black = row.get::<_, i64>(7)? as u64;
            r.time_ms.white = row.get::<_, i64>(8)? as u64;
            Ok(r)
        })?;
        Ok(Some((pinned, rows.collect::<Result<_, _>>()?)))
    }

    /// Every engine of every run and every game, as `ledger history` rates them.
    pub fn history_input(
        &self,
    ) -> anyhow::Result<(
        Vec<super::history::EngineSeen>,
        Vec<super::history::GameSeen>,
    )> {
        let mut query = self.conn.prepare(
            "SELECT r.id, r.rowid, r.conditions, e.idx, e.name, e.digest, e.options, \
             e.build_commit, e.build_ref, e.build_date, e.build_label, r.verdict, r.sprt \
             FROM engines e JOIN runs r ON r.id = e.run_id ORDER BY r.rowid, e.idx",
        )?;
        let engines = query
            .query_map([], |row| {
                let idx: i64 = row.get(3)?;
                let verdict: Option<String> = row.get(11)?;
                let sprt: Option<String> = row.get(12)?;
                let outcome = verdict
                    .and_then(|v| serde_json::from_str::<serde_json::Value>(&v).ok())
                    .and_then(|v| v["outcome"].as_str().map(str::to_string))
                    .filter(|_| idx == 0 && sprt.is_some());
                Ok(super::history::EngineSeen {
                    run_id: row.get(0)?,
                    recorded: row.get(1)?,
                    conditions: row.get(2)?,
                    name: row.get(4)?,
                    digest: row.get(5)?,
                    options: row.get(6)?,
                    build: crate::plan::config::Build {
                        commit: row.get(7)?,
                        git_ref: row.get(8)?,
                        date: row.get(9)?,
                        label: row.get(10)?,
                    },
                    verdict: outcome,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        let mut query = self
            .conn
            .prepare("SELECT run_id, pair, black, white, score, termination FROM games")?;
        let games = query
            .query_map([], |row| {
                let termination: String = row.get(5)?;
                Ok(super::history::GameSeen {
                    run_id: row.get(0)?,
                    pair: row.get::<_, i64>(1)? as u64,
                    black: row.get(2)?,
                    white: row.get(3)?,
                    score: row.get::<_, i64>(4)? as i32,
                    forfeit: !matches!(termination.as_str(), "normal" | "adjudicated"),
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok((engines, games))
    }
}

/// Refuse a file that is not this harness's ledger, or one of a newer harness, reading it
/// only: the file is left byte for byte as it was.
fn check_kind(path: &Path) -> anyhow::Result<()> {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .with_context(|| format!("{}: cannot open the ledger", path.display()))?;
    let not_a_ledger = || {
        anyhow::anyhow!(
            "{}: not a ledger of this harness (an SQLite file of something else, or not SQLite); give another --ledger (the file was not changed)",
            path.display()
        )
    };
    let version: i64 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .map_err(|_| not_a_ledger())?;
    let kind: Option<String> = conn
        .query_row("SELECT value FROM meta WHERE key = 'kind'", [], |r| {
            r.get(0)
        })
        .optional()
        .map_err(|_| not_a_ledger())?;
    if kind.as_deref() != Some(KIND) {
        return Err(not_a_ledger());
    }
    if version > SCHEMA_VERSION {
        bail!(
            "{}: a ledger of schema version {version}, written by a newer harness (this one knows up to {SCHEMA_VERSION}); upgrade the harness (the file was not changed)",
            path.display()
        );
    }
    Ok(())
}
