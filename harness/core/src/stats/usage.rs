//! How each engine used its searches: moves searched, mean depth, time per move, nodes per
//! second and time per game, over every game it played (forfeited games included: the time
//! and nodes were spent).

use crate::record::GameRecord;
use serde::Serialize;

/// One engine's averages.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EngineUsage {
    pub engine: String,
    pub games: usize,
    /// Moves the engine chose by searching (book moves and forced passes aside).
    pub moves: u64,
    /// Mean reported depth of those moves; `None` without moves.
    pub mean_depth: Option<f64>,
    /// Mean wall time per searched move, milliseconds, as the coordinator measured it.
    pub ms_per_move: Option<f64>,
    /// Reported nodes over wall time; `None` when no time was measured or no node reported.
    pub nodes_per_second: Option<f64>,
    /// Mean wall time per game, seconds.
    pub seconds_per_game: f64,
    /// CPU time used outside its turns, seconds in all, over the games that measured it
    /// (`None`: none did, as in journals of earlier versions). About zero for an engine the
    /// harness stopped between turns.
    pub cpu_between_turns_seconds: Option<f64>,
}

/// Every engine's averages, in the order the engines first appear in `records`.
pub fn engine_usage(records: &[GameRecord]) -> Vec<EngineUsage> {
    #[derive(Default)]
    struct Sum {
        games: usize,
        moves: u64,
        depth_moves: u64,
        depth: i64,
        time_us: u64,
        nodes: u64,
        between_turns_us: Option<u64>,
    }
    let mut order: Vec<String> = Vec::new();
    let mut sums: std::collections::HashMap<String, Sum> = Default::default();
    for r in records {
        let searched = r.search_totals();
        // Microseconds when the record has them (whole milliseconds per move count a fast
        // engine's moves as nothing); a journal of an earlier version has milliseconds only.
        let micros = |us: u64, ms: u64| if us > 0 { us } else { ms * 1000 };
        let between = r.cpu_between_turns_us;
        let sides = [
            (
                &r.black,
                searched.black,
                micros(r.time_us.black, r.time_ms.black),
                r.nodes.black,
                between.map(|b| b.black),
            ),
            (
                &r.white,
                searched.white,
                micros(r.time_us.white, r.time_ms.white),
                r.nodes.white,
                between.map(|b| b.white),
            ),
        ];
        for (name, s, time_us, nodes, between_us) in sides {
            let sum = sums.entry(name.clone()).or_insert_with(|| {
                order.push(name.clone());
                Sum::default()
            });
            sum.games += 1;
            sum.moves += u64::from(s.moves);
            sum.depth_moves += u64::from(s.depth_moves);
            sum.depth += s.depth_sum;
            sum.time_us += time_us;
            sum.nodes += nodes;
            if let Some(used) = between_us {
                *sum.between_turns_us.get_or_insert(0) += used;
            }
        }
    }
    order
        .into_iter()
        .map(|engine| {
            let s = &sums[&engine];
            let moves = (s.moves > 0).then_some(s.moves as f64);
            EngineUsage {
                games: s.games,
                moves: s.moves,
                mean_depth: (s.depth_moves > 0).then(|| s.depth as f64 / s.depth_moves as f64),
                ms_per_move: moves.map(|m| s.time_us as f64 / 1000.0 / m),
                nodes_per_second: (s.time_us > 0 && s.nodes > 0)
                    .then(|| s.nodes as f64 * 1e6 / s.time_us as f64),
                seconds_per_game: s.time_us as f64 / 1e6 / s.games.max(1) as f64,
                cpu_between_turns_seconds: s.between_turns_us.map(|us| us as f64 / 1e6),
                engine,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{OpeningRef, PerColor, PlayedMove, Termination};

    fn played(mv: &str, book: bool, depth: Option<i32>) -> PlayedMove {
        PlayedMove {
            mv: mv.into(),
            book,
            score: None,
            depth,
            nodes: None,
            time_ms: None,
        }
    }

    /// f5 (book) d6 c3 d3 c4: Black searched c3 (depth 5) and c4 (7), White d6 (4) and d3 (6).
    fn game(black: &str, white: &str) -> GameRecord {
        GameRecord {
            game: 0,
            pair: 0,
            black: black.into(),
            white: white.into(),
            opening: OpeningRef {
                index: 0,
                line: 1,
                text: "f5".into(),
            },
            start: othello_board::Position::START.to_string(),
            moves: vec![
                played("f5", true, None),
                played("d6", false, Some(4)),
                played("c3", false, Some(5)),
                played("d3", false, Some(6)),
                played("c4", false, Some(7)),
            ],
            discs: PerColor { black: 5, white: 4 },
            score: 1,
            result: GameRecord::result_text(1).into(),
            termination: Termination::Normal,
            forfeit_by: None,
            reason: String::new(),
            forfeit_position: None,
            time_loss: None,
            time_ms: PerColor {
                black: 300,
                white: 100,
            },
            time_us: PerColor::default(),
            adjudication: None,
            nodes: PerColor {
                black: 3_000,
                white: 0,
            },
            cpu_between_turns_us: None,
            searched: Default::default(),
        }
    }

    #[test]
    fn averages_over_searched_moves_with_or_without_the_move_list() {
        let full = [game("a", "b"), game("b", "a")];
        let light: Vec<GameRecord> = full.iter().map(GameRecord::without_moves).collect();
        for records in [&full[..], &light[..]] {
            let usage = engine_usage(records);
            assert_eq!(usage.len(), 2);
            let a = &usage[0];
            assert_eq!((a.engine.as_str(), a.games, a.moves), ("a", 2, 4));
            // a: 5 and 7 as Black, 4 and 6 as White.
            assert_eq!(a.mean_depth, Some(5.5));
            assert_eq!(a.ms_per_move, Some(100.0));
            assert_eq!(a.nodes_per_second, Some(7_500.0));
            assert_eq!(a.seconds_per_game, 0.2);
        }
        // A fast engine's moves of less than a millisecond each have a rate: 20 moves of
        // 0.4 ms are 8 ms, 8,000 nodes are 1 M nodes/s (the rate reads the microseconds, whose
        // whole milliseconds add up to 0).
        let mut fast = game("a", "b");
        fast.time_ms = PerColor { black: 0, white: 0 };
        fast.time_us = PerColor {
            black: 8_000,
            white: 8_000,
        };
        fast.nodes = PerColor {
            black: 8_000,
            white: 8_000,
        };
        assert_eq!(engine_usage(&[fast])[0].nodes_per_second, Some(1e6));
        // No node reported: no rate rather than zero.
        let mut silent = game("a", "b");
        silent.nodes = PerColor::default();
        assert_eq!(engine_usage(&[silent])[0].nodes_per_second, None);
    }
}
