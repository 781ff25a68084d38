//! Playing one game between two engine hosts, with the coordinator's clocks.
//!
//! The coordinator validates every move with the board crate; forced passes are played without
//! asking the engine (its clock does not run). Any failure of an engine (crash, time forfeit,
//! stall, error, illegal move) ends the game at once with that engine forfeiting; the record
//! keeps the position where it happened so the fault can be reproduced.
//!
//! A scheduled game runs as a task ([`play_scheduled`]): it borrows a worker per engine from
//! the pool, pins them when asked, plays, gives the healthy workers back and hands the
//! coordinator a [`FromGame`].

use super::adjudication::{Adjudicator, Verdict};
use super::affinity::pin;
use super::clock::GameClock;
use super::pool::{StartFailure, WorkerPool};
use crate::host::{EngineHost, HostError};
use harness_core::events::{ControlState, Event, EventSink, RunControl};
use harness_core::plan::config::TimeRules;
use harness_core::plan::openings::Opening;
use harness_core::plan::schedule::ScheduledGame;
use harness_core::record::{
    Adjudication, GameRecord, OpeningRef, PerColor, PlayedMove, Termination, TimeLoss,
};
use harness_core::search_terms::SearchInfo;
use othello_board::{Color, GameHistory, Move, Position};
use std::sync::Arc;
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

/// How a forfeit maps to a termination.
fn termination_of(e: &HostError) -> Termination {
    match e {
        HostError::TimeForfeit { .. } => Termination::TimeForfeit,
        HostError::Crashed { .. } => Termination::Crash,
        HostError::Stalled { .. } => Termination::Stalled,
        _ => Termination::EngineError,
    }
}

/// Play the game; `hosts` are [Black, White], both started for it (their options set and
/// `new_game` answered: [`WorkerPool::start_for_game`]). Hosts that fail are left dead for the
/// caller to replace. With `adjudication`, the game ends by an exact solve once it reaches the
/// adjudicator's empties (the solver's worker is borrowed from `pool` for it).
/// Returns `None` when the run is being stopped (`ControlState::Stopping`) before the game
/// ends, even in the middle of a search (the searching worker is then killed): an abandoned
/// game is not recorded, and a resumed run plays it again.
pub(super) async fn play_game(
    setup: &GameSetup<'_>,
    hosts: [&mut EngineHost; 2],
    adjudication: Option<(&Adjudicator, &WorkerPool)>,
    events: &EventSink,
    control: &RunControl,
) -> Option<GameRecord> {
    let mut game = GameInPlay::new(setup);
    let cpu_before = [hosts[0].cpu_between_turns(), hosts[1].cpu_between_turns()];
    events.send(Event::GameStarted {
        game: setup.scheduled.index,
        pair: setup.scheduled.pair,
        black: setup.names[0].to_string(),
        white: setup.names[1].to_string(),
        opening: setup.opening.text.clone(),
        start: setup.opening.start,
        book: setup.opening.moves.clone(),
        clocks: game.clock.left(),
    });
    while game.forfeit.is_none() && !game.pos.is_game_over() {
        if control.get() == ControlState::Stopping {
            return None;
        }
        if let Some((adjudicator, pool)) = adjudication {
            if game.adjudication.is_none() && game.pos.empties() <= adjudicator.at_empties {
                game.adjudicate(adjudicator, pool, events, control).await?;
                continue;
            }
        }
        if game.pos.must_pass() {
            game.forced_pass(events);
            continue;
        }
        let side = game.pos.side_to_move;
        game.engine_move(hosts[side.index()], events, control)
            .await?;
    }
    let [black, white] = [0, 1].map(|s| {
        let before = cpu_before[s].unwrap_or_default();
        let used = hosts[s].cpu_between_turns()?.saturating_sub(before);
        Some(used.as_micros() as u64)
    });
    let mut record = game.into_record();
    record.cpu_between_turns_us = black
        .zip(white)
        .map(|(black, white)| PerColor { black, white });
    Some(record)
}

/// A game being played: the position, the moves so far, each side's clock and totals, and the
/// forfeit that ended it, if one did.
struct GameInPlay<'a> {
    setup: &'a GameSetup<'a>,
    moves: Vec<PlayedMove>,
    pos: Position,
    /// The game so far for engines that take it (ABI 1.1): the opening's moves with any forced
    /// pass made explicit, then every move played.
    history: GameHistory,
    /// Per side: milliseconds as the moves record them (the game's total is their sum), and
    /// the exact time for rates.
    time_used: [(u64, Duration); 2],
    nodes: [u64; 2],
    clock: GameClock,
    forfeit: Option<(Color, Termination, String)>,
    /// The figures of a search lost on time, when one ended the game.
    time_loss: Option<TimeLoss>,
    /// The adjudication, once tried (at most once a game).
    adjudication: Option<Adjudication>,
}

