//! One suite of what every ledger store promises, run against each store the harness has: an
//! SQLite file, and a real PostgreSQL server started by the test. A store joins by giving the
//! suite its kinds of location ([`Store`]); the steps and their checks are the same for all.
//!
//! The promises: a run recorded once however often it is added; shards without the run's
//! verdict until their merge is recorded, every game once; two folders with one run id and
//! other games refused, naming the games; something that is not a ledger refused by a write
//! and by a read, and left as it was; a ledger this user may not write refused before the
//! first game; reading commands that never make a ledger.

use crate::ledger::{conflicting_games_are_refused, play, runs};
use crate::support::user::{unprivileged, User};
use crate::support::{harness, s, PostgresServer, TempDir};
use serde_json::Value;
use std::process::Command;

/// A store under test, and how the suite makes each kind of location in it.
enum Store<'a> {
    Sqlite,
    Postgres(&'a PostgresServer),
}

impl Store<'_> {
    /// A new, empty location named `name` that writes make a ledger of.
    fn fresh(&self, dir: &TempDir, name: &str) -> String {
        match self {
            Store::Sqlite => s(&dir.join(format!("{name}.db"))).to_string(),
            Store::Postgres(pg) => {
                pg.psql("postgres", &format!("CREATE DATABASE {name}"));
                pg.url(name)
            }
        }
    }

    /// A location holding a table of something else (`orders`, one row).
    fn foreign(&self, dir: &TempDir, name: &str) -> String {
        let sql = "CREATE TABLE orders (x INTEGER); INSERT INTO orders VALUES (7)";
        match self {
            Store::Sqlite => {
                let path = dir.join(format!("{name}.db"));
                let status = Command::new("python3")
                    .args([
                        "-c",
                        &format!(
                            "import sqlite3; c = sqlite3.connect({:?}); c.executescript({sql:?}); \
                             c.commit()",
                            s(&path)
                        ),
                    ])
                    .status()
                    .expect("python3 runs");
                assert!(status.success(), "python3's sqlite3 made {name}");
                s(&path).to_string()
            }
            Store::Postgres(pg) => {
                let url = self.fresh(dir, name);
                pg.psql(name, sql);
                url
            }
        }
    }

    /// What a location holds, to tell that a refusal left it as it was: the file's bytes, or
    /// the database's tables and the rows of `orders`.
    fn contents(&self, url: &str, name: &str) -> Vec<u8> {
        match self {
            Store::Sqlite => std::fs::read(url).unwrap_or_default(),
            Store::Postgres(pg) => {
                let tables = pg.psql(
                    name,
                    "SELECT coalesce(string_agg(table_name, ',' ORDER BY table_name), '') \
                     FROM information_schema.tables WHERE table_schema = 'public'",
                );
                let rows = if tables.contains("orders") {
                    pg.psql(name, "SELECT string_agg(x::TEXT, ',') FROM orders")
                } else {
                    String::new()
                };
                format!("{tables}|{rows}").into_bytes()
            }
        }
    }

    /// A location with no ledger that a read names: a file that is not there, or a database
    /// with no table.
    fn missing(&self, dir: &TempDir, name: &str) -> String {
        match self {
            Store::Sqlite => s(&dir.join(format!("{name}.db"))).to_string(),
            Store::Postgres(_) => self.fresh(dir, name),
        }
    }

    /// The ledger at `url` (written already) as seen by a user who may read it and not write
    /// it, and who runs the harness (`None`: this user); `None` where no such user can be made.
    fn read_only(&self, dir: &TempDir, url: &str) -> Option<(String, Option<User>)> {
        match self {
            Store::Sqlite => {
                // Root writes any file: the refusal shows only to another user, `nobody`, who
                // reaches the suite's folder (made by [`suite_dir`]) and its staged binaries.
                let user = unprivileged()?;
                let mode = |path: &std::path::Path, bits: u32| {
                    if path.exists() {
                        let perms = std::os::unix::fs::PermissionsExt::from_mode(bits);
                        std::fs::set_permissions(path, perms).unwrap();
                    }
                };
                mode(std::path::Path::new(url), 0o444);
                for suffix in ["-wal", "-shm"] {
                    mode(std::path::Path::new(&format!("{url}{suffix}")), 0o666);
                }
                // The runs' folders must take the other user's output.
                std::fs::create_dir(dir.join("ro")).unwrap();
                mode(&dir.join("ro"), 0o777);
                Some((url.to_string(), Some(user)))
            }
            Store::Postgres(pg) => {
                let db = url.rsplit('/').next().unwrap();
                pg.psql(
                    db,
                    "CREATE ROLE reader LOGIN PASSWORD 'reader-pw'; \
                     GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader",
                );
                std::fs::create_dir(dir.join("ro")).unwrap();
                let reader = format!("postgres://reader:reader-pw@127.0.0.1:{}/{db}", pg.port);
                Some((reader, None))
            }
        }
    }
}

/// The run of `play` as `user` (none: as this user), into `out`, with `--ledger url`.
fn play_as(dir: &TempDir, user: Option<User>, url: &str, out: &str) -> crate::support::Output {
    let Some(user) = user else {
        return play(dir.path(), &format!("--pairs 1 --out {out} --ledger {url}"));
    };
    let a = user.artifacts();
    let (first, second) = (
        format!("name=mm,plugin={},Depth=2", s(&a.minimax)),
        format!("name=g,plugin={}", s(&a.greedy)),
    );
    let mut cmd = Command::new(&a.harness);
    cmd.args([
        "run", "--engine", &first, "--engine", &second, "--format", "match", "--no-tui", "--time",
        "depth=2", "--pairs", "1", "--out", out, "--ledger", url,
    ]);
    cmd.current_dir(dir.path());
    user.wrap(&mut cmd);
    crate::support::run_with_timeout(cmd, crate::support::HARNESS_TIMEOUT)
}

