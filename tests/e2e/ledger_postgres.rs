//! The results ledger on a real PostgreSQL server (Debian's package, a new cluster per test),
//! beyond the promises every store keeps (`ledger_store.rs` runs those on PostgreSQL too): a
//! server that cannot be reached, a database whose tables share a name with the ledger's, the
//! password kept out of every file and line, PostgreSQL's password file, eight writers at once,
//! games taken while the run plays (and said so at its end), a server that goes away mid-run,
//! and `serve --ledger`.

use crate::ledger::{eight_writers, play, runs};
use crate::support::postgres::PASSWORD;
use crate::support::{
    artifacts, engine, harness, http_get, s, spawn_harness, PostgresServer, TempDir, TournamentFile,
};
use std::path::Path;
use std::time::{Duration, Instant};

/// Every file under `dir`, read as bytes: none holds `secret`.
fn assert_nowhere(dir: &Path, secret: &str) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            assert_nowhere(&path, secret);
        } else {
            let bytes = std::fs::read(&path).unwrap();
            let found = bytes.windows(secret.len()).any(|w| w == secret.as_bytes());
            assert!(!found, "the password is in {}", path.display());
        }
    }
}

/// Refused before the first game (no server, a database with a `runs` table of something
/// else: exit 2, nothing played, the database unchanged); a run, the same folder again, shards
/// then their merge: the password in no file or line; PostgreSQL's password file instead of a
/// password in the URL; `ledger stats` as `harness stats`.
#[test]
fn a_team_ledger_on_postgresql() {
    let dir = TempDir::new("ledger-pg");
    let Some(pg) = PostgresServer::start("a_team_ledger_on_postgresql", &dir) else {
        return;
    };
    let unreachable = play(
        dir.path(),
        "--pairs 1 --out a --ledger postgres://postgres@127.0.0.1:1/arena",
    );
    unreachable
        .assert_error()
        .assert_stderr_has(&["cannot reach"]);
    pg.psql("postgres", "CREATE DATABASE other");
    pg.psql(
        "other",
        "CREATE TABLE runs (x INTEGER); INSERT INTO runs VALUES (7)",
    );
    let other = play(
        dir.path(),
        &format!("--pairs 1 --out a --ledger {}", pg.url("other")),
    );
    other.assert_error().assert_stderr_has(&["not a ledger"]);
    assert!(!dir.join("a/games.jsonl").exists(), "a game was played");
    assert_eq!(pg.psql("other", "SELECT x FROM runs"), "7");
    assert_eq!(pg.psql("other", "SELECT to_regclass('meta') IS NULL"), "t");
    pg.psql("postgres", "CREATE DATABASE arena");
    let url = pg.url("arena");
    let recorded = play(dir.path(), &format!("--pairs 2 --out a --ledger {url}"));
    recorded.assert_success();
    assert!(
        recorded.stdout.contains("recorded (4 games, 4 new)"),
        "{recorded}"
    );
    assert!(
        recorded.stdout.contains("postgres:***@127.0.0.1"),
        "{recorded}"
    );
    for text in [&recorded.stdout, &recorded.stderr] {
        assert!(!text.contains(PASSWORD), "{recorded}");
    }
    assert_nowhere(&dir.join("a"), PASSWORD);
    let again = harness(dir.path(), &["ledger", "add", "a", "--ledger", &url]);
    assert!(again.stdout.contains("4 games, 0 new"), "{again}");
    let merged = {
        for i in 0..2 {
            play(
                dir.path(),
                &format!("--pairs 2 --out sh --shard {i}/2 --ledger {url}"),
            )
            .assert_success();
        }
        harness(dir.path(), &["merge", "sh", "--ledger", &url])
    };
    assert!(
        merged.stdout.contains("recorded (4 games, 0 new)"),
        "{merged}"
    );
    assert_nowhere(&dir.join("sh"), PASSWORD);

    // No password in the URL: PostgreSQL's password file gives it, or the server refuses.
    let pgpass = dir.write(
        "pgpass",
        &format!("127.0.0.1:{}:arena:postgres:{PASSWORD}\n", pg.port),
    );
    std::fs::set_permissions(&pgpass, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let bare = format!("postgres://postgres@127.0.0.1:{}/arena", pg.port);
    let listed = |passfile: &Path| {
        let mut cmd = std::process::Command::new(&artifacts().harness);
        cmd.args(["ledger", "runs", "--json", "--ledger", &bare])
            .env("PGPASSFILE", passfile)
            .current_dir(dir.path());
        crate::support::run_with_timeout(cmd, crate::support::HARNESS_TIMEOUT)
    };
    let with_file = listed(&pgpass);
    with_file.assert_success();
    assert_eq!(with_file.stdout.lines().count(), 2, "{with_file}");
    listed(&dir.join("none"))
        .assert_error()
        .assert_stderr_has(&["password"]);

    let listed = runs(dir.path(), &url);
    assert!(listed.iter().all(|r| r["games"] == 4), "{listed:?}");
    let id = std::fs::read_to_string(dir.join("a/run-id")).unwrap();
    let from_ledger = harness(
        dir.path(),
        &["ledger", "stats", id.trim(), "--ledger", &url],
    );
    from_ledger.assert_success();
    let from_folder = harness(dir.path(), &["stats", "a"]);
    assert!(
        from_folder.stdout.starts_with(&from_ledger.stdout),
        "{from_ledger}\n{from_folder}"
    );
}

/// Eight processes add eight folders into one PostgreSQL ledger at once: every game once.
#[test]
fn eight_writers_into_postgresql() {
    let dir = TempDir::new("ledger-pg-concurrent");
    let Some(pg) = PostgresServer::start("eight_writers_into_postgresql", &dir) else {
        return;
    };
    eight_writers(&dir, &pg.url("postgres"));
}

/// A run with a PostgreSQL ledger: its games are in the ledger while it plays; the server stops
/// mid-run; the run still plays every game and exits 0, saying loudly that the ledger was not
/// written; once the server is back, `ledger add` records the rest.
#[test]
fn a_server_that_goes_away_mid_run() {
    let dir = TempDir::new("ledger-pg-lost");
    let Some(pg) = PostgresServer::start("a_server_that_goes_away_mid_run", &dir) else {
        return;
    };
    let url = pg.url("postgres");
    let a = artifacts();
    let toml = TournamentFile::new("match", 12, "move-time = 0.05")
        .engine(engine("greedy", s(&a.greedy), ""))
        .engine(engine("heuristic", s(&a.heuristic), ""))
        .text();
    dir.write("t.toml", &toml);
    let child = spawn_harness(
        dir.path(),
        &["run", "t.toml", "--no-tui", "--ledger", &url],
        true,
    );
    let started = Instant::now();
    let streamed = loop {
        // Until the run has made the ledger, reading it is an error (reads never make one).
        let listed = harness(dir.path(), &["ledger", "runs", "--json", "--ledger", &url]);
        let games = listed.stdout.lines().next().map_or(0, |l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["games"]
                .as_u64()
                .unwrap()
        });
        if games > 0 {
            break games;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no game in the ledger"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(streamed < 24, "the run ended before the server stopped");
    pg.stop();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("THE LEDGER WAS NOT WRITTEN"), "{stderr}");
    assert!(!stderr.contains(PASSWORD), "{stderr}");
    let journal = std::fs::read_to_string(dir.join("out/games.jsonl")).unwrap();
    assert_eq!(journal.lines().count(), 24);
    pg.resume();
    let held = runs(dir.path(), &url)[0]["games"].as_u64().unwrap();
    assert!(
        held < 24,
        "the ledger has every game though the server went away"
    );
    let caught_up = harness(dir.path(), &["ledger", "add", "out", "--ledger", &url]);
    caught_up.assert_success();
    assert!(
        caught_up
            .stdout
            .contains(&format!("24 games, {} new", 24 - held)),
        "{caught_up} after {held} held"
    );
    assert_eq!(runs(dir.path(), &url)[0]["games"], 24);
}

/// A run that a PostgreSQL ledger follows while it plays says, at its end, how many of its
/// games were added while it played and how many then; none are called new twice, and every
/// game is in the ledger once.
#[test]
fn a_followed_run_says_which_games_it_added_while_it_played() {
    let dir = TempDir::new("ledger-pg-followed");
    let Some(pg) = PostgresServer::start(
        "a_followed_run_says_which_games_it_added_while_it_played",
        &dir,
    ) else {
        return;
    };
    let url = pg.url("postgres");
    let a = artifacts();
    // Long enough (several seconds) for the follower's looks every 2 s to find games.
    let toml = TournamentFile::new("match", 4, "move-time = 0.05")
        .concurrency(1)
        .engine(engine("greedy", s(&a.greedy), ""))
        .engine(engine("heuristic", s(&a.heuristic), ""))
        .text();
    dir.write("t.toml", &toml);
    let run = harness(dir.path(), &["run", "t.toml", "--no-tui", "--ledger", &url]);
    run.assert_success();
    let line = run
        .stdout
        .lines()
        .find(|l| l.contains("recorded ("))
        .unwrap_or_else(|| panic!("no recorded line:\n{run}"));
    let numbers: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    assert!(
        line.contains("8 games, ") && line.contains("added while it played"),
        "{line}"
    );
    // `… recorded (8 games, F added while it played, E at its end)`: F + E = 8.
    let (followed, at_end) = (numbers[numbers.len() - 2], numbers[numbers.len() - 1]);
    assert_eq!(followed + at_end, 8, "{line}");
    assert_eq!(runs(dir.path(), &url)[0]["games"], 8);
}

/// `harness serve --ledger postgres://…`: the history page is built off the web server's
/// runtime (the synchronous client inside it panicked), twice, and a ledger that stops
/// answering is a 503 that names it, with the server still up.
#[test]
fn serve_shows_a_postgresql_ledgers_history() {
    let dir = TempDir::new("ledger-pg-serve");
    let Some(pg) = PostgresServer::start("serve_shows_a_postgresql_ledgers_history", &dir) else {
        return;
    };
    let url = pg.url("postgres");
    play(dir.path(), &format!("--pairs 1 --out a --ledger {url}")).assert_success();
    let (_server, base) = crate::web::start_serving(
        dir.path(),
        &["serve", "a", "--bind", "127.0.0.1:0", "--ledger", &url],
    );
    for _ in 0..2 {
        let (status, _, page) = http_get(&format!("{base}history"), &[], 1 << 22);
        assert_eq!(status, 200, "{page}");
        assert!(
            page.contains("Elo over commits") && page.contains("<svg"),
            "{page}"
        );
    }
    pg.stop();
    let (status, _, page) = http_get(&format!("{base}history"), &[], 1 << 22);
    assert_eq!(status, 503, "{page}");
    assert!(
        page.contains("the ledger") && !page.contains(PASSWORD),
        "{page}"
    );
    let (status, _, _) = http_get(&base, &[], 1 << 22);
    assert_eq!(status, 200, "the server is still up");
    pg.resume();
}
