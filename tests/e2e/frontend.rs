//! The front-ends, driven as a GUI drives them: `harness nboard` and `harness gtp` in a real
//! process, one command at a time on stdin, each answer read from stdout before the next
//! command, a real plugin in a worker behind them. The `faulty` fixture without a fault plays a
//! documented deterministic rule (the lowest square among the moves flipping the most discs),
//! so every answer can be checked against the position the test keeps itself; with a fault it
//! crashes in a chosen search, which must cost one answer, not the session. `quit` ends a
//! session during a search at once.

use crate::support::{artifacts, s, TempDir};
use othello_board::{write_ggf, Color, GameHistory, Move, Position, Square};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

/// How long one answer may take (a loaded machine; the searches here take milliseconds).
const ANSWER_TIMEOUT: Duration = Duration::from_secs(60);

/// A front-end process and what it said so far.
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    transcript: String,
}

impl Session {
    /// `harness <protocol> --engine <plugin> [args]`.
    fn start(protocol: &str, plugin: &str, args: &[&str]) -> Session {
        let mut child = Command::new(&artifacts().harness)
            .arg(protocol)
            .args(["--engine", plugin])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the harness starts");
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
        Session {
            stdin: child.stdin.take(),
            child,
            lines,
            transcript: String::new(),
        }
    }

    fn send(&mut self, command: &str) {
        self.transcript.push_str(&format!("> {command}\n"));
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{command}")
            .and_then(|()| stdin.flush())
            .unwrap_or_else(|e| panic!("cannot send `{command}`: {e}\n{}", self.transcript));
    }

    /// The next line of output.
    fn line(&mut self) -> String {
        let line = self.lines.recv_timeout(ANSWER_TIMEOUT).unwrap_or_else(|e| {
            panic!("no answer ({e}); the session so far:\n{}", self.transcript)
        });
        self.transcript.push_str(&format!("< {line}\n"));
        line
    }

    /// A GTP command and its answer: `Ok(text)` for `=`, `Err(text)` for `?` (the id, when the
    /// command has one, is checked and removed).
    fn gtp(&mut self, command: &str) -> Result<String, String> {
        self.send(command);
        let id: String = command.chars().take_while(char::is_ascii_digit).collect();
        let mut answer = vec![self.line()];
        while !answer.last().expect("a line").is_empty() {
            answer.push(self.line());
        }
        answer.pop();
        let text = answer.join("\n");
        let (ok, rest) = match text.split_at(1) {
            ("=", rest) => (true, rest),
            ("?", rest) => (false, rest),
            _ => panic!("`{text}` is no GTP answer:\n{}", self.transcript),
        };
        let rest = rest
            .strip_prefix(id.as_str())
            .unwrap_or_else(|| panic!("answer without the id {id}:\n{}", self.transcript));
        let rest = rest.strip_prefix(' ').unwrap_or(rest).to_string();
        if ok {
            Ok(rest)
        } else {
            Err(rest)
        }
    }

    /// A GTP command that must succeed.
    fn gtp_ok(&mut self, command: &str) -> String {
        let answer = self.gtp(command);
        answer.unwrap_or_else(|e| panic!("`{command}` failed: {e}\n{}", self.transcript))
    }

    /// An NBoard session with `plugin`, past the `nboard 2` handshake (the engine's `name`).
    fn nboard(plugin: &str, args: &[&str], name: &str) -> Session {
        let mut nb = Session::start("nboard", plugin, args);
        nb.send("nboard 2");
        assert_eq!(nb.line(), format!("set myname {name}"), "{}", nb.transcript);
        nb
    }

    /// NBoard `go`, answered with `expected`: status, the move, node statistics, status.
    fn go(&mut self, expected: Move) {
        self.send("go");
        assert!(self.line().ends_with(" is thinking"), "{}", self.transcript);
        let answer = self.line();
        let expected = expected.to_string().to_uppercase();
        assert!(
            answer.starts_with(&format!("=== {expected}/")),
            "`{answer}`, expected {expected}:\n{}",
            self.transcript
        );
        assert!(self.line().starts_with("nodestats "), "{}", self.transcript);
        assert_eq!(self.line(), "status");
    }

    /// `quit` and [`Session::finish`].
    fn quit(mut self) -> String {
        self.send("quit");
        self.finish()
    }

    /// Close the input (the end of the session) and wait for the process; its stderr.
    fn finish(mut self) -> String {
        self.stdin = None;
        let mut stderr = String::new();
        if let Some(mut pipe) = self.child.stderr.take() {
            let _ = pipe.read_to_string(&mut stderr);
        }
        let status = self.child.wait().expect("the front-end ends");
        assert!(status.success(), "{status}:\n{}\n{stderr}", self.transcript);
        stderr
    }
}

