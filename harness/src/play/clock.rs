//! The coordinator's clock of one game: the whole time rule in one type, [`GameClock`].
//!
//! Each side has its own rules (time odds: an engine's own `time` table) as the tournament
//! gives them, already NPS-scaled when the run measured a factor
//! ([`harness_core::plan::config::ClockScale`]). A side on a clock starts with its base; each search is
//! charged its wall time, measured by the coordinator, and the increment is credited after it:
//! `left - elapsed + increment`, which may be below zero.
//!
//! The margin forgives latency, not thinking ([`MARGIN_RULE`]): a move's time past what was
//! left, within the margin, is charged to the clock, which then owes it. The engine is told
//! `max(left, 0)` and is held to forfeit past `left + margin`, the debt included: the margin
//! is one allowance for the whole game, not one per move (which an engine answering every move
//! late by less than the margin would use as thinking time). A fixed move time keeps its
//! per-move margin. The engine is told to stop at the budget ([`SearchBudget`], which the host
//! enforces). A depth- or node-limited search has no budget: the stall timeout bounds it.
//! Forced passes and the opening's moves are never charged.

use crate::host::SearchBudget;
use harness_core::events::SideClocks;
use harness_core::plan::config::{TimeControl, TimeRules};
use harness_core::record::{GameRecord, Termination};
use harness_core::search_terms::SearchLimits;
use othello_board::{Color, Move, Position};
use std::time::Duration;

/// The margin rule, as `tournament.json` pins it (`margin_rule`): time past the clock within
/// the margin is charged.
pub const MARGIN_RULE: &str = "charged";

/// Both sides' clocks of a game, [Black, White], and the rules they run under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameClock {
    rules: [TimeRules; 2],
    /// What each side on a clock has left (`None`: no clock), at least zero.
    left: SideClocks,
    /// What each side's clock owes: time it used past zero (less than its margin).
    owed: [Duration; 2],
}

impl GameClock {
    /// The clocks at the start of a game whose sides play under `rules`, [Black, White].
    pub fn new(rules: [TimeRules; 2]) -> GameClock {
        let left = rules.map(|r| match r.control {
            TimeControl::Clock { base, .. } => Some(base),
            _ => None,
        });
        GameClock {
            rules,
            left,
            owed: [Duration::ZERO; 2],
        }
    }

    /// What each side has left, at least zero (`None` for a side without a clock, which the
    /// live view then does not show).
    pub fn left(&self) -> SideClocks {
        self.left
    }

    /// The increment a side is credited after each of its searches (zero without a clock).
    fn increment(&self, side: usize) -> Duration {
        match self.rules[side].control {
            TimeControl::Clock { increment, .. } => increment,
            _ => Duration::ZERO,
        }
    }

    /// What `side` is told for its next search, and the budget the coordinator holds it to.
    /// A side on a clock sees both clocks and increments; an opponent without a clock is shown
    /// as having none left.
    pub fn next_search(&self, side: Color) -> (SearchLimits, SearchBudget) {
        let rules = self.rules[side.index()];
        let deadline = |budget| SearchBudget::Deadline {
            budget,
            margin: rules.margin,
        };
        // A clock that owes time has that much less of its margin left.
        let margin_left = rules.margin.saturating_sub(self.owed[side.index()]);
        let stall = SearchBudget::Stall {
            timeout: rules.stall_timeout,
        };
        match rules.control {
            TimeControl::Clock { .. } => (
                SearchLimits::Clock {
                    left: self.left.map(Option::unwrap_or_default),
                    increment: [self.increment(0), self.increment(1)],
                },
                SearchBudget::Deadline {
                    budget: self.left[side.index()].unwrap_or_default(),
                    margin: margin_left,
                },
            ),
            TimeControl::MoveTime(t) => (SearchLimits::MoveTime(t), deadline(t)),
            TimeControl::Depth(d) => (SearchLimits::Depth(d), stall),
            TimeControl::Nodes(n) => (SearchLimits::Nodes(n), stall),
        }
    }