impl<'a> GameInPlay<'a> {
    fn new(setup: &'a GameSetup<'a>) -> GameInPlay<'a> {
        GameInPlay {
            setup,
            moves: book_moves(setup.opening),
            pos: setup.opening.position(),
            history: setup.opening.history(),
            time_used: [(0, Duration::ZERO); 2],
            nodes: [0; 2],
            clock: GameClock::new(setup.time),
            forfeit: None,
            time_loss: None,
            adjudication: None,
        }
    }

    /// A forced pass, played without asking the engine (its clock does not run).
    fn forced_pass(&mut self, events: &EventSink) {
        events.send(Event::Moved {
            game: self.setup.scheduled.index,
            color: self.pos.side_to_move,
            mv: Move::PASS,
            by_engine: false,
            info: None,
            time_ms: 0,
            clocks: self.clock.left(),
        });
        self.pos = self.pos.play(Move::PASS).expect("forced pass is legal");
        self.history.moves.push(Move::PASS);
        self.moves.push(PlayedMove {
            mv: Move::PASS.to_string(),
            book: false,
            score: None,
            depth: None,
            nodes: None,
            time_ms: None,
        });
    }

    /// Ask the side to move's engine for its move under its time rules and play it, or record
    /// its forfeit. `None` when the run is being stopped during the search.
    async fn engine_move(
        &mut self,
        host: &mut EngineHost,
        events: &EventSink,
        control: &RunControl,
    ) -> Option<()> {
        let (game, side) = (self.setup.scheduled.index, self.pos.side_to_move);
        let (limits, budget) = self.clock.next_search(side);
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
            .search(&self.history, &limits, budget, on_info, control.stopping())
            .await
        {
            Ok(r) => r,
            Err(HostError::Interrupted { .. }) => return None,
            Err(e) => {
                if let HostError::TimeForfeit { loss, .. } = &e {
                    self.time_loss = Some(*loss);
                }
                self.forfeit = Some((side, termination_of(&e), e.to_string()));
                return Some(());
            }
        };
        let s = side.index();
        self.time_used[s].0 += reply.elapsed.as_millis() as u64;
        self.time_used[s].1 += reply.elapsed;
        self.nodes[s] += reply.info.nodes;
        self.clock.charge(side, reply.elapsed);
        let mv = match Move::from_wire(reply.mv as i64) {
            Some(mv) if self.pos.is_legal(mv) => mv,
            _ => {
                let text = Move::from_wire(reply.mv as i64)
                    .map(|m| m.to_string())
                    .unwrap_or_else(|| format!("value {}", reply.mv));
                let reason = format!(
                    "engine `{}` played an illegal move: {text}",
                    self.setup.names[s]
                );
                self.forfeit = Some((side, Termination::IllegalMove, reason));
                return Some(());
            }
        };
        self.pos = self.pos.play(mv).expect("checked legal");
        self.history.moves.push(mv);
        self.moves.push(PlayedMove {
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
            clocks: self.clock.left(),
        });
        Some(())
    }

    /// End the game by an exact solve: the solver's perfect-play line is played to the end,
    /// its moves marked as the adjudication's (no engine's time, nodes or depth). If the
    /// solver fails, the game goes on and the record keeps why. `None` when the run is being
    /// stopped during the solve.
    async fn adjudicate(
        &mut self,
        adjudicator: &Adjudicator,
        pool: &WorkerPool,
        events: &EventSink,
        control: &RunControl,
    ) -> Option<()> {
        let empties = self.pos.empties();
        let (line, value) = match adjudicator.solve_line(self.pos, pool, control).await {
            Verdict::Interrupted => return None,
            Verdict::Failed(why) => {
                self.adjudication = Some(Adjudication {
                    empties,
                    first_move: None,
                    value: None,
                    failed: Some(why),
                });
                return Some(());
            }
            Verdict::Solved { line, value } => (line, value),
        };
        self.adjudication = Some(Adjudication {
            empties,
            first_move: Some(self.moves.len()),
            value: Some(value),
            failed: None,
        });
        for (mv, score) in line {
            events.send(Event::Moved {
                game: self.setup.scheduled.index,
                color: self.pos.side_to_move,
                mv,
                by_engine: false,
                info: None,
                time_ms: 0,
                clocks: self.clock.left(),
            });
            self.pos = self.pos.play(mv).expect("the solver's line is legal");
            self.history.moves.push(mv);
            self.moves.push(PlayedMove {
                mv: mv.to_string(),
                book: false,
                score: score.map(f64::from),
                depth: None,
                nodes: None,
                time_ms: None,
            });
        }
        Some(())
    }

    fn into_record(self) -> GameRecord {
        let adjudicated = self
            .adjudication
            .as_ref()
            .is_some_and(|a| a.value.is_some());
        let mut record = build_record(
            self.setup,
            self.moves,
            self.pos,
            self.forfeit,
            self.time_used,
            self.nodes,
        );
        if adjudicated && record.termination == Termination::Normal {
            record.termination = Termination::Adjudicated;
        }
        record.adjudication = self.adjudication;
        record.time_loss = self.time_loss;
        record
    }
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
        time_loss: None,
        time_ms: PerColor {
            black: time_used[0].0,
            white: time_used[1].0,
        },
        time_us: PerColor {
            black: time_used[0].1.as_micros() as u64,
            white: time_used[1].1.as_micros() as u64,
        },
        adjudication: None,
        nodes: PerColor {
            black: nodes[0],
            white: nodes[1],
        },
        cpu_between_turns_us: None,
        searched: Default::default(),
    }
}

