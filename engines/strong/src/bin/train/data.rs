//! Training samples: positions with their labels, from WTHOR and from self-play transcripts;
//! and the reading of the WTHOR files from disk (the rules crate parses their bytes,
//! [`read_wtb`], and does no I/O).
//!
//! Labels are final disc differences from the side to move's view:
//! - WTHOR: before the database's theoretical-score depth (24 empties) the theoretical score
//!   (the game's result had both sides played perfectly from 24 empties on: the human endgame
//!   errors are taken out); from 24 empties on, the actual result.
//! - Self-play: the games are played perfectly from the solve depth on, so the final result is
//!   the exact value of every position from there, and the result of the engine's own play
//!   before it.
//!
//! Positions where the side to move must pass are left out (the search never evaluates
//! them). Each game goes whole to the training or the validation split, chosen by a hash of
//! its source and number so that the split does not change between runs.

use othello_sdk::board::{read_wtb, replay, Board, Color, Position, WthorError, WthorHeader};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use strong::eval::HandEval;
use strong::pattern::weights::fnv1a64;
use strong::search::Searcher;
use strong::selfplay_file::read_selfplay;
use strong::tt::Tt;

/// One labelled position.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub board: Board,
    /// Final disc difference, side to move's view.
    pub label: i8,
    /// Held out for validation.
    pub validation: bool,
}

/// What was read, for the report.
#[derive(Default, Debug)]
pub struct ReadStats {
    pub games: usize,
    pub rejected: usize,
    pub samples: usize,
    /// WTHOR games whose theoretical and actual results agree.
    pub theory_agrees: usize,
}

/// Whether game `index` of `source` is held out (`percent` of the games).
pub fn held_out(source: &str, index: usize, percent: u64) -> bool {
    let key = format!("{source}#{index}");
    fnv1a64(key.as_bytes()) % 100 < percent
}

/// One WTHOR game's positions (side to move can play), with Black-to-move flags.
struct WthorGame {
    positions: Vec<(Board, bool)>,
    actual: i32,
    theory: i32,
    depth: u32,
    validation: bool,
}

/// The `.wtb` files of `dir`, in name order (at least one).
pub fn wtb_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case("wtb")))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("no .wtb files in {}", dir.display()));
    }
    Ok(files)
}

