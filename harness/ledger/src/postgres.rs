//! A team's ledger: the same tables in a PostgreSQL database, shared by a fleet of CI runners.
//!
//! The database says what it is in its `meta` table (`kind` = [`KIND`], `schema_version`).
//! Opening takes a transaction-scoped advisory lock, so that runners starting at once migrate
//! one at a time, and checks before it writes: a database whose tables are something else's,
//! or whose ledger a newer harness wrote, is refused and left as it was. A run is added in one
//! transaction; its games go in one statement per chunk (arrays unnested server-side) with
//! `ON CONFLICT DO NOTHING` on (run, game), so a game is there once however often, and from
//! however many processes, its folder is added. The order runs were first recorded in is the
//! `seq` column. Connections are plain TCP or a Unix socket (no TLS): a password comes from the
//! URL, `HARNESS_LEDGER`, or PostgreSQL's own password file ([`super::pgpass`]).

use super::entry::RunEntry;
use super::history::{EngineSeen, GameSeen};
use super::store::{
    conditions_json, forfeited, options_json, outcome, refuse_conflicts, EngineRow, LedgerStore,
    RunRow, StoredGame, KIND,
};
use super::url::PostgresUrl;
use super::Access;
use anyhow::{bail, Context};
use harness_core::plan::config::Build;
use harness_core::record::GameRecord;
use postgres::config::Host;
use postgres::{Client, Config, NoTls, Transaction};
use std::time::Duration;

/// How long opening a connection may take before the ledger counts as unreachable, unless the
/// URL sets `connect_timeout`.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The advisory lock key that serialises opening (and migrating) one database's ledger.
const OPEN_LOCK: i64 = 0x006f_7468_656c_6c6f; // "othello" in ASCII

/// Games per insert statement.
const CHUNK: usize = 5_000;

pub use super::store::SCHEMA_VERSION;

/// The schema, one migration per version: migration `i` takes a ledger from version `i` to
/// `i + 1`. The same tables as the SQLite ledger, with `seq` for the order recorded; the first
/// also says what the database is.
fn migrations() -> [String; SCHEMA_VERSION as usize] {
    [super::store::tables_v1("seq BIGSERIAL UNIQUE,", "TIMESTAMPTZ")
        + "ALTER TABLE runs ALTER COLUMN recorded SET DEFAULT now();\n"
        + &format!("INSERT INTO meta (key, value) VALUES ('kind', '{KIND}'), ('schema_version', '0');\n")]
}

/// An open PostgreSQL ledger.
pub struct PostgresLedger {
    client: Client,
}

impl PostgresLedger {
    /// Connect to the database `url` names and make sure it holds a ledger this harness can
    /// read, or (`Access::Write`) write: made in a database with no table, migrated in an
    /// older one, and its tables' privileges checked.
    pub fn open(url: &PostgresUrl, access: Access) -> anyhow::Result<PostgresLedger> {
        let shown = url.to_string();
        let config = connection_config(url).with_context(|| format!("{shown}: a bad URL"))?;
        let client = config
            .connect(NoTls)
            .with_context(|| format!("{shown}: cannot reach the ledger's server"))?;
        let mut ledger = PostgresLedger { client };
        ledger
            .prepare(access)
            .with_context(|| format!("{shown}: cannot prepare the ledger"))?;
        if access == Access::Write {
            ledger
                .check_writable()
                .with_context(|| format!("{shown}: the ledger cannot be written"))?;
        }
        Ok(ledger)
    }

    /// Refuse a ledger whose tables this user may not write, naming what is missing.
    fn check_writable(&mut self) -> anyhow::Result<()> {
        let row = self.client.query_one(
            "SELECT current_user::TEXT, has_table_privilege('runs', 'INSERT, UPDATE'), \
             has_table_privilege('engines', 'INSERT, UPDATE'), \
             has_table_privilege('games', 'INSERT')",
            &[],
        )?;
        let user: String = row.get(0);
        let missing: Vec<&str> = [
            (row.get::<_, bool>(1), "INSERT and UPDATE on runs"),
            (row.get::<_, bool>(2), "INSERT and UPDATE on engines"),
            (row.get::<_, bool>(3), "INSERT on games"),
        ]
        .into_iter()
        .filter(|(granted, _)| !granted)
        .map(|(_, what)| what)
        .collect();
        anyhow::ensure!(
            missing.is_empty(),
            "the user {user} may not write the ledger's tables (no {}); grant it, or give another --ledger",
            missing.join(", no ")
        );
        Ok(())
    }

