//! What people read. Everything here reads finished records (and, for the live view, the event
//! stream); nothing here drives a game.
//!
//! - [`standings`]: the standings row (a pairing's statistics) that every view renders;
//! - [`table`]: the plain-text tables of `run` and `stats`; [`progress`]: the plain progress
//!   lines of a run;
//! - [`report`]: `report.json`, `report.md`, `report.html`;
//! - [`tui`]: the live terminal view and the replay;
//! - [`text`]: the wording every view shares (a test's decision).

pub mod progress;
pub mod report;
pub mod standings;
pub mod table;
pub mod text;
pub mod tui;
