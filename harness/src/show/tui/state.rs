//! The terminal view's state: the run model (`show::run_model`, what every view shows) and
//! what only the terminal has: which game is on screen, follow mode, a chosen game kept after
//! it ends, the last progress line, and whether the finished screen stays. No I/O and no
//! drawing here; time comes in as an argument so that the updates are testable.

use crate::show::run_model::{GameState, RunModel};
use harness_core::events::Event;
use std::time::{Duration, Instant};

/// How long the finished screen stays without a key: then it leaves on its own and the tables
/// are printed, so that a run started from a script or a terminal left alone ends.
pub const LINGER: Duration = Duration::from_secs(20);

/// Which game the view shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spectate {
    /// The latest game started (switches when it ends).
    Follow,
    /// A chosen game; it stays on screen after it ends until another is chosen.
    Game(usize),
}

/// The terminal view's whole state.
#[derive(Clone, Debug)]
pub struct State {
    /// The run, as every view shows it.
    pub run: RunModel,
    /// The viewer pressed a key after the run ended: the screen stays until `q`, instead of
    /// leaving on its own after [`LINGER`].
    pub stay: bool,
    pub spectate: Spectate,
    /// A chosen game that finished, kept on screen until another is chosen.
    pub pinned: Option<GameState>,
    /// The last spectated game, so that following does not jump while it is alive.
    pub shown: Option<usize>,
    /// The last progress line of the coordinator (resume notice, pair lines).
    pub last_line: String,
    /// A still of a folder's run (`stats --screen`): no keys to offer.
    pub still: bool,
}

impl Default for State {
    fn default() -> Self {
        State::new()
    }
}

impl State {
    pub fn new() -> State {
        State {
            run: RunModel::new(),
            stay: false,
            spectate: Spectate::Follow,
            shown: None,
            pinned: None,
            last_line: String::new(),
            still: false,
        }
    }

    /// The view of a run model read whole (a folder's run): the latest game on screen.
    pub fn of(run: RunModel) -> State {
        let mut s = State {
            run,
            still: true,
            ..State::new()
        };
        s.update_shown();
        s
    }

    /// Apply one event received at `now`: the run model takes it; a chosen game that
    /// finishes stays on screen.
    pub fn apply(&mut self, event: Event, now: Instant) {
        let finished = match &event {
            Event::GameFinished { record } => Some(record.game),
            _ => None,
        };
        self.run.apply(event, now);
        if let Some(game) = finished.filter(|&g| self.spectate == Spectate::Game(g)) {
            self.pinned = self.run.recent.iter().find(|g| g.game == game).cloned();
        }
        self.update_shown();
    }

    /// The run is over (also when the coordinator ended without `RunFinished`, on an error).
    pub fn finish(&mut self, now: Instant) {
        self.run.finish(now);
        self.update_shown();
    }

    /// Keep `shown` on a game that exists; in follow mode on the latest game started.
    fn update_shown(&mut self) {
        match self.spectate {
            Spectate::Follow => {
                let alive = self.shown.is_some_and(|g| self.run.live.contains_key(&g));
                if !alive {
                    self.shown = self
                        .run
                        .live
                        .keys()
                        .next_back()
                        .copied()
                        .or_else(|| self.run.recent.front().map(|g| g.game));
                }
            }
            Spectate::Game(g) => self.shown = Some(g),
        }
    }

    /// The game on screen: live, or recently finished.
    pub fn spectated(&self) -> Option<&GameState> {
        let id = self.shown?;
        self.run
            .live
            .get(&id)
            .or_else(|| self.run.recent.iter().find(|g| g.game == id))
            .or_else(|| self.pinned.as_ref().filter(|g| g.game == id))
    }

    /// Live game numbers in order (the digits select among them).
    pub fn live_ids(&self) -> Vec<usize> {
        self.run.live.keys().copied().collect()
    }

    /// Spectate the next (`+1`) or previous (`-1`) live game; leaves follow mode.
    pub fn cycle(&mut self, step: isize) {
        let ids = self.live_ids();
        if ids.is_empty() {
            return;
        }
        let pos = self
            .shown
            .and_then(|s| ids.iter().position(|&g| g == s))
            .map(|p| p as isize)
            .unwrap_or(if step > 0 { -1 } else { 0 });
        let n = ids.len() as isize;
        let next = ids[(pos + step).rem_euclid(n) as usize];
        self.spectate = Spectate::Game(next);
        self.shown = Some(next);
    }

