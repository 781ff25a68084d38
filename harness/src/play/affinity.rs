//! Core pinning (`[tournament] affinity = true`): each game slot owns a disjoint set of cores,
//! and the workers of a game are pinned to its slot's cores for as long as they play it.
//!
//! A slot gets as many cores as the most threads any engine uses (its `Threads` option, 1 when
//! it has none), taken in order from the cores the harness may run on (its own affinity mask,
//! so `taskset` and a batch system's allocation are respected). Both workers of a game share
//! the slot: they search in turn, never at once. Pinning a running worker means pinning every
//! thread it has (affinity is per thread on Linux); threads it starts later inherit the mask.

use crate::plan::config::Tournament;
use rustix::thread::CpuSet;

/// The cores of each game slot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoreSlots {
    slots: Vec<Vec<usize>>,
}

impl CoreSlots {
    /// The slots of `t` on the cores the harness may use, or an error that names the shortage.
    pub fn plan(t: &Tournament) -> anyhow::Result<CoreSlots> {
        let allowed = rustix::thread::sched_getaffinity(None)
            .map_err(|e| anyhow::anyhow!("affinity: cannot read the cores allowed: {e}"))?;
        let cores: Vec<usize> = (0..CpuSet::MAX_CPU)
            .filter(|&c| allowed.is_set(c))
            .collect();
        CoreSlots::split(t, &cores)
    }

    /// [`CoreSlots::plan`] on the cores `cores`.
    fn split(t: &Tournament, cores: &[usize]) -> anyhow::Result<CoreSlots> {
        let threads = t
            .engines
            .iter()
            .map(|e| {
                e.options
                    .iter()
                    .find(|(name, _)| name.eq_ignore_ascii_case("Threads"))
                    .and_then(|(_, value)| value.parse::<usize>().ok())
                    .unwrap_or(1)
                    .max(1)
            })
            .max()
            .unwrap_or(1);
        let games = t.concurrency.max(1);
        anyhow::ensure!(
            games * threads <= cores.len(),
            "{}: affinity = true needs {games} games at once × {threads} thread(s) = {} cores, \
             but the harness may use {} ({}); lower `concurrency` or the engines' `Threads`, \
             or set affinity = false",
            t.source,
            games * threads,
            cores.len(),
            cores
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(",")
        );
        Ok(CoreSlots {
            slots: cores
                .chunks(threads)
                .take(games)
                .map(<[usize]>::to_vec)
                .collect(),
        })
    }

    /// The cores of slot `slot`.
    pub fn cores(&self, slot: usize) -> &[usize] {
        &self.slots[slot]
    }
}

