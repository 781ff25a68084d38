//! The ground floor: what a finished game is, and where it is kept.
//!
//! A [`GameRecord`] is one finished game as the journal stores it: who played, from which
//! opening, every move with what the engine reported, and how it ended. Everything after the
//! games (statistics, tables, reports, the live view, `merge`) reads records and nothing else;
//! this module depends on no other module of the harness.
//!
//! - [`journal`]: `games.jsonl`, the append-only results journal (one record per line), its
//!   writer and readers;
//! - [`ggf`]: the same games in GGF for Othello tools;
//! - [`merge`]: the journals of a tournament's shards merged into one, or followed as they grow;
//! - [`decision_record`]: `decision.json`, a sharded run's test decided by the watcher;
//! - [`tournament_record`]: `tournament.json`, what a run folder records of its tournament;
//! - [`verdict_record`]: `verdict.json`, how the run ended (its outcome, exit code and reasons);
//! - [`run_clock`]: `clock.json`, the run's elapsed time across its sessions;
//! - [`tune`]: what `harness tune` keeps beside the games (`tune.jsonl`, the iterations begun,
//!   the θ of a sharded tune).

pub mod analysis;
pub mod decision_record;
pub mod digest;
pub mod ggf;
pub mod journal;
pub mod merge;
pub mod run_clock;
pub mod run_folder;
pub mod run_id;
pub mod tournament_changes;
pub mod tournament_record;
pub mod tune;
pub mod verdict_record;

use othello_board::{Color, Move, Position};
use serde::{Deserialize, Serialize};

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Termination {
    /// Played to the end by the rules.
    Normal,
    /// An engine answered later than its budget plus the margin.
    TimeForfeit,
    /// An engine's worker died (signal or exit).
    Crash,
    /// An engine did not answer a depth/node-limited search within the stall timeout.
    Stalled,
    /// An engine played an illegal move or an out-of-range value.
    IllegalMove,
    /// An engine reported an error (including a caught panic) or broke the protocol.
    EngineError,
    /// Ended at a few empties by an exact solve: the rest of the game is the solver's perfect
    /// play (`[adjudication]`), and the result is the exact one. Not a forfeit.
    Adjudicated,
}

/// The coordinator's figures for a search lost on time, as the game's record keeps them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeLoss {
    /// The budget of the search: what was left on the clock, or the move time.
    pub budget_ms: u64,
    /// How far past the budget an answer could still come.
    pub margin_ms: u64,
    /// How long the coordinator waited, from the request to the answer or to giving up.
    pub used_ms: u64,
}

impl Termination {
    /// The name the journal uses (`time_forfeit`, …), also in every table and report.
    pub fn as_str(self) -> &'static str {
        match self {
            Termination::Normal => "normal",
            Termination::TimeForfeit => "time_forfeit",
            Termination::Crash => "crash",
            Termination::Stalled => "stalled",
            Termination::IllegalMove => "illegal_move",
            Termination::EngineError => "engine_error",
            Termination::Adjudicated => "adjudicated",
        }
    }

    /// Whether an engine lost the game by a fault (the game did not end on the board).
    pub fn is_forfeit(self) -> bool {
        !matches!(self, Termination::Normal | Termination::Adjudicated)
    }
}

/// One move as played: by the opening, or by an engine with what it reported.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayedMove {
    /// `f5`, or `PA` for a pass.
    #[serde(rename = "move")]
    pub mv: String,
    /// Part of the opening, not chosen by an engine.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub book: bool,
    /// Engine's score in discs, side to move's view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// The depth the engine reported; absent when it reported none (0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// Wall time the coordinator measured for this move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<u64>,
}

/// The opening a game started from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpeningRef {
    /// Index in the opening set (0-based).
    pub index: usize,
    /// Line in the opening file (1-based).
    pub line: usize,
    /// The line as written.
    pub text: String,
}

/// What one side's engine searched in a game: the moves it chose (book moves and forced passes
/// aside), and the sum of the depths it reported over the moves that have one (a bridge to a
/// program that does not say its depth reports none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchTotals {
    pub moves: u32,
    pub depth_moves: u32,
    pub depth_sum: i64,
}

