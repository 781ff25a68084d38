//! Property-based fuzzing of the board crate's text parsers (proptest).
//!
//! Every parser must return `Ok` or `Err` on any input, never panic, and whatever it accepts
//! must survive a round trip through its writer. The number of cases per property is small by
//! default so the suite stays fast in normal test runs; set `FUZZ_CASES` (e.g.
//! `FUZZ_CASES=200000 cargo test --release -p othello-board --test fuzz`) for a long run.

use othello_board::playout::{random_move, SplitMix64};
use othello_board::{parse_transcript, replay, write_transcript, Color, Move, ObfLine, Position};
use proptest::prelude::*;

const FFO: &str = include_str!("../../strong/data/fforum-1-19.obf");

/// Cases per property: `FUZZ_CASES` if set, else `default`.
fn cases(default: u32) -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn config(default: u32) -> ProptestConfig {
    ProptestConfig::with_cases(cases(default))
}

/// Characters that mean something to the board parsers, mixed with arbitrary ones.
fn board_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => proptest::sample::select(vec![
            'X', 'x', '*', 'b', 'B', 'O', 'o', 'w', 'W', '-', '.', ' ', '\t', '\n', ';', ':',
            '+', '%', 'a', 'h', '1', '8', 'P', 'A', '\u{a0}', '\u{2028}',
        ]),
        1 => any::<char>(),
    ]
}

/// Strings near a board string: about 64 square letters with some white space and noise, a
/// side letter, and now and then trailing text.
fn board_like() -> impl Strategy<Value = String> {
    let square =
        proptest::sample::select(vec!['X', 'x', '*', 'b', 'B', 'O', 'o', 'w', 'W', '-', '.']);
    (
        prop_oneof![4 => Just(64usize), 1 => 60usize..68],
        prop::collection::vec(square, 68),
        prop::collection::vec((any::<prop::sample::Index>(), board_char()), 0..3),
        "[ \t]{0,2}",
        prop_oneof![4 => "[XxOo*bBwW]", 1 => ".?"],
        prop_oneof![4 => Just(String::new()), 1 => "[ ;:+\\-0-9a-hA-H%]{0,10}"],
    )
        .prop_map(|(n, squares, noise, gap, side, tail)| {
            let mut squares = squares[..n].to_vec();
            for (at, c) in noise {
                squares.insert(at.index(squares.len() + 1), c);
            }
            format!(
                "{}{gap}{side}{tail}",
                squares.into_iter().collect::<String>()
            )
        })
}

/// One edit of a text: delete, insert or replace a character, or delete or duplicate a line.
#[derive(Clone, Debug)]
enum Edit {
    Delete(usize),
    Insert(usize, char),
    Replace(usize, char),
    DeleteLine(usize),
    DuplicateLine(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), board_char()).prop_map(|(i, c)| Edit::Insert(i, c)),
        (any::<usize>(), board_char()).prop_map(|(i, c)| Edit::Replace(i, c)),
        any::<usize>().prop_map(Edit::DeleteLine),
        any::<usize>().prop_map(Edit::DuplicateLine),
    ]
}

fn mutate(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for e in edits {
        match *e {
            Edit::Delete(i) if !chars.is_empty() => {
                chars.remove(i % chars.len());
            }
            Edit::Insert(i, c) => chars.insert(i % (chars.len() + 1), c),
            Edit::Replace(i, c) if !chars.is_empty() => {
                let n = chars.len();
                chars[i % n] = c;
            }
            Edit::DeleteLine(i) | Edit::DuplicateLine(i) => {
                let s: String = chars.iter().collect();
                let mut lines: Vec<&str> = s.split('\n').collect();
                let k = i % lines.len();
                if matches!(e, Edit::DeleteLine(_)) {
                    lines.remove(k);
                } else {
                    lines.insert(k, lines[k]);
                }
                chars = lines.join("\n").chars().collect();
            }
            _ => {}
        }
    }
    chars.into_iter().collect()
}

/// The moves of one random legal game from the start, passes included.
fn random_game_moves(seed: u64) -> Vec<Move> {
    let mut rng = SplitMix64(seed);
    let mut p = Position::START;
    let mut moves = Vec::new();
    while !p.is_game_over() {
        let mv = random_move(&p, &mut rng);
        moves.push(mv);
        p = p.play(mv).expect("random_move is legal");
    }
    moves
}

fn check_position(s: &str) -> Result<(), TestCaseError> {
    if let Ok(p) = s.parse::<Position>() {
        let text = p.to_string();
        prop_assert_eq!(text.parse::<Position>(), Ok(p), "written as {:?}", text);
        prop_assert_eq!(p.board.player & p.board.opponent, 0);
    }
    Ok(())
}

