//! Search labels: the value of a fixed-depth midgame search for a sample of the training
//! positions, to blend into their outcome labels.
//!
//! Why: far from the end an outcome label is the result of many moves still to be played
//! (human ones in WTHOR, depth-10 ones in self-play), so it scatters widely around the
//! position's value; the fit's validation error there is 10-15 discs. A search of depth `d`
//! with the current evaluation sees `d` plies of tactics the evaluation alone does not, and
//! has no noise of its own. `fit --search-labels FILE --search-weight W` trains on
//! `W * search + (1 - W) * outcome` for the positions of the file (the training split only);
//! validation positions keep their outcome labels, so the validation error stays comparable
//! between fits with and without search labels.
//!
//! The file is text: a `#` header naming the depth, the evaluation and the sample, then one
//! `<player hex> <opponent hex> <value in 1/100 disc>` line per position. Every position is
//! searched with a cleared table, so a file is the same whatever the number of threads.

use crate::data::Sample;
use othello_sdk::board::playout::SplitMix64;
use othello_sdk::board::Board;
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use strong::eval::EvalSource;
use strong::search::Searcher;
use strong::time::Plan;
use strong::tt::Tt;

/// Which training positions get a search label, and how deep they are searched.
#[derive(Clone, Copy, Debug)]
pub struct LabelParams {
    pub depth: u32,
    /// Positions with `min_empties..=max_empties` empties.
    pub min_empties: u32,
    pub max_empties: u32,
    /// One position in `every`, chosen by a hash of the board (so the same position is
    /// always in or out, whichever game it comes from): those whose hash is `part` modulo
    /// `every`. The parts `0..every` split the positions into disjoint files (shards that
    /// can run on different machines).
    pub every: u64,
    pub part: u64,
}

/// The distinct training-split boards the parameters select, in a fixed order.
pub fn pick(samples: &[Sample], p: &LabelParams) -> Vec<Board> {
    let mut boards: Vec<(u64, u64)> = samples
        .iter()
        .filter(|s| !s.validation)
        .filter(|s| (p.min_empties..=p.max_empties).contains(&s.board.empties()))
        .map(|s| (s.board.player, s.board.opponent))
        .filter(|&(pl, op)| board_hash(pl, op) % p.every.max(1) == p.part)
        .collect();
    boards.sort_unstable();
    boards.dedup();
    boards
        .into_iter()
        .map(|(player, opponent)| Board { player, opponent })
        .collect()
}

/// A well-mixed hash of a board (SplitMix64's finalizer over both bitboards), so that any
/// residue modulo `every` selects an even share of positions. (FNV-1a's low bits depend on
/// the low bits of each byte only, the a and b files: all opening positions fell in one part.)
fn board_hash(player: u64, opponent: u64) -> u64 {
    SplitMix64::mix(player ^ SplitMix64::mix(opponent))
}

/// Each board's value (1/100 disc, side to move's view) by a depth-`depth` midgame search,
/// on all cores; progress goes to stderr.
pub fn search_values(boards: &[Board], depth: u32, eval: &EvalSource) -> Vec<i16> {
    strong::stability::init();
    let started = std::time::Instant::now();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let plan = Plan::depth(depth);
    boards
        .par_iter()
        .map_init(
            || Arc::new(Tt::new(8)),
            |tt, &b| {
                tt.clear();
                let mut s = Searcher::new(tt.clone(), eval.evaluator(), None);
                let out = s.think(b, &plan, &mut |_| {});
                let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                if n.is_multiple_of(10_000) {
                    eprintln!(
                        "{n} of {} positions searched, {:.0} s",
                        boards.len(),
                        started.elapsed().as_secs_f64()
                    );
                }
                (out.info.score * 100.0).round().clamp(-6400.0, 6400.0) as i16
            },
        )
        .collect()
}

