//! The external program: a child process with piped stdin/stdout.
//!
//! Two small threads make every wait a blocking one bounded by a deadline, never a timer tick:
//! one reads the program's output line by line into a channel, the other waits for the
//! program's exit and sends its status into another. [`Program::receive`] blocks on the first
//! channel until a line arrives, the deadline passes or the output closes; the exit status is
//! read from the second with a bounded wait.
//!
//! The program runs in the worker's process group: when the harness ends the worker (at the
//! end of a run, on a time forfeit, or because the harness itself died) it kills that whole
//! group, so neither the program nor anything it started outlives its game. The program's own
//! end here is polite first (`quit`), then SIGTERM, then SIGKILL. What differs between
//! systems (the command's quoting rules, what is an executable file, the signals) is in
//! [`crate::system`].

use crate::system;
use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long a program that closed its output, or was asked to quit, may take to exit.
const EXIT_GRACE: Duration = Duration::from_millis(500);
/// How long a program sent SIGTERM may take before it is killed.
const TERM_GRACE: Duration = Duration::from_millis(200);

/// A command line split into its words with the system's quoting rules: at least one.
fn split(command: &str) -> Result<Vec<String>, String> {
    system::split(command)
        .filter(|words| !words.is_empty())
        .ok_or_else(|| format!("cannot split the command `{command}` (unbalanced quotes?)"))
}

/// A running program.
pub struct Program {
    /// The command line, for messages.
    pub command: String,
    pid: u32,
    stdin: ChildStdin,
    lines: Receiver<String>,
    exited: Receiver<ExitStatus>,
    /// The exit status, once received.
    status: Option<ExitStatus>,
}

impl Program {
    /// Whether `command` names a program that can be started in `working_dir`, without
    /// starting it: the command splits, the folder exists, and the program is an executable
    /// file (a path: relative to `working_dir`, as the start resolves it; a bare name: on
    /// `PATH`). A program that starts and then fails is a fault of a game, found when it plays.
    pub fn check(command: &str, working_dir: &str) -> Result<(), String> {
        use std::path::{Path, PathBuf};
        let words = split(command)?;
        let program = &words[0];
        if !working_dir.is_empty() && !Path::new(working_dir).is_dir() {
            return Err(format!(
                "cannot start `{command}`: the working folder {working_dir} does not exist"
            ));
        }
        let executable = system::is_executable;
        let found = if system::is_a_path(program) {
            let path = PathBuf::from(program);
            let path = if path.is_relative() && !working_dir.is_empty() {
                Path::new(working_dir).join(path)
            } else {
                path
            };
            executable(&path)
        } else {
            std::env::var_os("PATH").is_some_and(|paths| {
                std::env::split_paths(&paths).any(|dir| executable(&dir.join(program)))
            })
        };
        if found {
            Ok(())
        } else {
            Err(format!(
                "cannot start `{command}`: no executable program `{program}`{}",
                if system::is_a_path(program) {
                    ""
                } else {
                    " on PATH"
                }
            ))
        }
    }

    /// Start `command` (split with the system's quoting rules, no shell) in `working_dir` (if not
    /// empty). Its stderr is inherited: the harness keeps it in the engine's stderr log.
    pub fn start(command: &str, working_dir: &str) -> Result<Program, String> {
        let words = split(command)?;
        let mut cmd = Command::new(&words[0]);
        cmd.args(&words[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        if !working_dir.is_empty() {
            cmd.current_dir(working_dir);
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start `{command}`: {e}"))?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let pid = child.id();
        let (line_tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if line_tx.send(line).is_err() {
                    break;
                }
            }
        });
        let (exit_tx, exited) = mpsc::channel();
        std::thread::spawn(move || {
            if let Ok(status) = child.wait() {
                let _ = exit_tx.send(status);
            }
        });
        Ok(Program {
            command: command.to_string(),
            pid,
            stdin,
            lines,
            exited,
            status: None,
        })
    }

    /// Send one line.
    pub fn send(&mut self, line: &str) -> Result<(), String> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|_| self.died("could not be written to"))
    }

    /// The next line, waiting at most until `deadline` (for as long as it takes with `None`).
    pub fn receive(&mut self, deadline: Option<Instant>) -> Result<String, String> {
        let line = match deadline {
            None => self
                .lines
                .recv()
                .map_err(|_| RecvTimeoutError::Disconnected),
            Some(d) => self
                .lines
                .recv_timeout(d.saturating_duration_since(Instant::now())),
        };
        match line {
            Ok(line) => Ok(line.trim_end_matches('\r').to_string()),
            Err(RecvTimeoutError::Timeout) => {
                Err(format!("`{}` did not answer in time", self.command))
            }
            Err(RecvTimeoutError::Disconnected) => Err(self.died("closed its output")),
        }
    }

    /// The next line if one arrives before `deadline`; `Ok(None)` when the deadline passed.
    pub fn receive_until(&mut self, deadline: Instant) -> Result<Option<String>, String> {
        match self
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            Ok(line) => Ok(Some(line.trim_end_matches('\r').to_string())),
            Err(RecvTimeoutError::Timeout) => Ok(None),
            Err(RecvTimeoutError::Disconnected) => Err(self.died("closed its output")),
        }
    }

    /// Whether the program is still running.
    pub fn is_running(&mut self) -> bool {
        self.wait_exit(Duration::ZERO).is_none()
    }

    /// The exit status, waiting at most `grace` for it.
    fn wait_exit(&mut self, grace: Duration) -> Option<ExitStatus> {
        if self.status.is_none() {
            self.status = self.exited.recv_timeout(grace).ok();
        }
        self.status
    }

    /// A message for a program that went away, with its exit status when it has one.
    fn died(&mut self, what: &str) -> String {
        let status = match self.wait_exit(EXIT_GRACE) {
            Some(s) => format!(" and exited ({s})"),
            None => String::new(),
        };
        format!("`{}` {what}{status}", self.command)
    }
}

impl Drop for Program {
    /// Ask politely (`quit`, understood by both protocols), then as the system asks (SIGTERM),
    /// then end it (SIGKILL; on Windows, with what it started).
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit").and_then(|()| self.stdin.flush());
        if self.wait_exit(EXIT_GRACE).is_some() {
            return;
        }
        system::ask_to_end(self.pid);
        if self.wait_exit(TERM_GRACE).is_some() {
            return;
        }
        system::kill(self.pid);
        let _ = self.wait_exit(TERM_GRACE);
    }
}
