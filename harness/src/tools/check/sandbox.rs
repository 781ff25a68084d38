//! The sandbox items of `harness check`: from inside a worker of the plugin, started as the
//! other items' are, a write outside its scratch folder, a TCP connection and a signal to the
//! coordinator must each be refused. An item is "not checked" where the kernel has no Landlock
//! (the signal item: no Landlock scopes, before ABI 6), and fails where the attempt went
//! through (the sandbox off, or not enforced).

use super::{end, start, CheckSpec, Outcome};
use std::net::TcpListener;

/// The sandbox items, in the order they run and print.
pub const ITEMS: [&str; 3] = ["sandbox-write", "sandbox-connect", "sandbox-signal"];

/// The Landlock ABI that scopes signals.
const SIGNAL_SCOPE_ABI: u32 = 6;

/// One sandbox item.
pub async fn check(spec: &CheckSpec, item: &str) -> Outcome {
    let mut host = match start(spec).await {
        Ok(host) => host,
        Err(e) => return Outcome::Fail(format!("{e:#}")),
    };
    let enforced = host.sandbox.clone();
    if let Some(e) = &enforced {
        let needed = if item == "sandbox-signal" {
            SIGNAL_SCOPE_ABI
        } else {
            1
        };
        if e.landlock_abi < needed {
            end(host).await;
            return Outcome::NotChecked(format!(
                "this kernel's Landlock ABI is {}; the item needs {needed}",
                e.landlock_abi
            ));
        }
    }
    let folder = std::env::temp_dir().join(format!("othello-check-probe-{}", std::process::id()));
    let listener = TcpListener::bind("127.0.0.1:0");
    let (Ok(()), Ok(listener)) = (std::fs::create_dir_all(&folder), listener) else {
        end(host).await;
        return Outcome::NotChecked("no folder or TCP port to probe with".to_string());
    };
    let target = folder.join("written-by-the-engine");
    let port = listener.local_addr().map_or(0, |a| a.port());
    let probed = host.probe(&target, port).await;
    end(host).await;
    let _ = std::fs::remove_dir_all(&folder);
    let probed = match probed {
        Ok(p) => p,
        Err(e) => return Outcome::Fail(e.to_string()),
    };
    let (attempt, refusal) = match item {
        "sandbox-write" => (format!("a write to {}", target.display()), probed.write),
        "sandbox-connect" => (format!("a TCP connection to port {port}"), probed.connect),
        _ => ("a signal to the coordinator".to_string(), probed.signal),
    };
    match refusal {
        Some(why) => Outcome::Pass(format!("{attempt} was refused: {why}")),
        None => Outcome::Fail(format!(
            "{attempt} went through{}",
            if enforced.is_none() {
                " (the sandbox is off)"
            } else {
                ""
            }
        )),
    }
}
