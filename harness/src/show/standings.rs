//! The standings row: one pairing's statistics as every view shows them.
//!
//! The terminal table, the live view, `report.md` and `report.html` (and `report.json`, which
//! serializes the numbers) all render [`Standing`]s: the numbers are computed once here from
//! [`MatchStats`], and each column's text comes from [`Standing::cell`], with one spelling
//! for a missing value ([`MISSING`]). Views only choose columns and lay them out.

use harness_core::stats::sprt::{normalized_elo, normalized_elo_counting, Sample, Unit};
use harness_core::stats::{Estimate, MatchStats};
use serde::Serialize;

/// The engines in the tournament's order (`engines`), then any other that the games name, in
/// the order they first do.
pub fn engine_order(
    engines: &[String],
    records: &[harness_core::record::GameRecord],
) -> Vec<String> {
    let mut names = engines.to_vec();
    for r in records {
        for name in [&r.black, &r.white] {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
    }
    names
}

/// The text of a value that cannot be given yet (no complete pair, no lost pair, …).
pub const MISSING: &str = "-";

/// In place of an interval that is not given (openings repeat and too few are distinct): the
/// cell reads `-312.4 [no interval]`, and the view says why beside the table.
pub const WITHHELD: &str = "no interval";

/// A point estimate with its 95% interval; an infinite bound is `null` in JSON.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Interval {
    pub value: f64,
    pub low: Option<f64>,
    pub high: Option<f64>,
}

impl Interval {
    pub fn of(e: &Estimate) -> Interval {
        let finite = |x: f64| x.is_finite().then_some(x);
        Interval {
            value: e.value,
            low: finite(e.low),
            high: finite(e.high),
        }
    }

    /// The estimate, with infinite bounds where the interval has none.
    pub fn estimate(&self) -> Estimate {
        Estimate {
            value: self.value,
            low: self.low.unwrap_or(f64::NEG_INFINITY),
            high: self.high.unwrap_or(f64::INFINITY),
        }
    }

    /// `+88.7 [+12.3, +170.2]`, `-inf`/`+inf` for a missing bound.
    pub fn text(&self) -> String {
        self.estimate().to_string()
    }

    /// The live view's short form, in whole Elo: [`short_interval`].
    pub fn short_text(&self) -> String {
        short_interval(
            self.value,
            self.low.unwrap_or(f64::NEG_INFINITY),
            self.high.unwrap_or(f64::INFINITY),
        )
    }
}

/// An estimate and its interval in whole units: `+89 ±79` where the interval is symmetric
/// about the estimate once rounded, `+642 [+203, +1710]` where it is not (a ± would put the
/// lower bound at −112 and make a significant result read as insignificant), `-inf`/`+inf`
/// for a missing bound.
pub fn short_interval(value: f64, low: f64, high: f64) -> String {
    let (below, above) = ((value - low).round(), (high - value).round());
    if below.is_finite() && below == above {
        format!("{value:+.0} ±{above:.0}")
    } else {
        format!("{value:+.0} [{low:+.0}, {high:+.0}]")
    }
}

/// Head-to-head statistics of one pairing, from engine `a`'s point of view.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Standing {
    pub a: String,
    pub b: String,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// A's score fraction in `0..=1`.
    pub score: f64,
    /// Complete pairs by A's pair score: LL, LD, WL+DD, WD, WW.
    pub pentanomial: [u32; 5],
    /// Complete pairs (the sum of `pentanomial`).
    pub pairs: u32,
    /// Games not in a complete pair (left out of the pentanomial numbers).
    pub incomplete_games: u32,
    /// Elo A − B from the pentanomial model; null without a complete pair.
    pub elo: Option<Interval>,
    /// Elo A − B from the per-game (trinomial) model; null without games.
    pub elo_trinomial: Option<Interval>,
    /// Normalised Elo of the pentanomial sample; null without spread.
    pub normalized_elo: Option<Interval>,
    /// Likelihood of superiority of A; null without a complete pair.
    pub los: Option<f64>,
    pub draw_ratio: f64,
    /// Pairs won over pairs lost, `(WD + WW) / (LL + LD)`; null when no pair was lost.
    pub pair_ratio: Option<f64>,
    /// Mean disc difference per game from A's view, paired t interval.
    pub disc_diff: Option<Interval>,
    /// Distinct openings among the complete pairs: fewer than `pairs` when openings repeat,
    /// and then the intervals count openings, not pairs (`stats::openings`).
    pub openings: u32,
    /// The independent pairs the Elo and nElo intervals count: `pairs` without repeated
    /// openings.
    pub effective_pairs: f64,
    /// Why the pairing's intervals (Elo, nElo, discs) and its LOS are not given: openings
    /// repeat and too few are distinct. Null when they are given.
    pub interval_withheld: Option<String>,
}

