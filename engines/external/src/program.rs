//! The external program: a child process with piped stdin/stdout, its output read line by line
//! by a thread so that every wait has a timeout and notices the program's death.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How often a wait looks at the stop flag.
const POLL: Duration = Duration::from_millis(5);

/// A running program.
pub struct Program {
    /// The command line, for messages.
    pub command: String,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Program {
    /// Start `command` (split with shell quoting rules, no shell) in `working_dir` (if not
    /// empty). Its stderr is inherited: the harness keeps it in the engine's stderr log.
    pub fn start(command: &str, working_dir: &str) -> Result<Program, String> {
        let words = shlex::split(command)
            .filter(|w| !w.is_empty())
            .ok_or_else(|| format!("cannot split the command `{command}` (unbalanced quotes?)"))?;
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
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Program {
            command: command.to_string(),
            child,
            stdin,
            lines,
        })
    }

    /// Send one line.
    pub fn send(&mut self, line: &str) -> Result<(), String> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|_| self.died("could not be written to"))
    }

    /// The next line, waiting at most until `deadline` (forever with `None`). `on_wait` is
    /// called every few milliseconds while waiting (to look at the stop flag).
    pub fn receive(
        &mut self,
        deadline: Option<Instant>,
        mut on_wait: impl FnMut(&mut Program) -> Result<(), String>,
    ) -> Result<String, String> {
        loop {
            let slice = match deadline {
                Some(d) => {
                    let left = d.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Err(format!("`{}` did not answer in time", self.command));
                    }
                    left.min(POLL)
                }
                None => POLL,
            };
            match self.lines.recv_timeout(slice) {
                Ok(line) => return Ok(line.trim_end_matches('\r').to_string()),
                Err(RecvTimeoutError::Timeout) => on_wait(self)?,
                Err(RecvTimeoutError::Disconnected) => return Err(self.died("closed its output")),
            }
        }
    }

    /// Whether the program is still running.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// A message for a program that went away, with its exit status when it has one.
    fn died(&mut self, what: &str) -> String {
        let deadline = Instant::now() + Duration::from_millis(500);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(s)) => break format!(" and exited ({s})"),
                Ok(None) if Instant::now() < deadline => std::thread::sleep(POLL),
                _ => break String::new(),
            }
        };
        format!("`{}` {what}{status}", self.command)
    }
}

impl Drop for Program {
    /// Ask politely (`quit`, understood by both protocols), then kill.
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit").and_then(|()| self.stdin.flush());
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(POLL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
