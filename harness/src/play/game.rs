//! Playing one game between two engine hosts, with the coordinator's clocks.
//!
//! The coordinator validates every move with the board crate; forced passes are played without
//! asking the engine (its clock does not run). Any failure of an engine (crash, time forfeit,
//! stall, error, illegal move) ends the game at once with that engine forfeiting; the record
//! keeps the position where it happened so the fault can be reproduced.

use crate::events::{ControlState, Event, EventSink, RunControl, SideClocks};
use crate::host::{EngineHost, HostError, SearchBudget};
use crate::plan::config::{TimeControl, TimeRules};
use crate::plan::openings::Opening;
use crate::plan::schedule::ScheduledGame;
use crate::record::{GameRecord, OpeningRef, PerColor, PlayedMove, Termination};
use crate::search::{SearchInfo, SearchLimits};
use othello_board::{Color, GameHistory, Move, Position};
use std::time::Duration;

/// The fixed facts of one game.
pub struct GameSetup<'a> {
    pub scheduled: &'a ScheduledGame,
    pub opening: &'a Opening,
    /// Engine display names, [Black, White].
    pub names: [&'a str; 2],
    /// Each side's time rules, [Black, White] (the same unless an engine has its own).
    pub time: [TimeRules; 2],
}

impl GameSetup<'_> {
    /// Each side's clock at the start (`None` for a side without one, which the live view then
    /// does not show) and its increment (zero without a clock).
    fn clocks(&self) -> (SideClocks, [Duration; 2]) {
        let start = self.time.map(|rules| match rules.control {
            TimeControl::Clock { base, increment } => (Some(base), increment),
            _ => (None, Duration::ZERO),
        });
        (start.map(|(base, _)| base), start.map(|(_, inc)| inc))
    }
}

/// How a forfeit maps to a termination.
fn termination_of(e: &HostError) -> Termination {
    match e {
        HostError::TimeForfeit { .. } => Termination::TimeForfeit,
        HostError::Crashed { .. } => Termination::Crash,
        HostError::Stalled { .. } => Termination::Stalled,
        _ => Termination::EngineError,
    }
}

/// Play the game; `hosts` are [Black, White]. Hosts that fail are left dead for the caller to
/// replace.
/// Returns `None` when the run is being stopped (`ControlState::Stopping`) before the game
/// ends, even in the middle of a search (the searching worker is then killed): an abandoned
/// game is not recorded, and a resumed run plays it again.
pub async fn play_game(
    setup: &GameSetup<'_>,
    hosts: [&mut EngineHost; 2],
    events: &EventSink,
    control: &RunControl,
) -> Option<GameRecord> {
    let mut hosts = hosts;
    let mut moves = book_moves(setup.opening);
    let mut pos = setup.opening.position();
    // The game so far for engines that take it (ABI 1.1): the opening's moves with any forced
    // pass made explicit, then every move played.
    let mut history = GameHistory {
        start: setup.opening.start,
        moves: othello_board::replay(setup.opening.start, &setup.opening.moves)
            .map(|(played, _)| played)
            .unwrap_or_else(|_| setup.opening.moves.clone()),
    };
    let game = setup.scheduled.index;
    // Per side: milliseconds as the moves record them (the game's total is their sum), and
    // microseconds for rates.
    let mut time_used = [(0u64, Duration::ZERO); 2];
    let mut nodes = [0u64; 2];
    let (mut clock, increment) = setup.clocks();
    let mut forfeit: Option<(Color, Termination, String)> = None;
    events.send(Event::GameStarted {
        game,
        pair: setup.scheduled.pair,
        black: setup.names[0].to_string(),
        white: setup.names[1].to_string(),
        opening: setup.opening.text.clone(),
        start: setup.opening.start,
        book: setup.opening.moves.clone(),
        clocks: clock,
    });

    for color in [Color::Black, Color::White] {
        if let Err(e) = hosts[color.index()].new_game().await {
            forfeit = Some((color, termination_of(&e), e.to_string()));
            break;
        }
    }

    while forfeit.is_none() && !pos.is_game_over() {
        if control.get() == ControlState::Stopping {
            return None;
        }
        if pos.must_pass() {
            events.send(Event::Moved {
                game,
                color: pos.side_to_move,
                mv: Move::PASS,
                by_engine: false,
                info: None,
                time_ms: 0,
                clocks: clock,
            });
            pos = pos.play(Move::PASS).expect("forced pass is legal");
            history.moves.push(Move::PASS);
            moves.push(PlayedMove {
                mv: Move::PASS.to_string(),
                book: false,
                score: None,
                depth: None,
                nodes: None,
                time_ms: None,
            });
            continue;
        }
        let side = pos.side_to_move;
        let (limits, budget) = limits_for(setup, &clock, increment, side);
        let host = &mut hosts[side.index()];
        let on_info = |info: &SearchInfo| {
            if events.is_active() {
                events.send(Event::Thinking {
                    game,
                    color: side,
                    info: info.clone(),
                });
            }
        };
        // "Stop now" interrupts the search itself, not only the game between moves.
        let reply = match host
            .search(&history, &limits, budget, on_info, control.stopping())
            .await
        {
            Ok(r) => r,
            Err(HostError::Interrupted { .. }) => return None,
            Err(e) => {
                forfeit = Some((side, termination_of(&e), e.to_string()));
                break;
            }
        };
        time_used[side.index()].0 += reply.elapsed.as_millis() as u64;
        time_used[side.index()].1 += reply.elapsed;
        nodes[side.index()] += reply.info.nodes;
        if let Some(left) = clock[side.index()].as_mut() {
            *left = left.saturating_sub(reply.elapsed) + increment[side.index()];
        }
        let mv = match Move::from_wire(reply.mv as i64) {
            Some(mv) if pos.is_legal(mv) => mv,
            _ => {
                let text = Move::from_wire(reply.mv as i64)
                    .map(|m| m.to_string())
                    .unwrap_or_else(|| format!("value {}", reply.mv));
                let reason = format!(
                    "engine `{}` played an illegal move: {text}",
                    setup.names[side.index()]
                );
                forfeit = Some((side, Termination::IllegalMove, reason));
                break;
            }
        };
        pos = pos.play(mv).expect("checked legal");
        history.moves.push(mv);
        moves.push(PlayedMove {
            mv: mv.to_string(),
            book: false,
            score: Some(reply.info.score),
            // Depth 0: the engine did not say (a bridge to a program that does not report it).
            depth: (reply.info.depth > 0).then_some(reply.info.depth),
            nodes: Some(reply.info.nodes),
            time_ms: Some(reply.elapsed.as_millis() as u64),
        });
        events.send(Event::Moved {
            game,
            color: side,
            mv,
            by_engine: true,
            info: Some(reply.info.clone()),
            time_ms: reply.elapsed.as_millis() as u64,
            clocks: clock,
        });
    }

    Some(build_record(setup, moves, pos, forfeit, time_used, nodes))
}

