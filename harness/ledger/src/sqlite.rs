//! The embedded ledger: one SQLite file, no server.
//!
//! The schema is versioned by `PRAGMA user_version` and built by numbered migrations
//! ([`migrations`]); a file whose version is newer than this harness knows is refused, so an
//! older harness never writes into a newer ledger. The file says what it is in its `meta`
//! table (`kind` = [`KIND`]): an SQLite database of something else is refused too. WAL mode and
//! a busy timeout let several processes add runs at once; each run is added in one
//! transaction, its games with `INSERT OR IGNORE` on (run, game), so a game is there once
//! however often its folder is added.

use super::entry::RunEntry;
use super::history::{EngineSeen, GameSeen};
use super::store::{
    conditions_json, forfeited, options_json, outcome, refuse_conflicts, EngineRow, LedgerStore,
    RunRow, StoredGame, KIND,
};
use super::Access;
use anyhow::{bail, Context};
use harness_core::plan::config::Build;
use harness_core::record::GameRecord;
use rusqlite::{params, Connection, OpenFlags, OptionalExtension};
use std::path::Path;
use std::time::Duration;

/// How long a writer waits for another's lock before it gives up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// The schema, one migration per version: migration `i` takes a ledger from version `i` to
/// `i + 1`.
fn migrations() -> [String; SCHEMA_VERSION as usize] {
    [super::store::tables_v1("", "TEXT")]
}

pub use super::store::SCHEMA_VERSION;

/// An open SQLite ledger.
pub struct SqliteLedger {
    conn: Connection,
}

impl SqliteLedger {
    /// Open the ledger at `path`. To write, it is made (with the current schema) when the file
    /// is missing or empty, after checking that the file and its folder can be written; to
    /// read, a missing or empty file is an error. An older ledger is migrated. A file that is
    /// not a ledger, or a ledger of a newer harness, is an error, and the file is left as it
    /// was.
    pub fn open(path: &Path, access: Access) -> anyhow::Result<SqliteLedger> {
        let fresh = std::fs::metadata(path).map_or(true, |m| m.len() == 0);
        match access {
            Access::Read if fresh => bail!(
                "{}: no such ledger ({}); a reading command never makes one: `harness run --ledger` or `harness ledger add` does",
                path.display(),
                if path.exists() { "an empty file" } else { "no such file" }
            ),
            Access::Read => {}
            Access::Write => check_writable(path)?,
        }
        if !fresh {
            check_kind(path)?;
        }
        let conn = Connection::open(path)
            .with_context(|| format!("{}: cannot open the ledger", path.display()))?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        use_wal(&conn).with_context(|| format!("{}: cannot use WAL mode", path.display()))?;
        let mut ledger = SqliteLedger { conn };
        ledger
            .migrate()
            .with_context(|| format!("{}: cannot prepare the ledger", path.display()))?;
        Ok(ledger)
    }

