//! Real tournaments at a fixed depth: the schedule, the journal, the GGF file, reproducibility,
//! the paths a tournament file names (relative to its folder, a plugin file beside it), and
//! the cores `affinity` pins (checked by `--dry-run` and `--restart` as by the run).

use crate::support::{
    artifacts, book_moves, check_ggf, check_normal_record, check_record, check_schedule, engine,
    engine_flag, engine_moves, harness, match_of, read_games, run, s, TempDir, TournamentFile,
};
use harness_core::record::GameRecord;
use othello_board::{parse_transcript, replay, Color, Move, Position};
use std::collections::BTreeMap;

/// A gauntlet of the three Rust engines (bare plugin names found through `--plugin-dir`) from an
/// opening file with transcripts and an OBF board, sequential: every scheduled game is played
/// once, legally, from its opening, and both files agree with the schedule.
#[test]
fn gauntlet_at_fixed_depth_plays_the_schedule_legally() {
    let a = artifacts();
    let dir = TempDir::new("gauntlet");
    // Line numbers matter: the records must name the opening's line in the file.
    // The OBF opening is a board with White to move, reached by five moves from the start.
    let (_, obf) = replay(Position::START, &parse_transcript("f5d6c3d3c4").unwrap()).unwrap();
    let openings = [
        (3, "f5d6c3d3c4f4f6f3"),
        (4, "f5f6e6f4e3"),
        (6, &*format!("{obf};")),
    ];
    dir.write(
        "openings.txt",
        &format!(
            "# e2e openings\n\n{}   # a comment\n{}\n\n{}\n",
            openings[0].1, openings[1].1, openings[2].1
        ),
    );
    let pairs = 3;
    let toml = TournamentFile::new("gauntlet", pairs, "depth = 2")
        .out(Some("not-here"))
        .openings(
            r#"file = "openings.txt"
order = "sequential""#,
        )
        .engine(engine("heuristic", "heuristic", ""))
        .engine(engine("minimax", "minimax", "Depth = 5"))
        .engine(engine("greedy", "greedy", ""))
        .text();
    dir.write("gauntlet.toml", &toml);
    let run = harness(
        dir.path(),
        &[
            "run",
            "gauntlet.toml",
            "--plugin-dir",
            s(&a.plugin_dir),
            "--out",
            "results",
        ],
    );
    run.assert_success();
    assert!(
        !dir.join("not-here").exists(),
        "--out overrides the file's `out`"
    );
    let out = dir.join("results");

    let records = read_games(&out);
    let pairings = [("heuristic", "minimax"), ("heuristic", "greedy")];
    assert_eq!(records.len(), 2 * pairs * pairings.len());
    check_schedule(&records, &pairings, pairs);
    for r in &records {
        check_normal_record(r);
        // Sequential order: round k plays the file's k-th opening.
        let round = r.pair / pairings.len();
        let (line, text) = openings[round % openings.len()];
        assert_eq!(r.opening.index, round % openings.len(), "game {}", r.game);
        assert_eq!(
            (r.opening.line, r.opening.text.as_str()),
            (line, text),
            "game {}",
            r.game
        );
        let (start, moves) = if text.ends_with(';') {
            (obf, Vec::new())
        } else {
            (Position::START, parse_transcript(text).unwrap())
        };
        assert_eq!(r.start_position(), Some(start), "game {}: start", r.game);
        let expected: Vec<String> = moves.iter().map(Move::to_string).collect();
        assert_eq!(book_moves(r), expected, "game {}: book moves", r.game);
    }
    check_ggf(&out, &records);
    // The run reports each finished pair once, then the total.
    let mut done: Vec<String> = run
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("pair "))
        .filter_map(|l| {
            let done = l.split_once('(')?.1.split_once(" done)")?.0;
            Some(done.to_string())
        })
        .collect();
    done.sort_by_key(|d| d.split('/').next().unwrap().parse::<usize>().unwrap());
    let expected: Vec<String> = (1..=6).map(|k| format!("{k}/6")).collect();
    assert_eq!(done, expected, "{run}");
    assert!(
        run.stdout.contains(&format!("{} games in", records.len())),
        "{run}"
    );
}

