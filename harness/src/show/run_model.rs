//! The run model: what every view of a run shows (the terminal view, the browser, the
//! progress lines), fed by coordinator events in, read by the views out. No I/O and no
//! drawing here; time comes in as an argument so that the updates are testable. The
//! terminal's own state (which game is on screen, follow mode, the keys) lives beside it in
//! `show::tui::state`.

use crate::show::standings::Standing;
use crate::show::text::DISC_RANGE;
use harness_core::events::{ControlState, Event, SideClocks};
use harness_core::record::outcomes;
use harness_core::record::{GameRecord, Termination};
use harness_core::search_terms::SearchInfo;
use harness_core::stats::sprt::{SprtParams, SprtStatus};
use harness_core::stats::{self, Rating};
use othello_board::{Color, Move, Position};
use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

/// How many finished games the "recent results" list keeps.
const RECENT: usize = 12;

/// One move of a game as the view shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveEntry {
    pub color: Color,
    pub mv: Move,
    /// Part of the opening.
    pub book: bool,
    /// Not chosen by an engine: a forced pass, or a move of an adjudication's exact line.
    pub forced: bool,
    /// The engine's score in discs, side to move's view.
    pub score: Option<f64>,
    pub depth: Option<i32>,
    pub time_ms: Option<u64>,
    /// The exact analysis of the move (`harness analyze`), in a replay of an analysed run.
    pub exact: Option<ExactMark>,
}

/// An analysed move against exact solves: the value before it and what it lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExactMark {
    /// Before the move, Black's view.
    pub value: i32,
    /// After it, Black's view.
    pub after: i32,
    /// Discs lost, from the mover's view (0: a best move).
    pub loss: u32,
    /// The mover's theoretical result got worse (win to draw or loss, draw to loss).
    pub lost_result: bool,
}

impl ExactMark {
    /// `?` for a move that loses discs, `??` for one that loses a result, nothing for a best
    /// move.
    pub fn symbol(&self) -> &'static str {
        match (self.loss, self.lost_result) {
            (0, _) => "",
            (_, false) => "?",
            (_, true) => "??",
        }
    }
}

impl MoveEntry {
    /// The score from Black's view.
    pub fn black_score(&self) -> Option<f64> {
        self.score.map(|s| match self.color {
            Color::Black => s,
            Color::White => -s,
        })
    }
}

/// A game: in progress (from the events) or rebuilt from a record (replay, finished view).
#[derive(Clone, Debug)]
pub struct GameState {
    pub game: usize,
    pub pair: usize,
    /// Engine names of [Black, White].
    pub names: [String; 2],
    pub opening: String,
    pub start: Position,
    /// Every move so far, the opening's first.
    pub moves: Vec<MoveEntry>,
    pub position: Position,
    /// Remaining clocks [Black, White] at `clock_at` (`None` for a side without a clock).
    pub clocks: SideClocks,
    pub clock_at: Instant,
    /// The latest search report of each side for the move it is (or was last) thinking about.
    pub thinking: [Option<SearchInfo>; 2],
    /// When the side to move started thinking (for the NPS of live reports).
    pub started: Instant,
    /// The result, once finished.
    pub record: Option<GameRecord>,
}