    /// Check what the database holds, then bring its schema to [`SCHEMA_VERSION`], all under
    /// the advisory lock.
    fn prepare(&mut self, access: Access) -> anyhow::Result<()> {
        let mut tx = self.client.transaction()?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&OPEN_LOCK])?;
        let mut version = schema_version(&mut tx)?;
        if version == 0 && access == Access::Read {
            bail!(
                "no such ledger: the database holds none yet; a reading command never makes one: `harness run --ledger` or `harness ledger add` does"
            );
        }
        if version > SCHEMA_VERSION {
            bail!(
                "a ledger of schema version {version}, written by a newer harness (this one knows up to {SCHEMA_VERSION}); upgrade the harness (the database was not changed)"
            );
        }
        while version < SCHEMA_VERSION {
            tx.batch_execute(&migrations()[version as usize])?;
            version += 1;
            tx.execute(
                "UPDATE meta SET value = $1 WHERE key = 'schema_version'",
                &[&version.to_string()],
            )?;
        }
        tx.commit()?;
        Ok(())
    }
}

/// The schema version of the ledger in the database (0 for a database without one), or an
/// error for tables that belong to something else.
fn schema_version(tx: &mut Transaction) -> anyhow::Result<i64> {
    let not_a_ledger = || {
        anyhow::anyhow!(
            "not a ledger of this harness: the database has tables of something else (give another database; nothing was changed)"
        )
    };
    let present = |tx: &mut Transaction, table: &str| -> anyhow::Result<bool> {
        let row = tx.query_one("SELECT to_regclass($1) IS NOT NULL", &[&table])?;
        Ok(row.get(0))
    };
    if !present(tx, "meta")? {
        // A ledger is made only in a database whose schema holds no table at all.
        let tables: Vec<String> = tx
            .query(
                "SELECT table_name::TEXT FROM information_schema.tables \
                 WHERE table_schema = current_schema() ORDER BY table_name LIMIT 6",
                &[],
            )?
            .iter()
            .map(|r| r.get(0))
            .collect();
        if !tables.is_empty() {
            bail!(
                "not a ledger of this harness: the database has tables of something else ({}{}) and no ledger; give an empty database (nothing was changed)",
                tables[..tables.len().min(5)].join(", "),
                if tables.len() > 5 { ", …" } else { "" }
            );
        }
        return Ok(0);
    }
    let rows = tx
        .query("SELECT key, value FROM meta", &[])
        .map_err(|_| not_a_ledger())?;
    let value = |key: &str| {
        rows.iter()
            .find(|r| r.try_get::<_, String>(0).ok().as_deref() == Some(key))
            .and_then(|r| r.try_get::<_, String>(1).ok())
    };
    if value("kind").as_deref() != Some(KIND) {
        return Err(not_a_ledger());
    }
    value("schema_version")
        .and_then(|v| v.parse().ok())
        .ok_or_else(not_a_ledger)
}

/// The connection settings of `url`, with what libpq would default: a Unix socket of
/// Debian's server (else localhost) without a host, the login name without a user, a
/// connection timeout, and a password from PostgreSQL's password file without one.
fn connection_config(url: &PostgresUrl) -> anyhow::Result<Config> {
    let mut config = url.settings().clone();
    if config.get_hosts().is_empty() && config.get_hostaddrs().is_empty() {
        // A host that starts with `/` is the folder of a Unix socket to the client.
        config.host(harness_os::postgres_socket_folder().unwrap_or("localhost"));
    }
    if config.get_user().is_none() {
        let user = std::env::var("PGUSER")
            .or_else(|_| std::env::var("USER"))
            .context(
                "no user in the URL (postgres://USER@HOST/DB), and neither PGUSER nor USER is set",
            )?;
        config.user(&user);
    }
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    if config.get_password().is_none() {
        let host = match config.get_hosts().first() {
            Some(Host::Tcp(name)) => name.clone(),
            _ => "localhost".to_string(),
        };
        let port = config.get_ports().first().copied().unwrap_or(5432);
        let user = config.get_user().unwrap_or_default().to_string();
        let db = config.get_dbname().unwrap_or(&user).to_string();
        if let Some(password) = super::pgpass::lookup(&host, port, &db, &user) {
            config.password(password);
        }
    }
    config.application_name("othello-harness");
    Ok(config)
}

