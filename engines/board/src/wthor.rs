//! Parsing WTHOR game databases (`.wtb` files), the archive of the Fédération Française
//! d'Othello, from their bytes: the caller reads the files (this crate does no I/O; the
//! `strong` crate's trainer reads the database from disk).
//!
//! A `.wtb` file is little-endian binary: a 16-byte header followed by one 68-byte record per
//! game, so its length is exactly `16 + 68 * games`.
//!
//! Header: creation date (century, year within the century, month, day: one byte each), the
//! number of games (`u32`), a record count used only by the player and tournament files (`u16`,
//! 0 here), the year of the games (`u16`), the board size (8; old files write 0 for 8), a
//! solitaire flag, the number of empty squares at which the theoretical score was computed
//! (24 in the files we use), and a reserved byte.
//!
//! Game record: tournament index, Black's player index and White's player index (`u16` each,
//! indices into the `.trn` and `.jou` name files), Black's disc count at the end of the game
//! (empty squares count for the winner), Black's disc count with perfect play from the
//! theoretical depth on, then 60 move bytes. A move byte is `10 * row + col` with row and column
//! both 1..8 (11 = a1, 18 = h1, 81 = a8, 88 = h8); 0 means no move, and once a 0 appears the
//! rest of the bytes are 0 too. Passes are not recorded: replaying inserts them where the side to
//! move has no legal move, as [`replay`] does.

use crate::{replay, Move, Position, ReplayError, Square};

/// Length of the file header in bytes.
const HEADER_LEN: usize = 16;
/// Length of one game record in bytes.
const RECORD_LEN: usize = 68;
/// Move bytes per game record.
const MOVE_BYTES: usize = 60;

/// The parts of a `.wtb` header that matter for reading the games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WthorHeader {
    /// Number of game records in the file.
    pub games: u32,
    /// Year the games were played.
    pub year: u16,
    /// Board size as stored: 8, or 0 meaning 8 in old files.
    pub board_size: u8,
    /// Number of empty squares from which the theoretical score is a perfect-play score.
    pub theoretical_depth: u8,
}

impl WthorHeader {
    /// Empty squares from which the theoretical score is exact: the header's value, with 0
    /// (not recorded) read as 24, the value of every file of the database.
    pub fn theoretical_empties(&self) -> u32 {
        match self.theoretical_depth {
            0 => 24,
            d => u32::from(d),
        }
    }
}

/// One game record of a `.wtb` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WthorGame {
    /// Index into the tournament names (`.trn`).
    pub tournament: u16,
    /// Index into the player names (`.jou`) of the player with Black.
    pub black_player: u16,
    /// Index into the player names (`.jou`) of the player with White.
    pub white_player: u16,
    /// Black's discs at the end of the game, the empty squares counted for the winner.
    pub black_discs: u8,
    /// Black's discs with perfect play from the header's theoretical depth on.
    pub theoretical_black_discs: u8,
    /// The squares played, in order, without passes.
    pub moves: Vec<Move>,
}

/// A game replayed from the standard start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WthorReplay {
    /// Every move played, forced passes included.
    pub played: Vec<Move>,
    /// The position at the end of the game.
    pub final_position: Position,
}

/// A `.wtb` file image that does not parse, or a game that does not replay as recorded.
#[derive(Debug, thiserror::Error)]
pub enum WthorError {
    #[error("a WTHOR file has a {HEADER_LEN}-byte header, but this one has only {len} bytes")]
    TooShort { len: usize },
    #[error("board size {0} in the header; only 8 (or 0, meaning 8) is supported")]
    BoardSize(u8),
    #[error(
        "the header announces {games} games, so the file should be {expected} bytes \
         (16 + 68 per game), but it is {actual} bytes"
    )]
    WrongLength {
        games: u32,
        expected: u64,
        actual: usize,
    },
    #[error("game {game}: move {move_number} has byte {byte}, which is not a square (11..88, digits 1..8)")]
    BadMoveByte {
        game: usize,
        move_number: usize,
        byte: u8,
    },
    #[error(
        "game {game}: move {move_number} has byte {byte} after the end of the moves (a 0 byte)"
    )]
    MoveAfterEnd {
        game: usize,
        move_number: usize,
        byte: u8,
    },
    #[error("game {game}: a disc count of {value} in the score bytes (at most 64)")]
    BadScore { game: usize, value: u8 },
    #[error("the moves do not replay: {0}")]
    Replay(#[from] ReplayError),
    #[error("the game is not over after its {moves} moves ({empties} empty squares left)")]
    Unfinished { moves: usize, empties: u32 },
    #[error(
        "the recorded score is {recorded} black discs, but the replayed game ends with {replayed}"
    )]
    ScoreMismatch { recorded: u8, replayed: u8 },
}

