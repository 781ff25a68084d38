//! What a browser is sent: the run (progress, standings, the test, small boards of the games
//! in progress, recent results) and one game in full (a board per ply, so that the page needs
//! no rules of Othello; clocks, the searching engine's report, the moves and their marks), as
//! JSON built from the terminal view's model (`show::tui::state`).

use crate::record::GameRecord;
use crate::search_terms::SearchInfo;
use crate::show::tui::state::{ExactMark, GameState, State};
use crate::stats::openings::RepeatedOpenings;
use othello_board::Color;
use serde_json::{json, Value};
use std::time::Instant;

/// How many finished games the run view lists.
const RECENT: usize = 12;
/// How many games in progress the run view shows as boards (the most recently started); the
/// rest are counted. Hundreds of boards help no viewer and would make every snapshot large.
const LIVE_BOARDS: usize = 24;

/// The run as its page shows it.
pub fn run(state: &State, now: Instant) -> Value {
    let (done, total) = state.progress();
    let standings = state.standings();
    let sprt = state.sprt_status().map(|s| {
        json!({
            "llr": s.llr, "lower": s.lower, "upper": s.upper,
            "decision": crate::show::text::decision_label(s.decision),
            "decision_key": s.decision,
            "observations": s.observations,
        })
    });
    let live: Vec<Value> = state
        .live
        .values()
        .rev()
        .take(LIVE_BOARDS)
        .map(|g| small(g, now))
        .collect();
    let recent: Vec<Value> = state
        .records
        .iter()
        .rev()
        .take(RECENT)
        .map(|r| {
            json!({
                "game": r.game, "black": r.black, "white": r.white, "score": r.score,
                "termination": r.termination.as_str(),
            })
        })
        .collect();
    json!({
        "engines": state.engines,
        "time_control": state.time_control,
        "done": done,
        "total": total,
        "elapsed_s": state.elapsed(now).map(|d| d.as_secs_f64()),
        "eta_s": state.eta(now).map(|d| d.as_secs_f64()),
        "finished": state.run_finished,
        "standings": standings.map(|s| &s.matches),
        "repeated_openings": standings.and_then(|s| {
            RepeatedOpenings::of(s.matches.iter().map(|m| m.clusters()))
        }),
        "ratings": standings.map(|s| &s.ratings),
        "sprt": sprt,
        "live": live,
        "live_known": state.live_known,
        "playing": state.live.len(),
        "recent": recent,
    })
}

/// A game in progress as a small board of the run page.
fn small(g: &GameState, now: Instant) -> Value {
    let (black, white) = g.discs();
    json!({
        "game": g.game,
        "names": g.names,
        "board": g.position.squares_string(),
        "last": g.last_move().map(|m| m.to_string()),
        "to_move": side(g.side_to_move()),
        "discs": [black, white],
        "ply": g.moves.len(),
        "clocks_ms": clocks_ms(g, now),
    })
}

/// A game in full: a board after each ply (index 0 the start), its moves with the engines'
/// reports and, where analysed, their exact marks.
pub fn game(g: &GameState, marks: &[Option<ExactMark>], now: Instant) -> Value {
    let mut position = g.start;
    let mut boards = vec![position.squares_string()];
    let moves: Vec<Value> = g
        .moves
        .iter()
        .enumerate()
        .map(|(i, m)| {
            position = position.play(m.mv).unwrap_or(position);
            boards.push(position.squares_string());
            let mark = marks.get(i).copied().flatten();
            json!({
                "color": side(m.color), "mv": m.mv.to_string(), "book": m.book,
                "forced": m.forced, "score": m.black_score(), "depth": m.depth,
                "time_ms": m.time_ms,
                "loss": mark.map(|k| k.loss), "symbol": mark.map(|k| k.symbol()),
            })
        })
        .collect();
    let thinking: Vec<Value> = [Color::Black, Color::White]
        .iter()
        .map(|&c| report(g.thinking[c.index()].as_ref(), c))
        .collect();
    json!({
        "game": g.game,
        "pair": g.pair,
        "names": g.names,
        "opening": g.opening,
        "boards": boards,
        "moves": moves,
        "to_move": side(g.side_to_move()),
        "clocks_ms": clocks_ms(g, now),
        "clock_running": (!g.is_finished() && g.has_clock()).then(|| side(g.side_to_move())),
        "thinking": thinking,
        "finished": g.is_finished(),
        "result": g.record.as_ref().map(result),
        "time_used_ms": g.record.as_ref().map(|r| [r.time_ms.black, r.time_ms.white]),
    })
}

/// A finished game's result line: `score` is the disc difference from Black's view, which
/// `difference` words as every view does.
fn result(r: &GameRecord) -> Value {
    json!({
        "score": r.score, "termination": r.termination.as_str(), "reason": r.reason,
        "result": r.result, "difference": crate::show::text::disc_difference(r.score),
    })
}

/// A search report of `side`: `score` is the engine's own view, `black_score` Black's.
fn report(info: Option<&SearchInfo>, side: Color) -> Value {
    match info {
        Some(i) => json!({
            "depth": i.depth, "score": i.score, "nodes": i.nodes,
            "black_score": match side {
                Color::Black => i.score,
                Color::White => -i.score,
            },
            "pv": i.pv.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
        }),
        None => Value::Null,
    }
}

fn clocks_ms(g: &GameState, now: Instant) -> [Option<u64>; 2] {
    let clocks = g.clocks_at(now);
    clocks.map(|c| c.map(|d| d.as_millis() as u64))
}

fn side(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}