/// Key facts of a run's games by game number.
fn games_by_number(records: &[GameRecord]) -> BTreeMap<usize, (usize, Vec<String>, i32)> {
    records
        .iter()
        .map(|r| {
            let moves = r.moves.iter().map(|m| m.mv.clone()).collect();
            (r.game, (r.opening.index, moves, r.score))
        })
        .collect()
}

/// The same deterministic tournament (shuffled built-in openings, engines given by absolute
/// path, two games at once) played twice gives the same games, whatever order they finish in.
#[test]
fn same_tournament_twice_gives_the_same_games() {
    let a = artifacts();
    let dir = TempDir::new("repro");
    let pairs = 2;
    let toml = TournamentFile::new("round-robin", pairs, "depth = 2")
        .out(None)
        .openings(
            r#"builtin = "xot-small"
order = "shuffled"
seed = 77"#,
        )
        .engine(engine("heuristic", s(&a.heuristic), ""))
        .engine(engine("minimax", s(&a.minimax), ""))
        .engine(engine("greedy", s(&a.greedy), ""))
        .text();
    dir.write("repro.toml", &toml);
    let mut runs = Vec::new();
    for out in ["first", "second"] {
        harness(dir.path(), &["run", "repro.toml", "--out", out]).assert_success();
        let records = read_games(&dir.join(out));
        check_schedule(
            &records,
            &[
                ("heuristic", "minimax"),
                ("heuristic", "greedy"),
                ("minimax", "greedy"),
            ],
            pairs,
        );
        let xot = harness_core::plan::openings::builtin("xot-small").unwrap();
        for r in &records {
            check_record(r);
            let opening = &xot.openings[r.opening.index];
            assert_eq!(
                (r.opening.line, &r.opening.text),
                (opening.line, &opening.text)
            );
            let expected: Vec<String> = parse_transcript(&opening.text)
                .unwrap()
                .iter()
                .map(Move::to_string)
                .collect();
            assert_eq!(book_moves(r), expected, "game {}", r.game);
        }
        check_ggf(&dir.join(out), &records);
        runs.push(games_by_number(&records));
    }
    assert_eq!(runs[0], runs[1]);
    // Shuffled: the rounds do not take the set's first openings in file order.
    let rounds: Vec<usize> = runs[0].values().step_by(6).map(|g| g.0).collect();
    assert_eq!(rounds.len(), pairs);
    assert_ne!(rounds, [0, 1]);
}

