//! The game schedule: which engines play which opening, with which colours, in which order.
//!
//! A schedule is a plain list of games computed from the pairings, the number of pairs, the
//! size of the opening set and the opening order; it plays nothing and reads no files. The
//! invariants it keeps: games come in adjacent pairs that play the same opening with colours
//! swapped, every pairing plays the same opening in the same round (so engines are compared on
//! equal terms), and the same inputs always give the same schedule.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The order openings are drawn in; see `schedule::draw_sequence`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpeningOrder {
    /// File order.
    Sequential,
    /// A reproducible permutation of the whole set.
    Shuffled { seed: u64 },
}

/// One game of the schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ScheduledGame {
    /// 0-based game number; games are listed in this order.
    pub index: usize,
    /// 0-based pair number; the two games of a pair have adjacent indices.
    pub pair: usize,
    /// 0-based round: every pairing plays one pair on the round's opening.
    pub round: usize,
    /// Index into the opening set.
    pub opening: usize,
    /// Engine index playing Black.
    pub black: usize,
    /// Engine index playing White.
    pub white: usize,
}

/// Every game of a tournament, in playing order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairedSchedule {
    pub games: Vec<ScheduledGame>,
}

impl PairedSchedule {
    /// The schedule for `pairs` rounds over `pairings` (engine index pairs `(a, b)`).
    ///
    /// Round `r` uses opening `draw[r]` for every pairing, where `draw` is the draw sequence
    /// of [`draw_sequence`]. Within a round, each pairing `(a, b)` in order gets one pair:
    /// first `a` Black / `b` White, then `b` Black / `a` White on the same opening.
    ///
    /// # Panics
    /// If `openings` is 0 while games are to be scheduled (an opening set is never empty).
    pub fn new(
        pairings: &[(usize, usize)],
        pairs: u32,
        openings: usize,
        order: &OpeningOrder,
        start: usize,
    ) -> PairedSchedule {
        let rounds = pairs as usize;
        let mut games = Vec::with_capacity(rounds * pairings.len() * 2);
        if rounds == 0 || pairings.is_empty() {
            return PairedSchedule { games };
        }
        let draw = draw_sequence(openings, order, start, rounds);
        let mut pair = 0;
        for (round, &opening) in draw.iter().enumerate() {
            for &(a, b) in pairings {
                for (black, white) in [(a, b), (b, a)] {
                    games.push(ScheduledGame {
                        index: games.len(),
                        pair,
                        round,
                        opening,
                        black,
                        white,
                    });
                }
                pair += 1;
            }
        }
        PairedSchedule { games }
    }

    /// The games a shard plays (all of them without one), in schedule order.
    pub fn games_of(&self, shard: Option<Shard>) -> impl Iterator<Item = &ScheduledGame> {
        self.games
            .iter()
            .filter(move |g| shard.is_none_or(|s| s.plays_round(g.round)))
    }
}

/// One part of a tournament split over several machines: shard `index` of `count` plays the
/// rounds `r` with `r mod count == index`. A round holds one pair of every pairing, so a pair is
/// never split, every pairing is measured on the same openings in every shard, and shard sizes
/// differ by at most one round. Games keep their numbers in the whole schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

/// Environment variables `--shard auto` reads.
pub const SLURM_TASK_ID: &str = "SLURM_ARRAY_TASK_ID";
pub const SLURM_TASK_COUNT: &str = "SLURM_ARRAY_TASK_COUNT";
pub const K8S_COMPLETION_INDEX: &str = "JOB_COMPLETION_INDEX";

impl Shard {
    /// `I/N` (0 <= I < N), or `auto` (a Slurm array task: `SLURM_ARRAY_TASK_ID` of
    /// `SLURM_ARRAY_TASK_COUNT`), or `auto/N` (a Kubernetes Indexed Job: `JOB_COMPLETION_INDEX`
    /// of N, or Slurm's task id of N). `env` looks a variable up.
    pub fn parse(text: &str, env: impl Fn(&str) -> Option<String>) -> Result<Shard, String> {
        let number = |what: &str, v: &str| {
            v.trim()
                .parse::<usize>()
                .map_err(|_| format!("{what} `{v}` is not a whole number"))
        };
        let var = |name: &str| {
            env(name).ok_or_else(|| format!("--shard {text}: the variable {name} is not set"))
        };
        let (index, count) = match text.split_once('/') {
            Some(("auto", n)) => {
                let index = env(K8S_COMPLETION_INDEX)
                    .or_else(|| env(SLURM_TASK_ID))
                    .ok_or_else(|| {
                        format!(
                            "--shard {text}: neither {K8S_COMPLETION_INDEX} (a Kubernetes Indexed Job) nor {SLURM_TASK_ID} (a Slurm array task) is set"
                        )
                    })?;
                (number("shard index", &index)?, number("shard count", n)?)
            }
            Some((i, n)) => (number("shard index", i)?, number("shard count", n)?),
            None if text == "auto" => (
                number(SLURM_TASK_ID, &var(SLURM_TASK_ID)?)?,
                number(SLURM_TASK_COUNT, &var(SLURM_TASK_COUNT)?)?,
            ),
            None => {
                return Err(format!(
                    "--shard `{text}`: give I/N (0 <= I < N), auto (a Slurm array) or auto/N"
                ))
            }
        };
        if count == 0 {
            return Err(format!(
                "--shard {index}/{count}: the count must be at least 1"
            ));
        }
        if index >= count {
            return Err(format!(
                "--shard {index}/{count}: the index must be below the count (shards 0 to {})",
                count - 1
            ));
        }
        Ok(Shard { index, count })
    }

