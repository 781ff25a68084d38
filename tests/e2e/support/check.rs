//! Checks of the journal files against the rules, replayed with the board crate.

use harness_core::record::journal::{read_journal, GGF_FILE, JSONL_FILE};
use harness_core::record::{GameRecord, PerColor, Termination};
use othello_board::{Color, Move, Position};
use std::path::Path;

/// The records of `<out>/games.jsonl` in file order. Every non-blank line must be a record (the
/// journal reader forgives a torn last line; a finished run has none).
pub fn read_games(out: &Path) -> Vec<GameRecord> {
    let path = out.join(JSONL_FILE);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
    let records = read_journal(&path).unwrap_or_else(|e| panic!("{e:#}"));
    assert_eq!(
        records.len(),
        lines,
        "a line of {} is no record",
        path.display()
    );
    assert!(text.is_empty() || text.ends_with('\n'), "torn last line");
    records
}

/// The book moves of a record, as written.
pub fn book_moves(r: &GameRecord) -> Vec<&str> {
    r.moves
        .iter()
        .filter(|m| m.book)
        .map(|m| m.mv.as_str())
        .collect()
}

/// One move an engine chose (not a book move, not a forced pass), with the position it was
/// chosen in.
pub struct GameView {
    pub position: Position,
    pub mv: Move,
}

/// The moves `color` chose in a game: each with the position before it.
pub fn engine_moves(r: &GameRecord, color: Color) -> Vec<GameView> {
    let mut pos: Position = r.start.parse().expect("start position");
    let mut chosen = Vec::new();
    for m in &r.moves {
        let mv: Move = m.mv.parse().expect("move text");
        if !m.book && !mv.is_pass() && pos.side_to_move == color {
            chosen.push(GameView { position: pos, mv });
        }
        pos = pos.play(mv).expect("legal move");
    }
    chosen
}

/// [`check_record`] of a game that must have ended normally (no forfeit, no adjudication).
pub fn check_normal_record(r: &GameRecord) -> Position {
    let end = check_record(r);
    assert_eq!(
        r.termination,
        Termination::Normal,
        "game {}: {}",
        r.game,
        r.reason
    );
    end
}

