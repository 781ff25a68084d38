//! Regressions found in a review of what a run keeps and says: a second merge of the same
//! folder, `--restart` with a broken tournament, the merge's Engines table, a plugin named in
//! the tournament's own folder, progress numbering, `--dry-run` on runs that would fail,
//! `sprt-sim`'s flags and closed pipes. Each test failed before its fix.

use crate::support::{
    artifacts, engine, harness, read_games, s, spawn_harness, TempDir, TournamentFile,
};
use std::collections::BTreeMap;
use std::path::Path;

/// A match of deterministic engines (fixed depths) into `out/arena`.
fn match_file(pairs: usize) -> String {
    let a = artifacts();
    TournamentFile::new("match", pairs, "depth = 2")
        .out(Some("out/arena"))
        .engine(engine("mm", s(&a.minimax), "Depth = 2"))
        .engine(engine("greedy", s(&a.greedy), ""))
        .text()
}

/// Play shards `indices` of `count` of `t.toml` in `dir`.
fn play_shards(dir: &TempDir, indices: std::ops::Range<usize>, count: usize) {
    for i in indices {
        let spec = format!("{i}/{count}");
        harness(dir.path(), &["run", "t.toml", "--no-tui", "--shard", &spec]).assert_success();
    }
}

/// The names of a folder's entries, sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A first merge writes into the folder of shard folders; a second one (after the last shard
/// played) must still see the shards and replace the first, writing nothing next to the folder.
#[test]
fn a_second_merge_of_a_folder_replaces_the_first() {
    let dir = TempDir::new("remerge");
    dir.write("t.toml", &match_file(6));
    play_shards(&dir, 0..2, 3);
    let first = harness(dir.path(), &["merge", "out/arena"]);
    assert_eq!(first.status.code(), Some(3), "games missing: {first}");
    assert!(first.stdout.contains("8 games of 12 planned"), "{first}");
    play_shards(&dir, 2..3, 3);
    let second = harness(dir.path(), &["merge", "out/arena"]);
    second.assert_success();
    assert!(
        second
            .stdout
            .contains("merged 3 folders into out/arena/games.jsonl: 12 games of 12"),
        "{second}"
    );
    assert!(!second.stdout.contains("missing:"), "{second}");
    assert_eq!(
        entries(&dir.join("out")),
        ["arena"],
        "nothing beside the folder"
    );
    assert_eq!(read_games(&dir.join("out/arena")).len(), 12);
    // The merged journal is in game order.
    let order: Vec<usize> = read_games(&dir.join("out/arena"))
        .iter()
        .map(|g| g.game)
        .collect();
    assert_eq!(order, (0..12).collect::<Vec<_>>());
}

