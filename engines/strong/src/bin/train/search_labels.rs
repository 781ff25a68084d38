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
//!
//! A deep labelling run takes hours a part (depth 12: about 13 ms a position on 2 cores), so
//! it is written as it goes: every finished chunk of positions is appended to
//! `<out>.partial`, and a run started again with the same parameters continues after the
//! last whole line there instead of starting over ([`label_resumable`]). The positions are
//! searched in the order [`pick`] gives, so the partial file is always a prefix of the final
//! one, and a resumed run writes the same file as an uninterrupted one.

use crate::data::Sample;
use othello_sdk::board::playout::SplitMix64;
use othello_sdk::board::Board;
use rayon::prelude::*;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
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
/// on all cores.
pub fn search_values(boards: &[Board], depth: u32, eval: &EvalSource) -> Vec<i16> {
    strong::stability::init();
    let plan = Plan::depth(depth);
    boards
        .par_iter()
        .map_init(
            || Arc::new(Tt::new(8)),
            |tt, &b| {
                tt.clear();
                let mut s = Searcher::new(tt.clone(), eval.evaluator(), None);
                let out = s.think(b, &plan, &mut |_| {});
                (out.info.score * 100.0).round().clamp(-6400.0, 6400.0) as i16
            },
        )
        .collect()
}

/// Positions searched between two appends to the partial file: about a minute at depth 12
/// on 2 cores, so a killed run loses at most that.
pub const CHUNK: usize = 4096;

/// Where [`label_resumable`] keeps a run's finished lines until the run is complete.
pub fn partial_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}

/// Search `boards` at `depth` and write the label file `out` with `header` (see the module
/// docs), `chunk` positions at a time through `<out>.partial`. If that file exists from an
/// earlier run with the same header and the same first positions, its whole lines are kept
/// and only the rest is searched. Progress goes to stderr. Returns how many positions were
/// taken from the partial file.
pub fn label_resumable(
    out: &Path,
    header: &str,
    boards: &[Board],
    depth: u32,
    eval: &EvalSource,
    chunk: usize,
) -> Result<usize, String> {
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let partial = partial_path(out);
    let head = header_lines(header);
    let done = resume_point(&partial, &head, boards)?;
    if done > 0 {
        eprintln!(
            "resuming {}: {done} of {} positions already searched",
            partial.display(),
            boards.len()
        );
    }
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&partial)
        .map_err(|e| format!("cannot open {}: {e}", partial.display()))?;
    let started = std::time::Instant::now();
    let mut searched = done;
    for part in boards[done..].chunks(chunk.max(1)) {
        let values = search_values(part, depth, eval);
        let mut text = String::with_capacity(40 * part.len());
        for (b, v) in part.iter().zip(&values) {
            text.push_str(&format!("{:016x} {:016x} {v}\n", b.player, b.opponent));
        }
        file.write_all(text.as_bytes())
            .and_then(|()| file.sync_data())
            .map_err(|e| format!("cannot write {}: {e}", partial.display()))?;
        let before = searched;
        searched += part.len();
        if searched / 10_000 > before / 10_000 || searched == boards.len() {
            eprintln!(
                "{searched} of {} positions searched, {:.0} s",
                boards.len(),
                started.elapsed().as_secs_f64()
            );
        }
    }
    drop(file);
    std::fs::rename(&partial, out).map_err(|e| {
        format!(
            "cannot rename {} to {}: {e}",
            partial.display(),
            out.display()
        )
    })?;
    Ok(done)
}

/// The header as the file carries it: each line behind `# `.
fn header_lines(header: &str) -> String {
    header.lines().map(|l| format!("# {l}\n")).collect()
}

/// How many of `boards` the partial file already holds, after cutting it back to its last
/// whole line; a missing file is created with the header. A file with another header, or
/// whose positions are not the first ones of `boards`, is an error, never overwritten.
fn resume_point(partial: &Path, head: &str, boards: &[Board]) -> Result<usize, String> {
    let text = match std::fs::read_to_string(partial) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::write(partial, head)
                .map_err(|e| format!("cannot write {}: {e}", partial.display()))?;
            return Ok(0);
        }
        Err(e) => return Err(format!("cannot read {}: {e}", partial.display())),
    };
    let Some(body) = text.strip_prefix(head) else {
        return Err(format!(
            "{} was started with other parameters (its header differs from this run's); \
             delete it to start over",
            partial.display()
        ));
    };
    // A run killed during a write can leave half a line: keep the whole lines only.
    let whole = &body[..body.rfind('\n').map_or(0, |i| i + 1)];
    let first_line = head.lines().count() + 1;
    for (i, line) in whole.lines().enumerate() {
        let (p, o, _) = parse_line(line).ok_or_else(|| bad_line(partial, first_line + i))?;
        if boards.get(i) != Some(&Board::new(p, o)) {
            return Err(format!(
                "{}:{}: not the position this run searches next; delete the file to start over",
                partial.display(),
                first_line + i
            ));
        }
    }
    if whole.len() < body.len() {
        std::fs::write(partial, format!("{head}{whole}"))
            .map_err(|e| format!("cannot write {}: {e}", partial.display()))?;
    }
    Ok(whole.lines().count())
}

