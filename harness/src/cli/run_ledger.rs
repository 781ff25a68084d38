//! The ledger of a run or a merge: where it is (`--ledger URL`, else `HARNESS_LEDGER`), the
//! follower that records the games as the journal grows, and the writer that records the run
//! when it ends ([`RunLedger`]).

use super::output::say;
use harness_core::record::journal::JSONL_FILE;
use harness_core::record::merge::JournalFollower;
use harness_ledger::entry::GameEntry;
use harness_ledger::{Access, LedgerStore, LedgerUrl, RunEntry, LEDGER_ENV};
use std::path::Path;

/// The ledger `flag` names, else the one `HARNESS_LEDGER` names, else none.
pub(super) fn located(flag: Option<&str>) -> anyhow::Result<Option<LedgerUrl>> {
    let text = match (flag, std::env::var(LEDGER_ENV)) {
        (Some(t), _) => t.to_string(),
        (None, Ok(t)) if !t.trim().is_empty() => t,
        (None, _) => return Ok(None),
    };
    let url = LedgerUrl::parse(&text).map_err(|e| anyhow::anyhow!("--ledger: {e}"))?;
    if flag.is_some() && url.has_password() {
        super::secrets::warn_of_a_secret_on_the_command_line(
            "--ledger",
            "a password in a URL",
            "HARNESS_LEDGER, or PostgreSQL's password file (PGPASSFILE)",
        );
    }
    Ok(Some(url))
}

/// How a run or a merge treats its ledger, beside `--ledger`.
#[derive(clap::Args, Clone, Debug, Default)]
pub(super) struct LedgerChoice {
    /// Exit 2 (after the reports are written, the games kept in the folder) when the ledger
    /// could not be written; without a ledger named, an error before anything is played.
    #[arg(long, conflicts_with = "no_ledger")]
    pub ledger_required: bool,
    /// Record nothing in a ledger this time, whatever HARNESS_LEDGER says.
    #[arg(long, conflicts_with = "ledger")]
    pub no_ledger: bool,
}

/// The ledger a run or a merge records itself in (`--ledger`, else `HARNESS_LEDGER`): opened
/// before the first game, so that a file that is not a ledger, or a server that cannot be
/// reached, stops the run before it plays. A PostgreSQL ledger also takes the run's games as
/// they finish ([`RunLedger::follow`]), so that a team sees a run (or each shard of one) while
/// it plays.
pub(super) struct RunLedger {
    url: LedgerUrl,
    /// The open store; `None` while a follower holds it, or after a write failed (it is opened
    /// again for the next write).
    ledger: Option<Box<dyn LedgerStore>>,
    follower: Option<Follower>,
}

/// A thread that adds a run's new games to the ledger as its journal grows.
struct Follower {
    stop: std::sync::mpsc::Sender<()>,
    /// The store, and how many games the follower added while the run played.
    thread: std::thread::JoinHandle<(Option<Box<dyn LedgerStore>>, usize)>,
}

/// How often a follower looks at the journal.
const FOLLOW_INTERVAL: std::time::Duration = std::time::Duration::from_secs(2);

impl RunLedger {
    /// The ledger of a run, if one is named. A shard does not write an SQLite ledger (its
    /// locks do not hold on the shared file systems shards run on): `merge` writes it, and
    /// this says so.
    /// `--ledger-required` without a ledger named is an error; `--no-ledger` gives none.
    pub(super) fn for_run(
        flag: Option<&str>,
        choice: &LedgerChoice,
        sharded: bool,
    ) -> anyhow::Result<Option<RunLedger>> {
        if choice.no_ledger {
            return Ok(None);
        }
        let Some(url) = located(flag)? else {
            anyhow::ensure!(
                !choice.ledger_required,
                "--ledger-required, but no ledger is named: give --ledger URL or set {LEDGER_ENV}"
            );
            return Ok(None);
        };
        if sharded && matches!(url, LedgerUrl::Sqlite(_)) {
            say!("ledger {url}: a shard does not write an SQLite ledger; `harness merge --ledger` records the merged run");
            return Ok(None);
        }
        let ledger = Some(harness_ledger::open(&url, Access::Write)?);
        Ok(Some(RunLedger {
            url,
            ledger,
            follower: None,
        }))
    }

