//! End-to-end tests of the tournament harness: the real `harness` binary runs real engine
//! plugins (the Rust engines, the C example and the C fixtures of `tests/fixtures/`) in worker
//! processes and writes real journal files, which the tests replay with the board crate.
//!
//! One test binary, one module per topic; `support` builds the binaries once per process.
//! Run with `cargo test --release -p e2e-tests`.

mod support;

mod analysis;
mod bisect;
mod c_plugins;
mod checks;
mod ci_examples;
mod cli;
mod clock;
mod config_errors;
mod devloop;
mod documented_commands;
mod extend;
mod external;
mod fair_play;
mod fault_matrix;
mod faults;
mod frontend;
mod ledger;
mod ledger_postgres;
mod ledger_store;
mod measured;
mod merge;
mod openings;
mod output;
mod plugin_errors;
mod python_engine;
mod resume;
mod run_files;
mod sandbox;
mod sandbox_calls;
mod sandbox_contained;
mod scale_out;
mod sprt;
mod stats;
mod tournament;
mod tui;
mod tune;
mod views_agree;
mod web;
