//! What a browser is sent: the run (progress, standings, the test, small boards of the games
//! in progress, recent results) and one game in full (a board per ply, so that the page needs
//! no rules of Othello; clocks, the searching engine's report, the moves and their marks), as
//! serde types built from the run model (`show::run_model`), with the wording of
//! `show::text`. Their JSON is what the pages' scripts read.

use crate::show::run_model::{ExactMark, GameState, RunModel};
use crate::show::standings::Standing;
use harness_core::record::GameRecord;
use harness_core::search_terms::SearchInfo;
use harness_core::stats::openings::RepeatedOpenings;
use harness_core::stats::sprt::Decision;
use harness_core::stats::Rating;
use othello_board::Color;
use serde::Serialize;
use std::time::Instant;

/// How many finished games the run view lists.
const RECENT: usize = 12;
/// How many games in progress the run view shows as boards (the most recently started); the
/// rest are counted. Hundreds of boards help no viewer and would make every snapshot large.
const LIVE_BOARDS: usize = 24;

/// The run's page.
#[derive(Debug, Serialize)]
pub struct RunSnapshot<'a> {
    /// The run's name as the pages show it (`show::text::run_name`), where the feed knows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<&'a str>,
    pub engines: &'a [String],
    pub time_control: &'a str,
    /// Finished games (earlier runs of the folder included) and the run's total.
    pub done: usize,
    pub total: usize,
    /// The run's wall time so far (its own files' for a served folder), and the time left.
    pub elapsed_s: Option<f64>,
    pub eta_s: Option<f64>,
    pub finished: bool,
    pub standings: Option<&'a [Standing]>,
    pub repeated_openings: Option<RepeatedOpenings>,
    pub ratings: Option<&'a [Rating]>,
    pub sprt: Option<TestSnapshot>,
    /// The most recently started games in progress, as small boards.
    pub live: Vec<LiveBoard<'a>>,
    /// False where the games in progress cannot be seen (a folder another process plays).
    pub live_known: bool,
    /// Games in progress, all of them.
    pub playing: usize,
    /// The latest finished games, newest first.
    pub recent: Vec<RecentGame<'a>>,
    /// A file of the run's folder that cannot be read (its verdict, its clock), named with
    /// why: the page shows the run without what it holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a str>,
}

/// The sequential test as the run's page states it.
#[derive(Debug, Serialize)]
pub struct TestSnapshot {
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    /// In words (`show::text::decision_label`), and as a key for the page's script; a
    /// decision that does not measure the run (an H1 on forfeits alone) is worded as not
    /// counting (`show::text::unmeasured_decision`) and keyed `measures: false`.
    pub decision: String,
    pub decision_key: Decision,
    pub measures: bool,
    /// The LLR against its bounds as the reports word it (`show::text::decision_evidence`):
    /// `LLR 3.77 ≥ 2.94` once decided, `LLR 1.20 between -2.94 and 2.94` while running.
    pub evidence: String,
    pub observations: u64,
}

/// A game in progress as a small board of the run page.
#[derive(Debug, Serialize)]
pub struct LiveBoard<'a> {
    pub game: usize,
    pub names: &'a [String; 2],
    pub board: String,
    pub last: Option<String>,
    pub to_move: &'static str,
    /// Discs of Black and White.
    pub discs: [u32; 2],
    pub ply: usize,
    pub clocks_ms: [Option<u64>; 2],
}

/// A finished game in the run page's list.
#[derive(Debug, Serialize)]
pub struct RecentGame<'a> {
    pub game: usize,
    pub black: &'a str,
    pub white: &'a str,
    /// Black's discs minus White's.
    pub score: i32,
    pub termination: &'static str,
}

/// A game's page.
#[derive(Debug, Serialize)]
pub struct GameSnapshot<'a> {
    pub game: usize,
    pub pair: usize,
    pub names: &'a [String; 2],
    pub opening: &'a str,
    /// The board before the first move and after each.
    pub boards: Vec<String>,
    pub moves: Vec<MoveSnapshot>,
    pub to_move: &'static str,
    pub clocks_ms: [Option<u64>; 2],
    /// The side whose clock runs, while one does.
    pub clock_running: Option<&'static str>,
    /// Each side's latest search report.
    pub thinking: [Option<SearchSnapshot>; 2],
    pub finished: bool,
    pub result: Option<ResultSnapshot<'a>>,
    /// A finished game's time used by Black and White (milliseconds), as its record counts it.
    pub time_used_ms: Option<[u64; 2]>,
    /// When the latest move was seen (milliseconds since the Unix epoch), for a live game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moved_at_ms: Option<u64>,
}

/// One move of a game's page.
#[derive(Debug, Serialize)]
pub struct MoveSnapshot {
    pub color: &'static str,
    pub mv: String,
    pub book: bool,
    pub forced: bool,
    /// The engine's score, from Black's view.
    pub score: Option<f64>,
    pub depth: Option<i32>,
    pub time_ms: Option<u64>,
    /// Discs lost against perfect play, and its mark, where the game was analysed.
    pub loss: Option<u32>,
    pub symbol: Option<&'static str>,
}

/// A side's search report.
#[derive(Debug, Serialize)]
pub struct SearchSnapshot {
    pub depth: i32,
    /// The engine's own view, and Black's.
    pub score: f64,
    pub black_score: f64,
    pub nodes: u64,
    pub pv: Vec<String>,
}