/// Read a `.wtb` file and parse it with [`read_wtb`]; errors name the file.
pub fn read_wtb_file(
    path: &Path,
) -> Result<(WthorHeader, Vec<othello_sdk::board::WthorGame>), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    read_wtb(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// Every game of every `.wtb` file in `dir`, replayed and checked; a game that does not
/// replay to its recorded score is counted as rejected and left out.
///
/// With `exact = Some(s)`, positions with at most `s` empties are labelled by the exact
/// solver, and those between `s` and the theoretical depth by the nearer of two anchors: the
/// exact score of the game's first position within `s` empties, or the theoretical score
/// (perfect play from the theoretical depth); labels differ from a position's true value by
/// the human errors between it and its anchor, so the nearer anchor is the better label. The solved labels are cached
/// in `cache` (recomputed when the games or `s` change).
pub fn wthor_samples(
    dir: &Path,
    percent: u64,
    exact: Option<(u32, &Path)>,
    out: &mut Vec<Sample>,
) -> Result<ReadStats, String> {
    let files = wtb_files(dir)?;
    let mut stats = ReadStats::default();
    let mut games = Vec::new();
    for path in files {
        let (header, wtb) = read_wtb_file(&path)?;
        let depth = header.theoretical_empties();
        let source = path.file_name().unwrap().to_string_lossy().into_owned();
        for (i, g) in wtb.iter().enumerate() {
            stats.games += 1;
            let replayed = match g.replay() {
                Ok(r) => r,
                Err(e) => {
                    // 413 games of 1981-2000 stop before the end (resigned or cut
                    // transcripts); their recorded result is not the position's.
                    if !matches!(e, WthorError::Unfinished { .. }) {
                        eprintln!("{source} game {i}: {e}; left out");
                    }
                    stats.rejected += 1;
                    continue;
                }
            };
            let (actual, theory) = (g.final_diff_black(), g.theoretical_diff_black());
            stats.theory_agrees += (actual == theory) as usize;
            let mut pos = Position::START;
            let mut positions = Vec::with_capacity(60);
            for &mv in &replayed.played {
                if !mv.is_pass() {
                    positions.push((pos.board, pos.side_to_move == Color::Black));
                }
                pos = pos.play(mv).expect("replayed moves are legal");
            }
            games.push(WthorGame {
                positions,
                actual,
                theory,
                depth,
                validation: held_out(&source, i, percent),
            });
        }
    }
    let solved = match exact {
        Some((s, cache)) => Some(exact_labels(&games, s, cache)?),
        None => None,
    };
    let mut k = 0;
    for g in &games {
        // The exact score (Black's view) of the game's first position within `s` empties.
        let first_exact = solved.as_ref().and_then(|(s, labels)| {
            let i = g.positions.iter().position(|(b, _)| b.empties() <= *s)?;
            let (_, black) = g.positions[i];
            let v = labels[k + i] as i32;
            Some(if black { v } else { -v })
        });
        for (i, &(board, black)) in g.positions.iter().enumerate() {
            let e = board.empties();
            let sign = if black { 1 } else { -1 };
            let label = match (&solved, first_exact) {
                (Some((s, labels)), _) if e <= *s => labels[k + i] as i32,
                // Between the two anchors, the nearer one: fewer human moves in between.
                (Some((s, _)), Some(v)) if e - s <= g.depth.saturating_sub(e) => sign * v,
                _ if e >= g.depth => sign * g.theory,
                (Some(_), Some(_)) => sign * g.theory,
                _ => sign * g.actual,
            };
            out.push(Sample {
                board,
                label: label as i8,
                validation: g.validation,
            });
        }
        k += g.positions.len();
        stats.samples += g.positions.len();
    }
    Ok(stats)
}

/// Exact scores (side to move's view) of every position within `s` empties, in the order of
/// the games' positions (0 elsewhere), from `cache` when it matches.
fn exact_labels(games: &[WthorGame], s: u32, cache: &Path) -> Result<(u32, Vec<i8>), String> {
    let mut key = Vec::new();
    for g in games {
        for (b, _) in &g.positions {
            key.extend_from_slice(&b.player.to_le_bytes());
            key.extend_from_slice(&b.opponent.to_le_bytes());
        }
    }
    let stamp = format!(
        "exact-labels v1 s={s} games={} key={:016x}\n",
        games.len(),
        fnv1a64(&key)
    );
    let total: usize = games.iter().map(|g| g.positions.len()).sum();
    if let Ok(bytes) = std::fs::read(cache) {
        // A run killed while writing leaves the stamp with too few labels: recompute.
        if bytes.starts_with(stamp.as_bytes()) && bytes.len() == stamp.len() + total {
            eprintln!("exact labels from {}", cache.display());
            return Ok((s, bytes[stamp.len()..].iter().map(|&x| x as i8).collect()));
        }
    }
    let started = std::time::Instant::now();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let per_game: Vec<Vec<i8>> = games
        .par_iter()
        .map_init(
            || Arc::new(Tt::new(32)),
            |tt, g| {
                let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                if n.is_multiple_of(20000) {
                    eprintln!("solved {n} games, {:.0} s", started.elapsed().as_secs_f64());
                }
                g.positions
                    .iter()
                    .map(|(b, _)| {
                        if b.empties() <= s {
                            let mut sr =
                                Searcher::new(tt.clone(), Box::new(HandEval::default()), None);
                            sr.solve(*b) as i8
                        } else {
                            0
                        }
                    })
                    .collect()
            },
        )
        .collect();
    let labels: Vec<i8> = per_game.into_iter().flatten().collect();
    eprintln!(
        "exact labels within {s} empties in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    if let Some(dir) = cache.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let mut bytes = stamp.into_bytes();
    bytes.extend(labels.iter().map(|&x| x as u8));
    std::fs::write(cache, bytes).map_err(|e| format!("cannot write {}: {e}", cache.display()))?;
    Ok((s, labels))
}

/// Samples of self-play games: each replayed, checked against its recorded score, its random
/// opening left out.
pub fn selfplay_samples(
    path: &Path,
    percent: u64,
    out: &mut Vec<Sample>,
) -> Result<ReadStats, String> {
    let games = read_selfplay(path)?;
    let source = path
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let mut stats = ReadStats::default();
    for (i, g) in games.iter().enumerate() {
        stats.games += 1;
        let (played, end) = match replay(Position::START, &g.moves) {
            Ok(r) => r,
            Err(e) => return Err(format!("{}: game {}: {e}", path.display(), i + 1)),
        };
        if !end.is_game_over() || end.final_score_black() != g.score_black {
            return Err(format!(
                "{}: game {}: replays to {} (over: {}), recorded {}",
                path.display(),
                i + 1,
                end.final_score_black(),
                end.is_game_over(),
                g.score_black
            ));
        }
        // Skip the random opening: the moves before it (passes included) stay out.
        let mut squares = 0;
        let skip = played
            .iter()
            .position(|m| {
                if !m.is_pass() {
                    squares += 1;
                }
                squares > g.random_plies
            })
            .unwrap_or(played.len());
        let mut pos = Position::START;
        for &mv in &played[..skip] {
            pos = pos.play(mv).expect("legal");
        }
        let validation = held_out(&source, i, percent);
        let before = out.len();
        let mut p = pos;
        for &mv in &played[skip..] {
            if !mv.is_pass() {
                let sign = if p.side_to_move == Color::Black {
                    1
                } else {
                    -1
                };
                out.push(Sample {
                    board: p.board,
                    label: (sign * g.score_black) as i8,
                    validation,
                });
            }
            p = p.play(mv).expect("legal");
        }
        stats.samples += out.len() - before;
    }
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(name: &str, text: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("train-data-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    /// A game played out to the end from a transcript, with its score.
    fn full_game() -> (String, i32) {
        let mut rng = othello_sdk::board::playout::SplitMix64(5);
        let mut pos = Position::START;
        let mut moves = Vec::new();
        while !pos.is_game_over() {
            let mv = othello_sdk::board::playout::random_move(&pos, &mut rng);
            moves.push(mv);
            pos = pos.play(mv).unwrap();
        }
        (
            othello_sdk::board::write_transcript(&moves),
            pos.final_score_black(),
        )
    }

    #[test]
    fn selfplay_samples_skip_the_random_opening_and_check_the_score() {
        let (t, score) = full_game();
        let p = write("ok.txt", &format!("# comment\n10 {t} {score}\n"));
        let mut out = Vec::new();
        let stats = selfplay_samples(&p, 0, &mut out).unwrap();
        assert_eq!(stats.games, 1);
        // No position of the random part: none with more than 50 empties.
        assert!(out.iter().all(|s| s.board.empties() <= 50));
        assert!(out.iter().any(|s| s.board.empties() == 50));
        // Labels are the final score from each side to move's view.
        assert!(out.iter().all(|s| (s.label as i32).abs() == score.abs()));

        let wrong = write("wrong.txt", &format!("10 {t} {}\n", score + 2));
        let e = selfplay_samples(&wrong, 0, &mut Vec::new()).unwrap_err();
        assert!(e.contains("wrong.txt") && e.contains("game 1"), "{e}");
        let bad = write("bad.txt", "10 f5d6zz 0\n");
        let e = selfplay_samples(&bad, 0, &mut Vec::new()).unwrap_err();
        assert!(e.contains("bad.txt:1"), "{e}");
    }

    #[test]
    fn the_split_is_stable_and_near_its_share() {
        let held = (0..10_000)
            .filter(|&i| held_out("WTH_2000.wtb", i, 10))
            .count();
        assert!((800..1200).contains(&held), "{held}");
        assert_eq!(held_out("a", 7, 10), held_out("a", 7, 10));
    }

    #[test]
    fn read_wtb_file_names_the_file() {
        let missing = Path::new("/nonexistent/WTH_1900.wtb");
        let err = read_wtb_file(missing).unwrap_err();
        assert!(
            err.starts_with("cannot read /nonexistent/WTH_1900.wtb: "),
            "{err}"
        );
    }

    /// The WTHOR files of the project's shared data, when present (users will not have them):
    /// without them the test is skipped, said on standard error past the test runner's capture,
    /// as the end-to-end tests' `support::skip` says it; under CI (`CI` set), whose machine has
    /// the shared data beside the checkout, it fails instead.
    fn wthor_dir() -> Option<PathBuf> {
        use std::io::Write;
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/wthor");
        if dir.is_dir() {
            return Some(dir);
        }
        assert!(
            std::env::var_os("CI").is_none(),
            "no WTHOR files at {}; CI must run the WTHOR tests",
            dir.display()
        );
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED the WTHOR tests: no WTHOR files at {}",
            dir.display()
        );
        None
    }

    #[test]
    fn real_2024_file_reads_and_replays() {
        let Some(dir) = wthor_dir() else { return };
        let (header, games) = read_wtb_file(&dir.join("WTH_2024.wtb")).unwrap();
        assert_eq!(header.year, 2024);
        assert_eq!(header.theoretical_depth, 24);
        assert_eq!(header.theoretical_empties(), 24);
        let unrecorded = WthorHeader {
            theoretical_depth: 0,
            ..header
        };
        assert_eq!(unrecorded.theoretical_empties(), 24);
        assert_eq!(header.games as usize, games.len());
        let first: Vec<String> = games[0].moves[..3].iter().map(|m| m.to_string()).collect();
        assert_eq!(first, ["f5", "d6", "c3"]);
        for (i, g) in games.iter().enumerate() {
            if let Err(e) = g.replay() {
                panic!("WTH_2024.wtb game {i}: {e}");
            }
        }
    }

    /// Replays every game of every `.wtb` file of the directory, as [`wtb_files`] lists them
    /// (under a second in release builds; the counts print with `--nocapture`). Every move must be legal and every finished game must
    /// end with its recorded score. Some old games (1981-2000) stop before the end of the game
    /// (resigned, lost on time, or not fully transcribed): they are counted, not failed.
    #[test]
    fn whole_database_replays() {
        let Some(dir) = wthor_dir() else { return };
        let started = std::time::Instant::now();
        let files = wtb_files(&dir).unwrap();
        let (mut total, mut ok, mut illegal, mut unfinished, mut mismatch) = (0, 0, 0, 0, 0);
        for path in &files {
            let name = path.file_name().unwrap().to_string_lossy();
            let (_, games) = read_wtb_file(path).unwrap();
            let unfinished_before = unfinished;
            for (i, g) in games.iter().enumerate() {
                total += 1;
                match g.replay() {
                    Ok(_) => ok += 1,
                    Err(WthorError::Unfinished { .. }) => unfinished += 1,
                    Err(e) => {
                        match e {
                            WthorError::Replay(_) => illegal += 1,
                            WthorError::ScoreMismatch { .. } => mismatch += 1,
                            _ => unreachable!("replay gives no other error"),
                        }
                        eprintln!("{name} game {i}: {e}");
                    }
                }
            }
            if unfinished > unfinished_before {
                eprintln!(
                    "{name}: {} of {} games unfinished",
                    unfinished - unfinished_before,
                    games.len()
                );
            }
        }
        eprintln!(
            "{} files, {total} games: {ok} replay OK, {illegal} illegal, {unfinished} unfinished, \
             {mismatch} score mismatches ({:.2?})",
            files.len(),
            started.elapsed()
        );
        assert_eq!((illegal, mismatch), (0, 0));
        // The database in ../shared/data/wthor: 137,548 games (`FORMATS.md`), 413 of them
        // ending before the board is full.
        assert_eq!((total, unfinished), (137_548, 413));
    }
}
