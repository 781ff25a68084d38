//! Where `nps` and the Multi-ProbCut fits draw their positions from: random games (a
//! reproducible xorshift generator) or the committed depth-10 self-play games.

use clap::ValueEnum;
use strong::selfplay_file;

/// Where the Multi-ProbCut fits draw their positions from (`--positions`).
#[derive(Clone, Copy, ValueEnum)]
pub enum Positions {
    /// Random games (uniform random moves) stopped at the wanted number of empties.
    Random,
    /// The committed depth-10 self-play games, after their random openings.
    Selfplay,
}

/// A xorshift generator for the data commands (reproducible runs).
pub fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// A position after a random game stopped at `target` empties, with a move to play; `None`
/// when the game ended before.
pub fn random_position(
    next: &mut impl FnMut() -> u64,
    target: u32,
) -> Option<othello_sdk::board::Board> {
    let mut b = othello_sdk::board::Board::START;
    while b.empties() > target {
        let m = b.moves();
        if m == 0 {
            if b.pass().moves() == 0 {
                return None;
            }
            b = b.pass();
            continue;
        }
        let mut mm = m;
        for _ in 0..(next() % m.count_ones() as u64) {
            mm &= mm - 1;
        }
        let sq = mm.trailing_zeros();
        b = b.play_with_flips(sq, b.flips(sq));
    }
    (b.moves() != 0).then_some(b)
}

/// Where the Multi-ProbCut fits draw their positions from.
pub enum PositionSource {
    /// Random games (uniform random moves) stopped at the wanted number of empties.
    Random,
    /// The committed self-play games of the trained engine (`data/training/selfplay-d10-*`),
    /// after their random opening plies: the positions the engine meets in play.
    SelfPlay(Vec<selfplay_file::SelfPlayGame>),
}

impl PositionSource {
    /// The source `--positions` names.
    pub fn new(positions: Positions) -> PositionSource {
        match positions {
            Positions::Random => PositionSource::Random,
            Positions::Selfplay => PositionSource::SelfPlay(selfplay_games()),
        }
    }

    /// A position with `target` empties and a move to play, or `None` (draw again).
    pub fn draw(
        &self,
        next: &mut impl FnMut() -> u64,
        target: u32,
    ) -> Option<othello_sdk::board::Board> {
        use othello_sdk::board::Position;
        match self {
            PositionSource::Random => random_position(next, target),
            PositionSource::SelfPlay(games) => {
                let game = &games[(next() % games.len() as u64) as usize];
                let mut p = Position::START;
                for (ply, &mv) in game.moves.iter().enumerate() {
                    if p.empties() == target {
                        // Positions of the random opening are not the engine's own.
                        return (ply >= game.random_plies && !p.must_pass()).then_some(p.board);
                    }
                    p = p.play(mv).ok()?;
                }
                None
            }
        }
    }
}

/// Every game of the committed depth-10 self-play files (`data/training/selfplay-d10-*`).
fn selfplay_games() -> Vec<selfplay_file::SelfPlayGame> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/data/training");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("the training folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("selfplay-d10-"))
        })
        .collect();
    files.sort();
    let mut games = Vec::new();
    for f in files {
        games.extend(selfplay_file::read_selfplay(&f).unwrap_or_else(|e| {
            eprintln!("strong-bench: {e}");
            std::process::exit(1)
        }));
    }
    games
}
