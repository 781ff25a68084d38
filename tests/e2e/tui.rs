//! The live terminal UI under tmux: a real tournament in a detached tmux session at 120x40,
//! read with `capture-pane` and driven with `send-keys` (switch games, pause, resume, quit
//! with "finish the games in flight"), then the journal is checked. Skipped with a line on
//! standard error when tmux is missing, and a failure then under CI (`.ci/run` installs it).

use crate::support::{
    artifacts, check_record, engine, processes_with, read_games, s, skip, worker_marker,
    workers_of, TempDir, TournamentFile,
};
use std::collections::HashSet;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// A private tmux server (its own socket), killed when the test ends.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn available() -> bool {
        Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success())
    }

    fn cmd(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .expect("tmux runs")
    }

    fn capture(&self) -> String {
        let out = self.cmd(&["capture-pane", "-p", "-t", "tui"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "tui"];
        args.extend_from_slice(keys);
        let out = self.cmd(&args);
        assert!(out.status.success(), "send-keys {keys:?} failed");
    }

    /// Poll the pane until `pred` holds; the last capture on timeout fails the test.
    fn wait_for(&self, what: &str, timeout: Duration, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.capture();
            if pred(&screen) {
                return screen;
            }
            assert!(
                start.elapsed() < timeout,
                "timed out waiting for {what}; the pane shows:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
    }
}

/// Start `harness run FILE` in `dir` inside a detached 120x40 tmux session; the harness's
/// process id goes to `harness.pid` and its exit status to `status.txt` in `dir`.
fn start_live_view(dir: &TempDir, file: &str) -> Tmux {
    let a = artifacts();
    // The UI opens only on a terminal with CI unset: tmux gives the terminal, `env -u` the rest.
    // The inner shell writes its own pid, then becomes the harness.
    let command = format!(
        "env -u CI TERM=xterm-256color sh -c 'echo $$ > harness.pid; exec \"$0\" \"$@\"' '{}' run {file} --plugin-dir '{}'; echo \"exit=$?\" > status.txt; sleep 120",
        s(&a.harness),
        s(&a.plugin_dir)
    );
    static SESSIONS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = SESSIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmux = Tmux {
        socket: format!("e2e-tui-{}-{n}", std::process::id()),
    };
    let started = tmux.cmd(&[
        "new-session",
        "-d",
        "-s",
        "tui",
        "-x",
        "120",
        "-y",
        "40",
        "-c",
        s(dir.path()),
        &command,
    ]);
    assert!(
        started.status.success(),
        "tmux new-session failed: {}",
        String::from_utf8_lossy(&started.stderr)
    );
    tmux
}

/// The process id of the harness that [`start_live_view`] started.
fn harness_pid(dir: &TempDir) -> u32 {
    let text = wait_for_file(&dir.join("harness.pid"), Duration::from_secs(30))
        .expect("the harness's pid is written at its start");
    text.trim().parse().expect("a pid")
}

/// CPU time (user + system, in clock ticks) used so far by the live workers of the harness
/// `pid`, and how many there are.
fn workers_cpu_ticks(pid: u32) -> (u64, usize) {
    let workers = processes_with(&worker_marker(pid));
    (workers.iter().map(|w| w.cpu_ticks).sum(), workers.len())
}

fn wait_for_file(path: &Path, timeout: Duration) -> Option<String> {
    let start = Instant::now();
    while start.elapsed() < timeout {
        if let Ok(text) = std::fs::read_to_string(path) {
            if text.ends_with('\n') {
                return Some(text);
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    None
}

#[test]
fn live_tui_spectates_pauses_and_finishes_cleanly_under_tmux() {
    if !Tmux::available() {
        return skip("the terminal UI test", "tmux is not installed");
    }
    let dir = TempDir::new("tui");
    let toml = TournamentFile::new("match", 1000, "move-time = 2.0")
        .engine(engine("greedy", "greedy", ""))
        .engine(engine("minimax", "minimax", "Depth = 8"))
        .text();
    dir.write("t.toml", &toml);
    let tmux = start_live_view(&dir, "t.toml");
    let pid = harness_pid(&dir);
    // The live screen: the board with its grid and coordinates, both engines, the panel.
    let screen = tmux.wait_for("the board", Duration::from_secs(60), |p| {
        p.contains("┌───┬───┬") && p.contains("In progress (2)")
    });
    for needle in [
        "a   b   c   d   e   f   g   h",
        " 8 │",
        "greedy",
        "minimax",
        "Tournament",
        "RUNNING",
        "Eval (discs, Black's view)",
    ] {
        assert!(
            screen.contains(needle),
            "`{needle}` not on screen:\n{screen}"
        );
    }
    assert!(
        screen.contains('●') && screen.contains('○'),
        "disc glyphs:\n{screen}"
    );

    // Switch games: the spectated game's marker moves and follow mode turns off.
    tmux.keys(&["Right"]);
    tmux.wait_for("follow off", Duration::from_secs(10), |p| {
        p.contains("follow (off)")
    });
    tmux.keys(&["1"]);
    // The first game in progress is marked, or, if it ended in the meantime, it stays on
    // screen as finished.
    tmux.wait_for("game 1 chosen", Duration::from_secs(10), |p| {
        p.contains("▶1 g") || p.contains("· finished ─")
    });
    tmux.keys(&["f"]);
    tmux.wait_for("follow on", Duration::from_secs(10), |p| {
        p.contains("follow (on)")
    });

    // Pause: the games in flight finish and no new one starts. A game that began would show
    // at once among the games in progress, and its engines would use CPU time (minimax at
    // depth 8 searches for a while every move); the idle workers use none.
    tmux.keys(&["p"]);
    tmux.wait_for("paused and idle", Duration::from_secs(60), |p| {
        p.contains("PAUSED") && p.contains("In progress (0)")
    });
    let (ticks_before, workers) = workers_cpu_ticks(pid);
    assert!(workers >= 2, "the idle workers are kept while paused");
    let paused_at = Instant::now();
    while paused_at.elapsed() < Duration::from_millis(1500) {
        let screen = tmux.capture();
        assert!(
            screen.contains("PAUSED") && screen.contains("In progress (0)"),
            "a game started while paused:\n{screen}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let (ticks_after, _) = workers_cpu_ticks(pid);
    // A tick is 10 ms; an engine searching would use most of the 1.5 s.
    assert!(
        ticks_after <= ticks_before + 5,
        "the workers used {} ticks of CPU time while paused",
        ticks_after - ticks_before
    );
    tmux.keys(&["p"]);
    tmux.wait_for("running again", Duration::from_secs(10), |p| {
        p.contains("RUNNING")
    });

    // Resize live to 80x24: the compact layout (board without grid) replaces the large one.
    let out = tmux.cmd(&["resize-window", "-t", "tui", "-x", "80", "-y", "24"]);
    assert!(out.status.success(), "resize-window failed");
    let compact = tmux.wait_for("the compact layout", Duration::from_secs(10), |p| {
        p.contains("a  b  c  d  e  f  g  h") && !p.contains("┌───┬")
    });
    assert!(
        compact.contains("Tournament") && compact.contains("greedy"),
        "{compact}"
    );
    assert!(compact.lines().count() <= 24, "{compact}");

    // Help overlay, then quit with "finish the games in flight".
    tmux.keys(&["?"]);
    tmux.wait_for("help", Duration::from_secs(10), |p| p.contains("Help"));
    // Any key closes the help (not Escape: tmux may join it with the next key into Alt-q).
    tmux.keys(&["x"]);
    tmux.wait_for("help closed", Duration::from_secs(10), |p| {
        !p.contains("Help")
    });
    tmux.keys(&["q"]);
    tmux.wait_for("quit prompt", Duration::from_secs(10), |p| {
        p.contains("Quit the tournament?")
    });
    tmux.keys(&["f"]);
    let status =
        wait_for_file(&dir.join("status.txt"), Duration::from_secs(60)).unwrap_or_else(|| {
            panic!(
                "the harness did not exit; the pane shows:\n{}",
                tmux.capture()
            )
        });
    // Cut short: exit code 3 (not 0, which would read as a complete run) and the resume hint.
    assert_eq!(status.trim(), "exit=3");
    // Back on the normal screen: the final tables and the summary line.
    let after = tmux.wait_for("the final tables", Duration::from_secs(10), |p| {
        p.contains("games in") && p.contains("journal:") && p.contains("interrupted: ")
    });

    let records = read_games(&dir.join("out"));
    assert!(!records.is_empty(), "no game recorded");
    assert!(records.len() < 2000, "the quit did not stop the run");
    let mut seen = HashSet::new();
    for r in &records {
        check_record(r);
        assert!(seen.insert(r.game), "game {} recorded twice", r.game);
        assert!(
            (r.black == "greedy" && r.white == "minimax")
                || (r.black == "minimax" && r.white == "greedy")
        );
    }
    let summary = format!("{} games in", records.len());
    assert!(
        after.contains(&summary),
        "`{summary}` not in the final output:\n{after}"
    );
}

/// CPU time (clock ticks, usually 10 ms) that only a worker spinning in a search reaches: far
/// more than a worker's start and a greedy search take.
const SPINNING_TICKS: u64 = 50;

/// "Stop now" from the quit prompt interrupts a search in progress: an engine spinning without
/// looking at the stop flag (under a depth limit, so only the 120 s stall timeout would end it)
/// is killed at once, the abandoned game is not recorded, and the harness exits within seconds.
#[test]
fn stop_now_interrupts_a_search_that_ignores_the_stop_flag() {
    if !Tmux::available() {
        return skip("the terminal UI test", "tmux is not installed");
    }
    let a = artifacts();
    let dir = TempDir::new("tui-stop-now");
    let toml = TournamentFile::new(
        "match",
        1,
        r#"depth = 1
stall-timeout = 120.0"#,
    )
    .concurrency(1)
    .engine(engine(
        "spinner",
        s(&a.faulty),
        // The second search of each game spins: the first search after the worker's start is
        // the run's pre-flight, which an engine that never answers would fail.
        r#"Fault = "loop", StrikeAt = 2"#,
    ))
    .engine(engine("greedy", "greedy", ""))
    .text();
    dir.write("t.toml", &toml);
    let tmux = start_live_view(&dir, "t.toml");
    let pid = harness_pid(&dir);
    tmux.wait_for("the game in progress", Duration::from_secs(60), |p| {
        p.contains("In progress (1)")
    });
    // The spinner is in its search: its worker has spun for half a second of CPU time.
    let spinning_since = Instant::now();
    while processes_with(&worker_marker(pid))
        .iter()
        .all(|w| w.cpu_ticks < SPINNING_TICKS)
    {
        assert!(
            spinning_since.elapsed() < Duration::from_secs(30),
            "no worker is searching:\n{}",
            tmux.capture()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let spinning = workers_of(pid);
    assert_eq!(spinning.len(), 2, "a worker per engine: {spinning:#?}");
    tmux.keys(&["q"]);
    tmux.wait_for("quit prompt", Duration::from_secs(10), |p| {
        p.contains("Quit the tournament?")
    });
    let asked = Instant::now();
    tmux.keys(&["s"]);
    let status = wait_for_file(&dir.join("status.txt"), Duration::from_secs(30))
        .unwrap_or_else(|| panic!("the harness did not exit:\n{}", tmux.capture()));
    assert!(
        asked.elapsed() < Duration::from_secs(10),
        "stopping took {:?}: the search was waited for",
        asked.elapsed()
    );
    // Cut short: exit code 3, and the workers (the spinning one too) are gone with the harness.
    assert_eq!(status.trim(), "exit=3", "{}", tmux.capture());
    let left = workers_of(pid);
    assert!(left.is_empty(), "workers left running: {left:#?}");
    assert!(
        read_games(&dir.join("out")).is_empty(),
        "the abandoned game was recorded"
    );
}