/// The games of run `id`, in game order.
fn stored_games(
    client: &mut impl postgres::GenericClient,
    id: &str,
) -> Result<Vec<StoredGame>, postgres::Error> {
    Ok(client
        .query(
            "SELECT game, pair, black, white, score, termination, forfeit_by, time_ms_black, \
             time_ms_white FROM games WHERE run_id = $1 ORDER BY game",
            &[&id],
        )?
        .iter()
        .map(|row| StoredGame {
            game: row.get(0),
            pair: row.get(1),
            black: row.get(2),
            white: row.get(3),
            score: row.get::<_, i64>(4) as i32,
            termination: row.get(5),
            forfeit_by: row.get(6),
            time_ms_black: row.get(7),
            time_ms_white: row.get(8),
        })
        .collect())
}

impl LedgerStore for PostgresLedger {
    fn add(&mut self, run: &RunEntry) -> anyhow::Result<usize> {
        let mut tx = self.client.transaction()?;
        let stored = stored_games(&mut tx, &run.id)?;
        refuse_conflicts(run, &stored)?;
        tx.execute(
            "INSERT INTO runs (id, folder, host, harness_version, source, format, conditions, \
             sprt, verdict, planned_games, tournament) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) \
             ON CONFLICT (id) DO UPDATE SET verdict = COALESCE(EXCLUDED.verdict, runs.verdict), \
             folder = CASE WHEN EXCLUDED.verdict IS NOT NULL THEN EXCLUDED.folder \
             ELSE runs.folder END, \
             planned_games = GREATEST(runs.planned_games, EXCLUDED.planned_games), \
             tournament = CASE WHEN EXCLUDED.planned_games >= runs.planned_games \
             AND (EXCLUDED.verdict IS NOT NULL OR runs.verdict IS NULL) \
             THEN EXCLUDED.tournament ELSE runs.tournament END",
            &[
                &run.id,
                &run.folder,
                &run.host,
                &run.harness_version,
                &run.source,
                &run.format,
                &run.conditions,
                &run.sprt,
                &run.verdict,
                &(run.planned_games as i64),
                &run.tournament,
            ],
        )?;
        for e in &run.engines {
            tx.execute(
                "INSERT INTO engines (run_id, idx, name, digest, options, bench, build_commit, \
                 build_ref, build_date, build_label) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
                 ON CONFLICT (run_id, idx) DO UPDATE SET name = EXCLUDED.name, \
                 digest = EXCLUDED.digest, options = EXCLUDED.options, bench = EXCLUDED.bench, \
                 build_commit = EXCLUDED.build_commit, build_ref = EXCLUDED.build_ref, \
                 build_date = EXCLUDED.build_date, build_label = EXCLUDED.build_label",
                &[
                    &run.id,
                    &(e.index as i64),
                    &e.name,
                    &e.digest,
                    &e.options,
                    &e.bench.map(|b| b as i64),
                    &e.build.commit,
                    &e.build.git_ref,
                    &e.build.date,
                    &e.build.label,
                ],
            )?;
        }
        let insert = tx.prepare(
            "INSERT INTO games (run_id, game, pair, black, white, score, termination, \
             forfeit_by, time_ms_black, time_ms_white) \
             SELECT $1, * FROM UNNEST($2::BIGINT[], $3::BIGINT[], $4::TEXT[], $5::TEXT[], \
             $6::BIGINT[], $7::TEXT[], $8::TEXT[], $9::BIGINT[], $10::BIGINT[]) \
             ON CONFLICT (run_id, game) DO NOTHING",
        )?;
        let mut added = 0;
        for chunk in run.games.chunks(CHUNK) {
            let column = |f: fn(&super::entry::GameEntry) -> i64| -> Vec<i64> {
                chunk.iter().map(f).collect()
            };
            let text = |f: fn(&super::entry::GameEntry) -> &String| -> Vec<&str> {
                chunk.iter().map(|g| f(g).as_str()).collect()
            };
            let forfeit_by: Vec<Option<&str>> =
                chunk.iter().map(|g| g.forfeit_by.as_deref()).collect();
            added += tx.execute(
                &insert,
                &[
                    &run.id,
                    &column(|g| g.game as i64),
                    &column(|g| g.pair as i64),
                    &text(|g| &g.black),
                    &text(|g| &g.white),
                    &column(|g| g.score),
                    &text(|g| &g.termination),
                    &forfeit_by,
                    &column(|g| g.time_ms_black as i64),
                    &column(|g| g.time_ms_white as i64),
                ],
            )? as usize;
        }
        tx.commit()?;
        Ok(added)
    }

