//! What people read. Everything here reads finished records (and, for the live view, the event
//! stream); nothing here drives a game.
//!
//! - [`table`]: the plain-text tables of `run` and `stats`; [`progress`]: the plain progress
//!   lines of a run;
//! - [`report`]: `report.json`, `report.md`, `report.html`;
//! - [`tui`]: the live terminal view and the replay.

pub mod progress;
pub mod report;
pub mod table;
pub mod tui;
