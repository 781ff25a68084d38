//! `analysis.jsonl`: the exact-solver analysis of a run's games (`harness analyze`), one line
//! per game, and the cache of solved positions it is computed from.
//!
//! Key names are stable (users' scripts read them): `game`, `from_empties`, `value`, `moves`
//! (`square`, `color`, `empties`, `value`, `loss`, and `solver` on the moves of an
//! adjudication's exact line) and `decisive`. Values are exact final disc
//! differences from Black's view; a loss is in discs from the mover's view, 0 for a best move.

use serde::{Deserialize, Serialize};
use std::path::Path;

/// The analysis file in an output folder.
pub const ANALYSIS_FILE: &str = "analysis.jsonl";

/// One analysed move (passes included, as `"square": "pass"` with loss 0).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnalysedMove {
    /// `e6`, or `pass`.
    pub square: String,
    /// `black` or `white`: who moved.
    pub color: String,
    /// Empty squares before the move.
    pub empties: u32,
    /// The exact value before the move, Black's view.
    pub value: i32,
    /// Discs the move lost against the best one, from the mover's view (0: a best move).
    pub loss: u32,
    /// Played by the adjudication's exact solver, not by an engine: scored like any move (a
    /// best move, loss 0), but left out of every engine's figures. Absent when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub solver: bool,
}

/// One game's analysis, from its first position with `from_empties` or fewer empties.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnalysedGame {
    /// The journal's game number (from 0).
    pub game: usize,
    pub from_empties: u32,
    /// The exact value at the first analysed position, Black's view; null for a game that
    /// could not be analysed (`error` says why).
    pub value: Option<i32>,
    pub moves: Vec<AnalysedMove>,
    /// The index in `moves` of the first move after which its mover's theoretical result got
    /// worse (win to draw or loss, draw to loss); null when none did.
    pub decisive: Option<usize>,
    /// The exact value where the line ends, Black's view: the final score of a game played
    /// to the end (or adjudicated), the value of the position of a forfeit; null for a game
    /// that could not be analysed.
    pub final_value: Option<i32>,
    /// The engines, and the game's recorded result (Black's disc difference; ±64 for a
    /// forfeit).
    pub black: String,
    pub white: String,
    pub score: i32,
    /// Why the game could not be analysed (a position the solver failed on, a game that never
    /// reached `from_empties`); the other fields are then empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The analysed games of a folder (none when it has no analysis). A torn last line is left
/// out, as every reader of the journal does.
pub fn read_analysis(folder: &Path) -> anyhow::Result<Vec<AnalysedGame>> {
    use anyhow::Context;
    let path = folder.join(ANALYSIS_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut games = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str(line) {
            Ok(g) => games.push(g),
            Err(_) if i + 1 == lines.len() => break,
            Err(e) => anyhow::bail!("{}:{}: not an analysed game: {e}", path.display(), i + 1),
        }
    }
    Ok(games)
}