/// Under a clock (base + increment) well-behaved engines finish every game without losing on
/// time, and no side uses more than its clock allows: at every move of its own, the time a side
/// has used is at most the base, the increments of the moves it has made and the margin (the
/// margin is generous for a loaded machine, but small beside the clock).
#[test]
fn clock_games_stay_within_the_clock() {
    let a = artifacts();
    let dir = TempDir::new("clock");
    let (base_ms, increment_ms, margin_ms): (u64, u64, u64) = (1000, 20, 300);
    let time = format!(
        "base = {}\nincrement = {}\nmargin = {}",
        base_ms as f64 / 1000.0,
        increment_ms as f64 / 1000.0,
        margin_ms as f64 / 1000.0
    );
    // The strong engine spends most of its clock (the heuristic one stops far short of it).
    let toml = TournamentFile::new("match", 1, &time)
        .engine(engine("strong", s(&a.strong), "Hash = 16"))
        .engine(engine("greedy", s(&a.greedy), ""))
        .text();
    dir.write("clock.toml", &toml);
    harness(dir.path(), &["run", "clock.toml"]).assert_success();
    let records = read_games(&dir.join("out"));
    check_schedule(&records, &[("strong", "greedy")], 1);
    for r in &records {
        check_normal_record(r);
        let mut used = [0u64; 2];
        let mut moves = [0u64; 2];
        for (m, side) in r.moves.iter().zip(replayed_sides(r)) {
            let Some(t) = m.time_ms else { continue };
            let i = side.index();
            used[i] += t;
            let allowed = base_ms + moves[i] * increment_ms + margin_ms;
            assert!(
                used[i] <= allowed,
                "game {}: {side} had used {} ms after {} moves, of {allowed}",
                r.game,
                used[i],
                moves[i] + 1
            );
            moves[i] += 1;
        }
        assert_eq!(
            (used[0], used[1]),
            (r.time_ms.black, r.time_ms.white),
            "game {}: the totals are the moves' times",
            r.game
        );
        // The clock, not a depth, limits the strong engine: it searches deeper than 1 ply, and
        // uses more than half of its base time.
        let strong = if r.black == "strong" {
            Color::Black
        } else {
            Color::White
        };
        let deepest = r
            .moves
            .iter()
            .zip(replayed_sides(r))
            .filter(|(_, side)| *side == strong)
            .filter_map(|(m, _)| m.depth)
            .max();
        assert!(deepest >= Some(2), "game {}: depth {deepest:?}", r.game);
        assert!(
            used[strong.index()] > base_ms / 2,
            "game {}: {used:?}",
            r.game
        );
    }
    check_ggf(&dir.join("out"), &records);
}

/// The side to move before each move of a record.
fn replayed_sides(r: &GameRecord) -> Vec<Color> {
    let mut pos: Position = r.start.parse().unwrap();
    r.moves
        .iter()
        .map(|m| {
            let side = pos.side_to_move;
            pos = pos.play(m.mv.parse().unwrap()).unwrap();
            side
        })
        .collect()
}

/// A run never appends to (or overwrites) the journal of a finished run.
#[test]
fn finished_output_folder_is_resumed_never_overwritten() {
    let a = artifacts();
    let dir = TempDir::new("no-overwrite");
    let toml = format!(
        r#"[tournament]
format = "match"
pairs = 1
out = "out"

[time]
depth = 1

[openings]
builtin = "xot-small"
{}{}"#,
        engine("minimax", s(&a.minimax), ""),
        engine("greedy", s(&a.greedy), ""),
    );
    dir.write("t.toml", &toml);
    harness(dir.path(), &["run", "t.toml"]).assert_success();
    let files = ["out/games.jsonl", "out/games.ggf"];
    let read = || -> Vec<Vec<u8>> {
        files
            .iter()
            .map(|f| std::fs::read(dir.join(f)).unwrap())
            .collect()
    };
    let before = read();
    // The same tournament again: nothing left to play, nothing changes.
    let again = harness(dir.path(), &["run", "t.toml"]);
    again.assert_success();
    assert!(again.stdout.contains("resuming: 2 of 2 games"), "{again}");
    assert!(read() == before, "the journal changed");
    // A different tournament into the same folder is refused (more pairs would extend it)...
    dir.write("t.toml", &toml.replace("depth = 1", "depth = 2"));
    harness(dir.path(), &["run", "t.toml"])
        .assert_error()
        .assert_stderr_has(&["out", "2 games of a different tournament", "--restart"]);
    assert!(read() == before, "the journal changed");
    // ...unless the user asks to start over.
    harness(dir.path(), &["run", "t.toml", "--restart"]).assert_success();
    assert_eq!(read_games(&dir.join("out")).len(), 2);
}