/// Options set on each side's worker before a game, [Black, White].
pub type GameOptions = [Vec<(String, String)>; 2];

/// What a game task hands to the coordinator.
pub(super) enum FromGame {
    Finished(Box<GameRecord>),
    /// The run is being stopped: the game was abandoned, its workers killed.
    Abandoned,
    /// An engine's worker could not be started for the game (or both engines'): not a result;
    /// the game is to be played again.
    StartFailed {
        game: ScheduledGame,
        failures: Vec<StartFailure>,
    },
    /// Games cannot go on (neither engine's worker starts): the run ends with this error.
    Fatal(anyhow::Error),
}

/// What every game task shares: the run's fixed facts and its workers.
pub(super) struct GameContext {
    pub(super) openings: Vec<Opening>,
    /// Engine display names by engine index.
    pub(super) names: Vec<String>,
    /// Time rules by engine index.
    pub(super) time: Vec<TimeRules>,
    pub(super) pool: WorkerPool,
    /// `[adjudication]`'s solver and rules, if the tournament has them.
    pub(super) adjudicator: Option<Adjudicator>,
    pub(super) events: EventSink,
    pub(super) control: Arc<RunControl>,
}

/// One game's task: start a worker per engine for it (with `options` set on [Black, White]),
/// play, give the healthy workers back.
pub(super) async fn play_scheduled(
    context: Arc<GameContext>,
    g: ScheduledGame,
    cores: Option<Vec<usize>>,
    options: GameOptions,
) -> FromGame {
    let c = &*context;
    let setup = GameSetup {
        scheduled: &g,
        opening: &c.openings[g.opening],
        names: [&c.names[g.black], &c.names[g.white]],
        time: [c.time[g.black], c.time[g.white]],
    };
    let (black, white) = tokio::join!(
        c.pool.start_for_game(g.black, &options[0]),
        c.pool.start_for_game(g.white, &options[1])
    );
    let (mut b, mut w) = match (black, white) {
        (Ok(b), Ok(w)) => (b, w),
        // Not a result: the worker that started goes back, the game is played again.
        (black, white) => {
            let mut failures = Vec::new();
            for (engine, started) in [(g.black, black), (g.white, white)] {
                match started {
                    Ok(host) => c.pool.give_back(engine, host),
                    Err(failure) => failures.push(failure),
                }
            }
            return FromGame::StartFailed { game: g, failures };
        }
    };
    if let Some(cores) = &cores {
        for host in [&b, &w] {
            if let Err(e) = host.pid().map_or(Ok(()), |pid| pin(pid, cores)) {
                return FromGame::Fatal(anyhow::anyhow!(
                    "game {}: cannot pin engine `{}` to cores {cores:?}: {e}",
                    g.index + 1,
                    host.name
                ));
            }
        }
    }
    let adjudication = c.adjudicator.as_ref().map(|a| (a, &c.pool));
    let played = play_game(
        &setup,
        [&mut b, &mut w],
        adjudication,
        &c.events,
        &c.control,
    );
    let Some(record) = played.await else {
        // Abandoned by a stop: its workers may be mid-search.
        tokio::join!(b.kill(), w.kill());
        return FromGame::Abandoned;
    };
    c.pool.give_back(g.black, b);
    c.pool.give_back(g.white, w);
    FromGame::Finished(Box::new(record))
}
