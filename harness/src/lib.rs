//! The tournament harness.
//!
//! Data flows one way: the tournament file (`config`) and the opening set (`openings`) make a
//! schedule of game pairs (`schedule`); the coordinator (`tournament`) plays the games
//! (`game`) on engine workers (`host`); each finished game is appended to the results journal
//! (`journal`, `ggf`); statistics (`stats`) and the printed tables (`table`) are computed from
//! the journal's records only.

pub mod config;
pub mod events;
pub mod frontend;
pub mod game;
pub mod ggf;
pub mod host;
pub mod journal;
pub mod openings;
pub mod report;
pub mod schedule;
pub mod solve;
pub mod sprt;
pub mod sprt_sim;
pub mod stats;
pub mod table;
pub mod tournament;
pub mod tui;