fn check_transcript(s: &str) -> Result<(), TestCaseError> {
    let Ok(moves) = parse_transcript(s) else {
        return Ok(());
    };
    if let Ok((played, end)) = replay(Position::START, &moves) {
        // Played = the given moves plus forced passes; written back, it replays the same.
        prop_assert!(played.len() >= moves.len());
        let text = write_transcript(&played);
        let again = parse_transcript(&text).expect("a written transcript parses");
        let (played2, end2) = replay(Position::START, &again).expect("and replays");
        prop_assert_eq!(end2, end);
        // Trailing passes are implicit in a transcript and only come back when followed by a
        // move, so compare without them.
        let strip = |v: &[Move]| {
            let mut v = v.to_vec();
            while v.last().is_some_and(|m| m.is_pass()) {
                v.pop();
            }
            v
        };
        prop_assert_eq!(strip(&played2), strip(&played));
    }
    Ok(())
}

fn check_obf(s: &str) -> Result<(), TestCaseError> {
    if let Ok(l) = s.parse::<ObfLine>() {
        let text = l.to_string();
        prop_assert_eq!(text.parse::<ObfLine>(), Ok(l), "written as {:?}", text);
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(20000))]

    #[test]
    fn position_from_arbitrary_str(s in any::<String>()) {
        check_position(&s)?;
    }

    #[test]
    fn position_from_board_like_str(s in board_like()) {
        check_position(&s)?;
    }

    #[test]
    fn position_from_masks_round_trips(black in any::<u64>(), white in any::<u64>(), white_to_move in any::<bool>()) {
        let side = if white_to_move { Color::White } else { Color::Black };
        if let Some(p) = Position::from_colors(black & !white, white, side) {
            let text = p.to_string();
            prop_assert_eq!(text.parse::<Position>(), Ok(p));
            check_obf(&format!("{text};"))?;
        }
    }

    #[test]
    fn transcript_from_arbitrary_str(s in any::<String>()) {
        check_transcript(&s)?;
    }

    #[test]
    fn transcript_from_move_like_str(s in "([a-hA-H][1-8]|[pP][aA]|[ \\t\\n]|[a-z0-9]){0,80}") {
        check_transcript(&s)?;
    }

    #[test]
    fn transcript_of_random_games_mutated(seed in any::<u64>(), edits in prop::collection::vec(edit(), 0..4)) {
        let moves = random_game_moves(seed);
        let text = write_transcript(&moves);
        if edits.is_empty() {
            let parsed = parse_transcript(&text).expect("a written transcript parses");
            let (played, end) = replay(Position::START, &parsed).expect("a random game replays");
            prop_assert!(end.is_game_over());
            prop_assert_eq!(played, moves);
        }
        check_transcript(&mutate(&text, &edits))?;
    }

    #[test]
    fn replay_from_arbitrary_positions(black in any::<u64>(), white in any::<u64>(), white_to_move in any::<bool>(), raw in prop::collection::vec(0u8..=64, 0..70)) {
        let side = if white_to_move { Color::White } else { Color::Black };
        let start = Position::from_colors(black & !white, white, side).expect("disjoint");
        let moves: Vec<Move> = raw.iter().map(|&v| Move::from_wire(v.into()).expect("0..=64")).collect();
        let _ = replay(start, &moves);
    }

    #[test]
    fn obf_from_arbitrary_str(s in any::<String>()) {
        check_obf(&s)?;
    }

    #[test]
    fn obf_from_board_like_str(s in board_like(), tail in "[ ;:+\\-0-9a-hA-HpP%]{0,40}") {
        check_obf(&format!("{s}{tail}"))?;
    }

    #[test]
    fn obf_from_mutated_ffo_lines(line in proptest::sample::select(FFO.lines().collect::<Vec<_>>()), edits in prop::collection::vec(edit(), 0..6)) {
        if edits.is_empty() {
            let l: ObfLine = line.parse().expect("the FFO lines are valid");
            prop_assert_eq!(l.to_string(), line.trim());
        }
        check_obf(&mutate(line, &edits))?;
    }

    #[test]
    fn move_from_arbitrary_str(s in any::<String>()) {
        if let Ok(mv) = s.parse::<Move>() {
            prop_assert_eq!(mv.to_string().parse::<Move>(), Ok(mv));
        }
    }

    #[test]
    fn move_from_move_like_str(s in "[a-zA-Z0-9 ]{0,5}") {
        if let Ok(mv) = s.parse::<Move>() {
            prop_assert_eq!(mv.to_string().parse::<Move>(), Ok(mv));
            prop_assert_eq!(mv.to_string().to_uppercase().parse::<Move>(), Ok(mv));
        }
    }
}

#[test]
fn every_move_round_trips() {
    for v in 0..=64 {
        let mv = Move::from_wire(v).unwrap();
        assert_eq!(mv.to_string().parse::<Move>(), Ok(mv));
    }
}