/// Per-colour totals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerColor<T> {
    pub black: T,
    pub white: T,
}

/// How an exact solve ended a game (`termination` `adjudicated`), or why it could not.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Adjudication {
    /// Empties of the position that was solved.
    pub empties: u32,
    /// The index in `moves` of the solver's first move: from there on the moves are the
    /// solver's perfect play (no engine's time or nodes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_move: Option<usize>,
    /// The exact value of the solved position, Black's view (the final score).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<i32>,
    /// Why the solve failed, when it did: the game was played out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
}

/// One finished game. Field names are stable: `harness stats` and later tools read them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Game number in the schedule (0-based).
    pub game: usize,
    /// Pair number in the schedule (0-based): the two games of an opening, colours swapped.
    pub pair: usize,
    pub black: String,
    pub white: String,
    pub opening: OpeningRef,
    /// Start position of the game (before the opening moves), as a board string.
    pub start: String,
    /// Every move, opening moves first, passes included as `PA`.
    pub moves: Vec<PlayedMove>,
    /// Discs on the board at the end.
    pub discs: PerColor<u32>,
    /// The result as a disc difference from Black's view: the final score (empties to the
    /// winner) for a normal end, +64 / -64 for a forfeit.
    pub score: i32,
    /// `1-0` (Black won), `0-1`, or `1/2-1/2`.
    pub result: String,
    pub termination: Termination,
    /// The forfeiting side, for a forfeit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forfeit_by: Option<Color>,
    /// Human-readable detail of the end (the forfeit's reason, with the error).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// For a forfeit: the position (board string) where it happened, for reproduction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forfeit_position: Option<String>,
    /// For a time forfeit: the budget, margin and time used of the search lost on time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_loss: Option<TimeLoss>,
    /// Each side's thinking time in the game, milliseconds (the sum of its moves' times).
    pub time_ms: PerColor<u64>,
    /// The same in microseconds, for rates: a fast engine's moves take less than a
    /// millisecond each, which whole milliseconds would count as nothing. Absent (zero) in
    /// journals of earlier versions.
    #[serde(default)]
    pub time_us: PerColor<u64>,
    /// The exact-solve adjudication of the game, when the tournament has one and the game
    /// reached its empties: where it began and with what value, or why it failed (the game was
    /// then played out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjudication: Option<Adjudication>,
    pub nodes: PerColor<u64>,
    /// Each side's CPU time outside its turns during the game, microseconds (its worker and
    /// what it started, between its answer and its next request: zero for an engine stopped
    /// between turns, what it used while its opponent thought for one that pondered). Absent
    /// in journals of earlier versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_between_turns_us: Option<PerColor<u64>>,
    /// The searched moves' summary of a record whose moves were dropped
    /// ([`GameRecord::without_moves`]); not in the journal, which has the moves.
    #[serde(skip)]
    pub searched: PerColor<SearchTotals>,
}

impl GameRecord {
    /// A game that ended normally by `score` discs (Black's view), from the start position
    /// with no moves, times or nodes: the skeleton that tests and benchmarks fill in.
    pub fn skeleton(game: usize, black: &str, white: &str, score: i32) -> GameRecord {
        GameRecord {
            game,
            pair: game / 2,
            black: black.into(),
            white: white.into(),
            opening: OpeningRef {
                index: game / 2,
                line: game / 2 + 1,
                text: String::new(),
            },
            start: Position::START.to_string(),
            moves: Vec::new(),
            discs: PerColor::default(),
            score,
            result: GameRecord::result_text(score).into(),
            termination: Termination::Normal,
            forfeit_by: None,
            reason: String::new(),
            forfeit_position: None,
            time_loss: None,
            time_ms: PerColor::default(),
            time_us: PerColor::default(),
            adjudication: None,
            nodes: PerColor::default(),
            cpu_between_turns_us: None,
            searched: PerColor::default(),
        }
    }

