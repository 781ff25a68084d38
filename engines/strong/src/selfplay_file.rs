//! The self-play game file, the training data `train selfplay` writes: one game per line,
//! `<random plies> <transcript> <final score, Black's view>`; lines starting with `#` are
//! comments. Read by `train fit` (the games and their scores) and by `strong-bench mpc-data`
//! and `end-mpc-data --positions selfplay` (the games alone). The search never reads it.

use othello_sdk::board::{parse_transcript, Move};
use std::path::Path;

/// One self-play game line: `<random plies> <transcript> <final score, Black's view>`.
pub struct SelfPlayGame {
    pub random_plies: usize,
    pub moves: Vec<Move>,
    pub score_black: i32,
}

/// Read a self-play file (comment lines start with `#`). Errors name the file and line.
pub fn read_selfplay(path: &Path) -> Result<Vec<SelfPlayGame>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut games = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |m: String| format!("{}:{}: {m}", path.display(), n + 1);
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [r, t, s] = fields[..] else {
            return Err(at("expected `<random plies> <transcript> <score>`".into()));
        };
        let random_plies = r.parse().map_err(|_| at(format!("bad ply count `{r}`")))?;
        let moves = parse_transcript(t).map_err(|e| at(e.to_string()))?;
        let score_black = s.parse().map_err(|_| at(format!("bad score `{s}`")))?;
        games.push(SelfPlayGame {
            random_plies,
            moves,
            score_black,
        });
    }
    Ok(games)
}
