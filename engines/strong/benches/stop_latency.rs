//! How soon the strong engine answers once the stop flag is raised, measured on the searches
//! of the unit test `stop_flag_ends_the_search_at_once` (which only bounds it, generously, for
//! busy machines): an exact solve at 24 empties (FFO #38), and an exact solve and a depth-30
//! midgame search at 34 empties. The flag is raised 50 ms into each search.
//!
//! `cargo bench -p strong --bench stop_latency` (release, nothing else running, for figures
//! worth comparing).

use othello_sdk::board::playout::{random_game, SplitMix64};
use othello_sdk::board::{ObfLine, Position};
use othello_sdk::{Engine, Limits, OptionValue, SearchContext, SearchRequest};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};
use strong::Strong;

const RAISED_AFTER: Duration = Duration::from_millis(50);
const RUNS: usize = 7;

/// Latencies of `RUNS` searches of `position` to `depth`, each by a fresh engine (4 MiB table).
fn latencies(position: Position, depth: u32) -> Vec<Duration> {
    (0..RUNS)
        .map(|_| {
            let mut engine = Strong::new();
            engine
                .set_option("Hash", &OptionValue::Int(4))
                .expect("Hash = 4");
            engine.new_game();
            let limits = Limits {
                depth: Some(depth),
                ..Limits::default()
            };
            let flag = AtomicU32::new(0);
            let (raised, answered) = std::thread::scope(|scope| {
                let raiser = scope.spawn(|| {
                    std::thread::sleep(RAISED_AFTER);
                    flag.store(1, Ordering::Relaxed);
                    Instant::now()
                });
                let ctx = SearchContext::detached(&flag);
                let mv = engine
                    .search(&SearchRequest::new(position, limits), &ctx)
                    .mv;
                assert!(position.is_legal(mv), "{mv} in {position}");
                (raiser.join().expect("raiser"), Instant::now())
            });
            answered.saturating_duration_since(raised)
        })
        .collect()
}

/// A position with `empties` empty squares from a seeded random game.
fn random_position(empties: u32, seed: u64) -> Position {
    let mut rng = SplitMix64(seed);
    loop {
        let game = random_game(&mut rng);
        if let Some(p) = game
            .iter()
            .find(|p| p.empties() == empties && p.legal_moves() != 0)
        {
            return *p;
        }
    }
}

fn main() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/data/fforum-20-39.obf");
    let ffo_38: ObfLine = std::fs::read_to_string(file)
        .expect("the FFO file")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .nth(18)
        .expect("FFO #38")
        .parse()
        .expect("an OBF line");
    let deep = random_position(34, 9);
    for (what, position, depth) in [
        ("exact solve, 24 empties (FFO #38)", ffo_38.position, 60),
        ("exact solve, 34 empties", deep, 40),
        ("depth 30, 34 empties", deep, 30),
    ] {
        let mut t = latencies(position, depth);
        t.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!(
            "{what:<34} stop flag to answer: min {:6.2} ms  median {:6.2} ms  max {:6.2} ms  ({RUNS} runs)",
            ms(t[0]),
            ms(t[RUNS / 2]),
            ms(t[RUNS - 1])
        );
    }
}
