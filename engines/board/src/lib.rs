//! The rules of Othello on bitboards.
//!
//! A position is two `u64` masks: the discs of the side to move (`player`) and those of the
//! other side (`opponent`). Bit `i` is the square with index `i`, where a1 = 0, h1 = 7,
//! a8 = 56 and h8 = 63 (columns a-h left to right, rows 1-8 top to bottom). This crate is the
//! single source of truth for the rules: the harness validates every move with it and the
//! engines search with it.
//!
//! Layers, from hot to cold:
//! - [`Board`] (`board`): move generation, flips, play and pass, branch-free;
//! - [`kernel`]: the same move generation and flips for x86-64 SIMD (AVX2, AVX-512) and BMI2,
//!   chosen at run time ([`Kernel`], [`KernelId`]); perft runs on the fastest;
//! - [`Position`] (`position`): a board with the colour to move, board strings, disc counts;
//! - [`Move`] and [`Square`] (`notation`), transcripts (`transcript`), OBF lines (`obf`);
//! - [`Symmetry`] (`symmetry`) and [`perft`] (`perft`);
//! - `playout`: seeded random legal play, for tests and tools;
//! - WTHOR game databases (`wthor`): [`read_wtb`] parses a file's bytes,
//!   [`WthorGame::replay`] checks a game against the rules.
//!
//! No file I/O: every format is parsed from and written to memory (text or bytes); reading
//! files is the caller's (the harness, the trainer of the `strong` engine).
//!
//! Invariant kept by every constructor: `player & opponent == 0`. The only `unsafe` is in
//! `kernel` and `perft`: calls into `#[target_feature]` code, each behind the CPU check that
//! makes it sound.

mod board;
mod ggf;
mod history;
pub mod kernel;
mod notation;
mod obf;
mod perft;
pub mod playout;
mod position;
mod symmetry;
mod transcript;
mod wthor;

pub use board::{flips, moves, Board};
pub use ggf::{ggf_board, parse_ggf, write_ggf, GgfError};
pub use history::GameHistory;
pub use kernel::{Kernel, KernelId};
pub use notation::{Move, ParseMoveError, Square};
pub use obf::{ObfLine, ParseObfError};
pub use perft::{perft, perft_with, PassRule};
pub use position::{Color, IllegalMove, ParsePositionError, Position};
pub use symmetry::Symmetry;
pub use transcript::{parse_transcript, replay, write_transcript, ReplayError, TranscriptError};
pub use wthor::{read_wtb, WthorError, WthorGame, WthorHeader, WthorReplay};