/// The move of the `faulty` fixture without a fault: the lowest square among the legal moves
/// flipping the most discs (a pass without one).
fn faulty_move(pos: &Position) -> Move {
    let mut best = (Move::PASS, 0);
    for sq in Square::iter(pos.legal_moves()) {
        let mv = Move::at(sq);
        let after = pos.play(mv).expect("legal");
        let mine = |p: &Position| match pos.side_to_move {
            Color::Black => p.disc_counts().0,
            Color::White => p.disc_counts().1,
        };
        let flipped = mine(&after) - mine(pos) - 1;
        if flipped > best.1 {
            best = (mv, flipped);
        }
    }
    best.0
}

/// A legal move other than the fixture's (to show the front-end follows the moves it is told).
fn other_move(pos: &Position) -> Move {
    let chosen = faulty_move(pos);
    Square::iter(pos.legal_moves())
        .map(Move::at)
        .find(|&m| m != chosen)
        .unwrap_or(chosen)
}

/// The NBoard session of a GUI: the name, pings, `set game`, `go` (status, the move, node
/// statistics, status), `move` both ways, `hint`, `learn`; unknown commands are ignored (the
/// next answer is the next command's). Every move is the fixture's in the position the game
/// has reached.
#[test]
fn nboard_session_follows_the_game() {
    let a = artifacts();
    let mut nb = Session::nboard(s(&a.faulty), &["--option", "Fault=none"], "Faulty");
    nb.send("ping 1");
    assert_eq!(nb.line(), "pong 1");
    let mut game = GameHistory::new(Position::START);
    for mv in ["f5", "f6", "e6"] {
        game.moves.push(mv.parse().unwrap());
    }
    nb.send("set depth 4");
    nb.send(&format!("set game {}", write_ggf(&game)));
    let mut pos = game.position().unwrap();
    for _ in 0..3 {
        let expected = faulty_move(&pos);
        nb.go(expected);
        // The GUI plays the engine's move, then the opponent's (not the engine's choice).
        nb.send(&format!(
            "move {}/0.00/0.010",
            expected.to_string().to_uppercase()
        ));
        pos = pos.play(expected).unwrap();
        let reply = other_move(&pos);
        nb.send(&format!("move {}", reply.to_string().to_uppercase()));
        pos = pos.play(reply).unwrap();
    }
    nb.send("hint 1");
    let hint = nb.line();
    let expected = faulty_move(&pos).to_string().to_uppercase();
    assert!(
        hint.starts_with(&format!("search {expected} ")),
        "`{hint}`, expected {expected}:\n{}",
        nb.transcript
    );
    assert_eq!(nb.line(), "status");
    nb.send("frobnicate 7");
    nb.send("learn");
    assert_eq!(nb.line(), "learned");
    nb.send("ping 2");
    assert_eq!(nb.line(), "pong 2");
    nb.quit();
}

/// `set depth` reaches the engine: minimax's hints report the depth set (3, then 5).
#[test]
fn nboard_set_depth_decides_the_search_depth() {
    let a = artifacts();
    let mut nb = Session::nboard(s(&a.minimax), &[], "Minimax");
    for depth in [3, 5] {
        nb.send(&format!("set depth {depth}"));
        nb.send("hint 1");
        let hint = nb.line();
        assert!(
            hint.starts_with("search ") && hint.ends_with(&format!(" 0 {depth}")),
            "`{hint}` at depth {depth}:\n{}",
            nb.transcript
        );
        assert_eq!(nb.line(), "status");
    }
    nb.quit();
}

/// A crash costs one answer, not the session: the engine crashes (SIGSEGV) in its second
/// search; the front-end reports it (a `status` line and stderr), still answers pings, and the
/// next `go` is answered by a new worker, in the position the game has reached.
#[test]
fn nboard_session_survives_a_crash() {
    let a = artifacts();
    let mut nb = Session::nboard(
        s(&a.faulty),
        &["--option", "Fault=segfault", "--option", "StrikeAt=2"],
        "Faulty",
    );
    let mut pos = Position::START;
    let first = faulty_move(&pos);
    nb.go(first);
    pos = pos.play(first).unwrap();
    let reply = other_move(&pos);
    pos = pos.play(reply).unwrap();
    nb.send(&format!("move {first}"));
    nb.send(&format!("move {reply}"));
    nb.send("go");
    assert_eq!(nb.line(), "status Faulty is thinking");
    let error = nb.line();
    assert!(
        error.starts_with("status error: ")
            && error.contains("crashed")
            && error.contains("SIGSEGV"),
        "`{error}`:\n{}",
        nb.transcript
    );
    nb.send("ping 3");
    assert_eq!(nb.line(), "pong 3");
    nb.go(faulty_move(&pos));
    let stderr = nb.quit();
    assert!(stderr.contains("crashed"), "{stderr}");
}