/// A finished game's result.
#[derive(Debug, Serialize)]
pub struct ResultSnapshot<'a> {
    /// The disc difference from Black's view, and in words as every view gives it.
    pub score: i32,
    pub termination: &'static str,
    pub reason: &'a str,
    pub result: &'a str,
    pub difference: String,
}

/// The run as its page shows it.
pub fn run(model: &RunModel, now: Instant) -> RunSnapshot<'_> {
    let (done, total) = model.progress();
    let standings = model.standings();
    RunSnapshot {
        name: None,
        engines: &model.engines,
        time_control: &model.time_control,
        done,
        total,
        elapsed_s: model.elapsed(now).map(|d| d.as_secs_f64()),
        eta_s: model.eta(now).map(|d| d.as_secs_f64()),
        finished: model.run_finished,
        standings: standings.map(|s| &s.matches[..]),
        repeated_openings: standings
            .and_then(|s| RepeatedOpenings::of(s.matches.iter().map(|m| m.clusters()))),
        ratings: standings.map(|s| &s.ratings[..]),
        sprt: model.sprt_status().map(|s| TestSnapshot {
            llr: s.llr,
            lower: s.lower,
            upper: s.upper,
            decision: match model.decision_measures() {
                true => crate::show::text::decision_label(s.decision).to_string(),
                false => crate::show::text::unmeasured_decision(s.decision),
            },
            decision_key: s.decision,
            measures: model.decision_measures(),
            evidence: match s.decision {
                Decision::Continue => {
                    format!("LLR {:.2} between {:.2} and {:.2}", s.llr, s.lower, s.upper)
                }
                decided => crate::show::text::decision_evidence(
                    decided,
                    s.llr,
                    (s.lower, s.upper),
                    2,
                    ("≥", "≤"),
                ),
            },
            observations: s.observations,
        }),
        live: model
            .live
            .values()
            .rev()
            .take(LIVE_BOARDS)
            .map(|g| small(g, now))
            .collect(),
        live_known: model.live_known,
        error: model.folder_error.as_deref(),
        playing: model.live.len(),
        recent: model
            .records
            .iter()
            .rev()
            .take(RECENT)
            .map(|r| RecentGame {
                game: r.game,
                black: &r.black,
                white: &r.white,
                score: r.score,
                termination: r.termination.as_str(),
            })
            .collect(),
    }
}

/// A game in progress as a small board of the run page.
fn small(g: &GameState, now: Instant) -> LiveBoard<'_> {
    let (black, white) = g.discs();
    LiveBoard {
        game: g.game,
        names: &g.names,
        board: g.position.squares_string(),
        last: g.last_move().map(|m| m.to_string()),
        to_move: side(g.side_to_move()),
        discs: [black, white],
        ply: g.moves.len(),
        clocks_ms: clocks_ms(g, now),
    }
}

/// A game in full: a board after each ply (index 0 the start), its moves with the engines'
/// reports and, where analysed, their exact marks.
pub fn game<'a>(g: &'a GameState, marks: &[Option<ExactMark>], now: Instant) -> GameSnapshot<'a> {
    let mut position = g.start;
    let mut boards = vec![position.squares_string()];
    let moves = g
        .moves
        .iter()
        .enumerate()
        .map(|(i, m)| {
            position = position.play(m.mv).unwrap_or(position);
            boards.push(position.squares_string());
            let mark = marks.get(i).copied().flatten();
            MoveSnapshot {
                color: side(m.color),
                mv: m.mv.to_string(),
                book: m.book,
                forced: m.forced,
                score: m.black_score(),
                depth: m.depth,
                time_ms: m.time_ms,
                loss: mark.map(|k| k.loss),
                symbol: mark.map(|k| k.symbol()),
            }
        })
        .collect();
    GameSnapshot {
        game: g.game,
        pair: g.pair,
        names: &g.names,
        opening: &g.opening,
        boards,
        moves,
        to_move: side(g.side_to_move()),
        clocks_ms: clocks_ms(g, now),
        clock_running: (!g.is_finished() && g.has_clock()).then(|| side(g.side_to_move())),
        thinking: [
            report(g.thinking[0].as_ref(), Color::Black),
            report(g.thinking[1].as_ref(), Color::White),
        ],
        finished: g.is_finished(),
        result: g.record.as_ref().map(result),
        time_used_ms: g
            .record
            .as_ref()
            .map(|r| [r.time_ms.black, r.time_ms.white]),
        moved_at_ms: None,
    }
}

/// A finished game's result line.
fn result(r: &GameRecord) -> ResultSnapshot<'_> {
    ResultSnapshot {
        score: r.score,
        termination: r.termination.as_str(),
        reason: &r.reason,
        result: &r.result,
        difference: crate::show::text::disc_difference(r.score),
    }
}

/// A search report of `side`.
fn report(info: Option<&SearchInfo>, side: Color) -> Option<SearchSnapshot> {
    info.map(|i| SearchSnapshot {
        depth: i.depth,
        score: i.score,
        black_score: match side {
            Color::Black => i.score,
            Color::White => -i.score,
        },
        nodes: i.nodes,
        pv: i.pv.iter().map(|m| m.to_string()).collect(),
    })
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
