//! The sandbox items of `harness check`: from inside a worker of the plugin, started as the
//! other items' are, each thing the sandbox forbids is tried, and must be refused:
//! - `sandbox-write`: a write outside its scratch folder;
//! - `sandbox-connect`: a TCP connection to the coordinator's machine;
//! - `sandbox-signal`: a signal to the coordinator;
//! - `sandbox-socket`: a connection to a Unix socket at a path (a coordinator socket's kind);
//! - `sandbox-prlimit`: a resource limit set on the coordinator;
//! - `sandbox-device`: a device node made in its scratch folder;
//! - `sandbox-capabilities`: the capabilities it holds (it must hold none);
//! - `sandbox-environment`: its environment (names beyond the sandbox's list, and the
//!   engine's `sandbox-env`, must not be there);
//! - `sandbox-namespaces`: the namespaces its supervisor made for it (PID, IPC and mount, with
//!   its own `/proc` and a `tmpfs` scratch folder; not checked where the system gives none,
//!   with its reason), and what the worker sees of them: at most a few processes in `/proc`,
//!   and a scratch folder that `statfs` calls a tmpfs.
//!
//! An item is "not checked" where the kernel has no Landlock for it (the write and the
//! connection need ABI 1, the signal ABI 6), and fails where the attempt went through (the
//! sandbox off, or not enforced).

use super::{end, worker_spec, CheckSpec, Outcome};
use crate::host::protocol::ProbeTargets;
use crate::host::sandbox::{self, Probed};
use crate::host::turns::BetweenTurns;
use crate::host::EngineHost;
use std::net::TcpListener;

/// The sandbox items, in the order they run and print.
pub const ITEMS: [&str; 9] = [
    "sandbox-write",
    "sandbox-connect",
    "sandbox-signal",
    "sandbox-socket",
    "sandbox-prlimit",
    "sandbox-device",
    "sandbox-capabilities",
    "sandbox-environment",
    "sandbox-namespaces",
];

/// What `sandbox-namespaces` asks of a worker's namespaces (the user namespace is an ordinary
/// user's alone: root needs none).
const NAMESPACES: [&str; 5] = ["pid", "ipc", "mount", "proc", "tmpfs"];

/// The most processes a worker in a PID namespace with a `/proc` of its own may see: the
/// namespace's init, itself, and room for a process the worker runs in passing.
const MOST_PROCESSES_SEEN: usize = 4;

/// The Landlock ABI that scopes signals.
const SIGNAL_SCOPE_ABI: u32 = 6;

/// The Landlock ABI an item needs (0: none, the item does not depend on Landlock).
fn landlock_needed(item: &str) -> u32 {
    match item {
        "sandbox-signal" => SIGNAL_SCOPE_ABI,
        "sandbox-write" | "sandbox-connect" => 1,
        _ => 0,
    }
}

/// One sandbox item. The worker tries the attempts after confining itself and before its
/// plugin loads ([`EngineHost::spawn_probing`]): a plugin cannot answer for them.
pub async fn check(spec: &CheckSpec, item: &str) -> Outcome {
    let folder = std::env::temp_dir().join(format!("othello-check-probe-{}", std::process::id()));
    let listener = TcpListener::bind("127.0.0.1:0");
    let socket = folder.join("coordinator.sock");
    let unix = std::fs::create_dir_all(&folder)
        .and_then(|()| crate::host::sandbox::listen_on_a_unix_socket(&socket));
    let (Ok(_unix), Ok(listener)) = (unix, listener) else {
        let _ = std::fs::remove_dir_all(&folder);
        return Outcome::NotChecked("no folder, socket or TCP port to probe with".to_string());
    };
    let target = folder.join("written-by-the-engine");
    let port = listener.local_addr().map_or(0, |a| a.port());
    let targets = ProbeTargets {
        write: target.clone(),
        port,
        socket: socket.clone(),
    };
    let worker = worker_spec(spec, BetweenTurns::Stopped);
    let started = EngineHost::spawn_probing(&worker, targets).await;
    let _ = std::fs::remove_dir_all(&folder);
    let (host, probed) = match started {
        Ok(started) => started,
        Err(e) => return Outcome::Fail(format!("{e:#}")),
    };
    let enforced = host.sandbox.clone();
    end(host).await;
    if item == "sandbox-namespaces" {
        return namespaces(enforced.as_ref(), &probed);
    }
    if let Some(e) = &enforced {
        let needed = landlock_needed(item);
        if e.landlock_abi < needed {
            return Outcome::NotChecked(format!(
                "this kernel's Landlock ABI is {}; the item needs {needed}",
                e.landlock_abi
            ));
        }
    }
    let off = if enforced.is_none() {
        " (the sandbox is off)"
    } else {
        ""
    };
    match item {
        "sandbox-capabilities" => held(probed.capabilities, off),
        "sandbox-environment" => environment(&probed, &[], off),
        _ => refused(item, &probed, &target, port, &socket, off),
    }
}

