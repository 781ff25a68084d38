//! No root inside a worker: every capability is dropped before the plugin loads.
//!
//! A worker started by root holds root's capabilities (devices, the clock, the hostname,
//! raw I/O, overriding file permissions). [`drop_all`] empties the bounding set (so that no
//! program the plugin runs can get one back through `exec`, setuid or file capabilities, with
//! `no_new_privs` besides), the ambient set, then the inheritable, permitted and effective
//! sets. It acts on the calling thread, which is the worker's only one. A worker of an
//! ordinary user holds none to begin with; its bounding set cannot be emptied (that needs
//! `CAP_SETPCAP`), which `no_new_privs` makes harmless. [`held`] reads what is left, as the
//! kernel reports it.

use rustix::thread::{CapabilitySet, CapabilitySets};

/// Drop every capability of the calling thread.
pub fn drop_all() -> Result<(), String> {
    for bit in 0..64 {
        let cap = CapabilitySet::from_bits_retain(1 << bit);
        match rustix::thread::remove_capability_from_bounding_set(cap) {
            // Past the kernel's last capability.
            Err(rustix::io::Errno::INVAL) => break,
            // Without CAP_SETPCAP (an ordinary user): nothing to drop it with.
            Err(rustix::io::Errno::PERM) => break,
            Err(e) => {
                return Err(format!(
                    "cannot drop capability {bit} from the bounding set: {e}"
                ))
            }
            Ok(()) => {}
        }
    }
    rustix::thread::clear_ambient_capability_set()
        .map_err(|e| format!("cannot clear the ambient capabilities: {e}"))?;
    let none = CapabilitySets {
        effective: CapabilitySet::empty(),
        permitted: CapabilitySet::empty(),
        inheritable: CapabilitySet::empty(),
    };
    rustix::thread::set_capabilities(None, none)
        .map_err(|e| format!("cannot drop the capabilities: {e}"))
}

/// The capabilities this process holds, from `/proc/self/status`: the effective, permitted,
/// inheritable and ambient sets together (the bounding set apart, which only limits what an
/// `exec` could give).
pub fn held() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let set = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
    };
    Some(set("CapEff:")? | set("CapPrm:")? | set("CapInh:")? | set("CapAmb:").unwrap_or(0))
}
