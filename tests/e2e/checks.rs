//! The checks of `support` reject what they should: a real journal, corrupted one way at a time.

use crate::support::{
    artifacts, check_ggf, check_record, check_schedule, engine, harness, read_games, s, TempDir,
    TournamentFile,
};
use harness_core::record::{GameRecord, Termination};
use std::panic::{catch_unwind, AssertUnwindSafe};

fn rejected(what: &str, f: impl FnOnce()) {
    assert!(
        catch_unwind(AssertUnwindSafe(f)).is_err(),
        "the checks accept {what}"
    );
}

#[test]
fn record_checks_reject_corrupted_records() {
    let a = artifacts();
    let dir = TempDir::new("checks");
    let toml = TournamentFile::new("match", 1, "depth = 1")
        .engine(engine("minimax", s(&a.minimax), ""))
        .engine(engine("greedy", s(&a.greedy), ""))
        .text();
    dir.write("t.toml", &toml);
    harness(dir.path(), &["run", "t.toml"]).assert_success();
    let out = dir.join("out");
    let records = read_games(&out);
    let good = records[0].clone();
    check_record(&good);
    check_ggf(&out, &records);

    let corrupt = |what: &str, f: fn(&mut GameRecord)| {
        let mut r = good.clone();
        f(&mut r);
        rejected(what, || {
            check_record(&r);
        });
    };
    corrupt("a wrong score", |r| r.score += 2);
    corrupt("wrong discs", |r| r.discs.black += 1);
    corrupt("a wrong result", |r| {
        r.result = if r.result == "1-0" { "0-1" } else { "1-0" }.into()
    });
    corrupt("a move left out", |r| {
        r.moves.remove(10);
    });
    corrupt("an extra pass", |r| {
        let mut pass = r.moves[9].clone();
        pass.mv = "PA".into();
        r.moves.insert(9, pass);
    });
    corrupt("an unfinished game ending normally", |r| {
        r.moves.pop();
    });
    corrupt("a book move after an engine move", |r| {
        r.moves[9].book = true
    });
    corrupt("a node total", |r| r.nodes.white += 1);
    corrupt("a forfeit without its position", |r| {
        r.termination = Termination::Crash;
        r.forfeit_by = Some(othello_board::Color::White);
        r.score = 64;
        r.result = "1-0".into();
        r.reason = "crashed".into();
    });

    // The schedule: two games of one pair, colours swapped, one opening.
    let pairing = [("minimax", "greedy")];
    check_schedule(&records, &pairing, 1);
    let reschedule = |what: &str, f: fn(&mut Vec<GameRecord>)| {
        let mut rs = records.clone();
        f(&mut rs);
        rejected(what, || check_schedule(&rs, &pairing, 1));
    };
    reschedule("colours not swapped", |rs| {
        rs[1].black = rs[0].black.clone();
        rs[1].white = rs[0].white.clone();
    });
    reschedule("a missing game", |rs| {
        rs.pop();
    });
    reschedule("a pair on two openings", |rs| rs[1].opening.index += 1);
    reschedule("a pair with different book moves", |rs| {
        rs[1].moves.retain(|m| !m.book)
    });

    // The GGF file must follow the journal.
    let ggf = out.join("games.ggf");
    let text = std::fs::read_to_string(&ggf).unwrap();
    for (from, to) in [
        ("PB[minimax]", "PB[greedy]"),
        ("]B[", "]W["),
        (";)\n", ")\n"),
    ] {
        std::fs::write(&ggf, text.replacen(from, to, 1)).unwrap();
        rejected(&format!("GGF with `{to}` for `{from}`"), || {
            check_ggf(&out, &records)
        });
    }
    std::fs::write(&ggf, &text).unwrap();
    check_ggf(&out, &records);
}
