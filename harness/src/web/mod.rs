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

use anyhow::Context;
use server::{HistoryPage, Served, ServedRun};
use std::net::SocketAddr;
use std::sync::Arc;

/// The address served when none is given.
pub const DEFAULT_ADDRESS: &str = "127.0.0.1:8080";

/// A running web server (on a thread of its own); stopped by [`WebServer::stop`] or when
/// dropped.
pub struct WebServer {
    /// `http://ADDRESS/` with the address actually bound.
    pub url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// The address `text` names (`HOST:PORT`, port 0 for a free one); a non-loopback address
/// without a token is refused, since pages show engine options, which can name paths and
/// commands.
pub fn address(text: &str, token: Option<&str>) -> anyhow::Result<SocketAddr> {
    let address: SocketAddr = text
        .parse()
        .with_context(|| format!("`{text}`: not an address (HOST:PORT, e.g. 127.0.0.1:8080)"))?;
    anyhow::ensure!(
        address.ip().is_loopback() || token.is_some_and(|t| !t.is_empty()),
        "{address} is not a loopback address: serving there needs --token T (engine options, which can name paths and commands, would be readable by anyone who reaches it)"
    );
    Ok(address)
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
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            runtime.block_on(async move {
                let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                    return;
                };
                let app = server::router(served);
                tokio::select! {
                    _ = axum::serve(listener, app) => {}
                    _ = stopped => {}
                }
            });
            // Open event streams end with the runtime.
            runtime.shutdown_background();
        });
        Ok(WebServer {
            url: format!("http://{bound}/"),
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// Stop serving: open connections are closed.
    pub fn stop(mut self) {
        self.halt();
    }

    fn halt(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
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
        self.halt();
    }
}