/// Replay a record from its start position through its moves and check every fact it states
/// against the rules: book moves first, every move legal (a pass only when forced), the discs,
/// the result and the score (a normal end: finished position, final score with the empties to
/// the winner; a forfeit: the position where it happened, 64 discs against the forfeiting
/// side), and the per-colour totals of time and nodes. Returns the final position.
pub fn check_record(r: &GameRecord) -> Position {
    let ctx = format!("game {} ({} vs {})", r.game, r.black, r.white);
    let mut pos: Position = r
        .start
        .parse()
        .unwrap_or_else(|e| panic!("{ctx}: bad start `{}`: {e}", r.start));
    let mut in_book = true;
    let (mut nodes, mut time) = ([0u64; 2], [0u64; 2]);
    // Moves from here on are the adjudication's exact line.
    let solved_from = r
        .adjudication
        .as_ref()
        .and_then(|a| a.first_move)
        .unwrap_or(usize::MAX);
    for (i, m) in r.moves.iter().enumerate() {
        let ctx = format!("{ctx}, move {} `{}`", i + 1, m.mv);
        assert!(!pos.is_game_over(), "{ctx}: played after the end");
        if m.book {
            assert!(in_book, "{ctx}: a book move after an engine move");
        }
        in_book &= m.book;
        let mv: Move = m.mv.parse().unwrap_or_else(|e| panic!("{ctx}: {e}"));
        assert!(pos.is_legal(mv), "{ctx}: illegal in {pos}");
        if i >= solved_from {
            // The solver's perfect play: the exact value (mover's view) on its moves, nothing
            // else; it counts for no engine.
            assert_eq!(
                (m.book, m.nodes, m.time_ms, m.depth, m.score.is_some()),
                (false, None, None, None, !mv.is_pass()),
                "{ctx}: an adjudication move"
            );
            pos = pos.play(mv).expect("checked legal");
            continue;
        }
        let engine_chose = !m.book && !mv.is_pass();
        assert_eq!(
            (m.nodes.is_some(), m.time_ms.is_some(), m.score.is_some()),
            (engine_chose, engine_chose, engine_chose),
            "{ctx}: search info on a book move or forced pass, or none on an engine move"
        );
        // A depth only on an engine's move, and not always there: an engine that reports
        // depth 0 (a bridge to a program that does not say) is journaled without one.
        assert!(
            engine_chose || m.depth.is_none(),
            "{ctx}: a depth on a book move or forced pass"
        );
        assert!(m.depth.is_none_or(|d| d > 0), "{ctx}: depth 0 journaled");
        let side = pos.side_to_move.index();
        nodes[side] += m.nodes.unwrap_or(0);
        time[side] += m.time_ms.unwrap_or(0);
        pos = pos.play(mv).expect("checked legal");
    }
    let (black, white) = pos.disc_counts();
    assert_eq!(r.discs, PerColor { black, white }, "{ctx}: discs");
    let expected_result = match r.score.signum() {
        1 => "1-0",
        -1 => "0-1",
        _ => "1/2-1/2",
    };
    assert_eq!(
        r.result, expected_result,
        "{ctx}: result of score {}",
        r.score
    );
    match r.termination {
        Termination::Adjudicated => {
            let a = r
                .adjudication
                .as_ref()
                .expect("an adjudicated game's adjudication");
            assert!(pos.is_game_over(), "{ctx}: the solver's line ends the game");
            assert_eq!(
                Some(r.score),
                a.value,
                "{ctx}: the exact value is the score"
            );
            assert_eq!(r.score, pos.final_score_black(), "{ctx}: score");
            assert!(a.first_move.is_some() && a.failed.is_none(), "{ctx}: {a:?}");
        }
        Termination::Normal => {
            assert!(
                pos.is_game_over(),
                "{ctx}: ended normally in an unfinished {pos}"
            );
            assert_eq!(r.score, pos.final_score_black(), "{ctx}: score");
            assert_eq!(r.forfeit_by, None, "{ctx}");
            assert_eq!(r.forfeit_position, None, "{ctx}");
            assert!(r.reason.is_empty(), "{ctx}: reason `{}`", r.reason);
        }
        t => {
            let by = r
                .forfeit_by
                .unwrap_or_else(|| panic!("{ctx}: {t:?} without forfeit_by"));
            let expected = if by == Color::Black { -64 } else { 64 };
            assert_eq!(r.score, expected, "{ctx}: forfeit score");
            assert!(!pos.is_game_over(), "{ctx}: forfeit in a finished game");
            let at: Option<Position> = r.forfeit_position.as_ref().and_then(|p| p.parse().ok());
            assert_eq!(at, Some(pos), "{ctx}: forfeit position");
            assert!(!r.reason.is_empty(), "{ctx}: a forfeit without a reason");
        }
    }
    // A time forfeit, and only one, keeps the figures of the search it lost.
    assert_eq!(
        r.time_loss.is_some(),
        r.termination == Termination::TimeForfeit,
        "{ctx}: {:?} with {:?}",
        r.termination,
        r.time_loss
    );
    // The totals are the sums over the recorded moves; an illegal answer is not recorded as a
    // move, but the search that produced it counts for its side.
    for (side, (total_nodes, total_time)) in [
        (Color::Black, (r.nodes.black, r.time_ms.black)),
        (Color::White, (r.nodes.white, r.time_ms.white)),
    ] {
        let sums = (nodes[side.index()], time[side.index()]);
        if r.termination == Termination::IllegalMove && r.forfeit_by == Some(side) {
            assert!(
                total_nodes >= sums.0 && total_time >= sums.1,
                "{ctx}: {side} totals ({total_nodes} nodes, {total_time} ms) below its moves' {sums:?}"
            );
        } else {
            assert_eq!(
                (total_nodes, total_time),
                sums,
                "{ctx}: {side} totals (nodes, ms)"
            );
        }
    }
    pos
}

/// Check the records (any order) against the schedule of `pairs` rounds over `pairings`
/// (engine names, in the file's pairing order): exactly the scheduled games; in each round every
/// pairing gets one pair; game `2p` has the pairing's first engine as Black, game `2p + 1` the
/// colours swapped; both games of a pair and all pairings of a round play the same opening.
pub fn check_schedule(records: &[GameRecord], pairings: &[(&str, &str)], pairs: usize) {
    let mut games: Vec<&GameRecord> = records.iter().collect();
    games.sort_by_key(|r| r.game);
    let total = 2 * pairs * pairings.len();
    let indices: Vec<usize> = games.iter().map(|r| r.game).collect();
    assert_eq!(indices, (0..total).collect::<Vec<_>>(), "game numbers");
    for r in &games {
        let pair = r.game / 2;
        assert_eq!(r.pair, pair, "game {}: pair", r.game);
        let (a, b) = pairings[pair % pairings.len()];
        let expected = if r.game % 2 == 0 { (a, b) } else { (b, a) };
        assert_eq!(
            (r.black.as_str(), r.white.as_str()),
            expected,
            "game {}: colours",
            r.game
        );
    }
    for round in games.chunks(2 * pairings.len()) {
        for r in round {
            assert_eq!(
                r.opening, round[0].opening,
                "game {}: opening of its round",
                r.game
            );
            assert_eq!(
                r.start, round[0].start,
                "game {}: start of its round",
                r.game
            );
            assert_eq!(
                book_moves(r),
                book_moves(round[0]),
                "game {}: book moves of its round",
                r.game
            );
        }
    }
}

