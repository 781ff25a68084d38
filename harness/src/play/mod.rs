//! Playing a tournament: the coordinator ([`tournament`]) hands scheduled games ([`game`]) to
//! engine workers ([`pool`]) and appends every finished game to the journal; [`resume`] keeps
//! an output folder to one tournament and lets an interrupted run continue; [`affinity`] pins
//! each game's workers to cores of their own when asked.

pub mod affinity;
pub mod game;
pub mod pool;
pub mod resume;
pub mod tournament;
