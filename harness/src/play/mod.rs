//! Playing a tournament: the coordinator ([`tournament`]) hands scheduled games ([`game`]) to
//! engine workers ([`pool`]) and appends every finished game to the journal; [`resume`] keeps
//! an output folder to one tournament and lets an interrupted run continue.

pub mod game;
pub mod pool;
pub mod resume;
pub mod tournament;