/// The columns a standings row has, in their usual order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    Engine,
    Opponent,
    Games,
    Wdl,
    Score,
    Elo,
    NormalizedElo,
    Los,
    Draws,
    PairRatio,
    Discs,
    Pentanomial,
}

impl Column {
    /// Every column, in the usual order (the reports show them all).
    pub const ALL: [Column; 12] = [
        Column::Engine,
        Column::Opponent,
        Column::Games,
        Column::Wdl,
        Column::Score,
        Column::Elo,
        Column::NormalizedElo,
        Column::Los,
        Column::Draws,
        Column::PairRatio,
        Column::Discs,
        Column::Pentanomial,
    ];

    /// The column's heading.
    pub fn header(self) -> &'static str {
        match self {
            Column::Engine => "engine",
            Column::Opponent => "opponent",
            Column::Games => "games",
            Column::Wdl => "W-D-L",
            Column::Score => "score",
            Column::Elo => "Elo [95%] (pentanomial)",
            Column::NormalizedElo => "nElo [95%]",
            Column::Los => "LOS",
            Column::Draws => "draws",
            Column::PairRatio => "pair ratio",
            Column::Discs => "discs/game [95%]",
            Column::Pentanomial => "LL LD WL+DD WD WW",
        }
    }
}

impl Standing {
    pub fn of(m: &MatchStats) -> Standing {
        let p = m.pentanomial;
        let lost = p[0] + p[1];
        let sample = Sample::pentanomial(p.map(u64::from));
        let clusters = m.clusters();
        let normalized = if clusters.withheld() {
            normalized_elo(&sample, Unit::Pentanomial).map(|e| Estimate {
                low: f64::NEG_INFINITY,
                high: f64::INFINITY,
                ..e
            })
        } else if clusters.repeated() {
            normalized_elo_counting(&sample, Unit::Pentanomial, m.effective_pairs)
        } else {
            normalized_elo(&sample, Unit::Pentanomial)
        };
        Standing {
            a: m.a.clone(),
            b: m.b.clone(),
            games: m.games,
            wins: m.wins,
            draws: m.draws,
            losses: m.losses,
            score: m.score,
            pentanomial: p,
            pairs: m.pairs,
            incomplete_games: m.incomplete_games,
            elo: m.elo.as_ref().map(Interval::of),
            elo_trinomial: m.elo_trinomial.as_ref().map(Interval::of),
            normalized_elo: normalized.as_ref().map(Interval::of),
            los: m.los,
            draw_ratio: m.draw_ratio,
            pair_ratio: (lost > 0).then(|| f64::from(p[3] + p[4]) / f64::from(lost)),
            disc_diff: m.disc_diff.as_ref().map(Interval::of),
            openings: m.openings,
            effective_pairs: m.effective_pairs,
            interval_withheld: clusters.withheld_reason(),
        }
    }

    /// How the complete pairs spread over openings.
    pub fn clusters(&self) -> harness_core::stats::openings::PairClusters {
        harness_core::stats::openings::PairClusters {
            pairs: self.pairs,
            openings: self.openings,
        }
    }

    /// `12-3-5`.
    pub fn wdl(&self) -> String {
        format!("{}-{}-{}", self.wins, self.draws, self.losses)
    }