impl GameState {
    /// A game that starts now from `start` after the opening `book`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        game: usize,
        pair: usize,
        names: [String; 2],
        opening: String,
        start: Position,
        book: &[Move],
        clocks: SideClocks,
        now: Instant,
    ) -> GameState {
        let mut g = GameState {
            game,
            pair,
            names,
            opening,
            start,
            moves: Vec::new(),
            position: start,
            clocks,
            clock_at: now,
            thinking: [None, None],
            started: now,
            record: None,
        };
        for &mv in book {
            g.push(MoveEntry {
                color: g.position.side_to_move,
                mv,
                book: true,
                forced: false,
                score: None,
                depth: None,
                time_ms: None,
                exact: None,
            });
        }
        g
    }

    /// The game of a record, replayed up to `ply` moves (all moves when `ply` is larger).
    pub fn from_record(r: &GameRecord, ply: usize) -> GameState {
        let now = Instant::now();
        let start = r.start_position().unwrap_or(Position::START);
        let mut g = GameState::new(
            r.game,
            r.pair,
            [r.black.clone(), r.white.clone()],
            r.opening.text.clone(),
            start,
            &[],
            [None, None],
            now,
        );
        for m in r.moves.iter().take(ply) {
            let Ok(mv) = m.mv.parse::<Move>() else { break };
            if !g.position.is_legal(mv) {
                break;
            }
            g.push(MoveEntry {
                color: g.position.side_to_move,
                mv,
                book: m.book,
                // A forced pass, or an adjudication's move (a score, no time).
                forced: !m.book && m.time_ms.is_none(),
                score: m.score,
                depth: m.depth,
                time_ms: m.time_ms,
                exact: None,
            });
        }
        if ply >= r.moves.len() {
            g.record = Some(r.clone());
        }
        g
    }

    /// Play a move on the board (an illegal one is recorded but leaves the board as it is).
    fn push(&mut self, entry: MoveEntry) {
        if let Ok(p) = self.position.play(entry.mv) {
            self.position = p;
        }
        self.moves.push(entry);
    }

    pub fn last_move(&self) -> Option<Move> {
        self.moves.last().map(|m| m.mv)
    }

    /// Discs of (Black, White).
    pub fn discs(&self) -> (u32, u32) {
        self.position.disc_counts()
    }

    pub fn side_to_move(&self) -> Color {
        self.position.side_to_move
    }

    pub fn is_finished(&self) -> bool {
        self.record.is_some()
    }

    /// The clocks at `now`: the side to move's clock runs from the last update.
    pub fn clocks_at(&self, now: Instant) -> SideClocks {
        let mut c = self.clocks;
        if !self.is_finished() {
            if let Some(left) = c[self.side_to_move().index()].as_mut() {
                *left = left.saturating_sub(now.saturating_duration_since(self.clock_at));
            }
        }
        c
    }

    /// Whether either side's clock is shown (then the view redraws as it runs).
    pub fn has_clock(&self) -> bool {
        self.clocks.iter().any(Option::is_some)
    }

    /// Engine scores by ply from Black's view: (ply, score) for Black's and White's moves.
    pub fn eval_history(&self) -> [Vec<(f64, f64)>; 2] {
        let mut out = [Vec::new(), Vec::new()];
        for (i, m) in self.moves.iter().enumerate() {
            if let Some(s) = m.black_score().filter(|s| s.abs() <= DISC_RANGE) {
                out[m.color.index()].push(((i + 1) as f64, s));
            }
        }
        out
    }

    /// How many scores lie past the disc range (±64): not disc counts, so left out of
    /// [`GameState::eval_history`] and said beside it.
    pub fn scores_out_of_range(&self) -> usize {
        self.moves
            .iter()
            .filter_map(|m| m.black_score())
            .filter(|s| s.abs() > DISC_RANGE)
            .count()
    }
}

/// One line of the standings: a pairing's statistics.
#[derive(Clone, Debug)]
pub struct Standings {
    pub matches: Vec<Standing>,
    /// The joint rating, for more than two engines.
    pub ratings: Vec<Rating>,
}

/// The run as every view shows it: its engines and time control, the games in progress and
/// those finished, the standings and the test, progress and elapsed time. Fed by the
/// coordinator's events (`run`, `run --serve`) or by a folder's journals (`serve DIR`); what
/// the terminal does with it (which game is on screen, the keys) is `show::tui::state`'s.
#[derive(Clone, Debug)]
pub struct RunModel {
    pub engines: Vec<String>,
    pub total_games: usize,
    pub time_control: String,
    pub sprt: Option<SprtParams>,
    /// Games finished in earlier runs of this folder (resume).
    pub already_played: usize,
    pub run_started: Option<Instant>,
    /// The run's time when it started: its earlier sessions' (a resume), as the coordinator
    /// said (`record::run_clock`).
    pub elapsed_before: Duration,
    pub run_finished: bool,
    /// When the run ended (the elapsed time stops there).
    pub run_ended: Option<Instant>,
    /// Running, paused or stopping, as the coordinator last said.
    pub control: ControlState,
    /// Games in progress, by game number.
    pub live: BTreeMap<usize, GameState>,
    /// Every finished record, in finishing order.
    pub records: Vec<GameRecord>,
    /// The latest finished games, newest first (with their final positions).
    pub recent: VecDeque<GameState>,
    /// A tune's parameters and their trajectories (`harness tune`).
    pub tune: Option<super::tui::tune::TuneTrace>,
    /// The test's decision as the watcher recorded it (`decision.json` of a served folder).
    pub recorded_decision: Option<harness_core::stats::sprt::Decision>,
    /// The run's time as its own files say (a served folder: its `verdict.json`, or its
    /// `clock.json`), in place of this viewer's clock.
    pub recorded_elapsed: Option<Duration>,
    /// Whether the games in progress are known: from the coordinator's events, not from a
    /// folder that another process plays (its journals hold finished games only).
    pub live_known: bool,
    /// A file of a served folder that cannot be read (`cannot read …/verdict.json: …`): the
    /// views show the run without it, and say so.
    pub folder_error: Option<String>,
    /// The records as the statistics see them (kept alongside `records`).
    outcomes: Vec<harness_core::record::GameOutcome>,
    standings: Option<Standings>,
    sprt_status: Option<SprtStatus>,
    stale: bool,
}

