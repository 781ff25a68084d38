//! What the user sees on the terminal: progress lines that number games as `harness replay`
//! does, the warnings said once before the first game, and a reader that goes away costs
//! nothing (the run, `merge`, `replay` and `stats` go on as they would have). Where the games
//! go: default output folders that never collide, an explicit one refused in words.

use crate::support::{
    artifacts, engine, engine_flag, harness, match_args, match_file, play_shards, read_games, run,
    s, spawn_harness, TempDir, TournamentFile,
};
use std::io::{BufRead, BufReader};

/// `harness run … | head -1`: on the broken pipe, printing stops and the run goes on to its
/// end (every game, the reports, exit code 0), never a panic ("failed printing to stdout",
/// exit 101) that stops the tournament.
#[test]
fn a_closed_stdout_stops_the_printing_not_the_run() {
    let a = artifacts();
    let dir = TempDir::new("broken-pipe");
    // Games of about a second, so that the run prints long after the reader has gone.
    let toml = TournamentFile::new("match", 6, "move-time = 0.03")
        .engine(engine("greedy", s(&a.greedy), ""))
        .engine(engine("heuristic", s(&a.heuristic), ""))
        .text();
    dir.write("t.toml", &toml);
    let mut child = spawn_harness(dir.path(), &["run", "t.toml", "--no-tui"], true);
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.contains("t.toml"), "{first}");
    // The reader is dropped here: the pipe is closed after one line, as `head -1` does.
    let out = child.wait_with_output().expect("the harness ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(read_games(&dir.join("out")).len(), 12);
    let report = std::fs::read_to_string(dir.join("out/report.json")).unwrap();
    assert!(report.contains("\"finished\": true"), "{report}");
}

/// Depths of `harness perft` that cannot finish (99) are refused with the range, never run
/// forever without a word.
#[test]
fn perft_refuses_a_depth_that_cannot_finish() {
    let dir = TempDir::new("perft-depth");
    crate::support::harness(dir.path(), &["perft", "99"])
        .assert_error()
        .assert_stderr_has(&["99 is not in 0..=15"]);
}

