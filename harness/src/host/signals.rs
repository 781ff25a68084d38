//! The signals that stop a run or a watch, in one place: SIGINT (Ctrl-C) and SIGTERM (a batch
//! system's stop, `kill`) on Unix; on Windows the console's events that ask a program to end:
//! Ctrl-C, Ctrl-Break, the console window closed, and the user's logoff or the system's
//! shutdown (for a console process). After a close, logoff or shutdown Windows ends the
//! process a few seconds later whatever it does: the games already finished are on disk by
//! then (each is journaled as it ends), and those in flight are abandoned, as on any stop.

use anyhow::Context;
use std::time::Duration;

/// The stop signals, handled from the moment this is made (made inside a tokio runtime): a
/// signal that arrives before anyone waits is kept, not the default (death).
pub struct StopSignals {
    #[cfg(unix)]
    sigint: tokio::signal::unix::Signal,
    #[cfg(unix)]
    sigterm: tokio::signal::unix::Signal,
    #[cfg(windows)]
    console: WindowsConsole,
}

/// The console events of Windows that ask a program to end, each handled from the moment it
/// is made.
#[cfg(windows)]
struct WindowsConsole {
    ctrl_c: tokio::signal::windows::CtrlC,
    ctrl_break: tokio::signal::windows::CtrlBreak,
    close: tokio::signal::windows::CtrlClose,
    logoff: tokio::signal::windows::CtrlLogoff,
    shutdown: tokio::signal::windows::CtrlShutdown,
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
        #[cfg(windows)]
        {
            use tokio::signal::windows;
            Ok(StopSignals {
                console: WindowsConsole {
                    ctrl_c: windows::ctrl_c().context("cannot handle Ctrl-C")?,
                    ctrl_break: windows::ctrl_break().context("cannot handle Ctrl-Break")?,
                    close: windows::ctrl_close().context("cannot handle the console's close")?,
                    logoff: windows::ctrl_logoff().context("cannot handle a logoff")?,
                    shutdown: windows::ctrl_shutdown().context("cannot handle a shutdown")?,
                },
            })
        }
    }

    /// The next stop signal, by name (`SIGINT`, `SIGTERM`; on Windows `Ctrl-C`, `Ctrl-Break`,
    /// `console close`, `logoff`, `shutdown`).
    pub async fn next(&mut self) -> &'static str {
        #[cfg(unix)]
        {
            tokio::select! {
                _ = self.sigint.recv() => "SIGINT",
                _ = self.sigterm.recv() => "SIGTERM",
            }
        }
        #[cfg(windows)]
        {
            let c = &mut self.console;
            tokio::select! {
                _ = c.ctrl_c.recv() => "Ctrl-C",
                _ = c.ctrl_break.recv() => "Ctrl-Break",
                _ = c.close.recv() => "console close",
                _ = c.logoff.recv() => "logoff",
                _ = c.shutdown.recv() => "shutdown",
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