impl Default for RunModel {
    fn default() -> Self {
        RunModel::new()
    }
}

impl RunModel {
    pub fn new() -> RunModel {
        RunModel {
            engines: Vec::new(),
            total_games: 0,
            time_control: String::new(),
            sprt: None,
            already_played: 0,
            run_started: None,
            elapsed_before: Duration::ZERO,
            run_finished: false,
            run_ended: None,
            control: ControlState::Running,
            live: BTreeMap::new(),
            records: Vec::new(),
            recent: VecDeque::new(),
            tune: None,
            recorded_decision: None,
            recorded_elapsed: None,
            live_known: true,
            folder_error: None,
            outcomes: Vec::new(),
            standings: None,
            sprt_status: None,
            stale: true,
        }
    }

    /// Apply one event received at `now`.
    pub fn apply(&mut self, event: Event, now: Instant) {
        match event {
            Event::RunStarted {
                engines,
                total_games,
                already_played,
                time_control,
                sprt,
                elapsed_before,
            } => {
                self.elapsed_before = elapsed_before;
                self.engines = engines;
                self.total_games = total_games;
                self.already_played = already_played.len();
                self.outcomes = outcomes(&already_played);
                self.records = already_played;
                self.time_control = time_control;
                self.sprt = sprt;
                self.run_started = Some(now);
                self.stale = true;
            }
            Event::GameStarted {
                game,
                pair,
                black,
                white,
                opening,
                start,
                book,
                clocks,
            } => {
                let g = GameState::new(
                    game,
                    pair,
                    [black, white],
                    opening,
                    start,
                    &book,
                    clocks,
                    now,
                );
                self.live.insert(game, g);
            }
            Event::Thinking { game, color, info } => {
                if let Some(g) = self.live.get_mut(&game) {
                    g.thinking[color.index()] = Some(info);
                }
            }
            Event::Moved {
                game,
                color,
                mv,
                by_engine,
                info,
                time_ms,
                clocks,
            } => {
                if let Some(g) = self.live.get_mut(&game) {
                    g.push(MoveEntry {
                        color,
                        mv,
                        book: false,
                        forced: !by_engine,
                        score: info.as_ref().map(|i| i.score),
                        depth: info.as_ref().map(|i| i.depth),
                        time_ms: by_engine.then_some(time_ms),
                        exact: None,
                    });
                    if let Some(info) = info {
                        g.thinking[color.index()] = Some(info);
                    }
                    // A side keeps its clock for the whole game; a move's report carries it.
                    for (kept, sent) in g.clocks.iter_mut().zip(clocks) {
                        if sent.is_some() {
                            *kept = sent;
                        }
                    }
                    g.clock_at = now;
                    g.started = now;
                }
            }
            Event::GameFinished { record } => {
                let record = *record;
                let mut g = match self.live.remove(&record.game) {
                    Some(g) => g,
                    None => GameState::from_record(&record, usize::MAX),
                };
                // Freeze the clocks where they stood at the end.
                g.clocks = g.clocks_at(now);
                g.record = Some(record.clone());
                self.recent.push_front(g);
                self.recent.truncate(RECENT);
                self.outcomes
                    .extend(outcomes(std::slice::from_ref(&record)));
                self.records.push(record);
                self.stale = true;
            }
            Event::Tuned {
                applied,
                iterations,
                theta,
            } => super::tui::tune::TuneTrace::hear(&mut self.tune, applied, iterations, theta),
            Event::Control(c) => self.control = c,
            Event::RunFinished => {
                self.finish(now);
            }
        }
    }