/// `--restart` with an option the plugin refuses: the error, and every earlier game still in
/// place. A good `--restart` then moves the earlier games aside and says where.
#[test]
fn restart_checks_everything_before_it_moves_the_old_games() {
    let a = artifacts();
    let dir = TempDir::new("restart");
    dir.write("t.toml", &match_file(2));
    harness(dir.path(), &["run", "t.toml", "--no-tui"]).assert_success();
    let journal = std::fs::read(dir.join("out/arena/games.jsonl")).unwrap();
    dir.write("t.toml", &match_file(2).replace("Depth = 2", "Depth = 99"));
    harness(dir.path(), &["run", "t.toml", "--no-tui", "--restart"])
        .assert_error()
        .assert_stderr_has(&["Depth=99", "outside 1..=20"]);
    assert_eq!(
        std::fs::read(dir.join("out/arena/games.jsonl")).unwrap(),
        journal
    );
    assert!(dir.join("out/arena/tournament.json").exists());
    // A missing plugin folder is refused the same way.
    dir.write(
        "t.toml",
        &match_file(2).replace(&s(&a.greedy).to_string(), "greedy"),
    );
    harness(
        dir.path(),
        &[
            "run",
            "t.toml",
            "--no-tui",
            "--restart",
            "--plugin-dir",
            "/nonexistent",
        ],
    )
    .assert_error()
    .assert_stderr_has(&["plugin not found"]);
    assert_eq!(
        std::fs::read(dir.join("out/arena/games.jsonl")).unwrap(),
        journal
    );
    // Without --restart, the refusal names what changed.
    dir.write("t.toml", &match_file(2).replace("Depth = 2", "Depth = 3"));
    harness(dir.path(), &["run", "t.toml", "--no-tui"])
        .assert_error()
        .assert_stderr_has(&[r#"engines[0].options [["Depth","2"]] → [["Depth","3"]]"#]);
    let dry = harness(dir.path(), &["run", "t.toml", "--dry-run", "--restart"]);
    dry.assert_success();
    assert!(dry.stdout.contains("--restart moves them"), "{dry}");
    let restart = harness(dir.path(), &["run", "t.toml", "--no-tui", "--restart"]);
    restart.assert_success();
    let aside: Vec<String> = entries(&dir.join("out/arena"))
        .into_iter()
        .filter(|n| n.starts_with("discarded-"))
        .collect();
    assert_eq!(aside.len(), 1, "{restart}");
    assert!(restart.stdout.contains(&aside[0]), "says where: {restart}");
    let kept = dir.join("out/arena").join(&aside[0]);
    assert_eq!(std::fs::read(kept.join("games.jsonl")).unwrap(), journal);
    for name in [
        "games.ggf",
        "tournament.json",
        "report.json",
        "verdict.json",
    ] {
        assert!(kept.join(name).exists(), "{name} set aside");
    }
    assert_eq!(read_games(&dir.join("out/arena")).len(), 4, "a fresh run");
}

/// The merge's Engines table (printed, and in report.json) counts the searched moves and
/// depths that `harness stats` finds in the merged journal.
#[test]
fn the_merge_reports_searched_moves_and_depths() {
    let dir = TempDir::new("merge-usage");
    dir.write("t.toml", &match_file(2));
    play_shards(&dir, 0..2, 2);
    let merge = harness(dir.path(), &["merge", "out/arena"]);
    merge.assert_success();
    let stats = harness(dir.path(), &["stats", "out/arena"]);
    stats.assert_success();
    // Each engine's row, found by its name: games, moves and depth, the columns that do not
    // depend on timing.
    let usage = |text: &str| -> BTreeMap<String, Vec<String>> {
        let start = text.find("\nEngines (").expect("an Engines table");
        let mut lines = text[start + 1..].lines().skip(1);
        let header: Vec<&str> = lines.next().expect("a header").split_whitespace().collect();
        assert_eq!(header[..4], ["engine", "games", "moves", "depth"], "{text}");
        lines
            .take_while(|l| !l.trim().is_empty())
            .map(|l| {
                let cells: Vec<String> = l.split_whitespace().map(str::to_string).collect();
                (cells[0].clone(), cells[1..4].to_vec())
            })
            .collect()
    };
    let merged = usage(&merge.stdout);
    assert_eq!(
        merged.keys().collect::<Vec<_>>(),
        ["greedy", "mm"],
        "{merge}"
    );
    assert_eq!(merged, usage(&stats.stdout), "{merge}\n{stats}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/arena/report.json")).unwrap())
            .unwrap();
    for e in report["engines"].as_array().expect("engines") {
        assert!(e["moves"].as_u64().unwrap() > 0, "{e}");
        assert!(e["mean_depth"].as_f64().is_some(), "{e}");
    }
}

/// A plugin file named bare (with its library suffix) in the tournament file's own folder is
/// that file, also when the harness runs from that folder; `harness info` agrees.
#[test]
fn a_plugin_file_beside_the_tournament_file_is_found_from_its_folder() {
    let a = artifacts();
    let dir = TempDir::new("plugin-beside");
    std::fs::copy(&a.greedy, dir.join("libmine.so")).unwrap();
    let toml = TournamentFile::new("match", 1, "depth = 1")
        .engine(engine("mine", "libmine.so", ""))
        .engine(engine("mm", s(&a.minimax), "Depth = 1"))
        .text();
    dir.write("t.toml", &toml);
    harness(dir.path(), &["run", "t.toml", "--no-tui"]).assert_success();
    assert_eq!(read_games(&dir.join("out")).len(), 2);
    let info = harness(dir.path(), &["info", "libmine.so"]);
    info.assert_success();
    assert!(
        info.stdout.lines().any(|l| l == "name     Greedy"),
        "{info}"
    );
}

/// The progress lines number games as `harness replay` does: here a shard, whose games are
/// not the first ones of the schedule.
#[test]
fn progress_lines_number_games_as_replay_does() {
    let dir = TempDir::new("numbering");
    dir.write("t.toml", &match_file(4));
    let run = harness(dir.path(), &["run", "t.toml", "--no-tui", "--shard", "1/2"]);
    run.assert_success();
    let lines: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("game "))
        .collect();
    assert_eq!(lines.len(), 4, "{run}");
    for line in lines {
        let number: usize = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        let replay = harness(
            dir.path(),
            &["replay", "out/arena/shard-1-of-2", &number.to_string()],
        );
        replay.assert_success();
        let first = replay.stdout.lines().next().unwrap();
        // `game 3: greedy (black) vs mm (white), 0-1 (-36)` against
        // `game     3  [1/4]  greedy (B) 14-50 mm (W)  …`.
        let words: Vec<&str> = line.split_whitespace().collect();
        let (black, white) = (words[3], words[6]);
        assert!(
            first.starts_with(&format!(
                "game {number}: {black} (black) vs {white} (white)"
            )),
            "{line}\n{first}"
        );
    }
}

