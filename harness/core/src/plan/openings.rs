//! Opening sets: the start positions a tournament's games are played from.
//!
//! An opening file holds one opening per line, either a move transcript from the standard start
//! (`f5d6c3d3c4f4f6f3`, passes implicit) or an OBF board line (`<64 squares> <side>;`, optional
//! move scores). Blank lines and `#` comments are skipped. This module only reads and checks
//! openings; which opening a game uses is decided by `schedule`. The invariant it keeps: every
//! `Opening` in an `OpeningSet` replays legally from its start to a position where the game is
//! not over, and an `OpeningSet` is never empty — a file that breaks either is rejected whole,
//! with an error naming the file and the 1-based line.

use othello_board::{
    parse_transcript, replay, Move, ObfLine, ParseObfError, Position, ReplayError, TranscriptError,
};
use std::path::Path;

/// The embedded sets that [`builtin`] knows, by name.
pub const BUILTIN_NAMES: [&str; 2] = ["xot-small", "xot-large"];

const XOT_SMALL: &str = include_str!("../../../../openings/xot-small.txt");
const XOT_LARGE: &str = include_str!("../../../../openings/xot-large.txt");

/// One opening: a start position and the moves played from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// 1-based line of the opening in its file.
    pub line: usize,
    /// The line as written, trimmed and with any `#` comment removed.
    pub text: String,
    /// [`Position::START`] for transcripts, the board of an OBF line.
    pub start: Position,
    /// The opening moves played from `start`, forced passes inserted (empty for OBF lines).
    pub moves: Vec<Move>,
}

impl Opening {
    /// The position after the opening moves: where the engines take over.
    pub fn position(&self) -> Position {
        self.moves.iter().fold(self.start, |pos, &mv| {
            pos.play(mv)
                .expect("opening moves were checked when the opening was read")
        })
    }

    /// The game so far when the opening has been played, as engines that take it (ABI 1.1)
    /// are given it: its moves with any forced pass made explicit.
    pub fn history(&self) -> othello_board::GameHistory {
        othello_board::GameHistory {
            start: self.start,
            moves: othello_board::replay(self.start, &self.moves)
                .map(|(played, _)| played)
                .unwrap_or_else(|_| self.moves.clone()),
        }
    }
}

/// The openings of one file (or embedded set), in file order. Never empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningSet {
    /// Where the openings came from: a path or `<built-in NAME>`; used in messages.
    pub source: String,
    pub openings: Vec<Opening>,
}

impl OpeningSet {
    pub fn len(&self) -> usize {
        self.openings.len()
    }

    /// Always false for a set made by this module; present for completeness.
    pub fn is_empty(&self) -> bool {
        self.openings.is_empty()
    }
}

/// What is wrong with one line of an opening file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineProblem {
    /// The transcript could not be read (a bad square, an odd character count).
    #[error("{0}")]
    Transcript(#[from] TranscriptError),
    /// The transcript does not replay from the start position.
    #[error("{0}")]
    Replay(#[from] ReplayError),
    /// The OBF line could not be read.
    #[error("bad OBF line: {0}")]
    Obf(#[from] ParseObfError),
    /// The opening ends in a finished game: there is nothing left to play.
    #[error("the position is a finished game")]
    GameOver,
}

/// An opening file or set that could not be used.
#[derive(Debug, thiserror::Error)]
pub enum OpeningError {
    #[error("{path}: cannot read the opening file: {error}")]
    Read { path: String, error: std::io::Error },
    #[error("{file}:{line}: {problem}")]
    Line {
        file: String,
        /// 1-based line number.
        line: usize,
        problem: LineProblem,
    },
    #[error("{file}: no openings (every line is blank or a comment)")]
    Empty { file: String },
    #[error("unknown built-in opening set `{name}` (known: {})", BUILTIN_NAMES.join(", "))]
    UnknownBuiltin { name: String },
}

/// Read an opening set from text. `source` names the file in error messages.
pub fn parse_openings(text: &str, source: &str) -> Result<OpeningSet, OpeningError> {
    let mut openings = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let opening = parse_line(content, line).map_err(|problem| OpeningError::Line {
            file: source.to_string(),
            line,
            problem,
        })?;
        openings.push(opening);
    }
    if openings.is_empty() {
        return Err(OpeningError::Empty {
            file: source.to_string(),
        });
    }
    Ok(OpeningSet {
        source: source.to_string(),
        openings,
    })
}

/// Read an opening file. Errors name the path as given.
pub fn load_openings(path: &Path) -> Result<OpeningSet, OpeningError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|error| OpeningError::Read {
        path: name.clone(),
        error,
    })?;
    parse_openings(&text, &name)
}