    fn runs(&mut self) -> anyhow::Result<Vec<RunRow>> {
        let rows = self.client.query(
            "SELECT r.id, to_char(r.recorded AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), \
             r.folder, r.source, r.conditions, \
             (SELECT COUNT(*) FROM games g WHERE g.run_id = r.id), r.planned_games, r.verdict \
             FROM runs r ORDER BY r.seq",
            &[],
        )?;
        let mut runs: Vec<RunRow> = rows
            .iter()
            .map(|row| RunRow {
                id: row.get(0),
                recorded: row.get(1),
                folder: row.get(2),
                source: row.get(3),
                conditions: conditions_json(row.get(4)),
                games: row.get::<_, i64>(5) as u64,
                planned_games: row.get::<_, i64>(6) as u64,
                verdict: row
                    .get::<_, Option<String>>(7)
                    .and_then(|v| serde_json::from_str(&v).ok()),
                engines: Vec::new(),
                shards: None,
                repeated_openings: None,
            })
            .collect();
        let engines = self.client.prepare(
            "SELECT name, digest, options, build_commit, build_ref, build_date, build_label \
             FROM engines WHERE run_id = $1 ORDER BY idx",
        )?;
        for run in &mut runs {
            run.engines = self
                .client
                .query(&engines, &[&run.id])?
                .iter()
                .map(|row| EngineRow {
                    name: row.get(0),
                    digest: row.get(1),
                    options: options_json(row.get(2)),
                    build: Build {
                        commit: row.get(3),
                        git_ref: row.get(4),
                        date: row.get(5),
                        label: row.get(6),
                    },
                })
                .collect();
        }
        Ok(runs)
    }

    fn run(&mut self, id: &str) -> anyhow::Result<Option<(String, Vec<GameRecord>)>> {
        let Some(tournament_json) = self
            .client
            .query_opt("SELECT tournament FROM runs WHERE id = $1", &[&id])?
        else {
            return Ok(None);
        };
        let mut games: Vec<GameRecord> = stored_games(&mut self.client, id)?
            .into_iter()
            .map(StoredGame::into_record)
            .collect::<anyhow::Result<_>>()?;
        let tournament_json: String = tournament_json.get(0);
        super::store::place_openings(&tournament_json, &mut games);
        Ok(Some((tournament_json, games)))
    }

    fn history_input(&mut self) -> anyhow::Result<(Vec<EngineSeen>, Vec<GameSeen>)> {
        let engines = self
            .client
            .query(
                "SELECT r.id, r.seq, r.conditions, e.idx, e.name, e.digest, e.options, \
                 e.build_commit, e.build_ref, e.build_date, e.build_label, r.verdict, r.sprt \
                 FROM engines e JOIN runs r ON r.id = e.run_id ORDER BY r.seq, e.idx",
                &[],
            )?
            .iter()
            .map(|row| EngineSeen {
                run_id: row.get(0),
                recorded: row.get(1),
                conditions: row.get(2),
                name: row.get(4),
                digest: row.get(5),
                options: row.get(6),
                build: Build {
                    commit: row.get(7),
                    git_ref: row.get(8),
                    date: row.get(9),
                    label: row.get(10),
                },
                verdict: outcome(row.get(3), row.get(11), row.get(12)),
            })
            .collect();
        let games = self
            .client
            .query(
                "SELECT run_id, pair, black, white, score, termination FROM games",
                &[],
            )?
            .iter()
            .map(|row| {
                Ok(GameSeen {
                    run_id: row.get(0),
                    pair: row.get::<_, i64>(1) as u64,
                    black: row.get(2),
                    white: row.get(3),
                    score: row.get::<_, i64>(4) as i32,
                    forfeit: forfeited(row.get(5))?,
                })
            })
            .collect::<anyhow::Result<_>>()?;
        Ok((engines, games))
    }
}