/// `--dry-run` refuses what a run would fail on: an output folder that cannot be made, an
/// external engine without a program, or with one that does not exist. The run refuses them
/// too, before any game.
#[test]
fn dry_run_refuses_runs_that_would_fail() {
    let a = artifacts();
    let dir = TempDir::new("dry-run-refuses");
    dir.write("t.toml", &match_file(1));
    harness(
        dir.path(),
        &["run", "t.toml", "--dry-run", "--out", "t.toml"],
    )
    .assert_error()
    .assert_stderr_has(&["is a file, not a folder"]);
    harness(
        dir.path(),
        &["run", "t.toml", "--dry-run", "--out", "/proc/nope"],
    )
    .assert_error()
    .assert_stderr_has(&["/proc/nope: cannot create the output folder"]);
    // A good folder that does not exist yet: accepted, and not left behind.
    harness(
        dir.path(),
        &["run", "t.toml", "--dry-run", "--out", "new/deep"],
    )
    .assert_success();
    assert!(!dir.join("new").exists());
    for (options, message) in [
        ("", "the `Command` option is empty"),
        (
            "Command = \"/nonexistent/engine -q\"",
            "cannot start `/nonexistent/engine -q`",
        ),
    ] {
        let toml = TournamentFile::new("match", 1, "depth = 1")
            .engine(engine("ext", s(&a.external), options))
            .engine(engine("greedy", s(&a.greedy), ""))
            .text();
        dir.write("ext.toml", &toml);
        harness(dir.path(), &["run", "ext.toml", "--dry-run"])
            .assert_error()
            .assert_stderr_has(&["engine `ext`", message]);
        harness(dir.path(), &["run", "ext.toml", "--no-tui"])
            .assert_error()
            .assert_stderr_has(&["engine `ext`", message]);
        assert!(!dir.join("out/games.jsonl").exists());
    }
}

/// `sprt-sim` refuses flags it cannot work with (it panicked on the first two, and accepted
/// bounds `harness sprt` refuses).
#[test]
fn sprt_sim_refuses_impossible_flags() {
    let dir = TempDir::new("sprt-sim-flags");
    dir.write("t.toml", &match_file(2));
    harness(dir.path(), &["run", "t.toml", "--no-tui"]).assert_success();
    for (flags, message) in [
        (&["--runs", "0"][..], "--runs: must be at least 1"),
        (
            &["--check-every", "0"][..],
            "--check-every: must be at least 1",
        ),
        (
            &["--elo0", "5", "--elo1", "0"][..],
            "--elo1: must be greater than elo0",
        ),
        (
            &["--nelo0", "5", "--nelo1", "0"][..],
            "--nelo1: must be greater than elo0",
        ),
    ] {
        let mut args = vec!["sprt-sim", "out/arena"];
        args.extend_from_slice(flags);
        harness(dir.path(), &args)
            .assert_error()
            .assert_stderr_has(&[message]);
    }
}

/// A reader that leaves (`| head -1`) costs nothing: `replay`, `stats`
/// and `merge` exit as they would have, and the merge still writes its journal and reports.
#[test]
fn commands_survive_a_closed_pipe() {
    let dir = TempDir::new("closed-pipe");
    dir.write("t.toml", &match_file(2));
    play_shards(&dir, 0..2, 2);
    for args in [
        &["merge", "out/arena"][..],
        &["replay", "out/arena", "2"][..],
        &["stats", "out/arena"][..],
    ] {
        // The reader is gone before the first line: every write meets a closed pipe (a
        // reader that read one line first could leave after the whole output fit in the
        // pipe's buffer, and prove nothing).
        let mut child = spawn_harness(dir.path(), args, true);
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?} after the reader left: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
    for name in [
        "games.jsonl",
        "games.ggf",
        "report.json",
        "report.md",
        "report.html",
    ] {
        assert!(dir.join("out/arena").join(name).exists(), "{name}");
    }
}