/// Run the harness with `args` in `dir` to its end; returns its exit code and the most worker
/// processes it had at once.
fn run_counting_workers(dir: &std::path::Path, args: &[&str]) -> (Option<i32>, usize) {
    let mut child = spawn_harness(dir, args, false);
    let marker = crate::support::worker_marker(child.id());
    let mut most = 0;
    let started = std::time::Instant::now();
    loop {
        most = most.max(crate::support::processes_with(&marker).len());
        if let Some(status) = child.try_wait().expect("wait for the harness") {
            return (status.code(), most);
        }
        assert!(
            started.elapsed() < crate::support::HARNESS_TIMEOUT,
            "the harness did not end"
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// The command line's habits of fastchess users: `--concurrency`, `--pairs`, `--time`,
/// `--openings-seed` replace the file's values and take effect (one game at a time: never more
/// than a worker per engine; the openings of the seed, as the file's shuffled order with that
/// seed would draw them), are recorded in tournament.json (a merge of shards rebuilds the
/// overridden tournament), and a resume with other values (but more pairs) is refused like a
/// changed file;
/// `--dry-run` checks everything and writes nothing.
#[test]
fn command_line_overrides_and_dry_run() {
    let a = artifacts();
    let dir = TempDir::new("overrides");
    let toml = TournamentFile::new("match", 50, "move-time = 1.0")
        .engine(engine("greedy", s(&a.greedy), ""))
        .engine(engine("minimax", s(&a.minimax), "Depth = 2"))
        .text();
    dir.write("t.toml", &toml);
    let harness = |args: &[&str]| crate::support::harness(dir.path(), args);
    let dry = harness(&[
        "run",
        "t.toml",
        "--dry-run",
        "--pairs",
        "3",
        "--time",
        "depth=2",
    ]);
    dry.assert_success();
    assert!(dry.stdout.contains("6 games in 3 pairs"), "{dry}");
    assert!(dry.stdout.contains("(depth 2)"), "{dry}");
    assert!(!dir.join("out").exists(), "a dry run writes nothing");
    let bad = toml.replace(&s(&a.minimax).to_string(), "/nowhere/libminimax.so");
    dir.write("bad.toml", &bad);
    harness(&["run", "bad.toml", "--dry-run"])
        .assert_error()
        .assert_stderr_has(&["plugin not found", "/nowhere/libminimax.so"]);
    harness(&["run", "t.toml", "--time", "fast"])
        .assert_error()
        .assert_stderr_has(&["--time `fast`"]);

    let overridden = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "t.toml",
            "--no-tui",
            "--pairs",
            "4",
            "--time",
            "depth=2",
            "--openings-seed",
            "9",
        ];
        args.extend_from_slice(extra);
        run_counting_workers(dir.path(), &args)
    };
    for i in 0..2 {
        let shard = format!("{i}/2");
        let (code, workers) = overridden(&["--concurrency", "1", "--shard", &shard]);
        assert_eq!(code, Some(0), "shard {shard}");
        assert_eq!(
            workers, 2,
            "shard {shard}: one game at a time, a worker per engine"
        );
    }
    // The file's two games at once: more workers, which the sampling above would have seen.
    let (code, workers) = overridden(&["--out", "two-at-once"]);
    assert_eq!(code, Some(0));
    assert!(workers > 2, "{workers} workers with two games at once");
    let pinned = std::fs::read_to_string(dir.join("out/shard-0-of-2/tournament.json")).unwrap();
    assert!(
        pinned.contains("\"overrides\"") && pinned.contains("\"depth=2\""),
        "{pinned}"
    );
    let merge = harness(&["merge", "out"]);
    merge.assert_success();
    assert!(merge.stdout.contains("8 games of 8 planned"), "{merge}");
    let records = read_games(&dir.join("out"));
    assert_eq!(records.len(), 8);
    // The openings are those the file's shuffled order with seed 9 draws, not its sequential
    // order.
    let seeded = harness_core::plan::config::parse(
        &toml.replace(
            "builtin = \"xot-small\"",
            "builtin = \"xot-small\"\norder = \"shuffled\"\nseed = 9",
        ),
        "seeded.toml",
        dir.path(),
    )
    .expect("the tournament with the seed in the file");
    let schedule = seeded.schedule(seeded.openings.load().unwrap().openings.len());
    for r in &records {
        assert_eq!(
            r.opening.index, schedule.games[r.game].opening,
            "game {}: opening",
            r.game
        );
    }
    assert!(
        records.iter().any(|r| r.opening.index != r.pair),
        "the sequential order's openings"
    );
    // The same folder with other values: refused, as a changed tournament file would be
    // (more pairs alone would extend it).
    harness(&[
        "run",
        "t.toml",
        "--no-tui",
        "--pairs",
        "4",
        "--time",
        "depth=3",
        "--openings-seed",
        "9",
    ])
    .assert_error()
    .assert_stderr_has(&["different tournament", "time depth 2 → depth 3"]);
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

/// Said once before the first game: more pairs than openings (deterministic engines then
/// replay the same games), an engine option `Depth` under a depth limit, and a tuned `Depth`
/// that the time control overrides.
#[test]
fn warnings_for_repeated_openings_and_an_overridden_depth() {
    let dir = TempDir::new("warnings");
    dir.write("two.txt", "f5\nf5d6\n");
    let out = run(
        dir.path(),
        &match_args("--time depth=2 --pairs 3 --openings two.txt --out w"),
    );
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("3 pairs per pairing from 2 openings: openings repeat"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains(
            "engine `m`: option `Depth = 3` is likely overridden by the time control `depth 2`"
        ),
        "{}",
        out.stderr
    );
    let quiet = run(
        dir.path(),
        &match_args("--time nodes=20000 --pairs 2 --out q"),
    );
    assert!(!quiet.stderr.contains("warning"), "{}", quiet.stderr);
    let mm = engine_flag("mm", &artifacts().minimax, "");
    let tune = harness(
        dir.path(),
        &[
            "tune", "--engine", &mm, "--time", "depth=2", "--tune",
            "mm,iterations=2,params.Depth.start=2,params.Depth.min=1,params.Depth.max=5,params.Depth.c-end=1.0,params.Depth.r-end=0.1",
            "--no-tui", "--out", "t",
        ],
    );
    assert_eq!(tune.status.code(), Some(0), "{}", tune.stderr);
    assert!(
        tune.stderr.contains(
            "engine `mm`: the tuned option `Depth` is overridden by the time control `depth 2`"
        ),
        "{}",
        tune.stderr
    );
}

/// `harness run --engine a --engine b` of `engines` at depth 1, one pair, then `extra`.
fn pair_of(engines: &[String; 2], extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "run",
        "--engine",
        &engines[0],
        "--engine",
        &engines[1],
        "--pairs",
        "1",
        "--time",
        "depth=1",
        "--no-tui",
    ]
    .map(String::from)
    .to_vec();
    args.extend(extra.iter().map(|a| a.to_string()));
    args
}

/// The engines of two tournaments with the same names, `a` and `b`: greedy against minimax
/// at depth 1, then greedy against heuristic (another plugin as `b`).
fn same_names() -> [[String; 2]; 2] {
    let a = artifacts();
    [
        [
            engine_flag("a", &a.greedy, ""),
            engine_flag("b", &a.minimax, ",Depth=1"),
        ],
        [
            engine_flag("a", &a.greedy, ""),
            engine_flag("b", &a.heuristic, ""),
        ],
    ]
}

/// The first line a command printed on standard output.
fn first_line(out: &crate::support::Output) -> &str {
    out.stdout.lines().next().unwrap_or("")
}

/// Two tournaments of engines with the same names, neither naming a folder: the first plays
/// into `out/a-vs-b`, the second into `out/a-vs-b-2` and says so on its first line, leaving
/// the first's games as they were; each run again resumes its own folder. A shard of a third
/// takes no numbered folder (its N jobs must agree on one): exit 2, asking for --out, nothing
/// written.
#[test]
fn default_output_folders_never_collide() {
    let a = artifacts();
    let dir = TempDir::new("default-folders");
    let [first, second] = same_names();
    let played = run(dir.path(), &pair_of(&first, &[]));
    played.assert_success();
    assert!(
        first_line(&played).ends_with("output in out/a-vs-b"),
        "{played}"
    );
    let journal = std::fs::read(dir.join("out/a-vs-b/games.jsonl")).unwrap();

    let other = run(dir.path(), &pair_of(&second, &[]));
    other.assert_success();
    assert!(
        first_line(&other).ends_with(
            "output in out/a-vs-b-2 (the default out/a-vs-b holds games of another tournament)"
        ),
        "{other}"
    );
    assert_eq!(read_games(&dir.join("out/a-vs-b-2")).len(), 2);
    assert_eq!(
        std::fs::read(dir.join("out/a-vs-b/games.jsonl")).unwrap(),
        journal,
        "the first tournament's games changed"
    );

    let again = run(dir.path(), &pair_of(&first, &[]));
    again.assert_resumed(2, 2);
    assert!(
        first_line(&again).contains("output in out/a-vs-b (the default folder"),
        "{again}"
    );
    let other_again = run(dir.path(), &pair_of(&second, &[]));
    other_again.assert_resumed(2, 2);
    assert!(
        first_line(&other_again).contains("output in out/a-vs-b-2 ("),
        "{other_again}"
    );

    let third = [
        engine_flag("a", &a.greedy, ""),
        engine_flag("b", &a.minimax, ",Depth=2"),
    ];
    run(dir.path(), &pair_of(&third, &["--shard", "0/2"]))
        .assert_error()
        .assert_stderr_has(&[
            "out/a-vs-b: the default output folder holds games of another tournament",
            "give --out",
        ]);
    assert!(!dir.join("out/a-vs-b-3").exists());
    assert!(!dir.join("out/a-vs-b/shard-0-of-2").exists());
}

/// A folder that `--out` names is refused when it holds another tournament's games (exit 2),
/// with what differs in words: another plugin file is "another plugin", not a rebuilt engine,
/// and no value is JSON.
#[test]
fn an_explicit_folder_is_refused_with_what_differs_in_words() {
    let a = artifacts();
    let dir = TempDir::new("explicit-folder");
    let [first, second] = same_names();
    run(dir.path(), &pair_of(&first, &["--out", "mine"])).assert_success();
    let refused = run(dir.path(), &pair_of(&second, &["--out", "mine"]));
    let another = format!(
        "engines[1].plugin {} → {} (another plugin)",
        s(&a.minimax),
        s(&a.heuristic)
    );
    refused.assert_error().assert_stderr_has(&[
        "mine: the output folder holds 2 games of a different tournament",
        "engines[1].options [[Depth, 1]] → []",
        &another,
    ]);
    assert!(!refused.stderr.contains("rebuilt"), "{refused}");
    assert!(!refused.stderr.contains('{'), "{refused}");
}

/// `run --serve` prints the run page's URL once the run is about to start: never for a run
/// refused at its start (here, a folder that `--out` names holding another tournament), and
/// for one that plays on the line after its header.
#[test]
fn run_serve_prints_its_url_only_once_the_run_starts() {
    let dir = TempDir::new("serve-at-start");
    let [first, second] = same_names();
    run(dir.path(), &pair_of(&first, &["--out", "mine"])).assert_success();
    let refused = run(
        dir.path(),
        &pair_of(&second, &["--out", "mine", "--serve=127.0.0.1:0"]),
    );
    refused.assert_error();
    assert!(!refused.stdout.contains("http://"), "{refused}");

    let served = run(
        dir.path(),
        &pair_of(&first, &["--out", "mine", "--serve=127.0.0.1:0"]),
    );
    served.assert_resumed(2, 2);
    let lines: Vec<&str> = served.stdout.lines().collect();
    assert!(lines[0].starts_with("<command line>: "), "{served}");
    assert!(
        lines[1].starts_with("http://127.0.0.1:") && lines[1].ends_with("/run/0"),
        "{served}"
    );
}
