//! `harness gtp`: a plugin behind the Go Text Protocol (version 2) on an 8x8 Othello board.
//!
//! Each command may start with a numeric id, echoed in the answer: `=ID result` or
//! `?ID message`, each answer ended by an empty line. Vertices are `A1`..`H8` (column letter,
//! row 1 at the top as in Othello notation), a pass is `pass`, colours `b`/`black`/`w`/`white`.
//! GTP has no way to set a position, so a game is always `clear_board` and `play` from the
//! standard start. `play` and `genmove` of the side not to move are refused unless that side
//! is to move after a forced pass (the pass is then inserted).
//!
//! Time: `time_settings MAIN BYO STONES` sets both clocks to MAIN seconds (BYO/STONES becomes
//! the per-move increment), or, with no main time, BYO/STONES seconds per move;
//! `time_left COLOR SECONDS STONES` sets one clock. With no clock and
//! no `--depth`/`--move-time`, each move gets one second.

use super::{move_text, FrontendArgs, Input, SearchLimit, Seat, ThinkError};
use othello_board::{Color, Move, Position};
use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

/// The commands this front-end knows, for `list_commands` and `known_command`.
const COMMANDS: &[&str] = &[
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "undo",
    "showboard",
    "final_score",
    "time_settings",
    "time_left",
];

/// The clocks as GTP sets them.
#[derive(Clone, Copy, Debug, Default)]
struct Clocks {
    left: [Option<Duration>; 2],
    increment: Duration,
    /// `time_settings 0 T S`: no main time, T seconds for every S moves.
    per_move: Option<Duration>,
}

fn color(text: &str) -> Result<Color, String> {
    match text.to_ascii_lowercase().as_str() {
        "b" | "black" => Ok(Color::Black),
        "w" | "white" => Ok(Color::White),
        _ => Err(format!("invalid color `{text}`")),
    }
}

fn seconds(text: &str) -> Result<Duration, String> {
    text.parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| format!("invalid time `{text}`"))
}

/// Make `who` the side to move: inserts a forced pass of the other side; an error otherwise.
fn to_move(seat: &mut Seat, who: Color) -> Result<(), String> {
    let pos = seat.position();
    if pos.side_to_move == who {
        return Ok(());
    }
    if pos.must_pass() {
        return seat.play(Move::PASS);
    }
    // Go lets a side move twice in a row (GTP engines then "accommodate" an out-of-turn
    // genmove); Othello does not: a side passes only without a legal move.
    Err(format!(
        "it is {}'s turn and {} has a legal move: {} cannot move before it (a side passes only without a legal move)",
        side_name(pos.side_to_move),
        side_name(pos.side_to_move),
        side_name(who)
    ))
}

fn side_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

fn board_text(pos: &Position) -> String {
    let mut s = String::from("\n   A B C D E F G H\n");
    let squares = pos.squares_string();
    for (row, chunk) in squares.as_bytes().chunks(8).enumerate() {
        s.push_str(&format!("{:>2}", row + 1));
        for &c in chunk {
            s.push(' ');
            s.push(match c {
                b'X' => 'X',
                b'O' => 'O',
                _ => '.',
            });
        }
        s.push('\n');
    }
    s.push_str(&format!("{} to move", side_name(pos.side_to_move)));
    s
}

/// Whether a line is the `quit` command (with or without an id).
fn is_quit(line: &str) -> bool {
    let mut words = line.split('#').next().unwrap_or("").split_whitespace();
    match words.next() {
        Some(id) if id.chars().all(|c| c.is_ascii_digit()) => words.next() == Some("quit"),
        first => first == Some("quit"),
    }
}

/// Serve one session until `quit` or the end of the input.
pub fn serve(
    args: &FrontendArgs,
    input: impl BufRead + Send + 'static,
    mut out: impl Write,
) -> anyhow::Result<()> {
    let mut session = Session {
        seat: Seat::start(args)?,
        input: Input::start(input, is_quit),
        args,
        clocks: Clocks::default(),
        quit: false,
    };
    while let Some((line, asked)) = session.input.next_line() {
        let line = line?;
        let line = line.split('#').next().unwrap_or("").trim().to_string();
        if line.is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        let first = words.next().unwrap_or("");
        let (id, command) = if first.chars().all(|c| c.is_ascii_digit()) {
            (first.to_string(), words.next().unwrap_or(""))
        } else {
            (String::new(), first)
        };
        let words: Vec<&str> = words.collect();
        match session.answer(command, &words, asked) {
            Ok(text) if text.is_empty() => write!(out, "={id}\n\n")?,
            Ok(text) => write!(out, "={id} {text}\n\n")?,
            Err(e) => write!(out, "?{id} {e}\n\n")?,
        }
        out.flush()?;
        if session.quit {
            break;
        }
    }
    Ok(())
}

/// A GTP session: the game, the clocks GTP set, and whether `quit` was asked.
struct Session<'a> {
    seat: Seat,
    input: Input,
    args: &'a FrontendArgs,
    clocks: Clocks,
    quit: bool,
}