/// An attempt's item: it passes when the attempt was refused.
fn refused(
    item: &str,
    probed: &Probed,
    target: &std::path::Path,
    port: u16,
    socket: &std::path::Path,
    off: &str,
) -> Outcome {
    let (attempt, refusal) = match item {
        "sandbox-write" => (format!("a write to {}", target.display()), &probed.write),
        "sandbox-connect" => (format!("a TCP connection to port {port}"), &probed.connect),
        "sandbox-signal" => ("a signal to the coordinator".to_string(), &probed.signal),
        "sandbox-socket" => (
            format!("a connection to the Unix socket {}", socket.display()),
            &probed.socket,
        ),
        "sandbox-prlimit" => (
            "a resource limit set on the coordinator".to_string(),
            &probed.prlimit,
        ),
        _ => (
            "a device node made in the scratch folder".to_string(),
            &probed.device,
        ),
    };
    match refusal {
        Some(why) => Outcome::Pass(format!("{attempt} was refused: {why}")),
        None => Outcome::Fail(format!("{attempt} went through{off}")),
    }
}

/// The namespaces item: it passes when every piece of [`NAMESPACES`] was made; it is not
/// checked where the system made none (the reason the supervisor gave).
fn namespaces(enforced: Option<&sandbox::Enforced>, probed: &Probed) -> Outcome {
    let Some(enforced) = enforced else {
        return Outcome::Fail("the sandbox is off: no namespaces of its own".to_string());
    };
    let made = &enforced.namespaces;
    let lacking: Vec<&str> = NAMESPACES
        .into_iter()
        .filter(|n| !made.iter().any(|m| m == n))
        .collect();
    let why = || {
        let said = enforced
            .missing
            .iter()
            .filter(|m| m.contains("namespace") || m.contains("/proc") || m.contains("tmpfs"));
        said.cloned().collect::<Vec<_>>().join("; ")
    };
    // What the supervisor says it made, seen from inside: its own `/proc` shows the
    // namespace's init and the worker (a few more at most), and the scratch folder is a tmpfs.
    let seen = probed.processes_seen.unwrap_or(usize::MAX);
    if lacking.is_empty() && seen > MOST_PROCESSES_SEEN {
        Outcome::Fail(format!(
            "namespaces said to be made ({}), yet the worker sees {} processes in /proc",
            made.join(", "),
            probed
                .processes_seen
                .map_or("an unlistable number of".to_string(), |n| n.to_string())
        ))
    } else if lacking.is_empty() && probed.scratch_on_tmpfs != Some(true) {
        Outcome::Fail(format!(
            "namespaces said to be made ({}), yet the worker's scratch folder is not a tmpfs",
            made.join(", ")
        ))
    } else if lacking.is_empty() {
        Outcome::Pass(format!(
            "namespaces of its own: {}; the worker sees {seen} processes",
            made.join(", ")
        ))
    } else if made.is_empty() {
        Outcome::NotChecked(why())
    } else {
        Outcome::Fail(format!("no {}: {}", lacking.join(", "), why()))
    }
}

/// The capabilities item: it passes when the worker holds none.
fn held(capabilities: Option<u64>, off: &str) -> Outcome {
    match capabilities {
        Some(0) => Outcome::Pass("the worker holds no capability".to_string()),
        Some(set) => Outcome::Fail(format!("the worker holds capabilities {set:#x}{off}")),
        None => Outcome::NotChecked("/proc/self/status does not say".to_string()),
    }
}

/// The environment item: it passes when the worker has no variable beyond those the sandbox
/// allows ([`sandbox::allowed_variable`]: its list, the scratch folder's and the engine's
/// `sandbox-env`).
fn environment(probed: &Probed, extra: &[String], off: &str) -> Outcome {
    let beyond: Vec<&String> = probed
        .environment
        .iter()
        .filter(|name| !sandbox::allowed_variable(name, extra))
        .collect();
    if beyond.is_empty() {
        Outcome::Pass(format!(
            "{} variables, none beyond the sandbox's list",
            probed.environment.len()
        ))
    } else {
        let names: Vec<&str> = beyond.iter().map(|n| n.as_str()).collect();
        Outcome::Fail(format!(
            "the worker has {} variables beyond the sandbox's list: {}{off}",
            names.len(),
            names.join(", ")
        ))
    }
}
