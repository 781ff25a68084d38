//! Plugins written in C: the example of `engines/c_example` and a plugin that prints.

use crate::support::{
    artifacts, check_ggf, check_normal_record, check_record, check_schedule, engine, engine_moves,
    harness, read_games, s, TempDir, TournamentFile,
};
use harness_core::record::Termination;
use othello_board::{Color, Move, Square};

/// A match of `first` against `second` at depth 1 with `pairs` pairs into `<dir>/out`.
fn match_toml(pairs: usize, first: &str, second: &str) -> String {
    TournamentFile::new("match", pairs, "depth = 1")
        .openings("builtin = \"xot-small\"\norder = \"shuffled\"\nseed = 11")
        .engine(first.to_string())
        .engine(second.to_string())
        .text()
}

#[test]
fn c_example_loads_and_plays_a_match() {
    let a = artifacts();
    let dir = TempDir::new("c-example");
    let info = harness(dir.path(), &["info", s(&a.first_move)]);
    info.assert_success();
    let field = |key: &str| {
        info.stdout
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .map(str::trim)
            .unwrap_or_else(|| panic!("no `{key}` line:\n{info}"))
    };
    assert_eq!(field("name"), "FirstMove");
    assert_eq!(field("abi"), "1.1");
    assert_eq!(field("path"), s(&a.first_move));
    let skip = info
        .stdout
        .lines()
        .find(|l| l.split_whitespace().next() == Some("Skip"))
        .unwrap_or_else(|| panic!("no option Skip:\n{info}"));
    assert_eq!(
        skip.split_whitespace().take(4).collect::<Vec<_>>(),
        ["Skip", "int", "default", "0"],
        "{skip}"
    );

    // Skip = 1: the second legal move in square order (the first when there is only one),
    // which shows the option reaches the C engine through the harness.
    let toml = match_toml(
        2,
        &engine("first-move", s(&a.first_move), "Skip = 1"),
        &engine("greedy", s(&a.greedy), ""),
    );
    dir.write("m.toml", &toml);
    harness(dir.path(), &["run", "m.toml"]).assert_success();
    let records = read_games(&dir.join("out"));
    check_schedule(&records, &[("first-move", "greedy")], 2);
    for r in &records {
        check_normal_record(r);
        let color = if r.black == "first-move" {
            Color::Black
        } else {
            Color::White
        };
        let chosen = engine_moves(r, color);
        assert!(!chosen.is_empty());
        for m in chosen {
            let legal: Vec<Move> = Square::iter(m.position.legal_moves())
                .map(Move::at)
                .collect();
            assert_eq!(
                m.mv,
                legal[1 % legal.len()],
                "game {} in {}",
                r.game,
                m.position
            );
        }
    }
    check_ggf(&dir.join("out"), &records);
}

/// An engine that writes garbage and protocol look-alikes to its stdout does not disturb the
/// protocol (its stdout is not the channel), and what it writes to stderr lands in its log.
#[test]
fn engine_output_does_not_disturb_the_protocol() {
    let a = artifacts();
    let dir = TempDir::new("printer");
    let toml = match_toml(
        2,
        &engine("printer", s(&a.printer), "Lines = 7"),
        &engine("greedy", s(&a.greedy), ""),
    );
    dir.write("p.toml", &toml);
    harness(dir.path(), &["run", "p.toml"]).assert_success();
    let records = read_games(&dir.join("out"));
    assert_eq!(records.len(), 4);
    for r in &records {
        check_normal_record(r);
        // The printer plays the lowest legal square, not the `mv: 0` it prints.
        let color = if r.black == "printer" {
            Color::Black
        } else {
            Color::White
        };
        for m in engine_moves(r, color) {
            let lowest = Square::iter(m.position.legal_moves()).next().map(Move::at);
            assert_eq!(Some(m.mv), lowest, "game {}", r.game);
        }
    }
    let log = std::fs::read_to_string(dir.join("out/logs/printer.stderr.log"))
        .expect("the printer's stderr log");
    assert!(log.contains("printer: search 1\n"), "{log}");
}

/// The same plugin may enter twice with different options: each entrant plays by its own.
#[test]
fn same_plugin_enters_twice_with_its_own_options() {
    let a = artifacts();
    let dir = TempDir::new("same-plugin");
    let toml = match_toml(
        1,
        &engine("skip-0", s(&a.first_move), "Skip = 0"),
        &engine("skip-2", s(&a.first_move), "Skip = 2"),
    );
    dir.write("m.toml", &toml);
    harness(dir.path(), &["run", "m.toml"]).assert_success();
    let records = read_games(&dir.join("out"));
    check_schedule(&records, &[("skip-0", "skip-2")], 1);
    for r in &records {
        check_record(r);
        for (color, name) in [(Color::Black, &r.black), (Color::White, &r.white)] {
            let skip = if name == "skip-0" { 0 } else { 2 };
            for m in engine_moves(r, color) {
                let legal: Vec<Move> = Square::iter(m.position.legal_moves())
                    .map(Move::at)
                    .collect();
                assert_eq!(m.mv, legal[skip % legal.len()], "{name} in {}", m.position);
            }
        }
    }
}

/// A plugin built for ABI 1.0 (the fixtures declare the 1.0 table size and minor version 0,
/// without `search_game`) still loads in this 1.1 host and plays through `search`.
#[test]
fn abi_1_0_plugin_still_loads_and_plays() {
    let a = artifacts();
    let dir = TempDir::new("abi-1-0");
    let info = harness(dir.path(), &["info", s(&a.crasher)]);
    info.assert_success();
    assert!(
        info.stdout
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["abi", "1.0"]),
        "{info}"
    );
    // CrashAt = 0: never crashes; it plays the lowest legal square.
    let toml = match_toml(
        1,
        &engine("old", s(&a.crasher), ""),
        &engine("greedy", s(&a.greedy), ""),
    );
    dir.write("m.toml", &toml);
    harness(dir.path(), &["run", "m.toml"]).assert_success();
    let records = read_games(&dir.join("out"));
    check_schedule(&records, &[("old", "greedy")], 1);
    for r in &records {
        check_record(r);
        assert_eq!(r.termination, Termination::Normal, "{}", r.reason);
    }
}
