//! The browser view (`run --serve`, `harness serve`) in a real headless Chromium, against real
//! runs: a live game's moves reach the page, the standings move when a game ends, a finished
//! game stepped to its end shows the journal's final board, a sharded run is shown merged
//! while its shards play; runs listed by name; a game's chart, scores, result and clocks as a
//! spectator reads them; the board's frame square to its grid; refusals (a non-loopback address without a token, `..` paths, an
//! unknown run, a foreign `Host`); and 50 event streams plus one that never reads while 256
//! games play at once.

use crate::support::{
    artifacts, engine, harness, http_get, read_games, s, screenshot_path, Browser, TempDir,
    TournamentFile,
};
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A harness that serves, killed when dropped (a failed test leaves no server behind).
pub struct Serving(Child, String);

impl Serving {
    /// The URL the harness printed.
    pub fn printed(&self) -> &str {
        &self.1
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The harness started with `args` in `dir`, and the server's root URL from the line it
/// printed (the served index; `run --serve` prints its run's page, `…/run/0`, kept in
/// [`Serving::printed`]). Its output after that line is drained so that it never blocks.
pub fn start_serving(dir: &Path, args: &[&str]) -> (Serving, String) {
    let mut child = Command::new(&artifacts().harness)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the harness starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let url = loop {
        let line = lines.next().expect("the URL line").unwrap();
        if line.starts_with("http://") && !line.contains(' ') {
            break line;
        }
    };
    let printed = url.clone();
    let url = url
        .strip_suffix("run/0")
        .map_or(url.clone(), str::to_string);
    std::thread::spawn(move || lines.for_each(drop));
    (Serving(child, printed), url)
}

/// A timed match of greedy against heuristic at `move_time` seconds a move (about 30 times that
/// a game), one game at a time.
fn timed_match(dir: &TempDir, pairs: usize, move_time: &str) {
    let a = artifacts();
    let toml = TournamentFile::new("match", pairs, &format!("move-time = {move_time}"))
        .concurrency(1)
        .engine(engine("greedy", s(&a.greedy), ""))
        .engine(engine("heuristic", s(&a.heuristic), ""))
        .text();
    dir.write("t.toml", &toml);
}

/// The games the run page says are done.
fn done(browser: &mut Browser) -> u64 {
    browser
        .eval("Number((document.getElementById('progress').textContent.match(/^(\\d+) of/) || [0, -1])[1])")
        .as_u64()
        .unwrap_or(0)
}

/// `run --serve`: the run page shows the games in progress and its standings move when a game
/// ends; a live game's page keeps up with the moves played (each within a second) and its
/// clocks and engines' reports are there.
#[test]
fn a_live_run_in_the_browser() {
    let dir = TempDir::new("web-live");
    // Three pairs: on a busy machine a game may end early (a forfeit), and the run must
    // outlast the page's checks.
    timed_match(&dir, 3, "0.1");
    let (mut child, url) = start_serving(
        dir.path(),
        &["run", "t.toml", "--no-tui", "--serve=127.0.0.1:0"],
    );
    assert_eq!(
        child.printed(),
        format!("{url}run/0"),
        "run --serve prints its run's own page"
    );
    let Some(mut browser) = Browser::start("a_live_run_in_the_browser", &dir) else {
        return;
    };
    browser.goto(&format!("{url}run/0"));
    browser.wait_for(
        "document.querySelectorAll('#live .mini').length > 0",
        Duration::from_secs(20),
    );
    assert_eq!(
        browser.eval("document.getElementById('name').textContent"),
        "greedy vs heuristic",
        "the run's page is headed by its name"
    );
    let before = done(&mut browser);
    browser.wait_for(
        &format!(
            "document.getElementById('progress').textContent.startsWith('{} of')",
            before + 1
        ),
        Duration::from_secs(20),
    );
    let rows =
        browser.eval("document.querySelectorAll('#standings table.standings tbody tr').length");
    assert_eq!(rows, 1, "one pairing in the standings");
    let games =
        browser.eval("document.querySelector('#standings tbody tr td:nth-child(3)').textContent");
    assert_eq!(games.as_str(), Some(&*(before + 1).to_string()));
    browser.screenshot(1400, &screenshot_path(&dir, "web-run-1400.png"));
    browser.screenshot(800, &screenshot_path(&dir, "web-run-800.png"));

    // A live game: the page shows each ply the server has within a second. A game that ends
    // before enough plies were checked is followed by the next one.
    let mut checked = 0;
    let started = Instant::now();
    while checked < 5 && started.elapsed() < Duration::from_secs(40) {
        let (_, _, run) = http_get(&format!("{url}run/0/state"), &[], 1 << 22);
        let run: serde_json::Value = serde_json::from_str(&run).unwrap();
        let Some(game) = run["live"][0]["game"].as_u64() else {
            std::thread::sleep(Duration::from_millis(50));
            continue;
        };
        // URLs number games as the pages do: game 1 is the schedule's game 0.
        let shown = game + 1;
        browser.goto(&format!("{url}run/0/game/{shown}"));
        while checked < 5 {
            let (status, _, body) =
                http_get(&format!("{url}run/0/game/{shown}/state"), &[], 1 << 20);
            assert_eq!(status, 200);
            let state: serde_json::Value = serde_json::from_str(&body).unwrap();
            if state["finished"] == true {
                break;
            }
            let plies = state["boards"].as_array().unwrap().len() - 1;
            browser.wait_for(
                &format!("Number(document.getElementById('ply').dataset.ply) >= {plies}"),
                Duration::from_secs(1),
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 5, "only {checked} live plies checked");
    let clocks = browser.eval("document.querySelectorAll('#clocks .clock').length");
    assert_eq!(clocks, 2);
    white_reports_from_blacks_view(&mut browser);
    browser.screenshot(1400, &screenshot_path(&dir, "web-game-1400.png"));
    browser.screenshot(800, &screenshot_path(&dir, "web-game-800.png"));
    let status = child.0.wait().unwrap();
    assert_eq!(status.code(), Some(0), "run --serve exits as the run does");
    let pinned = std::fs::read_to_string(dir.join("out/tournament.json")).unwrap();
    assert!(
        !pinned.contains("--serve") && !pinned.contains("127.0.0.1:0"),
        "{pinned}"
    );
}

/// The live game shown gives White's search score from Black's view, as the page says, and as
/// its move list gives White's moves: while White is not searching, its report is its last
/// move's, so the two scores on the page are the same number (read once White has moved last
/// or the game is over, with a score that is not 0, so that a sign matters). Read from the page
/// alone, which keeps what it shows when the run and its server end.
fn white_reports_from_blacks_view(browser: &mut Browser) {
    let read = "(() => { \
        const moves = [...document.querySelectorAll('#moves .mv')]; \
        const last = moves[moves.length - 1]; \
        const white = moves.filter((b) => b.dataset.color === 'white' && / [-+]?\\d/.test(b.textContent)); \
        const report = document.querySelector('#thinking .report[data-side=white]'); \
        return { idle: !!document.getElementById('result').textContent || \
                   (!!last && last.dataset.color === 'white'), \
                 moved: white.length ? white[white.length - 1].textContent : null, \
                 report: report ? report.textContent : null }; })()";
    let started = Instant::now();
    loop {
        let shown = browser.eval(read);
        let moved = shown["moved"]
            .as_str()
            .map(|t| t.rsplit(' ').next().unwrap().to_string());
        let report = shown["report"].as_str().and_then(|t| {
            let (_, rest) = t.split_once("score ")?;
            let (score, _) = rest.split_once(" (discs, Black's view)")?;
            Some(score.to_string())
        });
        if let (true, Some(moved), Some(report)) = (shown["idle"] == true, moved, report) {
            if moved.parse::<f64>().is_ok_and(|v| v != 0.0) {
                assert_eq!(report, moved, "White's report and its last move: {shown}");
                return;
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "never a report of White's beside its last move: {shown}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `harness serve DIR --ledger URL` of a finished run: its report and the ledger's history are
/// served; a game stepped to its end (the End key) shows the journal's final board; stepping
/// back (the left arrow) shows the board before the last move.
#[test]
fn a_finished_game_stepped_through() {
    let dir = TempDir::new("web-finished");
    let a = artifacts();
    harness(
        dir.path(),
        &[
            "run",
            "--engine",
            &format!("name=mm,plugin={},Depth=2", s(&a.minimax)),
            "--engine",
            &format!("name=g,plugin={}", s(&a.greedy)),
            "--format",
            "match",
            "--no-tui",
            "--time",
            "depth=2",
            "--pairs",
            "1",
            "--out",
            "out",
        ],
    )
    .assert_success();
    let records = read_games(&dir.join("out"));
    let record = records.iter().find(|r| r.game == 1).expect("game 1");
    harness(dir.path(), &["ledger", "add", "out", "--ledger", "l.db"]).assert_success();
    harness(dir.path(), &["analyze", "out", "--from-empties", "14"]).assert_success();
    let (child, url) = start_serving(
        dir.path(),
        &["serve", "out", "--bind", "127.0.0.1:0", "--ledger", "l.db"],
    );
    let (status, _, report) = http_get(&format!("{url}run/0/report"), &[], 1 << 22);
    assert_eq!(status, 200);
    assert!(
        report.contains("Othello tournament report"),
        "the folder's report.html"
    );
    let (status, _, history) = http_get(&format!("{url}history"), &[], 1 << 22);
    assert_eq!(status, 200);
    assert!(
        history.contains("Elo over commits") && history.contains("<svg"),
        "{history}"
    );
    // Anchored where the address asks, as `ledger history --anchor` is: the series' first
    // build named back, a build the ledger lacks refused with the reason.
    let first = history
        .split("Elo against <code>")
        .nth(1)
        .and_then(|rest| rest.split("</code>, the series' first rated build").next())
        .unwrap_or_else(|| panic!("no anchor line in {history}"));
    assert!(history.contains("?anchor=BUILD</code> on this page's address picks another"));
    // A build is named as `--anchor` names it: here by its engine's name.
    let query = first.split('@').next().unwrap();
    let (status, _, anchored) = http_get(&format!("{url}history?anchor={query}"), &[], 1 << 22);
    assert_eq!(status, 200, "{anchored}");
    assert!(
        anchored.contains(&format!(
            "Elo against <code>{first}</code> (named by the page's address)"
        )),
        "{anchored}"
    );
    let (status, _, refused) =
        http_get(&format!("{url}history?anchor=no-such-build"), &[], 1 << 16);
    assert_eq!(status, 400, "{refused}");
    assert!(refused.contains("no-such-build"), "{refused}");
    // The analysis's marks: the moves that lost discs, in the snapshot and on the page.
    let lost = |game: usize| {
        let (_, _, body) = http_get(&format!("{url}run/0/game/{}/state", game + 1), &[], 1 << 22);
        let state: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            state["game"],
            game,
            "the URL's game {} is the schedule's {game}",
            game + 1
        );
        let moves = state["moves"].as_array().unwrap().clone();
        moves
            .iter()
            .filter(|m| m["loss"].as_u64().unwrap_or(0) > 0)
            .count()
    };
    let marked = (lost(0), lost(1));
    assert!(
        marked.0 + marked.1 > 0,
        "no analysed move lost a disc: {marked:?}"
    );
    let Some(mut browser) = Browser::start("a_finished_game_stepped_through", &dir) else {
        return;
    };
    assert_eq!(
        http_get(&format!("{url}run/0/game/0"), &[], 1 << 16).0,
        404,
        "no game 0"
    );
    browser.goto(&format!("{url}run/0/game/1"));
    browser.wait_for(
        "document.getElementById('title').textContent.startsWith('game 1: ')",
        Duration::from_secs(10),
    );
    browser.wait_for(
        "document.querySelector('#board .board')",
        Duration::from_secs(10),
    );
    assert_eq!(
        browser.eval("document.querySelectorAll('.mv.lost').length"),
        marked.0
    );
    browser.goto(&format!("{url}run/0/game/2"));
    browser.wait_for(
        "document.querySelector('#board .board')",
        Duration::from_secs(10),
    );
    browser.key("Home");
    assert_eq!(
        browser.eval("document.getElementById('ply').dataset.ply"),
        "0"
    );
    browser.key("End");
    let plies = record.moves.len();
    assert_eq!(
        browser.eval("document.getElementById('ply').dataset.ply"),
        plies.to_string().as_str()
    );
    let squares = browser.eval("document.querySelector('#board .board').dataset.squares");
    let squares = squares.as_str().unwrap();
    let count = |c: char| squares.chars().filter(|&x| x == c).count() as u32;
    assert_eq!(
        (count('X'), count('O')),
        (record.discs.black, record.discs.white)
    );
    assert_eq!(squares, final_board(record));
    browser.key("ArrowLeft");
    assert_eq!(
        browser.eval("document.getElementById('ply').dataset.ply"),
        (plies - 1).to_string().as_str()
    );
    drop(child);
}

/// The journal's final board of `record`: its start with its moves played.
fn final_board(record: &harness_core::record::GameRecord) -> String {
    let mut position: othello_board::Position = record.start.parse().expect("a start position");
    for m in &record.moves {
        let mv: othello_board::Move = m.mv.parse().expect("a move");
        position = position.play(mv).expect("a legal move");
    }
    position.squares_string()
}

/// `harness serve` of a sharded run's folder shows both shards' games, merged, while they
/// play.
#[test]
fn a_sharded_run_followed_while_it_plays() {
    let dir = TempDir::new("web-shards");
    timed_match(&dir, 4, "0.05");
    let mut shards: Vec<Child> = (0..2)
        .map(|i| {
            crate::support::spawn_harness(
                dir.path(),
                &["run", "t.toml", "--no-tui", "--shard", &format!("{i}/2")],
                false,
            )
        })
        .collect();
    let (server, url) = start_serving(dir.path(), &["serve", "out", "--bind", "127.0.0.1:0"]);
    let Some(mut browser) = Browser::start("a_sharded_run_followed_while_it_plays", &dir) else {
        return;
    };
    browser.goto(&format!("{url}run/0"));
    let journal = |i: usize| {
        std::fs::read_to_string(dir.join(format!("out/shard-{i}-of-2/games.jsonl")))
            .map_or(0, |t| t.lines().count())
    };
    let started = Instant::now();
    let seen = loop {
        let (a, b) = (journal(0), journal(1));
        if a > 0 && b > 0 && done(&mut browser) as usize >= a + b {
            break (a, b, done(&mut browser));
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "never both shards' games"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    let running = shards
        .iter_mut()
        .map(|shard| shard.try_wait().unwrap().is_none())
        .filter(|&still_playing| still_playing)
        .count();
    let total = browser.eval("document.getElementById('progress').textContent");
    assert!(total.as_str().unwrap().contains(" of 8 games"), "{total}");
    for mut shard in shards {
        assert!(shard.wait().unwrap().success());
    }
    assert_eq!(
        running, 2,
        "a shard had finished before the page showed both shards' games: {seen:?}"
    );
    assert!(
        seen.2 < 8,
        "the shards had finished before the page showed them: {seen:?}"
    );
    browser.wait_for(
        "document.getElementById('progress').textContent.startsWith('8 of 8')",
        Duration::from_secs(10),
    );
    drop(server);
}

/// Refused: a non-loopback address without a token (exit 2, nothing played); without the
/// token a page is not shown, with it (then with its cookie) it is; a `..` path, an unknown
/// run, a foreign `Host`.
#[test]
fn refusals_of_the_browser_view() {
    let dir = TempDir::new("web-refusals");
    timed_match(&dir, 1, "0.05");
    let refused = harness(
        dir.path(),
        &["run", "t.toml", "--no-tui", "--serve=0.0.0.0:0"],
    );
    refused.assert_error().assert_stderr_has(&["--token"]);
    assert!(!dir.join("out/games.jsonl").exists(), "a game was played");
    std::fs::create_dir_all(dir.join("empty")).unwrap();
    harness(dir.path(), &["serve", "empty", "--bind", "0.0.0.0:0"])
        .assert_error()
        .assert_stderr_has(&["not a loopback address"]);
    dir.write("a-file", "not a run\n");
    harness(dir.path(), &["serve", "a-file"])
        .assert_error()
        .assert_stderr_has(&["not a folder"]);

    let (child, url) = start_serving(
        dir.path(),
        &["serve", "empty", "--bind", "0.0.0.0:0", "--token", "t0ken"],
    );
    let port = url.rsplit(':').next().unwrap().trim_end_matches('/');
    let local = format!("http://127.0.0.1:{port}/");
    assert_eq!(http_get(&format!("{local}run/0"), &[], 1 << 16).0, 401);
    // The token in the URL becomes the cookie, and the page is the same URL without it.
    let (status, head, _) = http_get(&format!("{local}run/0?token=t0ken"), &[], 1 << 16);
    assert_eq!(status, 303, "{head}");
    let head = head.to_ascii_lowercase();
    assert!(head.contains("set-cookie: harness_token=t0ken"), "{head}");
    assert!(head.contains("location: /run/0\r\n"), "{head}");
    assert!(!url.contains("0.0.0.0"), "a browser cannot open {url}");
    let cookie = [("Cookie", "harness_token=t0ken")];
    assert_eq!(http_get(&format!("{local}run/0"), &cookie, 1 << 16).0, 200);
    assert_eq!(
        http_get(&format!("{local}run/0?token=wrong"), &[], 1 << 16).0,
        401
    );
    for path in [
        "run/0/../../../etc/passwd",
        "run/0/%2e%2e/%2e%2e/etc/passwd",
        "run/1",
        "run/x/state",
        "run/0/game/x",
    ] {
        let (status, _, body) = http_get(&format!("{local}{path}"), &cookie, 1 << 16);
        assert_eq!(status, 404, "{path}: {body}");
    }
    drop(child);

    // A host name binds as its address.
    let (by_name, url) = start_serving(dir.path(), &["serve", "empty", "--bind", "localhost:0"]);
    assert_eq!(http_get(&url, &[], 1 << 16).0, 200, "{url}");
    drop(by_name);
    let (child, url) = start_serving(dir.path(), &["serve", "empty", "--bind", "127.0.0.1:0"]);
    assert_eq!(http_get(&url, &[], 1 << 16).0, 200);
    let (status, _, _) = http_get(&url, &[("Host", "evil.example:80")], 1 << 16);
    assert_eq!(
        status, 421,
        "a foreign Host (DNS rebinding) is not answered"
    );
    drop(child);
}

/// 256 games at once, served, with 50 event-stream clients reading and one that connects and
/// never reads: every game is played, every reader is fed, and the harness's memory and threads
/// stay bounded. (What serving costs the run's wall time is `cargo bench -p harness --bench
/// serve`'s figure, not a test's.)
#[test]
fn fifty_viewers_and_a_stalled_one_do_not_hold_up_the_games() {
    let dir = TempDir::new("web-load");
    let a = artifacts();
    let tournament = TournamentFile::new("match", 128, "depth = 1")
        .concurrency(256)
        .engine(engine("g1", s(&a.greedy), ""))
        .engine(engine("g2", s(&a.greedy), ""));
    dir.write("t.toml", &tournament.text());
    // Not a bound on speed: a run held up for good by its viewers fails here instead of
    // hanging the suite.
    let hung = Duration::from_secs(600);
    let started = Instant::now();
    let (mut child, url) = start_serving(
        dir.path(),
        &["run", "t.toml", "--no-tui", "--serve=127.0.0.1:0"],
    );
    let address = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    let stalled = std::net::TcpStream::connect(&address).unwrap();
    std::io::Write::write_all(
        &mut &stalled,
        format!("GET /run/0/events HTTP/1.1\r\nHost: {address}\r\n\r\n").as_bytes(),
    )
    .unwrap();
    let readers: Vec<_> = (0..50)
        .map(|_| {
            let address = address.clone();
            std::thread::spawn(move || {
                let Ok(mut s) = std::net::TcpStream::connect(&address) else {
                    return 0;
                };
                let request = format!("GET /run/0/events HTTP/1.1\r\nHost: {address}\r\n\r\n");
                let _ = std::io::Write::write_all(&mut s, request.as_bytes());
                let mut total = 0;
                let mut buf = [0u8; 65536];
                while let Ok(n) = s.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    total += n;
                }
                total
            })
        })
        .collect();
    let pid = child.0.id();
    let (mut peak_kb, mut peak_threads) = (0u64, 0u64);
    let status = loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < hung,
            "the served run did not end within {hung:.0?}: its viewers held it up"
        );
        if let Ok(text) = std::fs::read_to_string(format!("/proc/{pid}/status")) {
            let figure = |key: &str| {
                text.lines()
                    .find_map(|l| l.strip_prefix(key))
                    .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
                    .unwrap_or(0)
            };
            peak_kb = peak_kb.max(figure("VmRSS:"));
            peak_threads = peak_threads.max(figure("Threads:"));
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(status.code(), Some(0));
    assert_eq!(read_games(&dir.join("out")).len(), 256);
    let received: Vec<usize> = readers.into_iter().map(|r| r.join().unwrap()).collect();
    assert!(received.iter().all(|&n| n > 1000), "{received:?}");
    assert!(peak_kb < 400_000, "the harness peaked at {peak_kb} kB");
    // The runtimes' threads, the viewers' and one thread that removes the workers' cgroups
    // (not one per worker: at the run's end 256 workers end at once).
    eprintln!("the harness peaked at {peak_threads} threads");
    assert!(
        peak_threads < 64,
        "the harness peaked at {peak_threads} threads"
    );
    drop(stalled);
}

/// A finished match of minimax (depth 2) against heuristic (as deep as its clock allows), both
/// reporting scores, 1 pair, under a clock of 1 s + 0.05 s a move, in `dir/out`; its records.
fn finished_clock_match(dir: &TempDir) -> Vec<harness_core::record::GameRecord> {
    let a = artifacts();
    let toml = TournamentFile::new("match", 1, "base = 1\nincrement = 0.05")
        .engine(engine("mm", s(&a.minimax), "Depth = 2"))
        .engine(engine("heur", s(&a.heuristic), ""))
        .text();
    dir.write("t.toml", &toml);
    harness(dir.path(), &["run", "t.toml", "--no-tui"]).assert_success();
    read_games(&dir.join("out"))
}

/// [`finished_clock_match`] in `dir`, served by `harness serve`, and a browser for `test`:
/// the records, the server, its URL and the browser; `None` where Chromium is not installed.
fn served_clock_match(
    test: &str,
    dir: &TempDir,
) -> Option<(
    Vec<harness_core::record::GameRecord>,
    Serving,
    String,
    Browser,
)> {
    let records = finished_clock_match(dir);
    let (child, url) = start_serving(dir.path(), &["serve", "out", "--bind", "127.0.0.1:0"]);
    let browser = Browser::start(test, dir)?;
    Some((records, child, url, browser))
}

/// The page of `game` (0-based) of a served run, loaded to its end.
fn open_finished_game(browser: &mut Browser, url: &str, game: usize) {
    browser.goto(&format!("{url}run/0/game/{}", game + 1));
    browser.wait_for(
        "document.getElementById('result').textContent",
        Duration::from_secs(10),
    );
}

/// Each move's score from Black's view (the engine's own negated for White), by ply (1-based):
/// (ply, score) of Black's moves and of White's.
fn black_view_scores(record: &harness_core::record::GameRecord) -> [Vec<(f64, f64)>; 2] {
    let mut position: othello_board::Position = record.start.parse().expect("a start position");
    let mut out = [Vec::new(), Vec::new()];
    for (i, m) in record.moves.iter().enumerate() {
        let side = position.side_to_move;
        if let Some(score) = m.score {
            let black = if side == othello_board::Color::Black {
                score
            } else {
                -score
            };
            out[side.index()].push(((i + 1) as f64, black));
        }
        position = position.play(m.mv.parse().expect("a move")).expect("legal");
    }
    out
}

/// `harness serve` of two folders: the index lists each run by its name (its engines, as its
/// page's heading says), the folder only beside it.
#[test]
fn the_index_lists_runs_by_name() {
    let dir = TempDir::new("web-index");
    let a = artifacts();
    let run = |out: &str, format: &'static str, engines: &[(&str, &std::path::PathBuf)]| {
        let mut toml = TournamentFile::new(format, 1, "depth = 1").out(Some(out));
        for (name, plugin) in engines {
            toml = toml.engine(engine(name, s(plugin), ""));
        }
        let file = format!("{format}.toml");
        dir.write(&file, &toml.text());
        harness(dir.path(), &["run", &file, "--no-tui"]).assert_success();
    };
    run(
        "runs/first",
        "match",
        &[("g", &a.greedy), ("h", &a.heuristic)],
    );
    run(
        "runs/second",
        "gauntlet",
        &[("h", &a.heuristic), ("g", &a.greedy), ("mm", &a.minimax)],
    );
    let (child, url) = start_serving(
        dir.path(),
        &[
            "serve",
            "runs/first",
            "runs/second",
            "--bind",
            "127.0.0.1:0",
        ],
    );
    let Some(mut browser) = Browser::start("the_index_lists_runs_by_name", &dir) else {
        return;
    };
    let listed = "[...document.querySelectorAll('ul.runs li')].map((li) => \
                  [li.querySelector('a').textContent, li.querySelector('.folder').textContent])";
    let started = Instant::now();
    let runs = loop {
        browser.goto(&url);
        let runs = browser.eval(listed);
        if runs[1][0] != "runs/second" {
            break runs;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the runs never got their names: {runs}"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(
        runs,
        serde_json::json!([["g vs h", "runs/first"], ["h vs g, mm", "runs/second"]])
    );
    browser.goto(&format!("{url}run/1"));
    browser.wait_for(
        "document.getElementById('progress').textContent.includes(' of ')",
        Duration::from_secs(10),
    );
    assert_eq!(
        browser.eval(
            "[document.getElementById('name').textContent, \
             document.getElementById('folder').textContent, document.title]"
        ),
        serde_json::json!(["h vs g, mm", "runs/second", "h vs g, mm"])
    );
    drop(child);
}

/// A finished game's evaluation chart: ply on x and discs on y, with labelled ticks and a zero
/// line; one line per engine, each point the engine's score for its move from Black's view
/// (read back through the axes' own labels); the move list shows the same scores, and the
/// page says whose view they are.
#[test]
fn the_evaluation_chart_has_axes_and_a_line_per_engine_from_blacks_view() {
    let dir = TempDir::new("web-chart");
    let Some((records, child, url, mut browser)) =
        served_clock_match("the_evaluation_chart_has_axes_and_a_line_per_engine", &dir)
    else {
        return;
    };
    for record in &records {
        open_finished_game(&mut browser, &url, record.game);
        let view = browser.eval("document.getElementById('scores-view').textContent");
        assert!(
            view.as_str().unwrap().contains("Black's view"),
            "the page says whose view: {view}"
        );
        let chart = browser.eval(
            "(() => { const svg = document.querySelector('#graph svg'); \
             const labels = (c, a) => [...svg.querySelectorAll('text.' + c)] \
               .map((t) => [t.textContent, Number(t.getAttribute(a))]); \
             return { y: labels('ylabel', 'y'), x: labels('xlabel', 'x'), \
               zero: [...svg.querySelectorAll('line.zero')].map((l) => Number(l.getAttribute('y1'))), \
               titles: [...svg.querySelectorAll('text.title')].map((t) => t.textContent), \
               lines: [...svg.querySelectorAll('polyline.eval')].map((p) => [p.dataset.side, \
                 p.getAttribute('points').trim().split(/\\s+/).filter(Boolean) \
                   .map((xy) => xy.split(',').map(Number))]), \
               key: document.querySelector('#graph .key').textContent }; })()",
        );
        // The axes' scales, from two labelled ticks each: value = a + b · coordinate.
        let scale = |ticks: &serde_json::Value| {
            let ticks: Vec<(f64, f64)> = ticks
                .as_array()
                .unwrap()
                .iter()
                .map(|t| {
                    (
                        t[0].as_str().unwrap().parse().unwrap(),
                        t[1].as_f64().unwrap(),
                    )
                })
                .collect();
            assert!(ticks.len() >= 3, "labelled ticks: {ticks:?}");
            let (first, last) = (ticks[0], ticks[ticks.len() - 1]);
            let b = (last.0 - first.0) / (last.1 - first.1);
            let a = first.0 - b * first.1;
            for &(value, at) in &ticks {
                assert!((a + b * at - value).abs() < 0.01, "uneven ticks: {ticks:?}");
            }
            (a, b)
        };
        let (ya, yb) = scale(&chart["y"]);
        let top = chart["y"][0][0].as_str().unwrap().parse::<f64>().unwrap();
        let (xa, xb) = scale(&chart["x"]);
        let zero = chart["zero"].as_array().unwrap();
        assert_eq!(zero.len(), 1, "one zero line: {chart}");
        assert!(
            (ya + yb * zero[0].as_f64().unwrap()).abs() < 0.01,
            "{chart}"
        );
        assert_eq!(
            chart["titles"],
            serde_json::json!(["ply", "discs, Black's view"])
        );
        let key = chart["key"].as_str().unwrap();
        assert!(
            key.contains("Black's view") && key.contains("mm") && key.contains("heur"),
            "{key}"
        );
        let expected = black_view_scores(record);
        let lines = chart["lines"].as_array().unwrap();
        assert_eq!(lines.len(), 2, "one line per engine: {chart}");
        for (line, side) in lines.iter().zip(["black", "white"]) {
            assert_eq!(line[0], side);
            let drawn: Vec<(f64, f64)> = line[1]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    let (x, y) = (p[0].as_f64().unwrap(), p[1].as_f64().unwrap());
                    (xa + xb * x, ya + yb * y)
                })
                .collect();
            let want = &expected[usize::from(side == "white")];
            assert_eq!(
                drawn.len(),
                want.len(),
                "{side}: {drawn:?} against {want:?}"
            );
            assert!(want.iter().any(|&(_, v)| v != 0.0), "{side} scored only 0");
            for (d, w) in drawn.iter().zip(want) {
                // A score past the axis's end (it ends at ±64 at most) is drawn at the end.
                let w = (w.0, w.1.clamp(-top, top));
                assert!(
                    (d.0 - w.0).abs() < 0.05 && (d.1 - w.1).abs() < 0.05,
                    "game {}, {side}: drawn {d:?}, Black's view {w:?}",
                    record.game
                );
            }
        }
        // The move list: `N. move score`, the score from Black's view.
        let listed =
            browser.eval("[...document.querySelectorAll('#moves .mv')].map((b) => b.textContent)");
        let listed: Vec<&str> = listed
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        assert_eq!(listed.len(), record.moves.len());
        for &(ply, score) in expected.iter().flatten() {
            let text = listed[ply as usize - 1];
            let shown: f64 = text.rsplit(' ').next().unwrap().parse().unwrap();
            assert!((shown - score).abs() < 0.051, "move {text}: {score}");
        }
    }
    drop(child);
}

/// A finished game's page words its result as a disc difference ("Black +N (disc
/// difference)", never a count of Black's discs), as the recent results' heading does; and
/// shows the clocks it ended with: its moves' recorded times charged and the increments
/// credited, as the journal has them, and each side's thinking time.
#[test]
fn a_finished_game_shows_its_disc_difference_and_the_clocks_it_ended_with() {
    let dir = TempDir::new("web-clocks");
    let Some((records, child, url, mut browser)) =
        served_clock_match("a_finished_game_shows_its_clocks", &dir)
    else {
        return;
    };
    for record in &records {
        open_finished_game(&mut browser, &url, record.game);
        let result = browser.eval("document.getElementById('result').textContent");
        assert_eq!(
            result.as_str().unwrap(),
            format!(
                "{} · Black {:+} (disc difference) · normal",
                record.result, record.score
            )
        );
        // The clocks: 1 s each, every searched move charged its time and credited 50 ms.
        let mut left = [1000u64, 1000];
        let mut position: othello_board::Position = record.start.parse().unwrap();
        for m in &record.moves {
            if let (false, Some(t)) = (m.book, m.time_ms) {
                let side = position.side_to_move.index();
                left[side] = left[side].saturating_sub(t) + 50;
            }
            position = position.play(m.mv.parse().unwrap()).unwrap();
        }
        let clocks = browser.eval(
            "[...document.querySelectorAll('#clocks .clock')].map((c) => \
             [c.textContent, Number(c.dataset.leftMs), Number(c.dataset.usedMs)])",
        );
        let used = [record.time_ms.black, record.time_ms.white];
        assert!(used.iter().any(|&u| u > 0), "{used:?}");
        for (side, clock) in clocks.as_array().unwrap().iter().enumerate() {
            assert_eq!(
                (clock[1].as_u64(), clock[2].as_u64()),
                (Some(left[side]), Some(used[side])),
                "game {}: {clocks}",
                record.game
            );
            let text = clock[0].as_str().unwrap();
            assert!(
                text.contains(" left · ") && text.ends_with(" used"),
                "{text}"
            );
        }
    }
    browser.goto(&format!("{url}run/0"));
    browser.wait_for(
        "document.querySelector('#recent table')",
        Duration::from_secs(10),
    );
    let heads = browser
        .eval("[...document.querySelectorAll('#recent th')].map((h) => h.textContent).join('|')");
    assert!(
        heads.as_str().unwrap().contains("disc difference (Black)"),
        "{heads}"
    );
    drop(child);
}

/// The board's frame (the element drawn around it and the board's own border) encloses the 8×8
/// grid of squares with equal margins on every side, and the grid is square, in windows of
/// 1400×900 and 800×900.
#[test]
fn the_board_is_framed_square_to_its_grid() {
    let dir = TempDir::new("web-frame");
    let Some((records, child, url, mut browser)) =
        served_clock_match("the_board_is_framed_square_to_its_grid", &dir)
    else {
        return;
    };
    let measure = "(() => { \
        const box = (e) => { const r = e.getBoundingClientRect(); \
          return [r.left, r.top, r.right, r.bottom]; }; \
        const cells = [...document.querySelectorAll('#board .sq')].map(box); \
        const grid = [Math.min(...cells.map((c) => c[0])), Math.min(...cells.map((c) => c[1])), \
          Math.max(...cells.map((c) => c[2])), Math.max(...cells.map((c) => c[3]))]; \
        const margins = (f) => [grid[0] - f[0], grid[1] - f[1], f[2] - grid[2], f[3] - grid[3]]; \
        return { cells: cells.length, grid, \
          sizes: cells.map((c) => [c[2] - c[0], c[3] - c[1]]), \
          frames: [document.getElementById('board'), document.querySelector('#board .board')] \
            .map((e) => margins(box(e))) }; })()";
    open_finished_game(&mut browser, &url, records[0].game);
    for width in [1400, 800] {
        browser.resize(width, 900);
        let m = browser.eval(measure);
        assert_eq!(m["cells"], 64, "{m}");
        let grid: Vec<f64> = m["grid"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        let (w, h) = (grid[2] - grid[0], grid[3] - grid[1]);
        assert!((w - h).abs() <= 1.0, "{width} px: a grid {w} × {h}");
        for size in m["sizes"].as_array().unwrap() {
            let (sw, sh) = (size[0].as_f64().unwrap(), size[1].as_f64().unwrap());
            assert!(
                (sw - w / 8.0).abs() <= 1.0 && (sh - h / 8.0).abs() <= 1.0,
                "{width} px: a square {sw} × {sh} of a grid {w} × {h}"
            );
        }
        for frame in m["frames"].as_array().unwrap() {
            let margins: Vec<f64> = frame
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect();
            let (low, high) = margins
                .iter()
                .fold((f64::MAX, f64::MIN), |(l, h), &v| (l.min(v), h.max(v)));
            assert!(
                low >= 0.0 && high - low <= 1.0,
                "{width} px: margins {margins:?} (left, top, right, bottom)"
            );
        }
        browser.screenshot(
            width,
            &screenshot_path(&dir, &format!("web-board-{width}.png")),
        );
    }
    drop(child);
}