/// The record of a game that could not start because an engine's worker could not be
/// (re)started: that engine forfeits at the opening position.
pub fn forfeit_before_start(setup: &GameSetup, side: Color, error: &HostError) -> GameRecord {
    let forfeit = Some((side, termination_of(error), error.to_string()));
    build_record(
        setup,
        book_moves(setup.opening),
        setup.opening.position(),
        forfeit,
        [(0, Duration::ZERO); 2],
        [0; 2],
    )
}

fn book_moves(opening: &Opening) -> Vec<PlayedMove> {
    opening
        .moves
        .iter()
        .map(|m| PlayedMove {
            mv: m.to_string(),
            book: true,
            score: None,
            depth: None,
            nodes: None,
            time_ms: None,
        })
        .collect()
}

fn build_record(
    setup: &GameSetup<'_>,
    moves: Vec<PlayedMove>,
    pos: Position,
    forfeit: Option<(Color, Termination, String)>,
    time_used: [(u64, Duration); 2],
    nodes: [u64; 2],
) -> GameRecord {
    let opening = setup.opening;
    let (black, white) = pos.disc_counts();
    let (score, termination, forfeit_by, reason, forfeit_position) = match forfeit {
        None => (
            pos.final_score_black(),
            Termination::Normal,
            None,
            String::new(),
            None,
        ),
        Some((side, term, reason)) => {
            let score = if side == Color::Black { -64 } else { 64 };
            (score, term, Some(side), reason, Some(pos.to_string()))
        }
    };
    GameRecord {
        game: setup.scheduled.index,
        pair: setup.scheduled.pair,
        black: setup.names[0].to_string(),
        white: setup.names[1].to_string(),
        opening: OpeningRef {
            index: setup.scheduled.opening,
            line: opening.line,
            text: opening.text.clone(),
        },
        start: opening.start.to_string(),
        moves,
        discs: PerColor { black, white },
        score,
        result: GameRecord::result_text(score).to_string(),
        termination,
        forfeit_by,
        reason,
        forfeit_position,
        time_ms: PerColor {
            black: time_used[0].0,
            white: time_used[1].0,
        },
        time_us: PerColor {
            black: time_used[0].1.as_micros() as u64,
            white: time_used[1].1.as_micros() as u64,
        },
        nodes: PerColor {
            black: nodes[0],
            white: nodes[1],
        },
        searched: Default::default(),
    }
}

/// What the side to move is told, and the coordinator's deadline rule for it, under that
/// side's own time rules.
fn limits_for(
    setup: &GameSetup,
    clock: &SideClocks,
    increment: [Duration; 2],
    side: Color,
) -> (SearchLimits, SearchBudget) {
    let rules = setup.time[side.index()];
    let stall = SearchBudget::Stall {
        timeout: rules.stall_timeout,
    };
    match rules.control {
        TimeControl::Clock { .. } => (
            // An opponent without a clock is told it has none left.
            SearchLimits::Clock {
                left: clock.map(Option::unwrap_or_default),
                increment,
            },
            SearchBudget::Deadline {
                budget: clock[side.index()].unwrap_or_default(),
                margin: rules.margin,
            },
        ),
        TimeControl::MoveTime(t) => (
            SearchLimits::MoveTime(t),
            SearchBudget::Deadline {
                budget: t,
                margin: rules.margin,
            },
        ),
        TimeControl::Depth(d) => (SearchLimits::Depth(d), stall),
        TimeControl::Nodes(n) => (SearchLimits::Nodes(n), stall),
    }
}

/// The position where a record's game ended, replayed from its moves (for checks and tools).
pub fn replay_record(record: &GameRecord) -> Option<Position> {
    let mut pos = record.start_position()?;
    for mv in record.parsed_moves()? {
        pos = pos.play(mv).ok()?;
    }
    Some(pos)
}