/// Pin every thread of process `pid` to `cores`. A thread that ends meanwhile is skipped.
pub fn pin(pid: u32, cores: &[usize]) -> std::io::Result<()> {
    let mut set = CpuSet::new();
    for &c in cores {
        set.set(c);
    }
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))? {
        let tid = task?.file_name().to_string_lossy().parse::<i32>().ok();
        if let Some(tid) = tid.and_then(rustix::process::Pid::from_raw) {
            match rustix::thread::sched_setaffinity(Some(tid), &set) {
                Ok(()) | Err(rustix::io::Errno::SRCH) => {}
                Err(e) => return Err(e.into()),
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tournament(concurrency: usize, threads: Option<&str>) -> Tournament {
        let mut t = crate::plan::config::embedded_default();
        t.concurrency = concurrency;
        if let Some(n) = threads {
            t.engines[0].options.push(("Threads".into(), n.into()));
        }
        t
    }

    #[test]
    fn slots_are_disjoint_runs_of_the_allowed_cores() {
        let cores = [0, 1, 2, 3, 6, 7];
        let slots = CoreSlots::split(&tournament(3, None), &cores).unwrap();
        assert_eq!(slots.slots, vec![vec![0], vec![1], vec![2]]);
        let slots = CoreSlots::split(&tournament(3, Some("2")), &cores).unwrap();
        assert_eq!(slots.slots, vec![vec![0, 1], vec![2, 3], vec![6, 7]]);
    }

    #[test]
    fn too_few_cores_is_an_error_that_says_why() {
        let e = CoreSlots::split(&tournament(2, Some("2")), &[0, 1, 2])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(
                "2 games at once × 2 thread(s) = 4 cores, but the harness may use 3 (0,1,2)"
            ),
            "{e}"
        );
    }

    /// Not a test: the child process of the pinning test, with threads besides its main one (the
    /// test runner's thread for this function, and one it starts, which waits on standard input
    /// until the child is killed). It says `ready` once they all run.
    #[test]
    #[ignore = "the child process of `pinning_a_process_moves_every_thread_of_it`"]
    fn a_child_with_threads() {
        use std::io::{Read, Write};
        let thread = std::thread::spawn(|| std::io::stdin().read(&mut [0]));
        // Straight to the pipe: the test runner captures `println!`.
        let mut out = std::io::stdout();
        out.write_all(b"ready\n")
            .and_then(|()| out.flush())
            .unwrap();
        let _ = thread.join();
    }

    /// The thread ids of process `pid`.
    fn threads_of(pid: u32) -> Vec<rustix::process::Pid> {
        std::fs::read_dir(format!("/proc/{pid}/task"))
            .map(|tasks| {
                tasks
                    .flatten()
                    .filter_map(|t| t.file_name().to_string_lossy().parse().ok())
                    .filter_map(rustix::process::Pid::from_raw)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The cores thread `tid` may run on, read back from the kernel.
    fn cores_of(tid: rustix::process::Pid) -> Vec<usize> {
        let set = rustix::thread::sched_getaffinity(Some(tid)).unwrap();
        (0..CpuSet::MAX_CPU).filter(|&c| set.is_set(c)).collect()
    }

    /// A child process with three threads pinned to one core, then to another: each time every
    /// thread's affinity, read back from the kernel, is exactly that core. On a machine with one
    /// core there is nothing to move it to: the test says so on standard error (uncaptured), and
    /// fails under CI, whose machines have more.
    #[test]
    fn pinning_a_process_moves_every_thread_of_it() {
        use std::io::Write;
        let allowed = rustix::thread::sched_getaffinity(None).unwrap();
        let cores: Vec<usize> = (0..CpuSet::MAX_CPU)
            .filter(|&c| allowed.is_set(c))
            .collect();
        if cores.len() < 2 {
            assert!(
                std::env::var_os("CI").is_none(),
                "one core allowed under CI"
            );
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED pinning: one core allowed, nothing to pin apart"
            );
            return;
        }
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--ignored",
                "--exact",
                "play::affinity::tests::a_child_with_threads",
            ])
            .args(["--test-threads", "2", "--quiet"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("the test binary starts");
        let ready = std::io::BufRead::lines(std::io::BufReader::new(child.stdout.take().unwrap()))
            .map_while(Result::ok)
            .any(|l| l.ends_with("ready"));
        let threads = threads_of(child.id());
        let at_start: Vec<Vec<usize>> = threads.iter().map(|&t| cores_of(t)).collect();
        let results: Vec<_> = [cores[cores.len() - 1], cores[0]]
            .iter()
            .map(|&core| {
                let pinned = pin(child.id(), &[core]);
                (
                    core,
                    pinned.map(|()| threads.iter().map(|&t| cores_of(t)).collect()),
                )
            })
            .collect();
        let _ = child.kill();
        let _ = child.wait();
        assert!(ready, "the child did not start its threads");
        assert!(threads.len() >= 3, "the child's threads: {threads:?}");
        for start in at_start {
            assert_eq!(start, cores, "the child starts on every allowed core");
        }
        for (core, pinned) in results {
            let pinned: Vec<Vec<usize>> = pinned.unwrap();
            assert_eq!(
                pinned,
                vec![vec![core]; threads.len()],
                "pinned to core {core}"
            );
        }
    }
}
