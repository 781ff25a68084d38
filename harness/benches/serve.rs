//! Benchmark of the browser view: `cargo build --release -p greedy && cargo bench -p harness
//! --bench serve`.
//!
//! A 256-game match of greedy against greedy at depth 1, all 256 games at once, served with
//! `run --serve=127.0.0.1:0`, played alternately with no viewer and with 50 event-stream
//! viewers (plus one that connects and never reads), `ROUNDS` times each (`SERVE_ROUNDS`):
//! games per second of each, side by side, and their ratio; the harness's peak resident
//! memory of each; with 50 viewers, the delay from a move to a game stream's client (the
//! snapshot's `moved_at_ms` against the client's clock, one game after another) and from a
//! game's journal line to the run stream's `done` counting it (medians and 99th
//! percentiles); and the weight of a run page (its HTML, script, style sheet and first
//! snapshot). Data goes to `target/bench-serve`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const VIEWERS: usize = 50;

fn main() {
    let rounds: usize = std::env::var("SERVE_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench-serve");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let greedy = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/release/libgreedy.so");
    assert!(
        greedy.exists(),
        "{} is missing: cargo build --release -p greedy first",
        greedy.display()
    );
    let toml = format!(
        "[tournament]\nformat = \"match\"\npairs = 128\nconcurrency = 256\nout = \"out\"\n\n\
         [time]\ndepth = 1\n\n[openings]\nbuiltin = \"xot-small\"\n\n[[engine]]\nname = \"g1\"\nplugin = \"{0}\"\n\n\
         [[engine]]\nname = \"g2\"\nplugin = \"{0}\"\n",
        greedy.display()
    );
    std::fs::write(root.join("t.toml"), toml).unwrap();
    let mut plain = Vec::new();
    let mut watched = Vec::new();
    let mut delays = Vec::new();
    let mut moves = Vec::new();
    let mut weight = 0;
    for round in 0..rounds {
        plain.push(play(&root, 0, &mut Vec::new(), &mut Vec::new(), &mut 0));
        watched.push(play(&root, VIEWERS, &mut delays, &mut moves, &mut weight));
        eprintln!("round {} of {rounds} done", round + 1);
    }
    let rate = |runs: &[(f64, u64)]| {
        let mut r: Vec<f64> = runs.iter().map(|(s, _)| 256.0 / s).collect();
        r.sort_by(f64::total_cmp);
        r[r.len() / 2]
    };
    let peak = |runs: &[(f64, u64)]| runs.iter().map(|r| r.1).max().unwrap_or(0);
    let (a, b) = (rate(&plain), rate(&watched));
    println!("serve bench: 256 games of greedy at depth 1, all at once, {rounds} runs each");
    println!(
        "  no viewer:             {a:8.1} games/s (median), peak RSS {} MB",
        peak(&plain) / 1024
    );
    println!(
        "  {VIEWERS} viewers + 1 stalled: {b:8.1} games/s (median), peak RSS {} MB",
        peak(&watched) / 1024
    );
    println!("  ratio (viewers / none): {:.3}", b / a);
    for (what, mut d) in [
        ("a move -> game stream", moves),
        ("journal line -> run stream", delays),
    ] {
        d.sort_by(f64::total_cmp);
        if d.is_empty() {
            continue;
        }
        let at = |q: f64| d[((d.len() - 1) as f64 * q).round() as usize];
        println!(
            "  {what}: median {:.0} ms, 99th percentile {:.0} ms ({} samples)",
            at(0.5) * 1e3,
            at(0.99) * 1e3,
            d.len()
        );
    }
    println!(
        "  run page weight (HTML + script + style + first snapshot): {:.1} kB",
        weight as f64 / 1e3
    );
}