    /// Spectate the `index`-th live game (0-based); leaves follow mode.
    pub fn select(&mut self, index: usize) {
        if let Some(&g) = self.live_ids().get(index) {
            self.spectate = Spectate::Game(g);
            self.shown = Some(g);
        }
    }

    /// Toggle follow-the-latest-game.
    pub fn toggle_follow(&mut self) {
        self.spectate = match self.spectate {
            Spectate::Follow => match self.shown {
                Some(g) => Spectate::Game(g),
                None => Spectate::Follow,
            },
            Spectate::Game(_) => {
                self.shown = None;
                Spectate::Follow
            }
        };
        self.update_shown();
    }

    pub fn following(&self) -> bool {
        self.spectate == Spectate::Follow
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::show::run_model::tests::{info, moved, mv, record, run_started, started};
    use harness_core::events::Event;
    use othello_board::Color;

    #[test]
    fn a_game_follows_its_events() {
        let t0 = Instant::now();
        let mut s = State::new();
        s.apply(run_started(4, None), t0);
        s.apply(started(0, [None, None]), t0);
        let g = &s.run.live[&0];
        assert_eq!(g.moves.len(), 2);
        assert!(g.moves.iter().all(|m| m.book));
        assert_eq!(g.side_to_move(), Color::Black);
        assert_eq!(g.discs(), (3, 3));
        s.apply(
            Event::Thinking {
                game: 0,
                color: Color::Black,
                info: info(3, 2.0, 5000, 5),
            },
            t0,
        );
        assert_eq!(s.run.live[&0].thinking[0].as_ref().unwrap().depth, 3);
        s.apply(moved(0, Color::Black, "c3", 2.5), t0);
        let g = &s.run.live[&0];
        assert_eq!(g.last_move(), Some(mv("c3")));
        assert_eq!(g.side_to_move(), Color::White);
        assert_eq!(g.discs(), (5, 2));
        assert_eq!(g.moves[2].score, Some(2.5));
        assert_eq!(g.moves[2].time_ms, Some(10));
        s.apply(moved(0, Color::White, "c4", 1.0), t0);
        let h = s.run.live[&0].eval_history();
        assert_eq!(h[0], vec![(3.0, 2.5)]);
        // White's score is turned to Black's view.
        assert_eq!(h[1], vec![(4.0, -1.0)]);
        // A score past ±64 is no disc count: left out of the chart, and counted.
        s.apply(moved(0, Color::Black, "c5", 120.74), t0);
        assert_eq!(s.run.live[&0].eval_history()[0], vec![(3.0, 2.5)]);
        assert_eq!(s.run.live[&0].scores_out_of_range(), 1);
        assert_eq!(s.spectated().unwrap().game, 0);
    }

    #[test]
    fn follow_mode_moves_to_the_latest_game_and_manual_choice_sticks() {
        let t0 = Instant::now();
        let mut s = State::new();
        s.apply(run_started(8, None), t0);
        s.apply(started(0, [None, None]), t0);
        s.apply(started(1, [None, None]), t0);
        // Following keeps the game on screen while it is alive.
        assert_eq!(s.shown, Some(0));
        s.apply(
            Event::GameFinished {
                record: Box::new(record(0, "alpha", "beta", 16)),
            },
            t0,
        );
        assert_eq!(s.shown, Some(1));
        s.apply(started(2, [None, None]), t0);
        s.cycle(1);
        assert_eq!(s.spectate, Spectate::Game(2));
        s.cycle(1);
        assert_eq!(s.shown, Some(1));
        s.cycle(-1);
        assert_eq!(s.shown, Some(2));
        s.select(0);
        assert_eq!(s.shown, Some(1));
        // A chosen game stays on screen after it ends.
        s.apply(
            Event::GameFinished {
                record: Box::new(record(1, "beta", "alpha", -10)),
            },
            t0,
        );
        assert_eq!(s.shown, Some(1));
        assert!(s.spectated().unwrap().is_finished());
        // ... even when many other games finished since.
        for game in 10..30 {
            s.apply(
                Event::GameFinished {
                    record: Box::new(record(game, "alpha", "beta", 2)),
                },
                t0,
            );
        }
        assert_eq!(s.spectated().unwrap().game, 1);
        s.toggle_follow();
        assert!(s.following());
        assert_eq!(s.shown, Some(2));
    }
}
