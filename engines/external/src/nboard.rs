//! The NBoard side of the bridge: bring the program to the game with `set game`, ask with
//! `go`, read `=== MOVE[/eval[/time]]` (or Edax's `=== MOVE eval time`).
//!
//! Every exchange is synchronised with `ping N` / `pong N` before `go`, because a program may
//! abort a running search when a line arrives: nothing else is sent while it thinks. The one
//! exception is the end of the host's time budget: NBoard has no stop command, so at the moment
//! the host raises its stop flag (the end of the move time, or of the side's clock) the bridge
//! sends a `ping`, which makes programs that abort on input answer at once (others answer when
//! done, and the host's clock decides). The bridge knows that moment from the search's limits,
//! so it waits on the program's output until then instead of watching the flag.

use crate::program::Program;
use othello_sdk::board::Move;
use std::time::{Duration, Instant};

/// A program speaking NBoard.
pub struct NboardSession {
    program: Program,
    depth_sent: Option<u32>,
    next_ping: u64,
}

/// An answer to `go`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NboardAnswer {
    pub mv: Move,
    /// The program's evaluation in discs, from the mover's view, when it gave one.
    pub eval: Option<f64>,
}

impl NboardSession {
    /// Greet the program (`nboard VERSION`) and wait for it to answer a ping within `startup`.
    pub fn start(mut program: Program, version: u32, startup: Duration) -> Result<Self, String> {
        program.send(&format!("nboard {version}"))?;
        let mut session = NboardSession {
            program,
            depth_sent: None,
            next_ping: 1,
        };
        session
            .sync(Some(Instant::now() + startup))
            .map_err(|e| format!("{e} (during the NBoard handshake)"))?;
        Ok(session)
    }

    pub fn is_running(&mut self) -> bool {
        self.program.is_running()
    }

    /// `ping N`, then read until `pong N` (earlier output, stale pongs included, is skipped).
    fn sync(&mut self, deadline: Option<Instant>) -> Result<(), String> {
        let n = self.next_ping;
        self.next_ping += 1;
        self.program.send(&format!("ping {n}"))?;
        let expected = format!("pong {n}");
        loop {
            let line = self.program.receive(deadline)?;
            if line.trim() == expected {
                return Ok(());
            }
        }
    }

    /// Search the game given as GGF text to `depth`; `stop_at` is when the host's time budget
    /// ends (none for depth and node limits).
    pub fn search(
        &mut self,
        ggf: &str,
        depth: u32,
        stop_at: Option<Instant>,
    ) -> Result<NboardAnswer, String> {
        if self.depth_sent != Some(depth) {
            self.program.send(&format!("set depth {depth}"))?;
            self.depth_sent = Some(depth);
        }
        self.program.send(&format!("set game {ggf}"))?;
        self.sync(None)?;
        self.program.send("go")?;
        let mut abort_sent = false;
        let abort_ping = self.next_ping;
        loop {
            let line = match stop_at {
                Some(at) if !abort_sent => match self.program.receive_until(at)? {
                    Some(line) => line,
                    None => {
                        abort_sent = true;
                        self.program.send(&format!("ping {abort_ping}"))?;
                        continue;
                    }
                },
                _ => self.program.receive(None)?,
            };
            if let Some(answer) = line.strip_prefix("===") {
                if abort_sent {
                    self.next_ping += 1; // its pong is skipped by the next sync
                }
                return parse_answer(answer)
                    .map_err(|e| format!("`{}` answered `{line}`: {e}", self.program.command));
            }
        }
    }
}

/// The part of an answer after `===`: `F5`, `F5/-1.00`, `F5/-1.00/0.5`, `F5 -1.00 0.0`, `PA`.
pub fn parse_answer(text: &str) -> Result<NboardAnswer, String> {
    let text = text.trim();
    // NBoard's own form separates with '/', Edax's with spaces; the second field is the eval.
    let fields: Vec<&str> = if text.contains('/') {
        text.split('/').map(str::trim).collect()
    } else {
        text.split_whitespace().collect()
    };
    let mv_text = fields.first().copied().unwrap_or("");
    let mv: Move = mv_text
        .parse()
        .map_err(|_| format!("`{mv_text}` is not a move"))?;
    let eval = match fields.get(1).filter(|f| !f.is_empty()) {
        Some(f) => Some(
            f.parse::<f64>()
                .ok()
                .filter(|e| e.is_finite())
                .ok_or_else(|| format!("`{f}` is not an evaluation"))?,
        ),
        None => None,
    };
    Ok(NboardAnswer { mv, eval })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_in_every_form() {
        let f5: Move = "f5".parse().unwrap();
        let a = |mv, eval| Ok(NboardAnswer { mv, eval });
        assert_eq!(parse_answer(" F5"), a(f5, None));
        assert_eq!(parse_answer(" f5/-1.00/0.5"), a(f5, Some(-1.0)));
        assert_eq!(parse_answer(" F5//0.5"), a(f5, None));
        assert_eq!(parse_answer(" F5 2.50 0.0"), a(f5, Some(2.5)));
        assert_eq!(parse_answer(" PA"), a(Move::PASS, None));
        assert!(parse_answer(" Z9").is_err());
        assert!(parse_answer("").is_err());
        assert!(parse_answer(" F5/abc").is_err());
    }
}