impl Session<'_> {
    /// The answer to one command (`asked`: when its line was read).
    fn answer(&mut self, command: &str, words: &[&str], asked: Instant) -> Result<String, String> {
        match (command, words) {
            ("protocol_version", _) => Ok("2".to_string()),
            ("name", _) => Ok(self.seat.name.clone()),
            ("version", _) => Ok(self.seat.version.clone()),
            ("known_command", [c]) => Ok(COMMANDS.contains(c).to_string()),
            ("list_commands", _) => Ok(COMMANDS.join("\n")),
            ("quit", _) => {
                self.quit = true;
                Ok(String::new())
            }
            ("boardsize", ["8"]) => Ok(String::new()),
            ("boardsize", _) => Err("unacceptable size".to_string()),
            ("clear_board", _) => {
                self.seat.new_game(Position::START);
                Ok(String::new())
            }
            ("komi", _) => Ok(String::new()),
            ("play", [c, vertex]) => color(c).and_then(|c| {
                let mv: Move = vertex
                    .parse()
                    .map_err(|_| format!("invalid vertex `{vertex}`"))?;
                to_move(&mut self.seat, c)?;
                self.seat.play(mv).map(|()| String::new())
            }),
            ("genmove", [c]) => color(c).and_then(|c| {
                if self.seat.position().is_game_over() {
                    return Ok("pass".to_string());
                }
                to_move(&mut self.seat, c)?;
                let limit = match (
                    self.args.depth,
                    self.args.move_time,
                    self.clocks.left[c.index()],
                ) {
                    (Some(d), _, _) => SearchLimit::Depth(d),
                    (_, Some(s), _) => SearchLimit::MoveTime(Duration::from_secs_f64(s.max(0.001))),
                    (_, _, None) if self.clocks.per_move.is_some() => {
                        SearchLimit::MoveTime(self.clocks.per_move.expect("checked"))
                    }
                    (_, _, Some(_)) => SearchLimit::Clock {
                        left: self
                            .clocks
                            .left
                            .map(|l| l.unwrap_or(Duration::from_secs(1))),
                        increment: self.clocks.increment,
                    },
                    _ => SearchLimit::MoveTime(Duration::from_secs(1)),
                };
                match self.seat.think(limit, &self.input, asked) {
                    Ok(t) => {
                        self.seat.play(t.mv)?;
                        Ok(move_text(t.mv, "pass"))
                    }
                    Err(ThinkError::Ending) => {
                        // `quit` during the search: no answer, the session ends.
                        self.quit = true;
                        Err("search abandoned: the session is ending".to_string())
                    }
                    Err(ThinkError::Failed(e)) => Err(e),
                }
            }),
            ("undo", _) => {
                if self.seat.undo() {
                    Ok(String::new())
                } else {
                    Err("cannot undo".to_string())
                }
            }
            ("showboard", _) => Ok(board_text(&self.seat.position())),
            ("final_score", _) => {
                let s = self.seat.position().final_score_black();
                Ok(match s.signum() {
                    1 => format!("B+{s}"),
                    -1 => format!("W+{}", -s),
                    _ => "0".to_string(),
                })
            }
            ("time_settings", [main, byo, stones]) => (|| {
                let main = seconds(main)?;
                let byo = seconds(byo)?;
                let stones: u32 = stones.parse().map_err(|_| "invalid stones".to_string())?;
                let per_period = if stones > 0 {
                    byo / stones
                } else {
                    Duration::ZERO
                };
                self.clocks = if main.is_zero() && !per_period.is_zero() {
                    // Byo-yomi only: a fixed time per move.
                    Clocks {
                        per_move: Some(per_period),
                        ..Clocks::default()
                    }
                } else {
                    Clocks {
                        left: [Some(main); 2],
                        increment: per_period,
                        per_move: None,
                    }
                };
                Ok(String::new())
            })(),
            ("time_left", [c, secs, _stones]) => color(c).and_then(|c| {
                self.clocks.left[c.index()] = Some(seconds(secs)?);
                Ok(String::new())
            }),
            (c, _) if COMMANDS.contains(&c) => Err("syntax error".to_string()),
            _ => Err("unknown command".to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_and_times_parse_as_gtp_writes_them() {
        for (text, c) in [
            ("b", Color::Black),
            ("BLACK", Color::Black),
            ("w", Color::White),
            ("White", Color::White),
        ] {
            assert_eq!(color(text), Ok(c), "{text}");
        }
        assert_eq!(color("red"), Err("invalid color `red`".to_string()));
        assert_eq!(seconds("1.5"), Ok(Duration::from_millis(1500)));
        assert_eq!(seconds("0"), Ok(Duration::ZERO));
        for bad in ["-1", "inf", "NaN", "soon"] {
            assert_eq!(seconds(bad), Err(format!("invalid time `{bad}`")));
        }
    }

    /// Row 1 at the top, columns A-H, `X` Black, `O` White, `.` empty, then the side to move.
    #[test]
    fn the_board_reads_row_by_row_from_a1() {
        let pos = Position::START.play("f5".parse().unwrap()).unwrap();
        let text = board_text(&pos);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "");
        assert_eq!(lines[1], "   A B C D E F G H");
        assert_eq!(lines[2], " 1 . . . . . . . .");
        assert_eq!(lines[5], " 4 . . . O X . . .");
        assert_eq!(lines[6], " 5 . . . X X X . .");
        assert_eq!(lines[9], " 8 . . . . . . . .");
        assert_eq!(lines[10], "white to move");
        assert_eq!(lines.len(), 11);
    }
}