/// The board of `showboard` as squares (`X`, `O`, `.` from a1 to h8) and the side to move.
fn parse_showboard(text: &str) -> (String, String) {
    let mut squares = String::new();
    let mut side = String::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.first() {
            Some(row) if row.parse::<u32>().is_ok() => squares.extend(words[1..].iter().copied()),
            Some(_) if line.ends_with("to move") => side = words[0].to_string(),
            _ => {}
        }
    }
    (squares, side)
}

/// What `showboard` must show for `pos`.
fn expected_board(pos: &Position) -> (String, String) {
    let squares = pos
        .squares_string()
        .chars()
        .map(|c| match c {
            'X' | 'O' => c,
            _ => '.',
        })
        .collect();
    let side = match pos.side_to_move {
        Color::Black => "black",
        Color::White => "white",
    };
    (squares, side.to_string())
}

/// The GTP commands docs/guide/external-engines.md promises ("GTP: `protocol_version`, `name`, …, `quit`."), each
/// by its name.
fn guide_gtp_commands() -> Vec<String> {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/guide/external-engines.md");
    let guide = std::fs::read_to_string(path).expect("docs/guide/external-engines.md");
    let list = guide
        .split("GTP: `protocol_version`")
        .nth(1)
        .and_then(|rest| rest.split('.').next())
        .expect("the guide's list of GTP commands");
    std::iter::once("protocol_version")
        .chain(list.split('`').skip(1).step_by(2))
        .map(|c| c.split_whitespace().next().unwrap_or(c).to_string())
        .collect()
}

/// A GTP session of a whole game: the administrative commands (ids echoed), the board size,
/// `play` (a move out of turn refused), `genmove` for both colours to the end of the game (each
/// the fixture's move in the position the test keeps, passes included), `showboard` after every
/// move, `undo`, `final_score` as the disc difference with the empties to the winner, the clock
/// commands, and crashes (every ninth search of a worker) that cost one answer each.
#[test]
fn gtp_session_plays_a_whole_game() {
    let a = artifacts();
    let mut g = Session::start(
        "gtp",
        s(&a.faulty),
        &["--option", "Fault=segfault", "--option", "StrikeAt=9"],
    );
    assert_eq!(g.gtp_ok("1 protocol_version"), "2");
    assert_eq!(g.gtp_ok("2 name"), "Faulty");
    assert!(!g.gtp_ok("version").is_empty());
    assert_eq!(g.gtp_ok("known_command frobnicate"), "false");
    // Every command the README promises is listed, and known.
    let commands = g.gtp_ok("list_commands");
    let promised = guide_gtp_commands();
    assert!(promised.len() >= 16, "{promised:?}");
    for c in &promised {
        assert!(commands.lines().any(|l| l == c), "{c} not in:\n{commands}");
        assert_eq!(g.gtp_ok(&format!("known_command {c}")), "true");
    }
    assert!(g.gtp("frobnicate").is_err());
    assert_eq!(
        g.gtp("3 boardsize 19"),
        Err("unacceptable size".to_string())
    );
    g.gtp_ok("boardsize 8");
    g.gtp_ok("clear_board");
    g.gtp_ok("komi 0");
    g.gtp_ok("time_settings 0 1 1");
    g.gtp_ok("time_left b 1 1");
    assert!(g.gtp("time_settings x 1 1").is_err());

    let mut pos = Position::START;
    let mut played: Vec<Position> = Vec::new();
    g.gtp_ok("play b f5");
    played.push(pos);
    pos = pos.play("f5".parse().unwrap()).unwrap();
    assert!(g.gtp("play b d3").is_err(), "a move out of turn is refused");
    assert_eq!(
        parse_showboard(&g.gtp_ok("showboard")),
        expected_board(&pos)
    );
    // The score of the game as it stands: Black leads 4-1 and gets the 59 empties.
    assert_eq!(g.gtp_ok("final_score"), "B+62");
    // `undo` takes the move back; it is played again.
    g.gtp_ok("undo");
    assert_eq!(
        parse_showboard(&g.gtp_ok("showboard")),
        expected_board(&played[0])
    );
    g.gtp_ok("play b f5");

    let (mut crashes, mut just_crashed) = (0, false);
    let mut passes = 0;
    while passes < 2 {
        let side = match pos.side_to_move {
            Color::Black => "b",
            Color::White => "w",
        };
        let answer = match g.gtp(&format!("genmove {side}")) {
            Ok(answer) => answer,
            Err(e) => {
                // Every ninth search of a worker crashes: one failed answer, and the same
                // request asked again is answered by a new worker.
                assert!(
                    !just_crashed && e.contains("crashed"),
                    "{e}:\n{}",
                    g.transcript
                );
                (crashes, just_crashed) = (crashes + 1, true);
                continue;
            }
        };
        just_crashed = false;
        let mv = if answer == "pass" {
            Move::PASS
        } else {
            answer.parse().expect("a vertex")
        };
        let expected = if pos.is_game_over() {
            Move::PASS
        } else {
            faulty_move(&pos)
        };
        assert_eq!(mv, expected, "genmove {side} in {pos}:\n{}", g.transcript);
        if mv.is_pass() {
            passes += 1;
            if pos.is_game_over() {
                continue;
            }
        } else {
            passes = 0;
        }
        played.push(pos);
        pos = pos.play(mv).unwrap();
        assert_eq!(
            parse_showboard(&g.gtp_ok("showboard")),
            expected_board(&pos)
        );
    }
    assert!(crashes >= 2, "{crashes} crashes:\n{}", g.transcript);
    assert!(pos.is_game_over());
    // The fixture's deterministic game ends 20-44 on a full board: White by 24.
    assert_eq!((pos.disc_counts(), pos.empties()), ((20, 44), 0));
    assert_eq!(g.gtp_ok("final_score"), "W+24");
    g.gtp_ok("undo");
    let before_last = played.last().expect("moves were played");
    assert_eq!(
        parse_showboard(&g.gtp_ok("showboard")),
        expected_board(before_last)
    );
    g.gtp_ok("quit");
    g.finish();
}