/// `quit` during a deep search (the session said it is thinking, the worker is spinning) ends
/// `harness nboard` at once, with no answer (the search was carried on until killed); `go` and
/// `quit` sent together by a script still get the move first.
#[test]
fn nboard_quit_ends_a_search_in_progress() {
    use std::io::{BufRead, BufReader, Write};
    use std::time::{Duration, Instant};
    let a = artifacts();
    let dir = TempDir::new("nboard-quit");
    let mut child = std::process::Command::new(&a.harness)
        .args(["nboard", "--engine", s(&a.strong)])
        .current_dir(dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"nboard 2\nset depth 40\ngo\n").unwrap();
    stdin.flush().unwrap();
    // The search is under way: the session said so, and the worker has a search to run.
    let (lines, said) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    let waiting = Instant::now();
    let thinking = loop {
        let line = said
            .recv_timeout(Duration::from_secs(30).saturating_sub(waiting.elapsed()))
            .expect("`status … is thinking` within 30 s");
        if line.ends_with(" is thinking") {
            break line;
        }
    };
    // A worker has spun for 0.3 s of CPU time: it is searching, not starting.
    let marker = crate::support::worker_marker(pid);
    while crate::support::processes_with(&marker)
        .iter()
        .all(|w| w.cpu_ticks < 30)
    {
        assert!(waiting.elapsed() < Duration::from_secs(30), "no search");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Later than a `quit` sent with the `go` (which would be answered first).
    std::thread::sleep(Duration::from_millis(150));
    stdin.write_all(b"quit\n").unwrap();
    stdin.flush().unwrap();
    let sent = Instant::now();
    // The input stays open: only `quit` can end the session.
    let mut ended = None;
    while sent.elapsed() < Duration::from_secs(20) {
        if let Some(status) = child.try_wait().unwrap() {
            ended = Some(status);
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    if ended.is_none() {
        let _ = child.kill();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let status = ended.expect("`quit` did not end the session within 20 s");
    assert!(status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    reader.join().unwrap();
    let after: Vec<String> = said.try_iter().collect();
    assert!(
        after.iter().all(|l| !l.starts_with("=== ")),
        "the search was answered, not ended, after `{thinking}`: {after:?}"
    );
    let left = crate::support::workers_of(pid);
    assert!(left.is_empty(), "the searching worker is left: {left:?}");
    // A script: the answer comes before the session ends.
    let scripted = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "printf 'nboard 2\\nset depth 4\\ngo\\nquit\\n' | {} nboard --engine {}",
            s(&a.harness),
            s(&a.strong)
        ))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&scripted.stdout);
    assert!(text.contains("=== "), "{text}");
}

/// `harness stats` of an SPRT run shows the test; a journal holding every game twice is said
/// to, and each game counted once.
#[test]
fn stats_shows_the_test_and_counts_a_repeated_game_once() {
    let a = artifacts();
    let dir = TempDir::new("stats-sprt");
    let toml = TournamentFile::new("match", 20, "depth = 1")
        .table("[sprt]\nelo0 = 0\nelo1 = 50\n")
        .engine(engine("weak", s(&a.minimax), "Depth = 1"))
        .engine(engine("strongish", s(&a.minimax), "Depth = 3"))
        .text();
    dir.write("t.toml", &toml);
    let run = harness(dir.path(), &["run", "t.toml", "--no-tui"]);
    let stats = harness(dir.path(), &["stats", "out"]);
    stats.assert_success();
    assert!(
        stats
            .stdout
            .contains("\nSPRT Logistic/Pentanomial elo0 0 elo1 50"),
        "{stats}"
    );
    // The run's verdict line and the one `stats` prints agree.
    let verdict = |text: &str| {
        text.lines()
            .find(|l| {
                l.starts_with("H0 accepted")
                    || l.starts_with("H1 accepted")
                    || l.starts_with("undecided")
            })
            .map(str::to_string)
    };
    assert_eq!(
        verdict(&run.stdout).map(|v| v[..11].to_string()),
        verdict(&stats.stdout).map(|v| v[..11].to_string()),
        "{run}\n{stats}"
    );
    // Every line twice.
    let journal = std::fs::read_to_string(dir.join("out/games.jsonl")).unwrap();
    std::fs::create_dir_all(dir.join("twice")).unwrap();
    std::fs::write(dir.join("twice/games.jsonl"), format!("{journal}{journal}")).unwrap();
    let twice = harness(dir.path(), &["stats", "twice"]);
    twice.assert_success();
    assert!(twice.stderr.contains("repeat a game number"), "{twice}");
    let results = |text: &str| text[..text.find("\nEngines (").unwrap()].to_string();
    assert_eq!(results(&twice.stdout), results(&stats.stdout));
}

/// An OBF line that lists an illegal move is a broken file (exit 2 naming the line and the
/// move), not a WRONG answer of the engine.
#[test]
fn solve_names_an_illegal_listed_move() {
    let a = artifacts();
    let dir = TempDir::new("solve-illegal");
    // 4 empties; d4 holds a disc.
    dir.write(
        "bad.obf",
        "OOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOX---- X; D4:+64;\n",
    );
    harness(dir.path(), &["solve", "bad.obf", "--engine", s(&a.minimax)])
        .assert_error()
        .assert_stderr_has(&["bad.obf:1:", "lists d4, which is not a legal move"]);
}
