//! Where the ledger is (`--ledger URL`, else `HARNESS_LEDGER`), and the ledger a run or a merge
//! records itself in when it ends.

use super::output::say;
use crate::ledger::sqlite::SqliteLedger;
use crate::ledger::{LedgerUrl, RunEntry, LEDGER_ENV};

/// The ledger `flag` names, else the one `HARNESS_LEDGER` names, else none.
pub(super) fn located(flag: Option<&str>) -> anyhow::Result<Option<LedgerUrl>> {
    let text = match flag {
        Some(t) => t.to_string(),
        None => match std::env::var(LEDGER_ENV) {
            Ok(t) if !t.trim().is_empty() => t,
            _ => return Ok(None),
        },
    };
    LedgerUrl::parse(&text)
        .map(Some)
        .map_err(|e| anyhow::anyhow!("--ledger: {e}"))
}

pub(super) fn open(url: &LedgerUrl) -> anyhow::Result<SqliteLedger> {
    match url {
        LedgerUrl::Sqlite(path) => SqliteLedger::open(path),
        LedgerUrl::Postgres(_) => anyhow::bail!(
            "{url}: this harness keeps ledgers in SQLite files only so far (sqlite://PATH)"
        ),
    }
}

/// The ledger a run or a merge records itself in (`--ledger`, else `HARNESS_LEDGER`): opened
/// before the first game, so that a file that is not a ledger stops the run before it plays.
pub(super) struct RunLedger {
    url: LedgerUrl,
    ledger: SqliteLedger,
}

impl RunLedger {
    /// The ledger of a run, if one is named. A shard does not write an SQLite ledger (its
    /// locks do not hold on the shared file systems shards run on): `merge` writes it, and
    /// this says so.
    pub(super) fn for_run(flag: Option<&str>, sharded: bool) -> anyhow::Result<Option<RunLedger>> {
        let Some(url) = located(flag)? else {
            return Ok(None);
        };
        if sharded && matches!(url, LedgerUrl::Sqlite(_)) {
            say!("ledger {url}: a shard does not write an SQLite ledger; `harness merge --ledger` records the merged run");
            return Ok(None);
        }
        let ledger = open(&url)?;
        Ok(Some(RunLedger { url, ledger }))
    }

    /// Record the run of folder `dir`. A failure is said loudly and never changes the run's
    /// outcome: the folder keeps everything, and `harness ledger add` catches up.
    pub(super) fn record(&mut self, dir: &std::path::Path) {
        let recorded = RunEntry::read(dir).and_then(|entry| {
            let added = self.ledger.add(&entry)?;
            Ok((entry, added))
        });
        match recorded {
            Ok((entry, added)) => say!(
                "ledger {}: run {} recorded ({} games, {added} new)",
                self.url,
                entry.id,
                entry.games.len()
            ),
            Err(e) => eprintln!(
                "warning: THE LEDGER WAS NOT WRITTEN ({}): {e:#}; the run's folder {} keeps everything: `harness ledger add {}` records it later",
                self.url,
                dir.display(),
                dir.display()
            ),
        }
    }
}