/// `quit` during a deep search (the session said it is thinking, the worker is spinning) ends
/// `harness nboard` at once, with no answer (the search was carried on until killed); `go` and
/// `quit` sent together by a script still get the move first.
#[test]
fn nboard_quit_ends_a_search_in_progress() {
    use std::io::{BufRead, BufReader, Write};
    use std::time::{Duration, Instant};
    let a = artifacts();
    let dir = TempDir::new("nboard-quit");
    let mut child = std::process::Command::new(&a.harness)
        .args(["nboard", "--engine", s(&a.strong)])
        .current_dir(dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"nboard 2\nset depth 40\ngo\n").unwrap();
    stdin.flush().unwrap();
    // The search is under way: the session said so, and the worker has a search to run.
    let (lines, said) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    let waiting = Instant::now();
    let thinking = loop {
        let line = said
            .recv_timeout(Duration::from_secs(30).saturating_sub(waiting.elapsed()))
            .expect("`status … is thinking` within 30 s");
        if line.ends_with(" is thinking") {
            break line;
        }
    };
    // A worker has spun for 0.3 s of CPU time: it is searching, not starting.
    let marker = crate::support::worker_marker(pid);
    while crate::support::processes_with(&marker)
        .iter()
        .all(|w| w.cpu_ticks < 30)
    {
        assert!(waiting.elapsed() < Duration::from_secs(30), "no search");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Later than a `quit` sent with the `go` (which would be answered first).
    std::thread::sleep(Duration::from_millis(150));
    stdin.write_all(b"quit\n").unwrap();
    stdin.flush().unwrap();
    let sent = Instant::now();
    // The input stays open: only `quit` can end the session.
    let mut ended = None;
    while sent.elapsed() < Duration::from_secs(20) {
        if let Some(status) = child.try_wait().unwrap() {
            ended = Some(status);
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    if ended.is_none() {
        let _ = child.kill();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let status = ended.expect("`quit` did not end the session within 20 s");
    assert!(status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    reader.join().unwrap();
    let after: Vec<String> = said.try_iter().collect();
    assert!(
        after.iter().all(|l| !l.starts_with("=== ")),
        "the search was answered, not ended, after `{thinking}`: {after:?}"
    );
    let left = crate::support::workers_of(pid);
    assert!(left.is_empty(), "the searching worker is left: {left:?}");
    // A script: the answer comes before the session ends.
    let scripted = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "printf 'nboard 2\\nset depth 4\\ngo\\nquit\\n' | {} nboard --engine {}",
            s(&a.harness),
            s(&a.strong)
        ))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&scripted.stdout);
    assert!(text.contains("=== "), "{text}");
}
