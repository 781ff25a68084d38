//! Playing a tournament: the coordinator ([`tournament`]) hands scheduled games ([`game`]) to
//! engine workers and appends every finished game to the journal.

pub mod game;
pub mod tournament;
