//! Clock accounting under base + increment, followed move by move: a side's clock is charged
//! the time each of its answers took (as the coordinator measured it, the time in the record),
//! credited its increment after each of its moves, and the side loses on time once an answer
//! would come later than what is left plus the margin; an engine with a clock table of its own
//! plays on that clock (time odds). The engines are the `sleeper` fixture, which takes a fixed
//! time over every search whatever its clock says, so its clock runs down at a known pace.

use crate::support::{
    artifacts, check_record, engine, harness, read_games, s, TempDir, TournamentFile,
};
use harness_core::record::{GameRecord, Termination};
use othello_board::{Color, Move, Position};

/// Each engine's clock: base and increment (ms); the margin is the tournament's.
const SHORT: (u64, u64) = (1000, 20);
const LONG: (u64, u64) = (6000, 20);
const MARGIN_MS: u64 = 50;
/// How long the sleeper takes over each search (ms).
const DELAY_MS: u64 = 150;

/// The times (ms) of the moves `color` chose in `r`, in order.
fn move_times(r: &GameRecord, color: Color) -> Vec<u64> {
    let mut pos: Position = r.start.parse().expect("start position");
    let mut times = Vec::new();
    for m in &r.moves {
        if pos.side_to_move == color {
            if let Some(t) = m.time_ms {
                times.push(t);
            }
        }
        pos = pos
            .play(m.mv.parse::<Move>().expect("move"))
            .expect("legal");
    }
    times
}

/// Replay a clock of `base` + `increment` (ms) over answers that took `times`: the time left
/// before each answer, and after the last. Every answer must have come within what was left
/// plus the margin (or the coordinator would have declared a forfeit); an answer late by less
/// than the margin empties the clock, which then gets the increment.
fn replay_clock((base, increment): (u64, u64), times: &[u64], ctx: &str) -> Vec<u64> {
    let mut left = vec![base];
    for (i, &t) in times.iter().enumerate() {
        let now = left[i];
        assert!(
            t <= now + MARGIN_MS,
            "{ctx}: move {} took {t} ms with {now} ms left: it should have lost on time",
            i + 1
        );
        left.push(now.saturating_sub(t) + increment);
    }
    left
}

/// "short" plays on the tournament's clock of 1 s + 20 ms, "long" (the same plugin at the same
/// pace of 150 ms a move) on a clock of its own of 6 s + 20 ms. In both games short's clock
/// runs down over several moves until it loses on time, the budget the coordinator gave its
/// last search being what the replayed clock had left, increments included (without them it
/// would be 20 ms less per move played); long plays as many moves at the same pace (one fewer
/// when short is Black) and always has more left than short's whole base.
#[test]
fn a_clock_runs_down_to_a_time_forfeit_with_its_increments_credited() {
    let a = artifacts();
    let dir = TempDir::new("clock-accounting");
    let delay = format!("Delay = {DELAY_MS}");
    let toml = TournamentFile::new(
        "match",
        1,
        &format!(
            "base = {}\nincrement = {}\nmargin = {}",
            SHORT.0 as f64 / 1000.0,
            SHORT.1 as f64 / 1000.0,
            MARGIN_MS as f64 / 1000.0
        ),
    )
    .engine(engine("short", s(&a.sleeper), &delay))
    .engine(
        engine("long", s(&a.sleeper), &delay)
            + &format!(
                "time = {{ base = {}, increment = {} }}\n",
                LONG.0 as f64 / 1000.0,
                LONG.1 as f64 / 1000.0
            ),
    )
    .text();
    dir.write("t.toml", &toml);
    harness(dir.path(), &["run", "t.toml", "--no-tui"])
        .assert_success()
        .assert_no_workers_left();
    let records = read_games(&dir.join("out"));
    assert_eq!(records.len(), 2);
    for r in &records {
        check_record(r);
        let ctx = format!("game {}", r.game);
        let (short, long) = if r.black == "short" {
            (Color::Black, Color::White)
        } else {
            (Color::White, Color::Black)
        };
        assert_eq!(
            r.termination,
            Termination::TimeForfeit,
            "{ctx}: {}",
            r.reason
        );
        assert_eq!(r.forfeit_by, Some(short), "{ctx}: {}", r.reason);

        let times = move_times(r, short);
        assert!(times.len() >= 2, "{ctx}: lost after {} moves", times.len());
        assert!(
            times.iter().all(|&t| t >= DELAY_MS),
            "{ctx}: faster than the sleeper can be: {times:?}"
        );
        let left = replay_clock(SHORT, &times, &format!("{ctx}, short"));
        let last = *left.last().expect("the start");
        // The coordinator's figures for the lost search, as the record keeps them.
        let loss = r.time_loss.expect("a time forfeit's figures");
        let (budget, margin, used) = (loss.budget_ms, loss.margin_ms, loss.used_ms);
        assert!(
            r.reason.contains(&format!(
                "budget of {budget} ms + margin {margin} ms ({used} ms used)"
            )),
            "{ctx}: the reason says the same: {}",
            r.reason
        );
        // The record's times are whole milliseconds, rounded down: at most 1 ms each.
        let tolerance = times.len() as u64 + 1;
        assert!(
            budget.abs_diff(last) <= tolerance,
            "{ctx}: budget {budget} ms, the replayed clock has {last} ms left ({left:?}): {}",
            r.reason
        );
        let without_increments = left[0].saturating_sub(times.iter().sum());
        assert!(
            budget.abs_diff(without_increments) > tolerance,
            "{ctx}: the increments make no difference: {}",
            r.reason
        );
        assert_eq!(margin, MARGIN_MS, "{ctx}: {}", r.reason);
        assert!(used >= budget + margin, "{ctx}: {}", r.reason);
        eprintln!(
            "clock: {ctx}: short's clock before each move {left:?} ms; {}",
            r.reason
        );

        // Time odds: long, at the same pace, on its own clock.
        let long_times = move_times(r, long);
        assert!(long_times.len() + 1 >= times.len(), "{ctx}: {long_times:?}");
        let long_left = replay_clock(LONG, &long_times, &format!("{ctx}, long"));
        assert!(
            long_left.iter().all(|&l| l > SHORT.0),
            "{ctx}: long's clock: {long_left:?}"
        );
    }
}