/// Relative paths in a tournament file (plugin, opening file, output folder) are relative to
/// the file's folder, not to the current folder; a bare plugin name without `--plugin-dir` is
/// looked up next to the harness binary.
#[test]
fn relative_paths_resolve_against_the_tournament_file() {
    let a = artifacts();
    let dir = TempDir::new("relative");
    let sub = dir.join("sub");
    std::fs::create_dir_all(sub.join("engines")).unwrap();
    std::fs::copy(&a.first_move, sub.join("engines/libfm.so")).unwrap();
    std::fs::write(sub.join("mine.txt"), "f5d6c3d3c4f4f6f3\n").unwrap();
    let toml = TournamentFile::new("match", 1, "depth = 1")
        .out(Some("results"))
        .openings(r#"file = "mine.txt""#)
        .engine(engine("fm", "engines/libfm.so", ""))
        .engine(engine("greedy", "greedy", ""))
        .text();
    std::fs::write(sub.join("t.toml"), toml).unwrap();
    harness(dir.path(), &["run", "sub/t.toml"]).assert_success();
    assert!(
        !dir.join("results").exists(),
        "output relative to the current folder"
    );
    let records = read_games(&sub.join("results"));
    check_schedule(&records, &[("fm", "greedy")], 1);
    for r in &records {
        check_record(r);
        assert_eq!(r.opening.text, "f5d6c3d3c4f4f6f3");
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

/// The strong engine under a real clock (1 s + 0.05 s per move, the default 0.2 s margin)
/// against every baseline: no forfeit of any kind, every game within the clock, and it wins
/// clearly (at least 9 of 12 points; measured: it drops about one game in 40 to heuristic).
#[test]
fn strong_plays_the_baselines_at_one_second_without_forfeits() {
    let a = artifacts();
    let dir = TempDir::new("strong-clock");
    let toml = TournamentFile::new(
        "gauntlet",
        2,
        r#"base = 1.0
increment = 0.05"#,
    )
    .openings(
        r#"builtin = "xot-small"
order = "shuffled"
seed = 3"#,
    )
    .engine(engine("strong", s(&a.strong), "Hash = 16"))
    .engine(engine("heuristic", s(&a.heuristic), ""))
    .engine(engine("minimax", s(&a.minimax), "Depth = 4"))
    .engine(engine("greedy", s(&a.greedy), ""))
    .text();
    dir.write("strong.toml", &toml);
    harness(dir.path(), &["run", "strong.toml"]).assert_success();
    let records = read_games(&dir.join("out"));
    check_schedule(
        &records,
        &[
            ("strong", "heuristic"),
            ("strong", "minimax"),
            ("strong", "greedy"),
        ],
        2,
    );
    let mut points = 0.0;
    for r in &records {
        check_normal_record(r);
        let strong = if r.black == "strong" {
            Color::Black
        } else {
            Color::White
        };
        let used = if strong == Color::Black {
            r.time_ms.black
        } else {
            r.time_ms.white
        };
        let moves = engine_moves(r, strong).len() as u64;
        assert!(
            used <= 1200 + 50 * moves,
            "game {}: strong used {used} ms for {moves} moves",
            r.game
        );
        let score = if strong == Color::Black {
            r.score
        } else {
            -r.score
        };
        points += match score.signum() {
            1 => 1.0,
            0 => 0.5,
            _ => 0.0,
        };
    }
    assert!(points >= 9.0, "strong scored only {points} of 12");
}

/// The trained evaluation (the default) against the interim one (`Eval = "simple"`), two
/// plugins of one file at a fixed depth: every game is played to its end, legally. (Their
/// strength is measured by hand, not here: see the strong crate's README.)
#[test]
fn strong_with_trained_and_interim_evaluations_plays_a_match() {
    let a = artifacts();
    let dir = TempDir::new("strong-evals");
    let toml = TournamentFile::new("match", 2, "depth = 4")
        .openings(
            r#"builtin = "xot-small"
order = "sequential""#,
        )
        .engine(engine("trained", s(&a.strong), "Hash = 4"))
        .engine(engine(
            "interim",
            s(&a.strong),
            "Hash = 4, Eval = \"simple\"",
        ))
        .text();
    dir.write("evals.toml", &toml);
    harness(dir.path(), &["run", "evals.toml"]).assert_success();
    let records = read_games(&dir.join("out"));
    check_schedule(&records, &[("trained", "interim")], 2);
    for r in &records {
        check_normal_record(r);
    }
}

/// An engine with its own time rules plays under them: here a slow engine (the `faulty`
/// fixture sleeping over two seconds once per game) is given a generous margin of its own and
/// loses no game, where the tournament's margin would forfeit it. Each engine's control shows
/// in the report and the output folder's `tournament.json`, and a changed control is a changed
/// tournament for resume.
#[test]
fn an_engine_with_its_own_time_rules_plays_under_them() {
    let a = artifacts();
    let dir = TempDir::new("own-time");
    let toml = |own: &str| {
        let mut faulty = engine("faulty", s(&a.faulty), "Fault = \"sleep\", StrikeAt = 3");
        faulty.push_str(&format!("time = {{ {own} }}\n"));
        TournamentFile::new("match", 1, "move-time = 0.1\nmargin = 0.1")
            .engine(faulty)
            .engine(engine("greedy", s(&a.greedy), ""))
            .text()
    };
    dir.write("t.toml", &toml("move-time = 0.05, margin = 10"));
    let run = harness(dir.path(), &["run", "t.toml", "--no-tui"]);
    run.assert_success().assert_no_workers_left();
    // The plain output: the run's line (with each engine's control), then one line per game.
    let first = run.stdout.lines().next().unwrap_or_default();
    assert!(
        first.contains("match of faulty, greedy (faulty 0.05s/move, greedy 0.1s/move)"),
        "{run}"
    );
    let games: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("game "))
        .collect();
    assert_eq!(games.len(), 2, "{run}");
    assert!(
        games[0].starts_with("game ")
            && games[0].contains("  [1/2]  ")
            && games[0].contains("  normal  opening 1"),
        "{run}"
    );
    let records = read_games(&dir.join("out"));
    assert_eq!(records.len(), 2);
    for r in &records {
        check_normal_record(r);
        let slowest = r.moves.iter().filter_map(|m| m.time_ms).max().unwrap_or(0);
        assert!(
            slowest >= 2_000,
            "game {}: the sleep struck: {slowest} ms",
            r.game
        );
    }
    let report = std::fs::read_to_string(dir.join("out/report.md")).unwrap();
    assert!(
        report.contains("faulty 0.05s/move, greedy 0.1s/move"),
        "{report}"
    );
    let fingerprint = std::fs::read_to_string(dir.join("out/tournament.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&fingerprint).unwrap();
    let own = &json["engines"][0]["time"];
    assert_eq!(own["control"], "0.05s/move", "{fingerprint}");
    assert_eq!(own["margin_ms"], 10_000, "{fingerprint}");
    assert!(json["engines"][1].get("time").is_none(), "{fingerprint}");
    // Another control for the engine: another tournament.
    dir.write("t.toml", &toml("move-time = 0.06, margin = 10"));
    harness(dir.path(), &["run", "t.toml", "--no-tui"])
        .assert_error()
        .assert_stderr_has(&["different tournament"]);
}

/// The cores each thread of process `pid` may run on (`Cpus_allowed_list` of
/// `/proc/<pid>/task/<tid>/status`), by thread id; a thread that ends meanwhile is left out.
fn cpus_allowed(pid: &str) -> BTreeMap<String, String> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return BTreeMap::new();
    };
    tasks
        .flatten()
        .filter_map(|task| {
            let status = std::fs::read_to_string(task.path().join("status")).ok()?;
            let line = status
                .lines()
                .find(|l| l.starts_with("Cpus_allowed_list:"))?;
            let list = line.split_whitespace().nth(1)?.to_string();
            Some((task.file_name().to_string_lossy().into_owned(), list))
        })
        .collect()
}

/// `affinity = true`: while the games run, each worker is pinned to one core, every thread of
/// it (a worker reads requests on its main thread and searches on another), and the two games
/// at once use different cores; more games than cores is an error that names the shortage,
/// before anything is written.
#[test]
fn affinity_pins_each_game_to_its_own_core() {
    let a = artifacts();
    let dir = TempDir::new("affinity");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores < 2 {
        return crate::support::skip("affinity", "one core only, nothing to pin apart");
    }
    let toml = |concurrency: usize| {
        TournamentFile::new("match", 2, "move-time = 0.05")
            .concurrency(concurrency as u32)
            .engine(engine("strong", s(&a.strong), ""))
            .engine(engine("heuristic", s(&a.heuristic), ""))
            .text()
            .replace(
                &format!("concurrency = {concurrency}\n"),
                &format!("concurrency = {concurrency}\naffinity = true\n"),
            )
    };
    dir.write("t.toml", &toml(2));
    let mut child =
        crate::support::spawn_harness(dir.path(), &["run", "t.toml", "--no-tui"], false);
    let pid = child.id();
    // Each worker's threads as last seen: worker pid -> thread id -> its cores.
    let mut seen: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    while child.try_wait().unwrap().is_none() {
        for worker in crate::support::processes_with(&crate::support::worker_marker(pid)) {
            let threads = cpus_allowed(&worker.pid);
            if !threads.is_empty() {
                seen.insert(worker.pid, threads);
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(read_games(&dir.join("out")).len(), 4);
    assert!(
        seen.values().any(|threads| threads.len() >= 2),
        "no worker with several threads: {seen:?}"
    );
    // The workers started before the first game are not yet pinned; every one that played is,
    // with all its threads on the one core.
    let one_core = |list: &String| !list.contains([',', '-']);
    let mut pinned = Vec::new();
    for (worker, threads) in &seen {
        let lists: std::collections::BTreeSet<&String> = threads.values().collect();
        if lists.iter().any(|l| one_core(l)) {
            assert_eq!(lists.len(), 1, "worker {worker}'s threads: {threads:?}");
            pinned.extend(lists);
        }
    }
    let distinct: std::collections::BTreeSet<&String> = pinned.iter().copied().collect();
    assert!(pinned.len() >= 2, "workers seen: {seen:?}");
    assert_eq!(distinct.len(), 2, "two games on two cores: {seen:?}");

    dir.write("t.toml", &toml(cores + 1));
    harness(
        dir.path(),
        &["run", "t.toml", "--no-tui", "--out", "too-many"],
    )
    .assert_error()
    .assert_stderr_has(&["affinity = true needs", "lower `concurrency`"]);
    assert!(!dir.join("too-many").exists(), "nothing written");
}

/// `--dry-run` checks the cores `affinity` needs, as the run does; and `--restart` checks all
/// that `--dry-run` does before it moves the earlier games, so a refused restart leaves them.
#[test]
fn dry_run_and_restart_check_the_cores_affinity_needs() {
    let a = artifacts();
    let dir = TempDir::new("affinity-dry-run");
    let pinned = |extra: &str| {
        match_of(
            engine_flag("a", &a.strong, ",Threads=64"),
            engine_flag("b", &a.greedy, ""),
            &format!("--time depth=1 --pairs 1 --concurrency 4 --affinity --out af {extra}"),
        )
    };
    let dry = run(dir.path(), &pinned("--dry-run"));
    dry.assert_error()
        .assert_stderr_has(&["needs 4 games at once × 64 thread(s) = 256 cores"]);
    let plain = match_of(
        engine_flag("a", &a.greedy, ""),
        engine_flag("b", &a.greedy, ""),
        "--time depth=1 --pairs 1 --out af",
    );
    assert_eq!(run(dir.path(), &plain).status.code(), Some(0));
    let before = std::fs::read(dir.join("af/games.jsonl")).unwrap();
    let restart = run(dir.path(), &pinned("--restart"));
    assert_eq!(restart.status.code(), Some(2), "{}", restart.stdout);
    assert!(restart.stderr.contains("256 cores"), "{}", restart.stderr);
    assert_eq!(std::fs::read(dir.join("af/games.jsonl")).unwrap(), before);
    let names: Vec<String> = std::fs::read_dir(dir.join("af"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !names.iter().any(|n| n.starts_with("discarded-")),
        "{names:?}"
    );
}
