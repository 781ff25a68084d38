//! The unfair faults: ways to win without playing better, each tried for real when the engine
//! strikes. Like the hostile faults, each says on stderr what it did, in a line that starts
//! with `faulty: <fault>:`, and then the search answers its normal move.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// How many threads `spin-between-turns` starts when `Target` names no number.
pub const SPINNERS: usize = 8;

/// Whether the spinners run already (they are started once per worker).
static SPINNING: AtomicBool = AtomicBool::new(false);

/// One line on stderr, written at once.
pub fn say(fault: &str, what: &str) {
    let line = format!("faulty: {fault}: {what}\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
}

/// `spin-between-turns`: start `target` threads (a number; else [`SPINNERS`]) that spin for
/// ever, on the engine's turns and between them: what a thread pool that busy-waits, or a
/// search that goes on after its answer, does to an opponent sharing the machine.
pub fn spin_between_turns(target: &str) {
    if SPINNING.swap(true, Ordering::Relaxed) {
        return;
    }
    let threads = target.parse().unwrap_or(SPINNERS);
    for _ in 0..threads {
        std::thread::spawn(|| {
            let mut x = 0u64;
            loop {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
        });
    }
    say(
        "spin-between-turns",
        &format!("{threads} threads spin from now on"),
    );
}

/// How long `spin-on-turn` spins in its search.
pub const SPIN_ON_TURN: std::time::Duration = std::time::Duration::from_millis(600);

/// The CPU time of this process (every thread, live or ended) in clock ticks, and the ticks
/// per second (`USER_HZ`, 100 on every Linux architecture the harness builds for), from
/// `/proc/self/stat`.
fn cpu_ticks() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let (user, system) = (
        fields.get(11)?.parse::<u64>().ok()?,
        fields.get(12)?.parse::<u64>().ok()?,
    );
    Some((user + system, 100))
}

/// `spin-on-turn`: `target` threads (a number; else 4) spin for [`SPIN_ON_TURN`] of this
/// search, beside the search thread, which waits for them: an engine that declares one thread
/// and searches with more. Says the cores they used (CPU ticks over wall time), as
/// `faulty: spin-on-turn: N threads used C cores (T ticks in W s)`.
pub fn spin_on_turn(target: &str) {
    use std::sync::Arc;
    let threads = target.parse().unwrap_or(4);
    let stop = Arc::new(AtomicBool::new(false));
    let (before, started) = (cpu_ticks(), std::time::Instant::now());
    let spinners: Vec<_> = (0..threads)
        .map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut x = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                }
            })
        })
        .collect();
    std::thread::sleep(SPIN_ON_TURN);
    stop.store(true, Ordering::Relaxed);
    for s in spinners {
        let _ = s.join();
    }
    let wall = started.elapsed().as_secs_f64();
    match (before, cpu_ticks()) {
        (Some((before, per_second)), Some((after, _))) => {
            let ticks = after - before;
            let cores = ticks as f64 / per_second as f64 / wall;
            say(
                "spin-on-turn",
                &format!("{threads} threads used {cores:.3} cores ({ticks} ticks in {wall:.3} s)"),
            );
        }
        _ => say("spin-on-turn", "cannot read /proc/self/stat"),
    }
}

/// `answer-ahead`: a thread writes a move reply straight to the worker's channel 1 ms after
/// this search, before the next request (as an engine thinking on its opponent's time would
/// answer the move it expects), then the search answers normally.
#[cfg(target_os = "linux")]
pub fn answer_ahead() {
    let Some(fd) = crate::hostile::system::channel_descriptor() else {
        return say("answer-ahead", "no socket among its descriptors");
    };
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(1));
        let line = b"{\"type\":\"moved\",\"search\":0,\"token\":0,\"mv\":19,\"info\":{\"depth\":1,\"selectivity\":0,\"score\":0.0,\"nodes\":1,\"time_ms\":0,\"pv\":[]}}\n";
        match crate::write_to_descriptor(fd, line) {
            Ok(()) => say(
                "answer-ahead",
                &format!("wrote a reply ahead on descriptor {fd}"),
            ),
            Err(e) => say("answer-ahead", &format!("cannot write ahead: {e}")),
        }
    });
}
