//! `harness stats`: the tables recomputed from a journal agree with the games in it; an SPRT
//! run's test is shown, and a game a journal repeats is counted once.

use crate::support::{artifacts, engine, harness, read_games, s, TempDir, TournamentFile};
use harness_core::record::GameRecord;

/// (wins, draws, losses) of `a` against `b` in the records.
fn wdl(records: &[GameRecord], a: &str, b: &str) -> (u32, u32, u32) {
    let mut t = (0, 0, 0);
    for r in records {
        let a_view = if (r.black.as_str(), r.white.as_str()) == (a, b) {
            r.score
        } else if (r.black.as_str(), r.white.as_str()) == (b, a) {
            -r.score
        } else {
            continue;
        };
        match a_view.signum() {
            1 => t.0 += 1,
            0 => t.1 += 1,
            _ => t.2 += 1,
        }
    }
    t
}

/// Average disc difference of `a` against `b`.
fn mean_discs(records: &[GameRecord], a: &str, b: &str) -> f64 {
    let diffs: Vec<i32> = records
        .iter()
        .filter_map(|r| match (r.black.as_str(), r.white.as_str()) {
            (x, y) if (x, y) == (a, b) => Some(r.score),
            (x, y) if (x, y) == (b, a) => Some(-r.score),
            _ => None,
        })
        .collect();
    f64::from(diffs.iter().sum::<i32>()) / diffs.len() as f64
}

#[test]
fn stats_table_agrees_with_the_journal() {
    let a = artifacts();
    let dir = TempDir::new("stats");
    let toml = TournamentFile::new("round-robin", 3, "depth = 2")
        .openings(
            r#"builtin = "xot-large"
order = "shuffled"
seed = 5"#,
        )
        .engine(engine("heuristic", s(&a.heuristic), ""))
        .engine(engine("minimax", s(&a.minimax), ""))
        .engine(engine("greedy", s(&a.greedy), ""))
        .text();
    dir.write("rr.toml", &toml);
    harness(dir.path(), &["run", "rr.toml"]).assert_success();
    let records = read_games(&dir.join("out"));
    assert_eq!(records.len(), 18);

    let by_folder = harness(dir.path(), &["stats", "out"]);
    by_folder.assert_success();
    let by_file = harness(dir.path(), &["stats", "out/games.jsonl"]);
    by_file.assert_success();
    assert_eq!(
        by_folder.stdout, by_file.stdout,
        "a folder means its games.jsonl"
    );
    let table = &by_folder.stdout;
    assert!(table.contains("Results (18 games)"), "{by_folder}");

    // One row per pairing: `A B games W-D-L score% …`, from A's view.
    let mut rows = 0;
    for line in table.lines() {
        let cells: Vec<&str> = line.split_whitespace().collect();
        let names = ["heuristic", "minimax", "greedy"];
        if cells.len() < 5 || !names.contains(&cells[0]) || !names.contains(&cells[1]) {
            continue;
        }
        rows += 1;
        let (x, y) = (cells[0], cells[1]);
        let (w, d, l) = wdl(&records, x, y);
        assert_eq!(cells[2], "6", "games of {x} vs {y}: {line}");
        assert_eq!(
            cells[3],
            format!("{w}-{d}-{l}"),
            "W-D-L of {x} vs {y}: {line}"
        );
        let score = 100.0 * (f64::from(w) + 0.5 * f64::from(d)) / 6.0;
        assert_eq!(
            cells[4],
            format!("{score:.1}%"),
            "score of {x} vs {y}: {line}"
        );
        let discs = format!("{:+.1}", mean_discs(&records, x, y));
        let discs_plain = format!("{:.1}", mean_discs(&records, x, y));
        assert!(
            cells.iter().any(|c| *c == discs || *c == discs_plain),
            "mean disc difference {discs} of {x} vs {y} not in: {line}"
        );
    }
    assert_eq!(rows, 3, "one row per pairing:\n{table}");
    // More than two engines: a joint rating lists each once.
    assert!(table.contains("Joint rating"), "{table}");
    for name in ["heuristic", "minimax", "greedy"] {
        let listed = table
            .lines()
            .skip_while(|l| !l.contains("Joint rating"))
            .filter(|l| l.split_whitespace().nth(1) == Some(name))
            .count();
        assert_eq!(listed, 1, "{name} in the joint rating:\n{table}");
    }

    // No journal, no table: a clear error naming the file.
    harness(dir.path(), &["stats", "nowhere"])
        .assert_error()
        .assert_stderr_has(&["nowhere"]);
}

/// `harness stats` recomputes the tables `harness run` printed at its end, whatever order the
/// games were appended in (with two games at once they finish in any order; here the journal is
/// reversed, as a run could have written it).
#[test]
fn stats_recomputes_the_final_table_of_the_run() {
    let a = artifacts();
    let dir = TempDir::new("stats-order");
    let toml = TournamentFile::new("gauntlet", 2, "depth = 1")
        .concurrency(1)
        .engine(engine("heuristic", s(&a.heuristic), ""))
        .engine(engine("minimax", s(&a.minimax), ""))
        .engine(engine("greedy", s(&a.greedy), ""))
        .text();
    dir.write("g.toml", &toml);
    let run = harness(dir.path(), &["run", "g.toml"]);
    run.assert_success();
    let journal = dir.join("out/games.jsonl");
    let text = std::fs::read_to_string(&journal).unwrap();
    let reversed: Vec<&str> = text.lines().rev().collect();
    std::fs::write(&journal, reversed.join("\n") + "\n").unwrap();
    let stats = harness(dir.path(), &["stats", "out"]);
    stats.assert_success();
    assert!(
        run.stdout
            .contains(&format!("{}\n8 games in", stats.stdout)),
        "the run's final table:\n{}\nstats of its journal:\n{}",
        run.stdout,
        stats.stdout
    );
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
            .contains("\nSPRT logistic/pentanomial elo0 0 elo1 50"),
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
