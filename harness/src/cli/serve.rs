//! `harness serve DIR…`: the browser view of run folders (finished, running, sharded) and,
//! with a ledger, of its history. Read-only; see the `web` stage.

use super::exit;
use super::output::say_raw;
use super::run_ledger::located;
use crate::web::feed::{self, Source};
use crate::web::server::{HistoryPage, ServedRun};
use crate::web::{WebServer, DEFAULT_ADDRESS};
use harness_ledger::Access;
use std::path::PathBuf;

/// Serve run folders in a browser: their standings, games and reports, followed live while
/// they play (a folder of shard folders shows the shards merged).
#[derive(clap::Args)]
pub struct Args {
    /// Output folders of `harness run` (or folders of shard-I-of-N folders).
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// The address to serve on (port 0: a free one); a non-loopback address needs --token.
    #[arg(long, value_name = "ADDR", default_value = DEFAULT_ADDRESS)]
    bind: String,
    /// The token a browser presents once (`?token=T`) to a server on a non-loopback address.
    /// On the command line it is visible to every process of the machine: prefer
    /// --token-file or the HARNESS_WEB_TOKEN variable.
    #[arg(long, value_name = "T")]
    token: Option<String>,
    /// A file whose first line is the token (else the HARNESS_WEB_TOKEN variable).
    #[arg(long, value_name = "FILE", conflicts_with = "token")]
    token_file: Option<PathBuf>,
    /// Also show this results ledger's history (Elo over commits): a file path, sqlite://PATH
    /// or postgres://… (else the HARNESS_LEDGER variable, when set).
    #[arg(long, value_name = "URL")]
    ledger: Option<String>,
}

/// The command: serves until stopped (Ctrl-C).
pub fn run(args: Args) -> anyhow::Result<i32> {
    let token = super::secrets::web_token(args.token, args.token_file.as_deref())?;
    let address = crate::web::address(&args.bind, token.as_deref())?;
    for dir in &args.dirs {
        // A run started after the server (a queued cluster job) is shown once it writes.
        if !dir.exists() {
            eprintln!(
                "{}: not there yet; shown once the run writes it",
                dir.display()
            );
        } else {
            anyhow::ensure!(dir.is_dir(), "{}: not a folder", dir.display());
        }
    }
    let history: Option<HistoryPage> = match located(args.ledger.as_deref())? {
        Some(url) => {
            // Checked now: a ledger that cannot be opened is an error before serving.
            drop(harness_ledger::open(&url, Access::Read)?);
            Some(Box::new(move |anchor: Option<&str>| {
                let mut ledger = harness_ledger::open(&url, Access::Read)?;
                super::ledger::ledger_history_page(ledger.as_mut(), anchor)
            }))
        }
        None => None,
    };
    let runs = args
        .dirs
        .iter()
        .map(|dir| ServedRun {
            dir: dir.clone(),
            feed: feed::start(Source::Folder(dir.clone())),
        })
        .collect();
    let guarded = token.is_some();
    let server = WebServer::start(address, token, runs, history)?;
    say_raw!("{}\n", server.url);
    crate::web::remind_of_the_token(&server, guarded);
    server.wait();
    Ok(exit::SUCCESS)
}
