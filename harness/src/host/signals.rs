//! The signals that stop a run or a watch, in one place: SIGINT (Ctrl-C) and SIGTERM (a batch
//! system's stop, `kill`) on Unix. Other systems get Ctrl-C through tokio's portable handler
//! until their own (Windows' console close) is written.

use anyhow::Context;
use std::time::Duration;

/// The stop signals, handled from the moment this is made (made inside a tokio runtime): a
/// signal that arrives before anyone waits is kept, not the default (death).
pub struct StopSignals {
    #[cfg(unix)]
    sigint: tokio::signal::unix::Signal,
    #[cfg(unix)]
    sigterm: tokio::signal::unix::Signal,
}

impl StopSignals {
    /// Handle SIGINT and SIGTERM from now on. Call inside a runtime (`Runtime::enter`).
    pub fn install() -> anyhow::Result<StopSignals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            Ok(StopSignals {
                sigint: signal(SignalKind::interrupt()).context("cannot handle SIGINT")?,
                sigterm: signal(SignalKind::terminate()).context("cannot handle SIGTERM")?,
            })
        }
        #[cfg(not(unix))]
        {
            Ok(StopSignals {})
        }
    }

    /// The next stop signal, by name (`SIGINT`, `SIGTERM`; `Ctrl-C` elsewhere).
    pub async fn next(&mut self) -> &'static str {
        #[cfg(unix)]
        {
            tokio::select! {
                _ = self.sigint.recv() => "SIGINT",
                _ = self.sigterm.recv() => "SIGTERM",
            }
        }
        #[cfg(not(unix))]
        {
            match tokio::signal::ctrl_c().await {
                Ok(()) => "Ctrl-C",
                Err(_) => std::future::pending().await,
            }
        }
    }
}

/// A watcher's wait between two looks at the shards' files (`merge --watch`, `tune --aggregate
/// --watch`), on a small tokio runtime: the next look comes after the interval, or
/// SIGINT/SIGTERM ends the watch at once. The files are looked at on a timer by necessity:
/// shards on other nodes write them to a shared file system, whose changes no notification of
/// this node's kernel reports.
pub struct WatchPause {
    runtime: tokio::runtime::Runtime,
    interval: Duration,
    signals: StopSignals,
}

impl WatchPause {
    pub fn new(interval: Duration) -> anyhow::Result<WatchPause> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("cannot start the watcher's runtime")?;
        let _entered = runtime.enter();
        Ok(WatchPause {
            signals: StopSignals::install()?,
            interval,
            runtime,
        })
    }

    /// Wait one interval; the name of the signal that ended the wait early, if one did.
    pub fn wait(&mut self) -> Option<&'static str> {
        let signals = &mut self.signals;
        self.runtime.block_on(async {
            tokio::select! {
                () = tokio::time::sleep(self.interval) => None,
                name = signals.next() => Some(name),
            }
        })
    }
}

/// Whether the process can still open the descriptors a runtime's signal driver needs (it
/// makes a socket pair and panics when it cannot): a few are opened and given back at once.
pub fn room_for_a_runtime() -> std::io::Result<()> {
    #[cfg(unix)]
    {
        let room = [(); 3].map(|()| std::os::unix::net::UnixStream::pair());
        for pair in room {
            pair?;
        }
        Ok(())
    }
    #[cfg(not(unix))]
    {
        Ok(())
    }
}