    /// Bring the schema to [`SCHEMA_VERSION`], one migration per transaction; a concurrent
    /// opener that migrated first is seen under the write lock.
    fn migrate(&mut self) -> anyhow::Result<()> {
        let version: i64 = self
            .conn
            .pragma_query_value(None, "user_version", |r| r.get(0))?;
        if version >= SCHEMA_VERSION {
            // Current: nothing to write (a reader of a read-only file gets here too).
            return Ok(());
        }
        loop {
            let tx = self
                .conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let version: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
            if version >= SCHEMA_VERSION {
                return Ok(());
            }
            tx.execute_batch(&migrations()[version as usize])?;
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
}

impl LedgerStore for SqliteLedger {
    fn add(&mut self, run: &RunEntry) -> anyhow::Result<usize> {
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let stored = stored_games(&tx, &run.id)?;
        refuse_conflicts(run, &stored)?;
        tx.execute(
            "INSERT INTO runs (id, recorded, folder, host, harness_version, source, format, \
             conditions, sprt, verdict, planned_games, tournament) \
             VALUES (?1, datetime('now'), ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) \
             ON CONFLICT (id) DO UPDATE SET verdict = COALESCE(excluded.verdict, verdict), \
             folder = CASE WHEN excluded.verdict IS NOT NULL THEN excluded.folder ELSE folder END, \
             planned_games = MAX(planned_games, excluded.planned_games), \
             tournament = CASE WHEN excluded.planned_games >= planned_games \
             AND (excluded.verdict IS NOT NULL OR verdict IS NULL) \
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

    fn runs(&mut self) -> anyhow::Result<Vec<RunRow>> {
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
                conditions: conditions_json(row.get(4)?),
                games: row.get::<_, i64>(5)? as u64,
                planned_games: row.get::<_, i64>(6)? as u64,
                verdict: verdict.and_then(|v| serde_json::from_str(&v).ok()),
                engines: Vec::new(),
                shards: None,
                repeated_openings: None,
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
                    Ok(EngineRow {
                        name: row.get(0)?,
                        digest: row.get(1)?,
                        options: options_json(&row.get::<_, String>(2)?),
                        build: Build {
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

    fn run(&mut self, id: &str) -> anyhow::Result<Option<(String, Vec<GameRecord>)>> {
        let tournament_json: Option<String> = self
            .conn
            .query_row(
                "SELECT tournament FROM runs WHERE id = ?1",
                params![id],
                |r| r.get(0),
            )
            .optional()?;
        let Some(tournament_json) = tournament_json else {
            return Ok(None);
        };
        let games = stored_games(&self.conn, id)?;
        let mut records: Vec<GameRecord> = games
            .into_iter()
            .map(StoredGame::into_record)
            .collect::<anyhow::Result<_>>()?;
        super::store::place_openings(&tournament_json, &mut records);
        Ok(Some((tournament_json, records)))
    }

    fn history_input(&mut self) -> anyhow::Result<(Vec<EngineSeen>, Vec<GameSeen>)> {
        let mut query = self.conn.prepare(
            "SELECT r.id, r.rowid, r.conditions, e.idx, e.name, e.digest, e.options, \
             e.build_commit, e.build_ref, e.build_date, e.build_label, r.verdict, r.sprt \
             FROM engines e JOIN runs r ON r.id = e.run_id ORDER BY r.rowid, e.idx",
        )?;
        let engines = query
            .query_map([], |row| {
                let verdict: Option<String> = row.get(11)?;
                let sprt: Option<String> = row.get(12)?;
                Ok(EngineSeen {
                    run_id: row.get(0)?,
                    recorded: row.get(1)?,
                    conditions: row.get(2)?,
                    name: row.get(4)?,
                    digest: row.get(5)?,
                    options: row.get(6)?,
                    build: Build {
                        commit: row.get(7)?,
                        git_ref: row.get(8)?,
                        date: row.get(9)?,
                        label: row.get(10)?,
                    },
                    verdict: outcome(row.get(3)?, verdict.as_deref(), sprt.as_deref()),
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        let mut query = self
            .conn
            .prepare("SELECT run_id, pair, black, white, score, termination FROM games")?;
        let games = query
            .query_map([], |row| {
                Ok((
                    GameSeen {
                        run_id: row.get(0)?,
                        pair: row.get::<_, i64>(1)? as u64,
                        black: row.get(2)?,
                        white: row.get(3)?,
                        score: row.get(4)?,
                        forfeit: false,
                    },
                    row.get::<_, String>(5)?,
                ))
            })?
            .map(|row| {
                let (mut game, termination) = row?;
                game.forfeit = forfeited(&termination)?;
                Ok(game)
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok((engines, games))
    }
}

/// Refuse a ledger this process cannot write, naming why: the file (when there is one) must
/// open for writing, and its folder must take new files (SQLite keeps its journal and
/// shared-memory files beside the ledger). Nothing is changed.
fn check_writable(path: &Path) -> anyhow::Result<()> {
    let cannot = |why: String| {
        anyhow::anyhow!(
            "{}: the ledger cannot be written: {why}; give another --ledger",
            path.display()
        )
    };
    if path.exists() {
        std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| cannot(format!("the file does not open for writing ({e})")))?;
    }
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map_or("ledger".into(), |n| n.to_string_lossy());
    let probe = folder.join(format!(".{name}.write-check-{}", std::process::id()));
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => Err(cannot(format!(
            "its folder {} takes no new file ({e}), and SQLite keeps its journal files beside the ledger",
            folder.display()
        ))),
    }
}

/// The games of run `id`, in game order.
fn stored_games(conn: &Connection, id: &str) -> rusqlite::Result<Vec<StoredGame>> {
    let mut query = conn.prepare(
        "SELECT game, pair, black, white, score, termination, forfeit_by, time_ms_black, \
         time_ms_white FROM games WHERE run_id = ?1 ORDER BY game",
    )?;
    let rows = query.query_map(params![id], |row| {
        Ok(StoredGame {
            game: row.get(0)?,
            pair: row.get(1)?,
            black: row.get(2)?,
            white: row.get(3)?,
            score: row.get(4)?,
            termination: row.get(5)?,
            forfeit_by: row.get(6)?,
            time_ms_black: row.get(7)?,
            time_ms_white: row.get(8)?,
        })
    })?;
    rows.collect()
}

/// Refuse a file that is not this harness's ledger, or one of a newer harness, reading it
/// only: the file is left byte for byte as it was.
fn check_kind(path: &Path) -> anyhow::Result<()> {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .with_context(|| format!("{}: cannot open the ledger", path.display()))?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    let not_a_ledger = || {
        anyhow::anyhow!(
            "{}: not a ledger of this harness (an SQLite file of something else, or not SQLite); give another --ledger (the file was not changed)",
            path.display()
        )
    };
    let version: i64 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .map_err(|_| not_a_ledger())?;
    let tables: i64 = conn
        .query_row("SELECT COUNT(*) FROM sqlite_master", [], |r| r.get(0))
        .map_err(|_| not_a_ledger())?;
    if version == 0 && tables == 0 {
        // An empty database: a ledger another process is making at this moment, which
        // `migrate` waits for under the write lock.
        return Ok(());
    }
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

/// Switch the ledger to WAL mode. Switching needs the file to itself, and SQLite answers
/// "busy" at once (without its busy handler) while another process opens or switches it, so
/// that is tried again until the busy timeout; a ledger already in WAL mode is left as it is.
fn use_wal(conn: &Connection) -> rusqlite::Result<()> {
    let started = std::time::Instant::now();
    loop {
        let mode: rusqlite::Result<String> =
            conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0));
        match mode {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy
                    && started.elapsed() < BUSY_TIMEOUT =>
            {
                std::thread::park_timeout(Duration::from_millis(10));
            }
            other => return other.map(drop),
        }
    }
}
