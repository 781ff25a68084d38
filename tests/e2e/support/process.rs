//! Running a program with a timeout, its output captured.

use super::artifacts;
use std::fmt;
use std::io::Read;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How long one harness command may take before the test kills it and fails.
pub const HARNESS_TIMEOUT: Duration = Duration::from_secs(120);

/// A finished command.
pub struct Output {
    pub command: String,
    /// The process id it ran as.
    pub pid: u32,
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

impl Output {
    /// Panic with the whole output unless the command exited with status 0.
    pub fn assert_success(&self) -> &Output {
        assert!(self.status.success(), "command failed:\n{self}");
        self
    }

    /// Panic with the whole output unless the command exited by itself with status 2, the
    /// documented exit code of every error (bad input, unusable plugin, unwritable output; a
    /// kill by a signal is not a clean failure).
    pub fn assert_error(&self) -> &Output {
        assert_eq!(
            self.status.code(),
            Some(2),
            "expected the error exit code 2:\n{self}"
        );
        self
    }

    /// Panic unless stderr contains every fragment.
    pub fn assert_stderr_has(&self, fragments: &[&str]) -> &Output {
        for f in fragments {
            assert!(
                self.stderr.contains(f),
                "`{f}` not in the error output:\n{self}"
            );
        }
        self
    }
}

impl Output {
    /// Panic unless the run succeeded and said it resumed `held` of its `planned` games.
    pub fn assert_resumed(&self, held: usize, planned: usize) -> &Output {
        self.assert_success();
        let line = format!("resuming: {held} of {planned} games");
        assert!(
            self.stdout.contains(&line),
            "`{line}` not in the output:\n{self}"
        );
        self
    }

    /// Panic if a worker process of this harness run is still alive (see [`workers_of`]).
    pub fn assert_no_workers_left(&self) -> &Output {
        let left = workers_of(self.pid);
        assert!(left.is_empty(), "workers left running: {left:#?}\n{self}");
        self
    }
}

/// One process of this machine, as `/proc` shows it.
pub struct Process {
    pub pid: String,
    /// Its parent's pid.
    pub ppid: String,
    /// The command line, arguments separated by spaces.
    pub cmdline: String,
    /// Ended, waiting only to be reaped by its parent.
    pub zombie: bool,
    /// CPU time used so far (user and system), in clock ticks (usually 10 ms).
    pub cpu_ticks: u64,
}

/// Every process whose command line contains `marker` (Linux `/proc`; elsewhere none).
pub fn processes_with(marker: &str) -> Vec<Process> {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    procs
        .flatten()
        .filter(|p| {
            p.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter_map(|p| {
            let cmdline = std::fs::read(p.path().join("cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if !cmdline.contains(marker) {
                return None;
            }
            let stat = std::fs::read_to_string(p.path().join("stat")).unwrap_or_default();
            // The fields after the command's closing parenthesis, from the 3rd of proc(5): state,
            // ppid, …, utime (14th), stime (15th).
            let fields: Vec<&str> = stat
                .rsplit(')')
                .next()
                .unwrap_or("")
                .split_whitespace()
                .collect();
            let field = |n: usize| fields.get(n - 3).copied().unwrap_or("");
            let ticks = |n: usize| field(n).parse::<u64>().unwrap_or(0);
            Some(Process {
                pid: p.file_name().to_string_lossy().into_owned(),
                ppid: field(4).to_string(),
                cmdline,
                zombie: field(3).starts_with('Z'),
                cpu_ticks: ticks(14) + ticks(15),
            })
        })
        .collect()
}

/// The marker in every worker's command line: `worker --coordinator <harness pid>`.
pub fn worker_marker(pid: u32) -> String {
    format!(" worker --coordinator {pid} ")
}

/// Command lines of the live worker processes of the harness process `pid`.
pub fn workers_of(pid: u32) -> Vec<String> {
    processes_with(&worker_marker(pid))
        .into_iter()
        .map(|p| p.cmdline)
        .collect()
}

impl fmt::Display for Output {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "$ {}", self.command)?;
        writeln!(f, "{} after {:.2?}", self.status, self.elapsed)?;
        writeln!(f, "--- stdout ---\n{}", self.stdout)?;
        write!(f, "--- stderr ---\n{}", self.stderr)
    }
}

/// Run `cmd` (stdin closed, stdout and stderr captured); kill it and panic after `timeout`.
pub fn run_with_timeout(mut cmd: Command, timeout: Duration) -> Output {
    let command = format!("{cmd:?}");
    let started = Instant::now();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {command}: {e}"));
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let pid = child.id();
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let (status, timed_out) = loop {
        if let Some(status) = child.try_wait().expect("wait for the child") {
            break (status, false);
        }
        if started.elapsed() > timeout {
            let _ = child.kill();
            break (child.wait().expect("wait for the killed child"), true);
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let output = Output {
        command,
        pid,
        status,
        stdout: stdout.join().expect("stdout reader"),
        stderr: stderr.join().expect("stderr reader"),
        elapsed: started.elapsed(),
    };
    assert!(!timed_out, "killed after {timeout:?}:\n{output}");
    output
}

/// Run the harness binary with `args` in the folder `dir` (its engine workers inherit it, so
/// any core files land there too), killed after [`HARNESS_TIMEOUT`].
pub fn harness(dir: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new(&artifacts().harness);
    cmd.args(args).current_dir(dir);
    run_with_timeout(cmd, HARNESS_TIMEOUT)
}

/// Start the harness binary with `args` in `dir` without waiting for it (for tests that signal,
/// kill or read it while it runs). With `capture`, stdout and stderr are pipes the test must
/// read or close; without, they are discarded (a long run must not fill an unread pipe).
pub fn spawn_harness(dir: &Path, args: &[&str], capture: bool) -> std::process::Child {
    let output = || {
        if capture {
            Stdio::piped()
        } else {
            Stdio::null()
        }
    };
    Command::new(&artifacts().harness)
        .args(args)
        .current_dir(dir)
        .stdout(output())
        .stderr(output())
        .spawn()
        .expect("the harness binary starts")
}

/// A process the test started and must not outlive it: killed (SIGKILL) and reaped when
/// dropped, also when the test panics, so that a failed test leaves no harness behind (one
/// would hold what it inherited, such as the build's lock file, and poll its folder forever).
pub struct Running(pub std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
