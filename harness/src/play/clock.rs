//! The coordinator's clock of one game: the whole time rule in one type, [`GameClock`].
//!
//! Each side has its own rules (time odds: an engine's own `time` table) as the tournament
//! gives them, already NPS-scaled when the run measured a factor
//! ([`crate::plan::config::ClockScale`]). A side on a clock starts with its base; each search is
//! charged its wall time, measured by the coordinator, and the increment is credited after it
//! (`left - elapsed + increment`, never below the increment). The budget of a search is what is
//! left on the clock, or the move time; the engine is told to stop at the budget and forfeits
//! on time when its answer comes later than budget + margin ([`SearchBudget`], which the host
//! enforces). A depth- or node-limited search has no budget: the stall timeout bounds it.
//! Forced passes and the opening's moves are never charged.

use crate::events::SideClocks;
use crate::host::SearchBudget;
use crate::plan::config::{TimeControl, TimeRules};
use crate::search_terms::SearchLimits;
use othello_board::Color;
use std::time::Duration;

/// Both sides' clocks of a game, [Black, White], and the rules they run under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameClock {
    rules: [TimeRules; 2],
    /// What each side on a clock has left (`None`: no clock).
    left: SideClocks,
}

impl GameClock {
    /// The clocks at the start of a game whose sides play under `rules`, [Black, White].
    pub fn new(rules: [TimeRules; 2]) -> GameClock {
        let left = rules.map(|r| match r.control {
            TimeControl::Clock { base, .. } => Some(base),
            _ => None,
        });
        GameClock { rules, left }
    }

    /// What each side has left (`None` for a side without a clock, which the live view then
    /// does not show).
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
        let stall = SearchBudget::Stall {
            timeout: rules.stall_timeout,
        };
        match rules.control {
            TimeControl::Clock { .. } => (
                SearchLimits::Clock {
                    left: self.left.map(Option::unwrap_or_default),
                    increment: [self.increment(0), self.increment(1)],
                },
                deadline(self.left[side.index()].unwrap_or_default()),
            ),
            TimeControl::MoveTime(t) => (SearchLimits::MoveTime(t), deadline(t)),
            TimeControl::Depth(d) => (SearchLimits::Depth(d), stall),
            TimeControl::Nodes(n) => (SearchLimits::Nodes(n), stall),
        }
    }

    /// Charge `side` a search of `elapsed`: its clock, if it has one, loses the time and gains
    /// the increment.
    pub fn charge(&mut self, side: Color, elapsed: Duration) {
        let increment = self.increment(side.index());
        if let Some(left) = self.left[side.index()].as_mut() {
            *left = left.saturating_sub(elapsed) + increment;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::config::ClockScale;

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
    /// one that used more than was left (within the margin), which leaves the increment.
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
        c.charge(Color::Black, ms(900));
        assert_eq!(
            c.left()[0],
            Some(ms(20)),
            "an overrun leaves the increment only"
        );
        c.charge(Color::White, ms(5));
        assert_eq!(c.left()[1], Some(ms(0)));
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
        c.charge(Color::Black, ms(650));
        assert_eq!(c.left()[0], Some(ms(0)));
        let (_, budget) = c.next_search(Color::Black);
        assert_eq!(budget.stop_after(), Some(ms(0)));
        assert!(!budget.forfeits(ms(200)));
        assert!(budget.forfeits(ms(201)));
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
}