    /// For a PostgreSQL ledger, add the games of the run in `dir` as they are journaled,
    /// every [`FOLLOW_INTERVAL`], until [`RunLedger::record`]. A failed write is said once and
    /// tried again at the next look; the run goes on either way.
    pub(super) fn follow(&mut self, dir: &Path) {
        if !matches!(self.url, LedgerUrl::Postgres(_)) || self.follower.is_some() {
            return;
        }
        let (stop, stopped) = std::sync::mpsc::channel();
        let (url, dir, store) = (self.url.clone(), dir.to_path_buf(), self.ledger.take());
        let thread = std::thread::spawn(move || follow_journal(&url, &dir, store, &stopped));
        self.follower = Some(Follower { stop, thread });
    }

    /// Record the run of folder `dir`; whether it was recorded. A failure is said loudly and
    /// never changes the run's outcome (only `--ledger-required` makes it the exit code): the
    /// folder keeps everything, and `harness ledger add` catches up.
    pub(super) fn record(&mut self, dir: &Path) -> bool {
        let mut followed = 0;
        if let Some(f) = self.follower.take() {
            let _ = f.stop.send(());
            (self.ledger, followed) = f.thread.join().unwrap_or((None, 0));
        }
        let url = &self.url;
        let store = &mut self.ledger;
        let recorded = RunEntry::read(dir).and_then(|entry| {
            let ledger = match store {
                Some(l) => l,
                None => store.insert(harness_ledger::open(url, Access::Write)?),
            };
            let added = ledger.add(&entry)?;
            Ok((entry, added))
        });
        match recorded {
            Ok((entry, added)) => {
                // Games the follower added while the run played are not new now.
                let how = match (followed, added) {
                    (0, added) => format!("{added} new"),
                    (followed, added) => {
                        format!("{followed} added while it played, {added} at its end")
                    }
                };
                say!(
                    "ledger {}: run {} recorded ({} games, {how})",
                    self.url,
                    entry.id,
                    entry.games.len()
                );
                true
            }
            Err(e) => {
                eprintln!(
                    "warning: THE LEDGER WAS NOT WRITTEN ({}): {e:#}; the run's folder {} keeps everything: `harness ledger add {}` records it later",
                    self.url,
                    dir.display(),
                    dir.display()
                );
                false
            }
        }
    }

    /// Record the run of `dir` ([`RunLedger::record`]); under `--ledger-required`, a failure
    /// turns `code` into `error_code`, said on stderr.
    pub(super) fn record_or_fail(
        ledger: Option<&mut RunLedger>,
        dir: &Path,
        choice: &LedgerChoice,
        code: i32,
        error_code: i32,
    ) -> i32 {
        let Some(ledger) = ledger else {
            return code;
        };
        if ledger.record(dir) || !choice.ledger_required {
            return code;
        }
        eprintln!(
            "error: --ledger-required: the run was not recorded in the ledger (above), so it exits {error_code} in place of {code}; its folder {} keeps every game",
            dir.display()
        );
        error_code
    }
}

/// The follower's loop: at each look, the games journaled since the last one (read from where
/// the last look stopped, never the whole journal again) are added, with the run's row read
/// once from its folder; games not yet added wait for the next look, and the store is
/// reopened after a failure. Returns the store, if open, when told to stop.
fn follow_journal(
    url: &LedgerUrl,
    dir: &Path,
    mut store: Option<Box<dyn LedgerStore>>,
    stopped: &std::sync::mpsc::Receiver<()>,
) -> (Option<Box<dyn LedgerStore>>, usize) {
    let mut journal = JournalFollower::new(dir.join(JSONL_FILE));
    let mut followed = 0;
    let mut run: Option<RunEntry> = None;
    let mut pending = Vec::new();
    let mut warned = false;
    while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
        stopped.recv_timeout(FOLLOW_INTERVAL)
    {
        if let Ok(polled) = journal.poll() {
            pending.extend(polled.records.iter().map(GameEntry::of));
        }
        if pending.is_empty() {
            continue;
        }
        let added = (|| {
            let mut entry = match &run {
                Some(r) => r.clone(),
                None => run.insert(RunEntry::read(dir)?).clone(),
            };
            let ledger = match &mut store {
                Some(l) => l,
                None => store.insert(harness_ledger::open(url, Access::Write)?),
            };
            entry.games = std::mem::take(&mut pending);
            let result = ledger.add(&entry);
            match &result {
                Ok(added) => followed += added,
                Err(_) => pending = entry.games,
            }
            result
        })();
        if let Err(e) = added {
            store = None;
            if !std::mem::replace(&mut warned, true) {
                eprintln!("warning: ledger {url}: cannot add the run's games as they finish ({e:#}); trying again, and the run goes on");
            }
        }
    }
    (store, followed)
}
