//! Before any game: what to play.
//!
//! - [`config`]: the tournament file, validated into a [`config::Tournament`];
//! - [`openings`]: opening files and the built-in XOT sets;
//! - [`schedule`]: the [`schedule::PairedSchedule`] of every game, in playing order;
//! - [`recorded`]: the tournament and schedule a run folder's `tournament.json` pins.

pub mod config;
pub mod openings;
pub mod recorded;
pub mod schedule;