/// Check `<out>/games.ggf` against the journal records (in file order): one line per game, each
/// `(;GM[Othello]…;)` with the names, the result (Black's disc difference, `:t` for a time
/// forfeit, `:r` for other forfeits, `:s` for an adjudication), the start board and the same moves, colours alternating.
pub fn check_ggf(out: &Path, records: &[GameRecord]) {
    let path = out.join(GGF_FILE);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), records.len(), "one GGF line per game");
    for (line, r) in lines.iter().zip(records) {
        let ctx = format!("GGF of game {}: {line}", r.game);
        let body = line
            .strip_prefix("(;GM[Othello]")
            .and_then(|l| l.strip_suffix(";)"))
            .unwrap_or_else(|| panic!("{ctx}: not (;GM[Othello]…;)"));
        let props = properties(body).unwrap_or_else(|| panic!("{ctx}: malformed properties"));
        let one = |key: &str| {
            let v: Vec<&str> = props
                .iter()
                .filter(|(k, _)| *k == key)
                .map(|(_, v)| *v)
                .collect();
            assert_eq!(v.len(), 1, "{ctx}: {key}");
            v[0]
        };
        assert_eq!(one("PB"), r.black, "{ctx}");
        assert_eq!(one("PW"), r.white, "{ctx}");
        let (diff, flag) = one("RE").split_once(':').unwrap_or((one("RE"), ""));
        assert_eq!(
            diff.parse::<f64>().ok(),
            Some(f64::from(r.score)),
            "{ctx}: RE"
        );
        let expected_flag = match r.termination {
            Termination::Normal => "",
            Termination::Adjudicated => "s",
            Termination::TimeForfeit => "t",
            _ => "r",
        };
        assert_eq!(flag, expected_flag, "{ctx}: RE flag");
        let board = one("BO")
            .strip_prefix("8 ")
            .unwrap_or_else(|| panic!("{ctx}: BO"));
        let start: Position = board.parse().unwrap_or_else(|e| panic!("{ctx}: BO: {e}"));
        assert_eq!(Some(start), r.start_position(), "{ctx}: BO");
        let moves: Vec<(&str, &str)> = props
            .iter()
            .filter(|(k, _)| *k == "B" || *k == "W")
            .map(|(k, v)| (*k, v.split('/').next().unwrap_or_default()))
            .collect();
        assert_eq!(moves.len(), r.moves.len(), "{ctx}: move count");
        let mut color = start.side_to_move;
        for ((tag, mv), m) in moves.iter().zip(&r.moves) {
            let expected_tag = if color == Color::Black { "B" } else { "W" };
            assert_eq!(*tag, expected_tag, "{ctx}: colour of {mv}");
            assert!(mv.eq_ignore_ascii_case(&m.mv), "{ctx}: {mv} vs {}", m.mv);
            color = color.opposite();
        }
    }
}

/// `KEY[value]KEY[value]…` as pairs; `None` if it does not have that shape.
fn properties(mut text: &str) -> Option<Vec<(&str, &str)>> {
    let mut props = Vec::new();
    while !text.is_empty() {
        let open = text.find('[')?;
        let key = &text[..open];
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_uppercase()) {
            return None;
        }
        let close = open + text[open..].find(']')?;
        props.push((key, &text[open + 1..close]));
        text = &text[close + 1..];
    }
    Some(props)
}

/// The games of a journal as the merge compares them: number, players, moves, score.
pub fn games_of(out: &Path) -> Vec<(usize, String, String, Vec<String>, i32)> {
    let mut games = read_games(out);
    games.sort_by_key(|g| g.game);
    games
        .into_iter()
        .map(|g| {
            let moves = g.moves.iter().map(|m| m.mv.clone()).collect();
            (g.game, g.black, g.white, moves, g.score)
        })
        .collect()
}

/// The Elo interval of the first pairing in `out/report.json`, whose first engine must be `a`.
pub fn first_pairing_elo_interval(out: &Path, a: &str) -> (f64, f64) {
    let text = std::fs::read_to_string(out.join("report.json")).unwrap();
    let report: serde_json::Value = serde_json::from_str(&text).unwrap();
    let pairing = &report["pairings"][0];
    assert_eq!(pairing["a"], a, "{}", out.display());
    let bound = |b: &str| pairing["elo"][b].as_f64().unwrap();
    (bound("low"), bound("high"))
}