/// One run with `viewers` event-stream clients (and, with any, one that never reads): its
/// wall time and the harness's peak RSS in kB; the viewers' delays are added to `delays` and
/// the page's weight set.
fn play(
    root: &Path,
    viewers: usize,
    delays: &mut Vec<f64>,
    moves: &mut Vec<f64>,
    weight: &mut usize,
) -> (f64, u64) {
    let _ = std::fs::remove_dir_all(root.join("out"));
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_harness"))
        .args(["run", "t.toml", "--no-tui", "--serve=127.0.0.1:0"])
        .current_dir(root)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the harness starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let url = lines
        .by_ref()
        .map_while(Result::ok)
        .find(|l| l.starts_with("http://"))
        .expect("the URL");
    std::thread::spawn(move || lines.for_each(drop));
    let address = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    let seen: Arc<Mutex<Vec<(usize, Instant)>>> = Arc::default();
    let mut clients = Vec::new();
    let mut stalled = None;
    if viewers > 0 {
        *weight = page_weight(&address);
        stalled = TcpStream::connect(&address).ok();
        if let Some(s) = &mut stalled {
            let _ = write!(s, "GET /run/0/events HTTP/1.1\r\nHost: {address}\r\n\r\n");
        }
        for i in 0..viewers {
            let (address, seen) = (address.clone(), seen.clone());
            clients.push(std::thread::spawn(move || stream(&address, i == 0, &seen)));
        }
    }
    let follower = (viewers > 0).then(|| {
        let address = address.clone();
        std::thread::spawn(move || follow_games(&address))
    });
    let journal = root.join("out/games.jsonl");
    let mut written: Vec<Instant> = Vec::new();
    let mut peak = 0;
    let pid = child.id();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        let lines = std::fs::read_to_string(&journal).map_or(0, |t| t.lines().count());
        while written.len() < lines {
            written.push(Instant::now());
        }
        peak = peak.max(rss_kb(pid));
        std::thread::sleep(Duration::from_millis(5));
    };
    let wall = started.elapsed().as_secs_f64();
    assert!(status.success(), "the run failed");
    drop(stalled);
    for c in clients {
        let _ = c.join();
    }
    if let Some(f) = follower {
        moves.extend(f.join().unwrap_or_default());
    }
    for &(done, at) in seen.lock().unwrap().iter() {
        if let Some(w) = written.get(done.wrapping_sub(1)) {
            if at > *w {
                delays.push((at - *w).as_secs_f64());
            }
        }
    }
    (wall, peak)
}

/// Read the run's event stream to its end; with `record`, note when each new `done` count
/// arrived.
fn stream(address: &str, record: bool, seen: &Mutex<Vec<(usize, Instant)>>) {
    let Ok(mut s) = TcpStream::connect(address) else {
        return;
    };
    let _ = write!(s, "GET /run/0/events HTTP/1.1\r\nHost: {address}\r\n\r\n");
    let mut reader = BufReader::new(s);
    let mut line = String::new();
    let mut last = 0;
    while reader.read_line(&mut line).is_ok_and(|n| n > 0) {
        if record {
            if let Some(done) = line
                .split("\"done\":")
                .nth(1)
                .and_then(|r| r.split(',').next()?.parse::<usize>().ok())
            {
                if done > last {
                    seen.lock().unwrap().push((done, Instant::now()));
                    last = done;
                }
            }
        }
        line.clear();
    }
}

/// Follow the game streams of one game in progress after another until the run ends: for
/// each snapshot received, how long after its last move it arrived (seconds).
fn follow_games(address: &str) -> Vec<f64> {
    let mut delays = Vec::new();
    let mut followed = std::collections::HashSet::new();
    loop {
        let Some(state) = get(address, "/run/0/state") else {
            return delays;
        };
        let game = state
            .split("\"live\":[{")
            .nth(1)
            .and_then(|l| l.split("\"game\":").nth(1))
            .and_then(|g| g.split([',', '}']).next()?.parse::<u64>().ok());
        let Some(game) = game.filter(|g| followed.insert(*g)) else {
            std::thread::sleep(Duration::from_millis(5));
            continue;
        };
        let Ok(mut s) = TcpStream::connect(address) else {
            return delays;
        };
        let _ = write!(
            s,
            "GET /run/0/game/{game}/events HTTP/1.1\r\nHost: {address}\r\n\r\n"
        );
        let mut reader = BufReader::new(s);
        let mut line = String::new();
        while reader.read_line(&mut line).is_ok_and(|n| n > 0) {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64);
            let moved = line
                .split("\"moved_at_ms\":")
                .nth(1)
                .and_then(|r| r.split([',', '}']).next()?.parse::<u64>().ok());
            if let Some(moved) = moved {
                delays.push(now.saturating_sub(moved) as f64 / 1e3);
            }
            if line.contains("\"finished\":true") {
                break;
            }
            line.clear();
        }
    }
}

/// The body of a GET of `path`, if the server answers.
fn get(address: &str, path: &str) -> Option<String> {
    let mut s = TcpStream::connect(address).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut text = String::new();
    s.read_to_string(&mut text).ok()?;
    Some(text.split_once("\r\n\r\n")?.1.to_string())
}

/// The bytes of a run page: its HTML, script, style sheet and first snapshot.
fn page_weight(address: &str) -> usize {
    ["/run/0", "/app.js", "/app.css", "/run/0/state"]
        .iter()
        .map(|path| {
            let Ok(mut s) = TcpStream::connect(address) else {
                return 0;
            };
            let _ = write!(
                s,
                "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
            );
            let mut bytes = Vec::new();
            let _ = s.read_to_end(&mut bytes);
            let body = bytes
                .windows(4)
                .position(|w| w == b"\r\n\r\n")
                .map_or(0, |i| bytes.len() - i - 4);
            body
        })
        .sum()
}

fn rss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0)
}