    /// Whether this shard plays round `round`.
    pub fn plays_round(&self, round: usize) -> bool {
        round % self.count == self.index
    }

    /// `shard-2-of-8`: the shard's own output folder below the tournament's.
    pub fn folder_name(&self) -> String {
        crate::record::run_folder::shard_folder_name(self.index, self.count)
    }

    /// The shard a folder name such as `shard-2-of-8` stands for ([`folder_name`]'s inverse).
    ///
    /// [`folder_name`]: Shard::folder_name
    pub fn from_folder_name(name: &str) -> Option<Shard> {
        let (index, count) = crate::record::run_folder::shard_of_folder_name(name)?;
        Some(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The first `count` openings drawn from a set of `openings`: the set in file order
/// (sequential) or permuted by ChaCha8 seeded with `seed` (shuffled), read from 1-based
/// position `start` on and wrapping around at the end. `start` 0 counts as 1.
///
/// # Panics
/// If `openings` is 0 and `count` is not.
pub fn draw_sequence(
    openings: usize,
    order: &OpeningOrder,
    start: usize,
    count: usize,
) -> Vec<usize> {
    if count == 0 {
        return Vec::new();
    }
    assert!(openings > 0, "cannot draw from an empty opening set");
    let mut sequence: Vec<usize> = (0..openings).collect();
    if let OpeningOrder::Shuffled { seed } = *order {
        sequence.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    }
    let first = start.saturating_sub(1);
    (0..count)
        .map(|r| sequence[(first + r) % openings])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    const GAUNTLET: [(usize, usize); 3] = [(0, 1), (0, 2), (0, 3)];

    #[test]
    fn counts_and_numbering() {
        let s = PairedSchedule::new(&GAUNTLET, 5, 100, &OpeningOrder::Sequential, 1);
        assert_eq!(s.games.len(), 3 * 5 * 2);
        assert_eq!(s.games.last().map(|g| g.pair + 1), Some(15));
        for (i, g) in s.games.iter().enumerate() {
            assert_eq!(g.index, i);
            assert_eq!(g.pair, i / 2);
        }
        assert!(
            PairedSchedule::new(&GAUNTLET, 0, 100, &OpeningOrder::Sequential, 1)
                .games
                .is_empty()
        );
        assert!(
            PairedSchedule::new(&[], 3, 100, &OpeningOrder::Sequential, 1)
                .games
                .is_empty()
        );
    }

    #[test]
    fn pairs_swap_colours_on_the_same_opening() {
        let order = OpeningOrder::Shuffled { seed: 7 };
        let s = PairedSchedule::new(&[(0, 1), (0, 2), (1, 2)], 4, 50, &order, 1);
        for pair in s.games.chunks(2) {
            let (x, y) = (pair[0], pair[1]);
            assert_eq!(x.pair, y.pair);
            assert_eq!(x.opening, y.opening);
            assert_eq!((x.black, x.white), (y.white, y.black));
            assert_ne!(x.black, x.white);
        }
        // The first game of each pair has the pairing's first engine as Black.
        let firsts: Vec<_> = s
            .games
            .iter()
            .step_by(2)
            .take(3)
            .map(|g| (g.black, g.white))
            .collect();
        assert_eq!(firsts, vec![(0, 1), (0, 2), (1, 2)]);
    }

    #[test]
    fn every_pairing_plays_the_same_opening_in_a_round() {
        let order = OpeningOrder::Shuffled { seed: 42 };
        let s = PairedSchedule::new(&GAUNTLET, 6, 3_623, &order, 1);
        let per_round = GAUNTLET.len() * 2;
        let mut seen = HashSet::new();
        for (r, round) in s.games.chunks(per_round).enumerate() {
            assert!(
                round.iter().all(|g| g.opening == round[0].opening),
                "round {r}"
            );
            seen.insert(round[0].opening);
        }
        assert_eq!(
            seen.len(),
            6,
            "a permutation draws no opening twice before wrapping"
        );
    }

    #[test]
    fn sequential_draw_starts_at_start_and_wraps() {
        let seq = OpeningOrder::Sequential;
        assert_eq!(draw_sequence(5, &seq, 1, 7), vec![0, 1, 2, 3, 4, 0, 1]);
        assert_eq!(draw_sequence(5, &seq, 4, 4), vec![3, 4, 0, 1]);
        assert_eq!(draw_sequence(5, &seq, 0, 2), vec![0, 1]);
        assert_eq!(draw_sequence(5, &seq, 12, 2), vec![1, 2]);
        let s = PairedSchedule::new(&[(0, 1)], 4, 3, &seq, 2);
        let openings: Vec<_> = s.games.iter().map(|g| g.opening).collect();
        assert_eq!(openings, vec![1, 1, 2, 2, 0, 0, 1, 1]);
    }

    #[test]
    fn shuffled_draw_is_reproducible() {
        let order = OpeningOrder::Shuffled { seed: 42 };
        let a = draw_sequence(3_623, &order, 1, 3_623 + 5);
        let b = draw_sequence(3_623, &order, 1, 3_623 + 5);
        assert_eq!(a, b);
        // A permutation of the whole set, then wrapping around.
        let distinct: HashSet<_> = a[..3_623].iter().collect();
        assert_eq!(distinct.len(), 3_623);
        assert_eq!(a[3_623..], a[..5]);
        // Recorded: a change here changes every shuffled tournament's openings.
        assert_eq!(a[..5], RECORDED_SEED_42);
        assert_ne!(
            draw_sequence(3_623, &OpeningOrder::Shuffled { seed: 43 }, 1, 5),
            a[..5]
        );
        // `start` moves through the same permutation.
        assert_eq!(draw_sequence(3_623, &order, 3, 3), a[2..5]);
    }

    #[test]
    fn shards_split_the_schedule_by_rounds() {
        let order = OpeningOrder::Shuffled { seed: 3 };
        let formats: [&[(usize, usize)]; 3] = [&[(0, 1)], &GAUNTLET, &[(0, 1), (0, 2), (1, 2)]];
        for pairings in formats {
            for rounds in [1, 5, 12] {
                let s = PairedSchedule::new(pairings, rounds, 40, &order, 1);
                for count in 1..=7 {
                    let mut seen = vec![0; s.games.len()];
                    let mut sizes = Vec::new();
                    for index in 0..count {
                        let shard = Shard { index, count };
                        let games: Vec<_> = s.games_of(Some(shard)).collect();
                        for g in &games {
                            seen[g.index] += 1;
                            assert!(shard.plays_round(g.round));
                        }
                        // Whole rounds: every pairing's pair of a round, both games of a pair.
                        let rounds_here: HashSet<usize> = games.iter().map(|g| g.round).collect();
                        assert_eq!(games.len(), rounds_here.len() * pairings.len() * 2);
                        let pairs: HashSet<usize> = games.iter().map(|g| g.pair).collect();
                        assert_eq!(pairs.len() * 2, games.len());
                        sizes.push(rounds_here.len());
                    }
                    assert!(seen.iter().all(|&n| n == 1), "disjoint and complete");
                    let (min, max) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
                    assert!(max - min <= 1, "{sizes:?}");
                }
            }
        }
    }

    #[test]
    fn shard_specs() {
        let none = |_: &str| None;
        assert_eq!(Shard::parse("2/4", none), Ok(Shard { index: 2, count: 4 }));
        assert!(Shard::parse("4/4", none).is_err());
        assert!(Shard::parse("x/4", none).is_err());
        assert!(Shard::parse("auto", none)
            .unwrap_err()
            .contains("SLURM_ARRAY_TASK_ID"));
        let slurm = |v: &str| match v {
            "SLURM_ARRAY_TASK_ID" => Some("3".to_string()),
            "SLURM_ARRAY_TASK_COUNT" => Some("8".to_string()),
            _ => None,
        };
        assert_eq!(
            Shard::parse("auto", slurm),
            Ok(Shard { index: 3, count: 8 })
        );
        let k8s = |v: &str| (v == "JOB_COMPLETION_INDEX").then(|| "5".to_string());
        assert_eq!(
            Shard::parse("auto/6", k8s),
            Ok(Shard { index: 5, count: 6 })
        );
        assert!(Shard::parse("auto/5", k8s).is_err());
        assert_eq!(Shard { index: 1, count: 3 }.folder_name(), "shard-1-of-3");
        assert_eq!(
            Shard::from_folder_name("shard-1-of-3"),
            Some(Shard { index: 1, count: 3 })
        );
        for not_a_shard in [
            "shard-3-of-3",
            "shard-x-of-3",
            "shards",
            "out",
            "shard-1-of-",
        ] {
            assert_eq!(Shard::from_folder_name(not_a_shard), None, "{not_a_shard}");
        }
        // The messages name what is wrong.
        let zero = Shard::parse("0/0", none).unwrap_err();
        assert!(zero.contains("count must be at least 1"), "{zero}");
        let k8s_missing = Shard::parse("auto/4", none).unwrap_err();
        assert!(
            k8s_missing.contains("JOB_COMPLETION_INDEX") && k8s_missing.contains("neither"),
            "{k8s_missing}"
        );
    }

    const RECORDED_SEED_42: [usize; 5] = [3325, 3195, 1924, 2543, 3309];
}
