//! `harness nboard`: a plugin behind the NBoard protocol (version 2; `nboard 1` is accepted
//! too), one command per line on stdin, answers on stdout, flushed per line.
//!
//! Commands: `nboard N` (answered with `set myname NAME`), `set depth N`, `set game GGF`,
//! `set contempt N` (ignored), `move MOVE[/eval/time]`, `go` (answered with `status`, then
//! `=== MOVE/eval/time` and `nodestats NODES SECONDS`; the move is not played: the GUI sends it
//! back with `move`), `hint N` (one `search MOVE eval 0 depth` line, then `status`),
//! `ping N` (`pong N`), `learn` (`learned`), `quit`. Unknown commands are ignored, as the
//! protocol requires. Errors (a bad game, an illegal move, an engine that failed) are reported
//! on stderr and in a `status` line, and the session goes on.

use super::{move_text, FrontendArgs, Input, SearchLimit, Seat, ThinkError};
use othello_board::{parse_ggf, Move};
use std::io::{BufRead, Write};
use std::time::Duration;

/// Depth used before the GUI sends `set depth` (the protocol requires it before `go`).
const DEFAULT_DEPTH: u32 = 10;

/// Write one line and flush it (NBoard reads line by line).
fn say(out: &mut impl Write, line: String) -> std::io::Result<()> {
    writeln!(out, "{line}")?;
    out.flush()
}

/// Serve one session until `quit` or the end of the input.
pub fn serve(
    args: &FrontendArgs,
    input: impl BufRead + Send + 'static,
    mut out: impl Write,
) -> anyhow::Result<()> {
    let mut seat = Seat::start(args)?;
    let input = Input::start(input, |line| line.trim() == "quit");
    let mut depth = args.depth.unwrap_or(DEFAULT_DEPTH);
    let limit = |depth: u32| match args.move_time {
        Some(s) => SearchLimit::MoveTime(Duration::from_secs_f64(s.max(0.001))),
        None => SearchLimit::Depth(args.depth.unwrap_or(depth)),
    };
    while let Some((line, asked)) = input.next_line() {
        let line = line?;
        let line = line.trim();
        let (command, rest) = line.split_once(' ').unwrap_or((line, ""));
        let rest = rest.trim();
        let result: Result<(), String> = match command {
            "nboard" => {
                say(&mut out, format!("set myname {}", seat.name))?;
                Ok(())
            }
            "set" => {
                let (what, value) = rest.split_once(' ').unwrap_or((rest, ""));
                match what {
                    "depth" => value
                        .trim()
                        .parse::<u32>()
                        .map(|d| depth = d.clamp(1, 60))
                        .map_err(|_| format!("bad depth `{value}`")),
                    "game" => {
                        let set = parse_ggf(value)
                            .map_err(|e| format!("bad game: {e}"))
                            .and_then(|g| seat.set_game(g));
                        if let Err(e) = &set {
                            seat.refuse_game(e);
                        }
                        set
                    }
                    _ => Ok(()), // contempt, time (extensions), anything else: ignored
                }
            }
            "move" => {
                let text = rest.split('/').next().unwrap_or("").trim();
                text.parse::<Move>()
                    .map_err(|_| format!("bad move `{rest}`"))
                    .and_then(|mv| seat.play(mv))
            }
            "go" => {
                say(&mut out, format!("status {} is thinking", seat.name))?;
                match seat.think(limit(depth), &input, asked) {
                    Ok(t) => {
                        let secs = t.elapsed.as_secs_f64();
                        say(
                            &mut out,
                            format!(
                                "=== {}/{:.2}/{secs:.3}",
                                move_text(t.mv, "PA"),
                                t.info.score
                            ),
                        )?;
                        say(&mut out, format!("nodestats {} {secs:.3}", t.info.nodes))?;
                        say(&mut out, "status".to_string())?;
                        Ok(())
                    }
                    // `quit` during the search: the session ends without an answer.
                    Err(ThinkError::Ending) => break,
                    Err(ThinkError::Failed(e)) => Err(e),
                }
            }
            "hint" => match seat.think(limit(depth), &input, asked) {
                Ok(t) => {
                    say(
                        &mut out,
                        format!(
                            "search {} {:.2} 0 {}",
                            move_text(t.mv, "PA"),
                            t.info.score,
                            t.info.depth.max(0)
                        ),
                    )?;
                    say(&mut out, "status".to_string())?;
                    Ok(())
                }
                Err(ThinkError::Ending) => break,
                Err(ThinkError::Failed(e)) => Err(e),
            },
            "ping" => {
                say(&mut out, format!("pong {rest}"))?;
                Ok(())
            }
            "learn" => {
                say(&mut out, "learned".to_string())?;
                Ok(())
            }
            "quit" => break,
            _ => Ok(()), // the protocol: ignore what you do not know
        };
        if let Err(e) = result {
            eprintln!("harness nboard: `{line}`: {e}");
            say(&mut out, format!("status error: {e}"))?;
        }
    }
    Ok(())
}
