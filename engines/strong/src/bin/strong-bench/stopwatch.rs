//! How `solve` and `nps` time a search: wall time and, where the system tells it, the CPU time
//! of the searching thread.

use std::time::Instant;

/// CPU time of this thread (Linux: `/proc/thread-self/schedstat`, nanoseconds on a CPU), or
/// `None` where that file is missing. A loaded machine stretches wall time; CPU time much
/// less, so speed comparisons use it when they can.
fn thread_cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

/// Measures one search: wall seconds and, where available, CPU seconds.
pub struct Stopwatch {
    wall: Instant,
    cpu: Option<f64>,
}

impl Stopwatch {
    pub fn start() -> Stopwatch {
        Stopwatch {
            cpu: thread_cpu_seconds(),
            wall: Instant::now(),
        }
    }

    /// (wall seconds, CPU seconds or wall seconds if unknown).
    pub fn read(&self) -> (f64, f64) {
        let wall = self.wall.elapsed().as_secs_f64();
        let cpu = match (self.cpu, thread_cpu_seconds()) {
            (Some(a), Some(b)) => b - a,
            _ => wall,
        };
        (wall, cpu)
    }
}