    /// The result text for a Black disc difference.
    pub fn result_text(score: i32) -> &'static str {
        match score.signum() {
            1 => "1-0",
            -1 => "0-1",
            _ => "1/2-1/2",
        }
    }

    /// The display name of the engine that forfeited this game, if one did.
    pub fn forfeited_by(&self) -> Option<&str> {
        match self.forfeit_by? {
            Color::Black => Some(&self.black),
            Color::White => Some(&self.white),
        }
    }

    /// The game as the statistics see it.
    pub fn outcome(&self) -> GameOutcome {
        GameOutcome {
            pair: self.pair as u64,
            black: self.black.clone(),
            white: self.white.clone(),
            black_disc_diff: self.score,
            forfeit: self.termination.is_forfeit(),
            opening: Some(self.opening.index as u64),
        }
    }

    /// The record without its move list: what the statistics and reports need, a fraction of
    /// the memory (the journal keeps the moves).
    pub fn without_moves(&self) -> GameRecord {
        GameRecord {
            moves: Vec::new(),
            searched: self.search_totals(),
            ..self.clone()
        }
    }

    /// Each side's searched moves and depths: from the moves when the record has them, else the
    /// summary kept when they were dropped.
    pub fn search_totals(&self) -> PerColor<SearchTotals> {
        if self.moves.is_empty() {
            return self.searched;
        }
        let mut totals = PerColor::<SearchTotals>::default();
        let Some(mut pos) = self.start_position() else {
            return totals;
        };
        for m in &self.moves {
            let Ok(mv) = m.mv.parse::<Move>() else { break };
            // A forced pass the record leaves implicit (a book line) is the other side's turn.
            if pos.must_pass() && !mv.is_pass() {
                pos = pos.play(Move::PASS).expect("a forced pass is legal");
            }
            // An engine's move has its time (a book move and a forced pass have none).
            if !m.book && (m.time_ms.is_some() || m.depth.is_some()) {
                let side = match pos.side_to_move {
                    Color::Black => &mut totals.black,
                    Color::White => &mut totals.white,
                };
                side.moves += 1;
                if let Some(depth) = m.depth {
                    side.depth_moves += 1;
                    side.depth_sum += i64::from(depth);
                }
            }
            match pos.play(mv) {
                Ok(next) => pos = next,
                Err(_) => break,
            }
        }
        totals
    }

    /// The start position.
    pub fn start_position(&self) -> Option<Position> {
        self.start.parse().ok()
    }

    /// The moves as `Move`s (None if a move text is malformed).
    pub fn parsed_moves(&self) -> Option<Vec<Move>> {
        self.moves.iter().map(|m| m.mv.parse().ok()).collect()
    }
}

/// One finished game, as the statistics see it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameOutcome {
    /// Identifies the game pair (same opening, same two engines, colours swapped). Two outcomes with the same `pair` form a complete pair.
    pub pair: u64,
    /// Display name of the engine that played Black.
    pub black: String, // engine display name playing Black
    /// Display name of the engine that played White.
    pub white: String,
    /// Final disc difference from Black's view (-64..=64); its sign is the result (>0 Black won, 0 draw, <0 White won). Forfeits are recorded by the caller as +-64.
    pub black_disc_diff: i32,
    /// The game ended by a forfeit: its ±64 counts in the result, not in the disc statistics.
    #[serde(default)]
    pub forfeit: bool,
    /// Index of the opening in the opening set, when known: the pairs of one pairing that
    /// start from the same opening are one cluster of the intervals
    /// ([`crate::stats::openings`]). `None` counts each pair as its own opening.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opening: Option<u64>,
}

/// The records in game order: borrowed when they already are (a finished run's, a merge's).
pub fn in_game_order(records: &[GameRecord]) -> std::borrow::Cow<'_, [GameRecord]> {
    if records.is_sorted_by_key(|r| r.game) {
        return std::borrow::Cow::Borrowed(records);
    }
    let mut v = records.to_vec();
    v.sort_by_key(|r| r.game);
    std::borrow::Cow::Owned(v)
}

/// The outcomes of records, in the same order.
pub fn outcomes(records: &[GameRecord]) -> Vec<GameOutcome> {
    records.iter().map(GameRecord::outcome).collect()
}