    /// The run is over (also when the coordinator ended without `RunFinished`, on an error).
    pub fn finish(&mut self, now: Instant) {
        if !self.run_finished {
            self.run_finished = true;
            self.run_ended = Some(now);
        }
        // Games abandoned by a stop never finish.
        self.live.clear();
    }

    /// The run's time: its earlier sessions' and this one's up to its end (as the run's files
    /// say, when they do).
    pub fn elapsed(&self, now: Instant) -> Option<Duration> {
        // A folder another process plays: only its files know (this viewer started later).
        if self.recorded_elapsed.is_some() || !self.live_known {
            return self.recorded_elapsed;
        }
        let start = self.run_started?;
        Some(
            self.elapsed_before
                + self
                    .run_ended
                    .unwrap_or(now)
                    .saturating_duration_since(start),
        )
    }

    /// Have the statistics recomputed at the next [`RunModel::refresh`].
    pub fn mark_stale(&mut self) {
        self.stale = true;
    }

    /// Recompute the statistics if games finished since the last call.
    pub fn refresh(&mut self) {
        if !self.stale {
            return;
        }
        self.stale = false;
        // In game order, as the reports and the journal's table take them (the records come
        // in finishing order): the joint rating ranks a tie by first appearance.
        let mut order: Vec<usize> = (0..self.records.len()).collect();
        order.sort_by_key(|&i| self.records[i].game);
        let outcomes: Vec<harness_core::record::GameOutcome> =
            order.iter().map(|&i| self.outcomes[i].clone()).collect();
        let outcomes = &outcomes;
        // Rows oriented by the tournament's engine order (the earlier engine is "engine"), as
        // the final table of the journal has them, whichever game happened to finish first.
        let mut matches: Vec<Standing> = Vec::new();
        for (i, a) in self.engines.iter().enumerate() {
            for b in &self.engines[i + 1..] {
                let m = stats::match_stats(outcomes, a, b);
                if m.games > 0 {
                    matches.push(Standing::of(&m));
                }
            }
        }
        let ratings = if self.engines.len() > 2 {
            stats::ratings(outcomes, self.engines.first().map(String::as_str))
        } else {
            Vec::new()
        };
        // The test as every view states it: decided where it first crossed a bound, in the
        // order the games finished (the journal's), or as the watcher recorded it.
        self.sprt_status = match (&self.sprt, self.engines.get(0..2)) {
            (Some(p), Some([a, b])) => Some(stats::test_decision::decided(
                *p,
                (a, b),
                &self.records,
                self.recorded_decision,
            )),
            _ => None,
        };
        self.standings = Some(Standings { matches, ratings });
    }

    /// The standings as of the last `refresh`.
    pub fn standings(&self) -> Option<&Standings> {
        self.standings.as_ref()
    }

    /// The SPRT state as of the last `refresh`.
    pub fn sprt_status(&self) -> Option<&SprtStatus> {
        self.sprt_status.as_ref()
    }

    /// Whether the test's decision measures the run (`stats::verdict::decision_measures`):
    /// not an H1 reached in games where an engine never made a move of its own. True without
    /// a test.
    pub fn decision_measures(&self) -> bool {
        self.sprt_status.as_ref().is_none_or(|s| {
            let never_moved =
                harness_core::stats::verdict::never_moved(&self.engines, &self.records);
            harness_core::stats::verdict::decision_measures(s.decision, &never_moved)
        })
    }

    /// Finished games (this run and earlier) of the total.
    pub fn progress(&self) -> (usize, usize) {
        (self.records.len(), self.total_games)
    }