/// The error for line `line` (1-based) of a label file that is not a label line.
fn bad_line(path: &Path, line: usize) -> String {
    format!(
        "{}:{line}: expected `<player hex> <opponent hex> <value>`",
        path.display()
    )
}

/// One label line: player, opponent, value; `None` if it is not one.
fn parse_line(line: &str) -> Option<(u64, u64, i16)> {
    let mut f = line.split_whitespace();
    let (Some(p), Some(o), Some(v), None) = (f.next(), f.next(), f.next(), f.next()) else {
        return None;
    };
    let p = u64::from_str_radix(p, 16).ok()?;
    let o = u64::from_str_radix(o, 16).ok()?;
    let v: i16 = v.parse().ok()?;
    (p & o == 0 && (-6400..=6400).contains(&v)).then_some((p, o, v))
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
        let (p, o, v) = parse_line(line).ok_or_else(|| bad_line(path, i + 1))?;
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
        // The folder is created, as `train label --out target/train-cache/...` needs.
        let path = dir.join("new").join("l.txt");
        // Depth 2 from the start: the value is the search's, not the outcome's.
        let v = search_values(&[start], 2, &EvalSource::Simple);
        label_resumable(
            &path,
            "test\nsecond line",
            &[start],
            2,
            &EvalSource::Simple,
            4,
        )
        .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("# test\n# second line\n"), "{text}");
        assert!(
            !partial_path(&path).exists(),
            "the partial file becomes the result"
        );
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

    /// Eleven distinct positions: the start and what follows it along a fixed line.
    fn line_of_play() -> Vec<Board> {
        let mut pos = othello_sdk::board::Position::START;
        let mut boards = vec![pos.board];
        while boards.len() < 11 {
            let moves = pos.legal_moves();
            let sq = othello_sdk::board::Square::new(moves.trailing_zeros() as _).unwrap();
            pos = pos.play(othello_sdk::board::Move::at(sq)).unwrap();
            boards.push(pos.board);
        }
        boards
    }

    #[test]
    fn a_killed_run_resumes_after_its_last_whole_line_and_writes_the_same_file() {
        let dir = std::env::temp_dir().join(format!("search-labels-resume-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let boards = line_of_play();
        let eval = EvalSource::Simple;
        let whole = dir.join("whole.labels");
        assert_eq!(
            label_resumable(&whole, "h", &boards, 3, &eval, 4).unwrap(),
            0
        );
        let expected = std::fs::read_to_string(&whole).unwrap();
        assert_eq!(expected.lines().count(), 1 + boards.len());

        // A run killed after five whole lines and half of the sixth.
        let resumed = dir.join("resumed.labels");
        let lines: Vec<&str> = expected.lines().collect();
        let killed = format!("{}\n{}", lines[..6].join("\n"), &lines[6][..20]);
        std::fs::write(partial_path(&resumed), killed).unwrap();
        assert_eq!(
            label_resumable(&resumed, "h", &boards, 3, &eval, 4).unwrap(),
            5
        );
        assert_eq!(std::fs::read_to_string(&resumed).unwrap(), expected);

        // Another run's partial file is never taken over or overwritten.
        let other = dir.join("other.labels");
        std::fs::write(partial_path(&other), "# other header\n").unwrap();
        let e = label_resumable(&other, "h", &boards, 3, &eval, 4).unwrap_err();
        assert!(e.contains("header differs"), "{e}");
        let shifted = format!("# h\n{}\n", lines[2]);
        std::fs::write(partial_path(&other), &shifted).unwrap();
        let e = label_resumable(&other, "h", &boards, 3, &eval, 4).unwrap_err();
        assert!(
            e.contains("other.labels.partial:2: not the position"),
            "{e}"
        );
        assert_eq!(
            std::fs::read_to_string(partial_path(&other)).unwrap(),
            shifted
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
