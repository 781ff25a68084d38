//! The results ledger: runs remembered across folders, commits and machines.
//!
//! A run's folder answers for one run; the ledger joins them. It keeps, per run, its id (the
//! output folder's `run-id` file, made once when the run first starts), when and where it ran,
//! the conditions its games were played under, its engines (name, plugin digest, options, and
//! the build metadata that says which commits claim them) and every game's result, keyed by
//! (run id, game number): adding a folder twice, a resumed run again, or shards and then their
//! merge never counts a game twice. Moves stay in the journal.
//!
//! - [`url`]: where a ledger is (`PATH`, `sqlite://PATH`, `postgres://…`), with any password
//!   kept out of what is printed;
//! - [`entry`]: what is recorded of a run, read from its folder alone;
//! - [`history`]: Elo over commits, one series per conditions class, from a joint rating of
//!   every comparable result;
//! - [`store`]: what every kind of ledger does ([`store::LedgerStore`]), opened by [`open`];
//! - [`sqlite`]: the embedded store (one file, no server), versioned by `PRAGMA user_version`
//!   with numbered migrations, in WAL mode with a busy timeout so that several processes add
//!   at once;
//! - [`postgres`]: a team's store on a PostgreSQL server, the same tables, versioned in its
//!   `meta` table and migrated under an advisory lock; [`pgpass`] reads PostgreSQL's password
//!   file so that no password need be in a URL.
//!
//! A file or a database that is not a ledger, a ledger written by a newer harness, or a server
//! that cannot be reached, is an error before anything is written, and the file (or database)
//! is left as it was.

pub mod entry;
pub mod history;
pub mod pgpass;
pub mod postgres;
pub mod sqlite;
pub mod store;
pub mod url;

pub use entry::RunEntry;
pub use store::LedgerStore;
pub use url::LedgerUrl;

/// The environment variable that names the ledger when `--ledger` does not.
pub const LEDGER_ENV: &str = "HARNESS_LEDGER";

/// What a command does with a ledger.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Reads it only (`ledger runs|stats|history|compare`, `serve --ledger`): a ledger that
    /// does not exist is an error, never made.
    Read,
    /// Records runs in it (`run`, `merge`, `ledger add`): made when missing, and checked to be
    /// writable before anything else happens.
    Write,
}

/// Open the ledger at `url`. To write: an SQLite file is made when missing, a PostgreSQL
/// database gets the ledger's tables when it has no table at all, and a ledger that cannot be
/// written (the file, its folder, the tables' privileges) is an error naming why. To read: a
/// ledger that is not there is an error, and nothing is made. Either way, something that is not
/// a ledger, a ledger of a newer harness, or a server that cannot be reached is an error, and
/// nothing is written.
pub fn open(url: &LedgerUrl, access: Access) -> anyhow::Result<Box<dyn LedgerStore>> {
    Ok(match url {
        LedgerUrl::Sqlite(path) => Box::new(sqlite::SqliteLedger::open(path, access)?),
        LedgerUrl::Postgres(text) => Box::new(postgres::PostgresLedger::open(text, access)?),
    })
}