/// The square of move byte `byte` (`10 * row + col`, both 1..8), or `None`.
fn decode_square(byte: u8) -> Option<Square> {
    let (row, col) = (byte / 10, byte % 10);
    if (1..=8).contains(&row) && (1..=8).contains(&col) {
        Square::at(u32::from(col) - 1, u32::from(row) - 1)
    } else {
        None
    }
}

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

/// Read a whole `.wtb` file held in memory: its header and every game, in file order.
///
/// Checks the board size, that the length matches the game count exactly, and that every move
/// byte is a square or a trailing 0. Does not check that the moves are legal: see
/// [`WthorGame::replay`].
pub fn read_wtb(bytes: &[u8]) -> Result<(WthorHeader, Vec<WthorGame>), WthorError> {
    if bytes.len() < HEADER_LEN {
        return Err(WthorError::TooShort { len: bytes.len() });
    }
    let header = WthorHeader {
        games: u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]),
        year: u16_at(bytes, 10),
        board_size: bytes[12],
        theoretical_depth: bytes[14],
    };
    if header.board_size != 8 && header.board_size != 0 {
        return Err(WthorError::BoardSize(header.board_size));
    }
    let expected = HEADER_LEN as u64 + RECORD_LEN as u64 * u64::from(header.games);
    if expected != bytes.len() as u64 {
        return Err(WthorError::WrongLength {
            games: header.games,
            expected,
            actual: bytes.len(),
        });
    }

    let games = bytes[HEADER_LEN..]
        .chunks_exact(RECORD_LEN)
        .enumerate()
        .map(|(game, record)| read_record(game, record))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((header, games))
}

/// Decode game record number `game` (0-based, for error messages).
fn read_record(game: usize, record: &[u8]) -> Result<WthorGame, WthorError> {
    let move_bytes = &record[RECORD_LEN - MOVE_BYTES..];
    let mut moves = Vec::with_capacity(MOVE_BYTES);
    let mut ended = false;
    for (i, &byte) in move_bytes.iter().enumerate() {
        let move_number = i + 1;
        if byte == 0 {
            ended = true;
        } else if ended {
            return Err(WthorError::MoveAfterEnd {
                game,
                move_number,
                byte,
            });
        } else {
            let sq = decode_square(byte).ok_or(WthorError::BadMoveByte {
                game,
                move_number,
                byte,
            })?;
            moves.push(Move::at(sq));
        }
    }
    for value in [record[6], record[7]] {
        if value > 64 {
            return Err(WthorError::BadScore { game, value });
        }
    }
    Ok(WthorGame {
        tournament: u16_at(record, 0),
        black_player: u16_at(record, 2),
        white_player: u16_at(record, 4),
        black_discs: record[6],
        theoretical_black_discs: record[7],
        moves,
    })
}

/// Black's discs at the end of a finished game, the empty squares going to the winner (half
/// each on a draw): the WTHOR scoring rule, which is the rules' final score (always even)
/// counted in Black's discs.
fn black_discs_at_end(position: &Position) -> u8 {
    (32 + position.final_score_black() / 2) as u8
}

impl WthorGame {
    /// Replay the moves from the standard start, inserting forced passes, and check that the
    /// game is over at the end and that its score is the recorded one.
    pub fn replay(&self) -> Result<WthorReplay, WthorError> {
        let (played, final_position) = replay(Position::START, &self.moves)?;
        if !final_position.is_game_over() {
            return Err(WthorError::Unfinished {
                moves: self.moves.len(),
                empties: final_position.empties(),
            });
        }
        let replayed = black_discs_at_end(&final_position);
        if replayed != self.black_discs {
            return Err(WthorError::ScoreMismatch {
                recorded: self.black_discs,
                replayed,
            });
        }
        Ok(WthorReplay {
            played,
            final_position,
        })
    }

    /// The recorded result as a disc difference from Black's view (the empties to the winner):
    /// `2 * black_discs - 64`.
    pub fn final_diff_black(&self) -> i32 {
        2 * i32::from(self.black_discs) - 64
    }