    /// Estimated time to the end from the pace of this run's games.
    pub fn eta(&self, now: Instant) -> Option<Duration> {
        if !self.live_known {
            return None;
        }
        let started = self.run_started?;
        let played = self.records.len().saturating_sub(self.already_played);
        if played == 0 || self.run_finished {
            return None;
        }
        let left = self.total_games.saturating_sub(self.records.len());
        let per_game = now.saturating_duration_since(started).as_secs_f64() / played as f64;
        Some(Duration::from_secs_f64(per_game * left as f64))
    }

    /// Forfeits: (engine, termination, reason) of every forfeited game, in finishing order.
    pub fn forfeits(&self) -> Vec<(&str, Termination, &str)> {
        self.records
            .iter()
            .filter(|r| r.termination.is_forfeit())
            .map(|r| {
                let by = match r.forfeit_by {
                    Some(Color::White) => r.white.as_str(),
                    _ => r.black.as_str(),
                };
                (by, r.termination, r.reason.as_str())
            })
            .collect()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::show::text::{count_compact, duration_clock, duration_compact};
    use harness_core::record::{OpeningRef, PerColor, PlayedMove};

    pub(crate) fn info(depth: i32, score: f64, nodes: u64, time_ms: u64) -> SearchInfo {
        SearchInfo {
            depth,
            selectivity: 100,
            score,
            nodes,
            time_ms,
            pv: vec![Move::from_wire(19).unwrap(), Move::from_wire(18).unwrap()],
        }
    }

    pub(crate) fn mv(s: &str) -> Move {
        s.parse().unwrap()
    }

    pub(crate) fn started(game: usize, clocks: SideClocks) -> Event {
        Event::GameStarted {
            game,
            pair: game / 2,
            black: if game & 1 == 0 { "alpha" } else { "beta" }.into(),
            white: if game & 1 == 0 { "beta" } else { "alpha" }.into(),
            opening: "f5d6".into(),
            start: Position::START,
            book: vec![mv("f5"), mv("d6")],
            clocks,
        }
    }

    pub(crate) fn moved(game: usize, color: Color, m: &str, score: f64) -> Event {
        Event::Moved {
            game,
            color,
            mv: mv(m),
            by_engine: true,
            info: Some(info(5, score, 20_000, 10)),
            time_ms: 10,
            clocks: [None, None],
        }
    }

    /// A finished record of `game` (Black wins by `score`).
    pub(crate) fn record(game: usize, black: &str, white: &str, score: i32) -> GameRecord {
        GameRecord {
            opening: OpeningRef {
                index: 0,
                line: 1,
                text: "f5d6".into(),
            },
            moves: ["f5", "d6", "c3"]
                .iter()
                .enumerate()
                .map(|(i, m)| PlayedMove {
                    mv: m.to_string(),
                    book: i < 2,
                    score: (i == 2).then_some(1.5),
                    depth: (i == 2).then_some(4),
                    nodes: None,
                    time_ms: (i == 2).then_some(12),
                })
                .collect(),
            discs: PerColor {
                black: 40,
                white: 24,
            },
            ..GameRecord::skeleton(game, black, white, score)
        }
    }

    pub(crate) fn run_started(total: usize, sprt: Option<SprtParams>) -> Event {
        Event::RunStarted {
            engines: vec!["alpha".into(), "beta".into()],
            total_games: total,
            already_played: vec![],
            time_control: "0.1s/move".into(),
            sprt,
            elapsed_before: std::time::Duration::ZERO,
        }
    }

    #[test]
    fn a_resumed_run_s_time_starts_from_its_earlier_sessions() {
        let t0 = Instant::now();
        let mut s = RunModel::new();
        let mut start = run_started(4, None);
        if let Event::RunStarted { elapsed_before, .. } = &mut start {
            *elapsed_before = Duration::from_secs(60);
        }
        s.apply(start, t0);
        assert_eq!(
            s.elapsed(t0 + Duration::from_secs(5)),
            Some(Duration::from_secs(65))
        );
        s.apply(Event::RunFinished, t0 + Duration::from_secs(7));
        assert_eq!(
            s.elapsed(t0 + Duration::from_secs(99)),
            Some(Duration::from_secs(67))
        );
    }

    #[test]
    fn clocks_tick_for_the_side_to_move_only() {
        let t0 = Instant::now();
        let mut s = RunModel::new();
        let ten = Duration::from_secs(10);
        s.apply(started(0, [Some(ten), Some(ten)]), t0);
        let c = s.live[&0].clocks_at(t0 + Duration::from_millis(1500));
        assert_eq!(c, [Some(Duration::from_millis(8500)), Some(ten)]);
        s.apply(
            Event::Moved {
                game: 0,
                color: Color::Black,
                mv: mv("c3"),
                by_engine: true,
                info: None,
                time_ms: 2000,
                clocks: [Some(Duration::from_secs(8)), Some(ten)],
            },
            t0 + Duration::from_secs(2),
        );
        let c = s.live[&0].clocks_at(t0 + Duration::from_secs(5));
        assert_eq!(
            c,
            [Some(Duration::from_secs(8)), Some(Duration::from_secs(7))]
        );
        assert_eq!(duration_clock(c[1].unwrap()), "7.0s");
        assert_eq!(duration_clock(Duration::from_millis(65_300)), "1:05.3");
    }

    /// The live row reads as the final table does, first engine first, also when the first
    /// game to finish had the second engine as Black.
    #[test]
    fn live_standings_keep_the_tournament_orientation() {
        let t0 = Instant::now();
        let mut s = RunModel::new();
        s.apply(run_started(4, None), t0);
        s.apply(
            Event::GameFinished {
                record: Box::new(record(1, "beta", "alpha", -20)),
            },
            t0,
        );
        s.refresh();
        let st = s.standings().unwrap();
        assert_eq!(
            (st.matches[0].a.as_str(), st.matches[0].b.as_str()),
            ("alpha", "beta")
        );
        assert_eq!(st.matches[0].wins, 1);
    }

    #[test]
    fn standings_progress_and_sprt_come_from_the_records() {
        let t0 = Instant::now();
        let mut s = RunModel::new();
        let params = SprtParams {
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
            model: harness_core::stats::sprt::Model::Logistic,
            unit: harness_core::stats::sprt::Unit::Pentanomial,
        };
        s.apply(run_started(4, Some(params)), t0);
        s.apply(
            Event::GameFinished {
                record: Box::new(record(0, "alpha", "beta", 20)),
            },
            t0,
        );
        let mut forfeit = record(1, "beta", "alpha", 64);
        forfeit.termination = Termination::TimeForfeit;
        forfeit.forfeit_by = Some(Color::White);
        forfeit.reason = "time".into();
        s.apply(
            Event::GameFinished {
                record: Box::new(forfeit),
            },
            t0,
        );
        s.refresh();
        let st = s.standings().unwrap();
        assert_eq!(st.matches.len(), 1);
        assert_eq!(st.matches[0].games, 2);
        assert_eq!(st.matches[0].wins + st.matches[0].losses, 2);
        assert!(st.ratings.is_empty());
        assert_eq!(s.progress(), (2, 4));
        let sprt = s.sprt_status().unwrap();
        assert_eq!(sprt.observations, 1);
        assert_eq!(
            s.forfeits(),
            vec![("alpha", Termination::TimeForfeit, "time")]
        );
        let eta = s.eta(t0 + Duration::from_secs(10)).unwrap();
        assert_eq!(eta, Duration::from_secs(10));
        assert_eq!(s.recent.len(), 2);
        assert_eq!(s.recent[0].game, 1);
        s.apply(Event::Control(ControlState::Paused), t0);
        assert_eq!(s.control, ControlState::Paused);
        s.apply(Event::RunFinished, t0);
        assert!(s.run_finished && s.live.is_empty());
        assert_eq!(
            s.elapsed(t0 + Duration::from_secs(99)),
            Some(Duration::ZERO)
        );
    }

    #[test]
    fn a_record_replays_to_any_ply() {
        let r = record(3, "alpha", "beta", 20);
        let g = GameState::from_record(&r, 1);
        assert_eq!(g.moves.len(), 1);
        assert!(!g.is_finished());
        assert_eq!(g.last_move(), Some(mv("f5")));
        let g = GameState::from_record(&r, usize::MAX);
        assert_eq!(g.moves.len(), 3);
        assert!(g.is_finished());
        assert_eq!(g.moves[2].score, Some(1.5));
        assert_eq!(count_compact(1_234_567), "1.23M");
        assert_eq!(duration_compact(Duration::from_secs(185)), "3m05s");
    }
}
