//! The heuristic engine's timing, measured: how long a search runs on after the stop flag is
//! raised, and how far it runs past its clock budget and a fixed move time. The unit tests
//! bound these generously (they run on busy machines); this prints the real figures.
//!
//! `cargo bench -p heuristic --bench timing` (release, nothing else running, for figures worth
//! comparing).

use heuristic::Heuristic;
use othello_sdk::board::playout::random_positions;
use othello_sdk::board::Position;
use othello_sdk::{Clock, Engine, Limits, SearchContext, SearchRequest};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// Positions with at least 20 empties (searches there never end by themselves early).
fn positions(n: usize) -> Vec<Position> {
    random_positions(4 * n, 17)
        .into_iter()
        .filter(|p| p.empties() >= 20 && p.legal_moves() != 0)
        .take(n)
        .collect()
}

fn clock(left: Duration) -> Limits {
    Limits {
        clock: Some(Clock {
            time_left: [left; 2],
            increment: [Duration::ZERO; 2],
        }),
        ..Limits::default()
    }
}

/// Run a search of `position` under `limits`; the stop flag is raised after `stop_after` if
/// given. Returns the time from the start (or from the raised flag) to the answer.
fn measure(position: Position, limits: Limits, stop_after: Option<Duration>) -> Duration {
    let mut engine = Heuristic::new();
    let stop = AtomicU32::new(0);
    let request = SearchRequest::new(position, limits);
    std::thread::scope(|scope| {
        let started = Instant::now();
        let raiser = stop_after.map(|after| {
            let stop = &stop;
            scope.spawn(move || {
                std::thread::sleep(after);
                stop.store(1, Ordering::Relaxed);
                Instant::now()
            })
        });
        let ctx = SearchContext::detached(&stop);
        let out = engine.search(&request, &ctx);
        let returned = Instant::now();
        assert!(position.is_legal(out.mv), "{} in {position}", out.mv);
        match raiser {
            Some(r) => returned.saturating_duration_since(r.join().expect("raiser")),
            None => returned - started,
        }
    })
}

/// Minimum, median and maximum, in milliseconds.
fn summary(mut times: Vec<Duration>) -> String {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    format!(
        "min {:7.2} ms  median {:7.2} ms  max {:7.2} ms  ({} searches)",
        ms(times[0]),
        ms(times[times.len() / 2]),
        ms(times[times.len() - 1]),
        times.len()
    )
}

fn main() {
    let positions = positions(20);
    // A 10-minute clock: only the stop flag, raised 50 ms in, ends these searches.
    let latency: Vec<Duration> = positions
        .iter()
        .map(|&p| {
            measure(
                p,
                clock(Duration::from_secs(600)),
                Some(Duration::from_millis(50)),
            )
        })
        .collect();
    println!("stop flag to answer:             {}", summary(latency));
    // 3 s on the clock (the budget: the clock over the moves still to play, of which the engine
    // means to use TimeShare = 90%), and a 40 ms move time.
    println!(
        "3 s clock, time used / budget:   {}",
        ratios(used_shares(&positions, &clock(Duration::from_secs(3))))
    );
    let move_time = Limits {
        move_time: Some(Duration::from_millis(40)),
        ..Limits::default()
    };
    println!(
        "40 ms move time, used / budget:  {}",
        ratios(used_shares(&positions, &move_time))
    );
}

/// The time each search under `limits` took, as a share of its budget.
fn used_shares(positions: &[Position], limits: &Limits) -> Vec<f64> {
    positions
        .iter()
        .map(|&p| {
            let budget = limits
                .time_budget(p.side_to_move, p.empties().div_ceil(2))
                .expect("a time limit gives a budget");
            measure(p, *limits, None).as_secs_f64() / budget.as_secs_f64()
        })
        .collect()
}

/// Minimum, median and maximum of ratios, in percent.
fn ratios(mut r: Vec<f64>) -> String {
    r.sort_by(f64::total_cmp);
    format!(
        "min {:6.1}%    median {:6.1}%    max {:6.1}%    ({} searches)",
        100.0 * r[0],
        100.0 * r[r.len() / 2],
        100.0 * r[r.len() - 1],
        r.len()
    )
}
