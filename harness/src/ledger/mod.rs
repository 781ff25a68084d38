//! The results ledger: runs remembered across folders, commits and machines.
//!
//! A run's folder answers for one run; the ledger joins them. It keeps, per run, its id (the
//! output folder's `run-id` file, made once when the run first starts), when and where it ran,
//! the conditions its games were played under, its engines (name, plugin digest, options, and
//! the build metadata that says which commits claim them) and every game's result, keyed by
//! (run id, game number): adding a folder twice, a resumed run again, or shards and then their
//! merge never counts a game twice. Moves stay in the journal.
//!
//! - [`url`]: where a ledger is (`PATH`, `sqlite://PATH`; `postgres://…` is recognised and
//!   refused until its store exists), with any password kept out of what is printed;
//! - [`entry`]: what is recorded of a run, read from its folder alone;
//! - [`history`]: Elo over commits, one series per conditions class, from a joint rating of
//!   every comparable result;
//! - [`sqlite`]: the embedded store (one file, no server), versioned by `PRAGMA user_version`
//!   with numbered migrations, in WAL mode with a busy timeout so that several processes add
//!   at once.
//!
//! A file that is not a ledger, or a ledger written by a newer harness, is an error before
//! anything is written, and the file is left byte for byte as it was.

pub mod entry;
pub mod history;
pub mod sqlite;
pub mod url;

pub use entry::RunEntry;
pub use url::LedgerUrl;

/// The environment variable that names the ledger when `--ledger` does not.
pub const LEDGER_ENV: &str = "HARNESS_LEDGER";
