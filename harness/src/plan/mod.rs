//! Before any game: what to play.
//!
//! - [`config`]: the tournament file, validated into a [`config::Tournament`];
//! - [`openings`]: opening files and the built-in XOT sets;
//! - [`schedule`]: the [`schedule::PairedSchedule`] of every game, in playing order.

pub mod config;
pub mod openings;
pub mod schedule;