/// Every promise of the module docs, kept by `store`.
fn suite(store: &Store, dir: &TempDir) {
    // A run, and the same folder added again: every game once.
    let url = store.fresh(dir, "arena");
    let recorded = play(dir.path(), &format!("--pairs 2 --out a --ledger {url}"));
    recorded.assert_success();
    assert!(
        recorded.stdout.contains("recorded (4 games, 4 new)"),
        "{recorded}"
    );
    let again = harness(dir.path(), &["ledger", "add", "a", "--ledger", &url]);
    again.assert_success();
    assert!(again.stdout.contains("4 games, 0 new"), "{again}");

    // Shards, then their merge: no verdict of the run before the merge, each shard's
    // progress, every game once, and the merge's verdict after. (A shard records itself only
    // in a server's ledger; here both are added as a job array's last step would.)
    for i in 0..2 {
        let shard = play(dir.path(), &format!("--pairs 2 --out sh --shard {i}/2"));
        shard.assert_success();
    }
    harness(dir.path(), &["ledger", "add", "sh", "--ledger", &url]).assert_success();
    let sharded = std::fs::read_to_string(dir.join("sh/run-id")).unwrap();
    let shard_run = || {
        runs(dir.path(), &url)
            .into_iter()
            .find(|r| r["id"] == sharded.trim())
            .expect("the sharded run is in the ledger")
    };
    let before = shard_run();
    assert_eq!(before["verdict"], Value::Null, "{before:#}");
    assert_eq!(
        before["shards"],
        serde_json::json!([
            {"shard": "0/2", "games": 2, "planned": 2},
            {"shard": "1/2", "games": 2, "planned": 2}
        ]),
        "{before:#}"
    );
    let merged = harness(dir.path(), &["merge", "sh", "--ledger", &url]);
    assert!(
        merged.stdout.contains("recorded (4 games, 0 new)"),
        "{merged}"
    );
    let after = shard_run();
    // One folder for the run, before and after the merge, in every store: the shards'.
    let sh = std::path::absolute(dir.join("sh")).unwrap();
    for run in [&before, &after] {
        assert_eq!(run["folder"], sh.display().to_string(), "{run:#}");
    }
    assert_eq!(after["verdict"]["outcome"], "pass", "{after:#}");
    assert_eq!(after["games"], 4, "{after:#}");
    assert!(after.get("shards").is_none(), "{after:#}");

    // Two folders with one run id and other games: the second refused.
    let conflicts = TempDir::new("ledger-store-conflict");
    conflicting_games_are_refused(&conflicts, &store.fresh(dir, "conflicts"));

    // Something that is not a ledger: refused by a run (before its first game) and by a read,
    // and left as it was.
    let foreign = store.foreign(dir, "shop");
    let held = store.contents(&foreign, "shop");
    play(dir.path(), &format!("--pairs 1 --out f --ledger {foreign}"))
        .assert_error()
        .assert_stderr_has(&["not a ledger"]);
    assert!(!dir.join("f/games.jsonl").exists(), "a game was played");
    harness(dir.path(), &["ledger", "history", "--ledger", &foreign])
        .assert_error()
        .assert_stderr_has(&["not a ledger"]);
    assert_eq!(store.contents(&foreign, "shop"), held, "the store changed");

    // Reads never make a ledger.
    let missing = store.missing(dir, "typo");
    let held = store.contents(&missing, "typo");
    for read in [
        vec!["ledger", "runs", "--ledger", &missing],
        vec!["ledger", "history", "--ledger", &missing],
        vec!["ledger", "stats", "x", "--ledger", &missing],
    ] {
        harness(dir.path(), &read)
            .assert_error()
            .assert_stderr_has(&["no such ledger"]);
        assert_eq!(store.contents(&missing, "typo"), held, "{read:?} made one");
    }

    // A ledger this user may read and not write: refused before the first game; it still
    // reads.
    if let Some((read_only, user)) = store.read_only(dir, &url) {
        play_as(dir, user, &read_only, "ro/r")
            .assert_error()
            .assert_stderr_has(&["cannot be written"]);
        assert!(!dir.join("ro/r/games.jsonl").exists(), "a game was played");
        assert_eq!(runs(dir.path(), &read_only).len(), 2);
    }
}

/// The SQLite suite's folder: one that the read-only step's user can enter, `nobody`'s in the
/// staging folder where the tests run as root (`crate::support::staging`).
fn suite_dir(label: &str) -> TempDir {
    if crate::support::is_root() {
        User::Nobody.readable_dir(label)
    } else {
        TempDir::new(label)
    }
}

#[test]
fn the_ledger_store_suite_on_sqlite() {
    let dir = suite_dir("ledger-store-sqlite");
    suite(&Store::Sqlite, &dir);
}

#[test]
fn the_ledger_store_suite_on_postgresql() {
    let dir = TempDir::new("ledger-store-pg");
    let Some(pg) = PostgresServer::start("the_ledger_store_suite_on_postgresql", &dir) else {
        return;
    };
    suite(&Store::Postgres(&pg), &dir);
}