/// Write the label file (see the module docs).
pub fn write(path: &Path, header: &str, boards: &[Board], values: &[i16]) -> Result<(), String> {
    let mut text = String::with_capacity(40 * boards.len() + header.len());
    for line in header.lines() {
        text.push_str("# ");
        text.push_str(line);
        text.push('\n');
    }
    for (b, v) in boards.iter().zip(values) {
        text.push_str(&format!("{:016x} {:016x} {v}\n", b.player, b.opponent));
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Read a label file: board (player, opponent) to value in 1/100 disc. Errors name the file
/// and line.
pub fn read(path: &Path) -> Result<HashMap<(u64, u64), i16>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut map = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let bad = || {
            format!(
                "{}:{}: expected `<player hex> <opponent hex> <value>`",
                path.display(),
                i + 1
            )
        };
        let mut f = line.split_whitespace();
        let (Some(p), Some(o), Some(v), None) = (f.next(), f.next(), f.next(), f.next()) else {
            return Err(bad());
        };
        let p = u64::from_str_radix(p, 16).map_err(|_| bad())?;
        let o = u64::from_str_radix(o, 16).map_err(|_| bad())?;
        let v: i16 = v.parse().map_err(|_| bad())?;
        if p & o != 0 || !(-6400..=6400).contains(&v) {
            return Err(bad());
        }
        map.insert((p, o), v);
    }
    Ok(map)
}

/// Blend the search values into the training samples' labels: `weight * search + (1 -
/// weight) * outcome`, rounded to a disc. Validation samples keep their labels. Returns how
/// many samples were relabelled.
pub fn blend(samples: &mut [Sample], labels: &HashMap<(u64, u64), i16>, weight: f32) -> usize {
    let mut n = 0;
    for s in samples.iter_mut().filter(|s| !s.validation) {
        if let Some(&v) = labels.get(&(s.board.player, s.board.opponent)) {
            let mixed = weight * v as f32 / 100.0 + (1.0 - weight) * s.label as f32;
            s.label = mixed.round().clamp(-64.0, 64.0) as i8;
            n += 1;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(board: Board, label: i8, validation: bool) -> Sample {
        Sample {
            board,
            label,
            validation,
        }
    }

    #[test]
    fn pick_takes_training_positions_in_range_once() {
        let start = othello_sdk::board::Position::START.board;
        let after = othello_sdk::board::Position::START
            .play(othello_sdk::board::Move::at(
                othello_sdk::board::Square::new(37).unwrap(),
            ))
            .unwrap()
            .board;
        let samples = [
            sample(start, 0, false),
            sample(start, 4, false),
            sample(after, 0, true),
        ];
        let all = LabelParams {
            depth: 1,
            min_empties: 0,
            max_empties: 60,
            every: 1,
            part: 0,
        };
        assert_eq!(pick(&samples, &all), vec![start]);
        // The parts of a split are disjoint and cover every position.
        let split = |part| {
            pick(
                &samples,
                &LabelParams {
                    every: 3,
                    part,
                    ..all
                },
            )
        };
        let parts: Vec<_> = (0..3).flat_map(split).collect();
        assert_eq!(parts, vec![start]);
        let none = LabelParams {
            max_empties: 59,
            ..all
        };
        assert!(pick(&samples, &none).is_empty());
    }

    #[test]
    fn labels_round_trip_blend_and_reject_bad_lines() {
        let start = othello_sdk::board::Position::START.board;
        let dir = std::env::temp_dir().join(format!("search-labels-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // `write` creates the folder, as `train label --out target/train-cache/...` needs.
        let path = dir.join("new").join("l.txt");
        // Depth 2 from the start: the value is the search's, not the outcome's.
        let v = search_values(&[start], 2, &EvalSource::Simple);
        write(&path, "test\nsecond line", &[start], &v).unwrap();
        let map = read(&path).unwrap();
        assert_eq!(map.get(&(start.player, start.opponent)), Some(&v[0]));

        let mut s = [sample(start, 10, false), sample(start, 10, true)];
        let fake: HashMap<_, _> = [((start.player, start.opponent), -600i16)].into();
        assert_eq!(blend(&mut s, &fake, 0.5), 1);
        assert_eq!(s[0].label, 2, "half of -6 and half of 10");
        assert_eq!(s[1].label, 10, "validation labels stay outcomes");

        std::fs::write(&path, "# h\n00 01 5\nzz 01 5\n").unwrap();
        let e = read(&path).unwrap_err();
        assert!(
            e.ends_with("l.txt:3: expected `<player hex> <opponent hex> <value>`"),
            "{e}"
        );
        std::fs::write(&path, "01 01 5\n").unwrap();
        assert!(read(&path).unwrap_err().contains("l.txt:1"));
    }
}
