//! What people read. Everything here reads finished records (and, for the live view, the event
//! stream); nothing here drives a game.
//!
//! - [`standings`]: the standings row (a pairing's statistics) that every view renders;
//! - [`table`]: the plain-text tables of `run` and `stats`; [`progress`]: the plain progress
//!   lines of a run;
//! - [`report`]: `report.json`, `report.md`, `report.html`;
//! - [`run_model`]: the run as every view shows it (the terminal view and the browser read it):
//!   games in progress and finished, standings, the test, progress, elapsed time;
//! - [`tui`]: the live terminal view and the replay;
//! - [`text`]: the wording and number formats every view shares (a test's decision, spans of
//!   time, large counts).

pub mod folder_run;
pub mod progress;
pub mod report;
pub mod run_model;
pub mod standings;
pub mod table;
pub mod text;
pub mod tui;

#[cfg(test)]
pub(crate) mod tests;
