//! Which cores a process may run on, and pinning a worker to some (the system's side of
//! `[tournament] affinity = true`; the slots are `play::affinity`'s). The harness's own mask
//! is read, so that `taskset`, `start /affinity` and a batch system's allocation are
//! respected. Linux pins every thread of a worker, affinity being per thread there; Windows
//! sets the worker's process mask, which moves its threads and is inherited by what it
//! starts, within the harness's processor group (at most 64 cores: on a machine with more, a
//! process starts in one group, and the others' cores are not offered). macOS has no hard CPU
//! affinity: `affinity = true` is refused there with that reason.

/// The cores this process may run on, in order.
pub fn allowed_cores() -> anyhow::Result<Vec<usize>> {
    allowed_cores_of_system()
}

/// Pin every thread of process `pid` to `cores`; threads it starts later inherit the mask. A
/// thread that ends meanwhile is skipped.
pub fn pin(pid: u32, cores: &[usize]) -> std::io::Result<()> {
    pin_on_system(pid, cores)
}

#[cfg(target_os = "linux")]
fn allowed_cores_of_system() -> anyhow::Result<Vec<usize>> {
    use rustix::thread::CpuSet;
    let allowed = rustix::thread::sched_getaffinity(None)
        .map_err(|e| anyhow::anyhow!("affinity: cannot read the cores allowed: {e}"))?;
    Ok((0..CpuSet::MAX_CPU)
        .filter(|&c| allowed.is_set(c))
        .collect())
}

#[cfg(target_os = "linux")]
fn pin_on_system(pid: u32, cores: &[usize]) -> std::io::Result<()> {
    let mut set = rustix::thread::CpuSet::new();
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

#[cfg(windows)]
fn allowed_cores_of_system() -> anyhow::Result<Vec<usize>> {
    super::system::allowed_cores()
        .map_err(|e| anyhow::anyhow!("affinity: cannot read the cores allowed: {e}"))
}

#[cfg(windows)]
fn pin_on_system(pid: u32, cores: &[usize]) -> std::io::Result<()> {
    super::system::pin(pid, cores)
}

/// Why affinity is refused on a system without an implementation.
#[cfg(not(any(target_os = "linux", windows)))]
const NOT_HERE: &str =
    "affinity: pinning workers to cores is implemented on Linux and Windows (macOS has no hard CPU affinity)";

#[cfg(not(any(target_os = "linux", windows)))]
fn allowed_cores_of_system() -> anyhow::Result<Vec<usize>> {
    anyhow::bail!("{NOT_HERE}")
}

#[cfg(not(any(target_os = "linux", windows)))]
fn pin_on_system(_pid: u32, _cores: &[usize]) -> std::io::Result<()> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        NOT_HERE,
    ))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

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
        (0..rustix::thread::CpuSet::MAX_CPU)
            .filter(|&c| set.is_set(c))
            .collect()
    }

    /// A child process with three threads pinned to one core, then to another: each time every
    /// thread's affinity, read back from the kernel, is exactly that core. On a machine with one
    /// core there is nothing to move it to: the test says so on standard error (uncaptured), and
    /// fails under CI, whose machines have more.
    #[test]
    fn pinning_a_process_moves_every_thread_of_it() {
        use std::io::Write;
        let allowed = rustix::thread::sched_getaffinity(None).unwrap();
        let cores: Vec<usize> = (0..rustix::thread::CpuSet::MAX_CPU)
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
                "host::affinity::tests::a_child_with_threads",
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