    /// The theoretical score as a disc difference from Black's view:
    /// `2 * theoretical_black_discs - 64`.
    pub fn theoretical_diff_black(&self) -> i32 {
        2 * i32::from(self.theoretical_black_discs) - 64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::playout::{random_move, SplitMix64};

    /// The move byte of a square move.
    fn encode_move(mv: Move) -> u8 {
        let sq = mv.square().expect("passes are not stored");
        (10 * (sq.row() + 1) + sq.col() + 1) as u8
    }

    /// A `.wtb` file image of `games` (header year 2024, depth 24).
    fn encode_wtb(games: &[WthorGame]) -> Vec<u8> {
        let mut out = vec![20, 24, 1, 2];
        out.extend_from_slice(&(games.len() as u32).to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&2024u16.to_le_bytes());
        out.extend_from_slice(&[8, 0, 24, 0]);
        for g in games {
            out.extend_from_slice(&g.tournament.to_le_bytes());
            out.extend_from_slice(&g.black_player.to_le_bytes());
            out.extend_from_slice(&g.white_player.to_le_bytes());
            out.push(g.black_discs);
            out.push(g.theoretical_black_discs);
            let mut moves = [0u8; MOVE_BYTES];
            for (slot, &mv) in moves.iter_mut().zip(&g.moves) {
                *slot = encode_move(mv);
            }
            out.extend_from_slice(&moves);
        }
        out
    }

    /// A random legal game to its end, its passes dropped and its score computed from the final
    /// position.
    fn random_wthor_game(seed: u64) -> (WthorGame, usize) {
        let mut rng = SplitMix64(seed);
        let mut pos = Position::START;
        let mut played = Vec::new();
        while !pos.is_game_over() {
            let mv = random_move(&pos, &mut rng);
            pos = pos.play(mv).unwrap();
            played.push(mv);
        }
        let passes = played.iter().filter(|m| m.is_pass()).count();
        let black_discs = (32 + pos.final_score_black() / 2) as u8;
        let game = WthorGame {
            tournament: seed as u16,
            black_player: 300,
            white_player: 1234,
            black_discs,
            theoretical_black_discs: black_discs,
            moves: played.into_iter().filter(|m| !m.is_pass()).collect(),
        };
        (game, passes)
    }

    #[test]
    fn decodes_move_bytes() {
        assert_eq!(decode_square(11).unwrap().to_string(), "a1");
        assert_eq!(decode_square(18).unwrap().to_string(), "h1");
        assert_eq!(decode_square(81).unwrap().to_string(), "a8");
        assert_eq!(decode_square(88).unwrap().to_string(), "h8");
        assert_eq!(decode_square(56).unwrap().to_string(), "f5");
        for bad in [1, 9, 10, 19, 20, 89, 90, 99, 255] {
            assert_eq!(decode_square(bad), None, "{bad}");
        }
        for i in 0..64 {
            let mv = Move::at(Square::new(i).unwrap());
            assert_eq!(decode_square(encode_move(mv)).map(Move::at), Some(mv));
        }
    }

    #[test]
    fn synthetic_games_round_trip_and_replay() {
        let games: Vec<_> = (0..50).map(random_wthor_game).collect();
        // The seeds give some games with passes and some that end before the board is full.
        assert!(games.iter().any(|(_, passes)| *passes > 0));
        assert!(games.iter().any(|(g, _)| g.moves.len() < 60));
        let games: Vec<WthorGame> = games.into_iter().map(|(g, _)| g).collect();

        let bytes = encode_wtb(&games);
        assert_eq!(bytes.len(), 16 + 68 * games.len());
        let (header, read) = read_wtb(&bytes).unwrap();
        assert_eq!(
            header,
            WthorHeader {
                games: 50,
                year: 2024,
                board_size: 8,
                theoretical_depth: 24
            }
        );
        assert_eq!(read, games);
        for g in &read {
            let r = g.replay().unwrap();
            assert!(r.final_position.is_game_over());
            assert_eq!(
                r.played.iter().filter(|m| !m.is_pass()).count(),
                g.moves.len()
            );
            assert_eq!(g.final_diff_black(), r.final_position.final_score_black());
            assert_eq!(g.theoretical_diff_black(), g.final_diff_black());
        }
    }

    #[test]
    fn empty_file_and_old_board_size() {
        let mut bytes = encode_wtb(&[]);
        bytes[12] = 0;
        let (header, games) = read_wtb(&bytes).unwrap();
        assert_eq!(header.board_size, 0);
        assert!(games.is_empty());
        bytes[12] = 10;
        assert!(matches!(read_wtb(&bytes), Err(WthorError::BoardSize(10))));
        assert!(matches!(
            read_wtb(&bytes[..15]),
            Err(WthorError::TooShort { len: 15 })
        ));
    }

    #[test]
    fn rejects_wrong_length() {
        let games = [random_wthor_game(1).0, random_wthor_game(2).0];
        let bytes = encode_wtb(&games);
        for actual in [bytes.len() - 1, bytes.len() - 68] {
            let err = read_wtb(&bytes[..actual]).unwrap_err();
            assert!(
                matches!(err, WthorError::WrongLength { games: 2, expected: 152, actual: a } if a == actual),
                "{err}"
            );
            let text = err.to_string();
            assert!(
                text.contains("152") && text.contains(&actual.to_string()),
                "{text}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(
            read_wtb(&longer),
            Err(WthorError::WrongLength { actual: 153, .. })
        ));
    }

    #[test]
    fn rejects_bad_move_bytes() {
        let games = [random_wthor_game(3).0, random_wthor_game(4).0];
        let second_moves = 16 + 68 + 8;
        for bad in [19u8, 90, 10, 9] {
            let mut bytes = encode_wtb(&games);
            bytes[second_moves + 4] = bad;
            let err = read_wtb(&bytes).unwrap_err();
            assert!(
                matches!(err, WthorError::BadMoveByte { game: 1, move_number: 5, byte } if byte == bad),
                "{err}"
            );
            assert!(err.to_string().starts_with("game 1: move 5 "), "{err}");
        }
    }

    #[test]
    fn rejects_scores_above_64_discs() {
        let games = [random_wthor_game(3).0, random_wthor_game(4).0];
        for (offset, value) in [(6, 65u8), (7, 200)] {
            let mut bytes = encode_wtb(&games);
            bytes[16 + 68 + offset] = value;
            let err = read_wtb(&bytes).unwrap_err();
            assert!(
                matches!(err, WthorError::BadScore { game: 1, value: v } if v == value),
                "{err}"
            );
        }
    }

    #[test]
    fn rejects_moves_after_the_end() {
        let mut game = random_wthor_game(5).0;
        game.moves.truncate(20);
        let mut bytes = encode_wtb(&[game]);
        bytes[16 + 8 + 30] = 44;
        let err = read_wtb(&bytes).unwrap_err();
        assert!(
            matches!(
                err,
                WthorError::MoveAfterEnd {
                    game: 0,
                    move_number: 31,
                    byte: 44
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn replay_errors() {
        let good = random_wthor_game(6).0;
        let (_, games) = read_wtb(&encode_wtb(std::slice::from_ref(&good))).unwrap();
        assert_eq!(games[0], good);

        // A well-formed square that is not legal: a1 as the first move.
        let mut illegal = good.clone();
        illegal.moves[0] = Move::at(Square::at(0, 0).unwrap());
        let err = illegal.replay().unwrap_err();
        assert!(
            matches!(
                err,
                WthorError::Replay(ReplayError::Illegal { index: 1, mv }) if mv == illegal.moves[0]
            ),
            "{err}"
        );
        assert!(err.to_string().contains("move 1 (a1) is illegal"), "{err}");

        let mut wrong_score = good.clone();
        wrong_score.black_discs = good.black_discs.wrapping_add(2);
        assert!(matches!(
            wrong_score.replay(),
            Err(WthorError::ScoreMismatch { recorded, replayed })
                if recorded == wrong_score.black_discs && replayed == good.black_discs
        ));

        let mut unfinished = good.clone();
        unfinished.moves.truncate(30);
        assert!(matches!(
            unfinished.replay(),
            Err(WthorError::Unfinished {
                moves: 30,
                empties: 30
            })
        ));

        // The known 9-move wipe-out, then a move after the game is over.
        let wipe_out = crate::parse_transcript("e6f4e3f6g5d6e7f5c5").unwrap();
        let mut short = WthorGame {
            moves: wipe_out,
            black_discs: 64,
            ..good.clone()
        };
        assert_eq!(short.replay().unwrap().played.len(), 9);
        assert_eq!(short.final_diff_black(), 64);
        short.moves.push(Move::at(Square::at(0, 0).unwrap()));
        assert!(matches!(
            short.replay(),
            Err(WthorError::Replay(ReplayError::AfterGameOver {
                index: 10,
                ..
            }))
        ));
    }

    #[test]
    fn draw_score_gives_half_the_empties_to_each() {
        let (b, w) = (0b1111u64, 0b1111_0000u64);
        let pos = Position::from_colors(b, w, crate::Color::Black).unwrap();
        assert_eq!(black_discs_at_end(&pos), 32);
        let pos = Position::from_colors(0b111, 0b1000, crate::Color::White).unwrap();
        assert_eq!(black_discs_at_end(&pos), 63);
        let pos = Position::from_colors(0b1, 0b110, crate::Color::Black).unwrap();
        assert_eq!(black_discs_at_end(&pos), 1);
    }
}
