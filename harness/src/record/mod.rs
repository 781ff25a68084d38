//! The ground floor: what a finished game is, and where it is kept.
//!
//! - [`journal`]: `games.jsonl`, the append-only results journal (one record per line), its
//!   writer and readers;
//! - [`ggf`]: the same games in GGF for Othello tools.

pub mod ggf;
pub mod journal;
