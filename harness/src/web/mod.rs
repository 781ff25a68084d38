//! The browser view: `harness serve DIR…` and `harness run … --serve`.
//!
//! One more reader of what the terminal view reads. Each run served has a model kept by a
//! thread of its own ([`feed`]): the coordinator's events for the run this process plays, or
//! the folder's journals for a run on disk (finished, running, or sharded: the shards'
//! journals are followed as `merge --watch` follows them). The model publishes snapshots
//! ([`snapshot`]: JSON) through a `watch` channel, so a viewer only ever holds the newest one:
//! a slow or stalled browser falls behind and skips ahead, it never queues and never slows a
//! game. The HTTP side ([`server`], on a runtime of its own, never the coordinator's) answers
//! read-only routes with the pages of [`pages`] and streams snapshots as server-sent events.
//!
//! Safe by default: bound to loopback (then only requests naming a loopback `Host` are
//! answered, so another site cannot reach it through DNS rebinding); any other address needs
//! a token, presented once as `?token=T` and then kept in a cookie; no route takes a path, so
//! only the served folders' own files (`report.html`, the journals, `analysis.jsonl`) are ever
//! read; no cross-origin headers are sent.

pub mod feed;
pub mod pages;
pub mod server;
pub mod snapshot;
#[cfg(test)]
mod tests;

use anyhow::Context;
use server::{HistoryPage, Served, ServedRun};
use std::future::IntoFuture;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// The address served when none is given.
pub const DEFAULT_ADDRESS: &str = "127.0.0.1:8080";

/// A running web server (on a thread of its own); stopped by [`WebServer::stop`] or when
/// dropped.
pub struct WebServer {
    /// `http://ADDRESS/` with the address actually bound.
    pub url: String,
    /// Stops the server, letting open responses end for at most the time sent.
    stop: Option<tokio::sync::oneshot::Sender<Duration>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// The address `text` names (`HOST:PORT` with an address or a host name such as
/// `localhost`, port 0 for a free one; a name is resolved, IPv4 first); a non-loopback address
/// without a token is refused, since pages show engine options, which can name paths and
/// commands.
pub fn address(text: &str, token: Option<&str>) -> anyhow::Result<SocketAddr> {
    use std::net::ToSocketAddrs;
    let not_one = || format!("`{text}`: not an address (HOST:PORT, e.g. 127.0.0.1:8080)");
    let address: SocketAddr = match text.parse() {
        Ok(address) => address,
        Err(_) => {
            let found: Vec<SocketAddr> = text.to_socket_addrs().with_context(not_one)?.collect();
            found
                .iter()
                .find(|a| a.is_ipv4())
                .or(found.first())
                .copied()
                .with_context(not_one)?
        }
    };
    anyhow::ensure!(
        address.ip().is_loopback() || token.is_some_and(|t| !t.is_empty()),
        "{address} is not a loopback address: serving there needs --token T (engine options, which can name paths and commands, would be readable by anyone who reaches it)"
    );
    Ok(address)
}

/// Say on stderr how a browser gets into a server that a token guards.
pub fn remind_of_the_token(server: &WebServer, guarded: bool) {
    if let Some(reminder) = token_reminder(server, guarded) {
        eprintln!("{reminder}");
    }
}

/// What [`remind_of_the_token`] says, for a caller that says it later.
pub fn token_reminder(server: &WebServer, guarded: bool) -> Option<String> {
    guarded.then(|| {
        format!(
            "the pages need the token: open {}?token=… once (the browser keeps it in a cookie and drops it from the address)",
            server.url
        )
    })
}

impl WebServer {
    /// Bind `address` and serve `runs` (and the ledger's `history`) until stopped.
    pub fn start(
        address: SocketAddr,
        token: Option<String>,
        runs: Vec<ServedRun>,
        history: Option<HistoryPage>,
    ) -> anyhow::Result<WebServer> {
        let listener = std::net::TcpListener::bind(address)
            .with_context(|| format!("cannot listen on {address}"))?;
        listener.set_nonblocking(true)?;
        let bound = listener.local_addr()?;
        let hosts = if bound.ip().is_loopback() {
            let port = bound.port();
            vec![
                bound.to_string(),
                format!("localhost:{port}"),
                format!("127.0.0.1:{port}"),
                format!("[::1]:{port}"),
            ]
        } else {
            Vec::new()
        };
        let served = Arc::new(Served {
            runs,
            history,
            token,
            hosts,
        });
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("web")
            .enable_all()
            .build()
            .context("cannot start the web server's runtime")?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<Duration>();
        let thread = std::thread::spawn(move || {
            runtime.block_on(async move {
                let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                    return;
                };
                let app = server::router(served);
                // Stopped, the server takes no new connection and lets the responses under way
                // end (an event stream ends once its feed has sent its last snapshot), for at
                // most the grace sent; a viewer that reads nothing is then cut off.
                let (closing, closed) = tokio::sync::oneshot::channel::<()>();
                let serving = axum::serve(listener, app)
                    .with_graceful_shutdown(async move {
                        let _ = closed.await;
                    })
                    .into_future();
                tokio::pin!(serving);
                tokio::select! {
                    _ = &mut serving => {}
                    grace = stopped => {
                        let _ = closing.send(());
                        let grace = grace.unwrap_or(Duration::ZERO);
                        let _ = tokio::time::timeout(grace, serving).await;
                    }
                }
            });
            // Open event streams end with the runtime.
            runtime.shutdown_background();
        });
        // A server on every interface: the URL a browser elsewhere opens names this machine.
        let url = if bound.ip().is_unspecified() {
            let host = Some(harness_os::host_name())
                .filter(|h| !h.is_empty())
                .unwrap_or_else(|| "127.0.0.1".into());
            format!("http://{host}:{}/", bound.port())
        } else {
            format!("http://{bound}/")
        };
        Ok(WebServer {
            url,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// Stop serving: open connections are closed.
    pub fn stop(mut self) {
        self.halt(Duration::ZERO);
    }

    /// Stop serving once the responses under way have ended (every event stream has sent its
    /// feed's last snapshot), or after `grace`, whichever comes first.
    pub fn finish(mut self, grace: Duration) {
        self.halt(grace);
    }

    fn halt(&mut self, grace: Duration) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(grace);
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }

    /// Serve until the process is stopped.
    pub fn wait(mut self) {
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for WebServer {
    fn drop(&mut self) {
        self.halt(Duration::ZERO);
    }
}
