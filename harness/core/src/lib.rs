//! The harness's lower stages, which every other part reads and none of which plays a game:
//!
//! | stage | what it holds |
//! | --- | --- |
//! | [`record`] | the ground floor: a finished game ([`record::GameRecord`]), the journal that stores it, GGF, the run's files |
//! | [`search_terms`] | what an engine is asked ([`search_terms::SearchLimits`]) and what it reports ([`search_terms::SearchInfo`]) |
//! | [`stats`] | pure statistics over records: estimates, ratings, the sequential test, the verdict |
//! | [`events`] | the live event stream of a run and the scheduling control a viewer may send back |
//! | [`plan`] | the tournament file, the opening sets, the schedule, the tournament a run folder pins |
//!
//! A crate of its own so that what reads results (the ledger, the end-to-end tests, a user's
//! script) builds without the program's hosting, terminal, browser and database code, and so
//! that the crate graph keeps these stages from importing the ones above them. The layers
//! inside it are those of `docs/architecture.md` (record, search terms; stats; events, plan),
//! which the tidy test checks.

pub mod events;
pub mod plan;
pub mod record;
pub mod search_terms;
pub mod stats;
