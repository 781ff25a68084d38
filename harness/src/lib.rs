//! The tournament harness, laid out as its data flows.
//!
//! config → schedule → games → results journal → statistics → reports and live view. Each
//! stage is a module; a module imports only from the stages below it (see
//! `docs/architecture.md`, which a test keeps true). The lower stages are the crate
//! `harness-core` (`record`, `search_terms`, `stats`, `events`, `plan`) and the ledger is
//! `harness-ledger`; this crate is the program (hosting, play, the views, the tools, the
//! browser and the command line). A stage's path is where its folder is: `harness_core::record`
//! is `harness/core/src/record`, `harness_ledger` is `harness/ledger/src`, and this crate's
//! stages are its own modules:
//!
//! | stage | what it holds |
//! | --- | --- |
//! | [`harness_core::record`] | the ground floor: a finished game ([`harness_core::record::GameRecord`]), the journal that stores it, GGF |
//! | [`harness_core::search_terms`] | what an engine is asked ([`harness_core::search_terms::SearchLimits`]) and what it reports ([`harness_core::search_terms::SearchInfo`]) |
//! | [`harness_core::stats`] | pure statistics over records: estimates, ratings, the sequential test, the verdict |
//! | [`harness_core::events`] | the live event stream of a run and the scheduling control a viewer may send back |
//! | [`harness_core::plan`] | the tournament file, the opening sets, the schedule |
//! | [`host`] | engine workers: plugin loading, the worker protocol, the coordinator's handle |
//! | [`play`] | the coordinator: games on workers, resume, the journal writer |
//! | [`show`] | what people read: tables, reports, the terminal UI |
//! | [`tools`] | one plugin outside a tournament: `solve`, `analyze`, `bench` (with its `positions`), `check`, the NBoard and GTP front-ends |
//! | [`harness_ledger`] | runs remembered across folders and commits: the results ledger (SQLite, PostgreSQL) |
//! | [`web`] | the browser view: runs and games served live over HTTP, read-only |
//! | [`cli`] | the command line, which wires the stages together |

pub mod cli;
pub mod host;
pub mod play;
pub mod show;
pub mod tools;
pub mod web;