    /// Charge `side` a search of `elapsed`: its clock, if it has one, loses the time and gains
    /// the increment; what it cannot pay it owes, and the increment pays that first.
    pub fn charge(&mut self, side: Color, elapsed: Duration) {
        let s = side.index();
        let increment = self.increment(s);
        if let Some(left) = self.left[s].as_mut() {
            let has = *left + increment;
            let due = elapsed + self.owed[s];
            *left = has.saturating_sub(due);
            self.owed[s] = due.saturating_sub(has);
        }
    }

    /// The clocks a recorded game ended with, its sides having played under `rules`: each
    /// searched move charged the time its record keeps (whole milliseconds, as the charge's
    /// time is recorded), then what a side's total time has beyond its moves (the search of an
    /// illegal move, charged but never played), and a side that lost on time at zero.
    pub fn at_end_of(rules: [TimeRules; 2], record: &GameRecord) -> SideClocks {
        let mut clock = GameClock::new(rules);
        let mut position = record.start_position().unwrap_or(Position::START);
        let mut charged = [0u64; 2];
        for m in &record.moves {
            let side = position.side_to_move;
            if let (false, Some(ms)) = (m.book, m.time_ms) {
                clock.charge(side, Duration::from_millis(ms));
                charged[side.index()] += ms;
            }
            match m.mv.parse::<Move>().ok().map(|mv| position.play(mv)) {
                Some(Ok(next)) => position = next,
                _ => break,
            }
        }
        let total = [record.time_ms.black, record.time_ms.white];
        for side in [Color::Black, Color::White] {
            let rest = total[side.index()].saturating_sub(charged[side.index()]);
            if rest > 0 {
                clock.charge(side, Duration::from_millis(rest));
            }
        }
        let mut left = clock.left();
        if let (Termination::TimeForfeit, Some(side)) = (record.termination, record.forfeit_by) {
            if let Some(l) = left[side.index()].as_mut() {
                *l = Duration::ZERO;
            }
        }
        left
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness_core::plan::config::ClockScale;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn rules(control: TimeControl) -> TimeRules {
        TimeRules {
            control,
            margin: ms(200),
            stall_timeout: Duration::from_secs(60),
        }
    }

    fn clock(base: u64, increment: u64) -> TimeRules {
        rules(TimeControl::Clock {
            base: ms(base),
            increment: ms(increment),
        })
    }

    fn deadline(budget: u64) -> SearchBudget {
        SearchBudget::Deadline {
            budget: ms(budget),
            margin: ms(200),
        }
    }

    #[test]
    fn a_clock_starts_at_its_base_and_is_the_budget() {
        let c = GameClock::new([clock(6000, 20), clock(3000, 0)]);
        assert_eq!(c.left(), [Some(ms(6000)), Some(ms(3000))]);
        assert_eq!(
            c.next_search(Color::White),
            (
                SearchLimits::Clock {
                    left: [ms(6000), ms(3000)],
                    increment: [ms(20), ms(0)],
                },
                deadline(3000)
            )
        );
    }

    /// A search costs its wall time, then the increment is credited: every move, including
    /// one that used more than was left (within the margin), whose excess the increment pays
    /// first. (Under the earlier rule an overrun left the whole increment: the margin was
    /// forgiven on every move.)
    #[test]
    fn a_search_is_charged_its_time_and_credited_the_increment() {
        let mut c = GameClock::new([clock(1000, 20), clock(1000, 0)]);
        c.charge(Color::Black, ms(150));
        assert_eq!(c.left(), [Some(ms(870)), Some(ms(1000))]);
        c.charge(Color::Black, ms(150));
        assert_eq!(c.left()[0], Some(ms(740)));
        assert_eq!(c.next_search(Color::Black).1, deadline(740));
        c.charge(Color::White, ms(999));
        assert_eq!(c.left()[1], Some(ms(1)));
        c.charge(Color::Black, ms(750));
        assert_eq!(
            c.left()[0],
            Some(ms(10)),
            "an overrun of 10 ms is paid by the increment of 20"
        );
        c.charge(Color::White, ms(5));
        assert_eq!(c.left()[1], Some(ms(0)));
        assert_eq!(c.next_search(Color::White).1.forfeit_after(), ms(196));
    }

    /// The margin is one allowance for the game: an engine that answered 150 ms past an empty
    /// clock owes it, and its next move may take 50 ms of a margin of 200 ms. Under the earlier
    /// rule (the charge stopped at zero) it could go on like that for ever, thinking 150 ms a
    /// move on no time at all.
    #[test]
    fn time_past_the_clock_is_owed_and_the_margin_is_spent_once() {
        let mut c = GameClock::new([clock(100, 0), clock(1000, 0)]);
        c.charge(Color::Black, ms(250));
        assert_eq!(c.left()[0], Some(ms(0)), "told zero, never less");
        let (limits, budget) = c.next_search(Color::Black);
        assert_eq!(
            limits,
            SearchLimits::Clock {
                left: [ms(0), ms(1000)],
                increment: [ms(0), ms(0)],
            }
        );
        assert_eq!(
            budget.forfeit_after(),
            ms(50),
            "200 ms of margin less 150 owed"
        );
        assert!(budget.forfeits(ms(51)));
        assert!(!budget.forfeits(ms(50)));
        c.charge(Color::Black, ms(50));
        assert_eq!(c.next_search(Color::Black).1.forfeit_after(), ms(0));
        // An increment pays the debt before it is time to think with.
        let mut c = GameClock::new([clock(100, 100), clock(1000, 0)]);
        c.charge(Color::Black, ms(250));
        assert_eq!(c.left()[0], Some(ms(0)));
        c.charge(Color::Black, ms(0));
        assert_eq!(c.left()[0], Some(ms(50)));
        assert_eq!(c.next_search(Color::Black).1.forfeit_after(), ms(250));
    }

    /// The engine is told to stop at the budget and forfeits when it answers later than budget
    /// + margin; a budget of zero (an empty clock) still has the margin.
    #[test]
    fn the_forfeit_threshold_is_the_budget_plus_the_margin() {
        let mut c = GameClock::new([clock(500, 0), rules(TimeControl::MoveTime(ms(300)))]);
        let (_, budget) = c.next_search(Color::Black);
        assert_eq!(budget.stop_after(), Some(ms(500)));
        assert_eq!(budget.forfeit_after(), ms(700));
        assert!(!budget.forfeits(ms(700)));
        assert!(budget.forfeits(ms(701)));
        let (_, budget) = c.next_search(Color::White);
        assert_eq!(budget.stop_after(), Some(ms(300)));
        assert!(budget.forfeits(ms(501)));
        c.charge(Color::Black, ms(500));
        assert_eq!(c.left()[0], Some(ms(0)));
        let (_, budget) = c.next_search(Color::Black);
        assert_eq!(budget.stop_after(), Some(ms(0)));
        assert!(!budget.forfeits(ms(200)));
        assert!(budget.forfeits(ms(201)));
        // A move time keeps its margin on every move.
        c.charge(Color::White, ms(450));
        c.charge(Color::White, ms(450));
        assert_eq!(c.next_search(Color::White).1.forfeit_after(), ms(500));
    }

    /// Depth- and node-limited searches have no clock and no budget: the stall timeout bounds
    /// them, charging changes nothing, and the opponent on a clock sees none left for them.
    #[test]
    fn without_a_time_limit_the_stall_timeout_bounds_the_search() {
        let mut c = GameClock::new([rules(TimeControl::Depth(7)), rules(TimeControl::Nodes(9))]);
        assert_eq!(c.left(), [None, None]);
        let stall = SearchBudget::Stall {
            timeout: Duration::from_secs(60),
        };
        assert_eq!(c.next_search(Color::Black), (SearchLimits::Depth(7), stall));
        assert_eq!(c.next_search(Color::White), (SearchLimits::Nodes(9), stall));
        assert_eq!(stall.stop_after(), None);
        assert_eq!(stall.forfeit_after(), Duration::from_secs(60));
        assert!(
            !stall.forfeits(Duration::from_secs(61)),
            "a late answer is no time forfeit"
        );
        c.charge(Color::Black, ms(5000));
        assert_eq!(c.left(), [None, None]);
    }

    /// Time odds: each side is told, and held to, its own rules; a side on a clock sees its
    /// own clock and increment, and an opponent without a clock as having none left.
    #[test]
    fn each_side_searches_under_its_own_time_rules() {
        let mut c = GameClock::new([clock(6000, 20), rules(TimeControl::MoveTime(ms(500)))]);
        assert_eq!(c.left(), [Some(ms(6000)), None]);
        c.charge(Color::Black, ms(1699));
        c.charge(Color::White, ms(450));
        assert_eq!(c.left(), [Some(ms(4321)), None]);
        assert_eq!(
            c.next_search(Color::Black),
            (
                SearchLimits::Clock {
                    left: [ms(4321), Duration::ZERO],
                    increment: [ms(20), Duration::ZERO],
                },
                deadline(4321)
            )
        );
        assert_eq!(
            c.next_search(Color::White),
            (SearchLimits::MoveTime(ms(500)), deadline(500))
        );
    }

    /// NPS scaling: a run on a machine at half the reference's speed gives every clock, its
    /// increment and every move time twice as long, the margin and the stall timeout as they
    /// are; the clock then runs on the scaled values.
    #[test]
    fn nps_scaling_scales_base_increment_and_move_time_not_the_margin() {
        let scale = ClockScale::new("strong", 1_000_000, 500_000);
        let scaled =
            [clock(1000, 20), rules(TimeControl::MoveTime(ms(300)))].map(|r| scale.scale(r));
        let mut c = GameClock::new(scaled);
        assert_eq!(c.left(), [Some(ms(2000)), None]);
        assert_eq!(
            c.next_search(Color::White),
            (SearchLimits::MoveTime(ms(600)), deadline(600))
        );
        c.charge(Color::Black, ms(500));
        assert_eq!(c.left()[0], Some(ms(1540)));
        let depth = scale.scale(rules(TimeControl::Depth(5)));
        assert_eq!(depth, rules(TimeControl::Depth(5)));
    }

    /// A recorded game's clocks at its end: the engines' moves charged and credited, the
    /// opening's and the forced passes not; an illegal move's search charged from the side's
    /// total; a side that lost on time shown at zero; a side without a clock has none.
    #[test]
    fn a_recorded_game_ends_with_the_clocks_its_moves_left() {
        use harness_core::record::PlayedMove;
        let played = |mv: &str, book: bool, time_ms: Option<u64>| PlayedMove {
            mv: mv.into(),
            book,
            score: None,
            depth: None,
            nodes: None,
            time_ms,
        };
        let mut r = GameRecord::skeleton(0, "a", "b", 0);
        // Black f5 (book), White d6 300 ms, Black c3 100 ms, White d3 50 ms.
        r.moves = vec![
            played("f5", true, None),
            played("d6", false, Some(300)),
            played("c3", false, Some(100)),
            played("d3", false, Some(50)),
        ];
        r.time_ms.black = 100;
        r.time_ms.white = 350;
        let both = [clock(1000, 20), clock(2000, 0)];
        assert_eq!(
            GameClock::at_end_of(both, &r),
            [Some(ms(920)), Some(ms(1650))]
        );
        r.time_ms.black = 400;
        r.termination = Termination::IllegalMove;
        r.forfeit_by = Some(Color::Black);
        assert_eq!(
            GameClock::at_end_of(both, &r)[0],
            Some(ms(640)),
            "the illegal move's 300 ms"
        );
        r.time_ms.black = 100;
        r.termination = Termination::TimeForfeit;
        assert_eq!(
            GameClock::at_end_of(both, &r),
            [Some(ms(0)), Some(ms(1650))]
        );
        let depth = rules(TimeControl::Depth(3));
        assert_eq!(
            GameClock::at_end_of([depth, clock(2000, 0)], &r),
            [None, Some(ms(1650))]
        );
    }
}