    /// The text of one column.
    pub fn cell(&self, column: Column) -> String {
        let interval = |i: &Option<Interval>| match i {
            None => MISSING.to_string(),
            Some(i) if self.interval_withheld.is_some() => format!("{:+.1} [{WITHHELD}]", i.value),
            Some(i) => i.text(),
        };
        let percent = |x: f64| format!("{:.1}%", 100.0 * x);
        match column {
            Column::Engine => self.a.clone(),
            Column::Opponent => self.b.clone(),
            Column::Games => self.games.to_string(),
            Column::Wdl => self.wdl(),
            Column::Score => percent(self.score),
            Column::Elo => interval(&self.elo),
            Column::NormalizedElo => interval(&self.normalized_elo),
            Column::Los => self.los.map_or(MISSING.to_string(), percent),
            Column::Draws => percent(self.draw_ratio),
            Column::PairRatio => self
                .pair_ratio
                .map_or(MISSING.to_string(), |r| format!("{r:.2}")),
            Column::Discs => interval(&self.disc_diff),
            Column::Pentanomial => self.pentanomial.map(|c| c.to_string()).join(" "),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The live view's short interval: ± only where it is symmetric once rounded; an
    /// asymmetric one keeps its bounds (+642 ±754 would put the lower bound at −112, where
    /// it is +202).
    #[test]
    fn a_short_interval_is_symmetric_or_keeps_its_bounds() {
        assert_eq!(short_interval(88.7, 9.4, 168.0), "+89 ±79");
        assert_eq!(short_interval(641.6, 202.5, 1710.1), "+642 [+202, +1710]");
        assert_eq!(short_interval(284.0, -305.8, 1365.5), "+284 [-306, +1366]");
        assert_eq!(
            short_interval(10.0, f64::NEG_INFINITY, 50.0),
            "+10 [-inf, +50]"
        );
    }
    use harness_core::record::GameOutcome;
    use harness_core::stats::match_stats;

    /// Openings repeated: the normalised Elo of ten pairs on five openings is clustered (the
    /// reference value of `stats::openings`' tests); with six pairs on three openings the
    /// table says why no interval is given, and the cell has none.
    #[test]
    fn repeated_openings_in_the_table() {
        use crate::show::tests::{games, ten_pairs_on_five_openings};
        let m = match_stats(&ten_pairs_on_five_openings(), "A", "B");
        let standing = Standing::of(&m);
        let nelo = standing.normalized_elo.unwrap();
        let close = |a: f64, b: f64| assert!((a - b).abs() < 1e-9, "{a} vs {b}");
        close(nelo.value, 132.3730904572678);
        close(nelo.low.unwrap(), -55.115773230665695);
        close(nelo.high.unwrap(), 319.8619541452013);
        assert_eq!(standing.interval_withheld, None);
        let three = [(0, 10, -4), (1, -8, -8), (2, -2, 0)];
        let six: Vec<_> = three.iter().chain(&three).copied().collect();
        let standing = Standing::of(&match_stats(&games(&six), "A", "B"));
        assert_eq!(
            standing.interval_withheld.as_deref(),
            Some("6 pairs from 3 openings: fewer than 5 distinct openings are too few for an interval")
        );
        let nelo = standing.normalized_elo.unwrap();
        assert_eq!((nelo.low, nelo.high), (None, None));
        assert_eq!(standing.cell(Column::Elo), "-190.8 [no interval]");
        // Without repeats the normalised Elo is the sample's, as before openings were read.
        let once = games(&[(0, 10, -4), (1, -8, -8), (2, -2, 0), (3, 4, 4), (4, 0, 6)]);
        let m = match_stats(&once, "A", "B");
        let sample = harness_core::stats::sprt::Sample::pentanomial(m.pentanomial.map(u64::from));
        assert_eq!(
            Standing::of(&m).normalized_elo,
            harness_core::stats::sprt::normalized_elo(
                &sample,
                harness_core::stats::sprt::Unit::Pentanomial
            )
            .as_ref()
            .map(Interval::of)
        );
    }

    #[test]
    fn cells_of_a_match_and_of_an_empty_one() {
        let game = |pair, black: &str, white: &str, d| GameOutcome {
            pair,
            black: black.into(),
            white: white.into(),
            black_disc_diff: d,
            forfeit: false,
            opening: None,
        };
        let games = [
            game(0, "A", "B", 10),
            game(0, "B", "A", 6),
            game(1, "A", "B", 20),
            game(1, "B", "A", 0),
        ];
        let s = Standing::of(&match_stats(&games, "A", "B"));
        assert_eq!(s.cell(Column::Wdl), "2-1-1");
        assert_eq!(s.cell(Column::Score), "62.5%");
        assert_eq!(s.cell(Column::Pentanomial), "0 0 1 1 0");
        assert_eq!(s.cell(Column::Discs), "+6.0 [-44.8, +56.8]");
        assert_eq!(s.cell(Column::PairRatio), MISSING);
        let empty = Standing::of(&match_stats(&[], "A", "B"));
        for c in [
            Column::Elo,
            Column::NormalizedElo,
            Column::Los,
            Column::Discs,
        ] {
            assert_eq!(empty.cell(c), MISSING, "{c:?}");
        }
    }
}