/// An embedded opening set by name (`xot-small`, `xot-large`; see [`BUILTIN_NAMES`]).
pub fn builtin(name: &str) -> Option<OpeningSet> {
    let text = match name {
        "xot-small" => XOT_SMALL,
        "xot-large" => XOT_LARGE,
        _ => return None,
    };
    let source = format!("<built-in {name}>");
    Some(parse_openings(text, &source).expect("the embedded opening sets are valid"))
}

/// Whether a (comment-free, trimmed) line is an OBF board line rather than a transcript: it
/// contains `;`, or starts with a character that only a board string can start with.
fn is_obf(content: &str) -> bool {
    content.contains(';') || content.starts_with(['-', '.', '*', 'x', 'X', 'o', 'O', 'w', 'W'])
}

fn parse_line(content: &str, line: usize) -> Result<Opening, LineProblem> {
    let (start, moves, end) = if is_obf(content) {
        let obf: ObfLine = content.parse()?;
        (obf.position, Vec::new(), obf.position)
    } else {
        let listed = parse_transcript(content)?;
        let (played, end) = replay(Position::START, &listed)?;
        (Position::START, played, end)
    };
    if end.is_game_over() {
        return Err(LineProblem::GameOver);
    }
    Ok(Opening {
        line,
        text: content.to_string(),
        start,
        moves,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_sets_parse_fully() {
        for (name, count) in [("xot-small", 3_623), ("xot-large", 10_784)] {
            let set = builtin(name).unwrap();
            assert_eq!(set.len(), count, "{name}");
            assert_eq!(set.source, format!("<built-in {name}>"));
            for o in &set.openings {
                assert_eq!(o.start, Position::START);
                assert_eq!(o.moves.len(), 8, "{name}:{}: {}", o.line, o.text);
                assert!(o.moves.iter().all(|m| !m.is_pass()));
                assert_eq!(o.position().empties(), 52);
                assert!(!o.position().is_game_over());
            }
            // Two header comment lines, then one opening per line.
            assert_eq!(set.openings[0].line, 3);
        }
        assert_eq!(
            builtin("xot-small").unwrap().openings[0].text,
            "f5d6c4d3c2b3b4b5"
        );
        assert!(builtin("xot").is_none());
        for name in BUILTIN_NAMES {
            assert!(builtin(name).is_some());
        }
    }

    #[test]
    fn transcripts_comments_and_blank_lines() {
        let text = "# header\n\n  F5 d6 C3d3  # a comment\nf5f6e6f4\n   \n";
        let set = parse_openings(text, "t.txt").unwrap();
        assert_eq!(set.source, "t.txt");
        assert_eq!(set.len(), 2);
        let a = &set.openings[0];
        assert_eq!(a.line, 3);
        assert_eq!(a.text, "F5 d6 C3d3");
        assert_eq!(a.moves.len(), 4);
        assert_eq!(a.position().empties(), 56);
        assert_eq!(set.openings[1].line, 4);
    }

    #[test]
    fn forced_passes_are_inserted() {
        // Black to move with no legal move on a board where White can move: the OBF start
        // is fine (the game goes on), and a transcript through a pass gets the pass inserted.
        let obf = format!("OX{} X;", "-".repeat(62));
        let set = parse_openings(&obf, "p.obf").unwrap();
        assert!(set.openings[0].position().must_pass());
        // A transcript in which one side has to pass before the last move: the pass is
        // inserted in `moves`, never written in the transcript.
        let set = parse_openings("f5f6c4g5h5h4g7h6f8", "w.txt").unwrap();
        let o = &set.openings[0];
        assert_eq!(o.moves.len(), 10);
        assert_eq!(o.moves.iter().filter(|m| m.is_pass()).count(), 1);
        assert_eq!(o.position().empties(), 64 - 4 - 9);
    }

    #[test]
    fn obf_lines_work() {
        let ffo =
            "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18; H1:+12;";
        let start = "---------------------------OX------XO--------------------------- X;";
        let text = format!("{ffo}\n{start} # the standard start\n");
        let set = parse_openings(&text, "ffo.obf").unwrap();
        assert_eq!(set.len(), 2);
        let o = &set.openings[0];
        assert!(o.moves.is_empty());
        assert_eq!(o.position().empties(), 14);
        assert_eq!(o.position(), o.start);
        assert_eq!(set.openings[1].start, Position::START);
        assert_eq!(set.openings[1].text, start);
    }

    fn line_error(text: &str) -> (usize, String) {
        match parse_openings(text, "openings/bad.txt") {
            Err(e @ OpeningError::Line { line, .. }) => (line, e.to_string()),
            other => panic!("expected a line error, got {other:?}"),
        }
    }

    #[test]
    fn malformed_lines_name_file_and_line() {
        let (line, msg) = line_error("f5d6\n# c\nf5d6c3a1\n");
        assert_eq!(line, 3);
        assert_eq!(msg, "openings/bad.txt:3: move 4 (a1) is illegal");

        let (line, msg) = line_error("\n\nf5d6z9\n");
        assert_eq!(line, 3);
        assert!(msg.starts_with("openings/bad.txt:3: move 3: `z9`"), "{msg}");

        let (line, msg) = line_error("f5d6c\n");
        assert_eq!(line, 1);
        assert!(msg.contains("openings/bad.txt:1:"), "{msg}");
        assert!(msg.contains("`c` is left over"), "{msg}");

        let (line, msg) = line_error("f5\n---- X;\n");
        assert_eq!(line, 2);
        assert!(
            msg.starts_with("openings/bad.txt:2: bad OBF line:"),
            "{msg}"
        );

        let (line, msg) = line_error(&format!("f5\n{} Q;", "-".repeat(64)));
        assert_eq!(line, 2);
        assert!(msg.starts_with("openings/bad.txt:2: bad OBF line"), "{msg}");
    }

    #[test]
    fn finished_games_and_empty_sets_are_errors() {
        let (line, msg) = line_error("f5\ne6f4e3f6g5d6e7f5c5\n");
        assert_eq!(line, 2);
        assert_eq!(msg, "openings/bad.txt:2: the position is a finished game");

        let full = format!("{} X;", "X".repeat(64));
        let (line, msg) = line_error(&full);
        assert_eq!(line, 1);
        assert!(msg.contains("finished game"), "{msg}");

        let err = parse_openings("# only\n\n   # comments\n", "e.txt").unwrap_err();
        assert!(matches!(err, OpeningError::Empty { .. }));
        assert_eq!(
            err.to_string(),
            "e.txt: no openings (every line is blank or a comment)"
        );
    }

    #[test]
    fn load_names_the_path() {
        let err = load_openings(Path::new("/nonexistent/openings.txt")).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.starts_with("/nonexistent/openings.txt: cannot read"),
            "{msg}"
        );

        let dir = std::env::temp_dir().join(format!("harness-openings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("two.txt");
        std::fs::write(&path, "f5d6\nc4c3\n").unwrap();
        let set = load_openings(&path).unwrap();
        assert_eq!(set.len(), 2);
        assert_eq!(set.source, path.display().to_string());
        std::fs::write(&path, "f5d6\nc4c4\n").unwrap();
        let msg = load_openings(&path).unwrap_err().to_string();
        assert_eq!(msg, format!("{}:2: move 2 (c4) is illegal", path.display()));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
