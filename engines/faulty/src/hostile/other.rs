//! The hostile faults made of the system's own calls, on a system faulty has no code of them
//! for: each says so, and the search plays on.

use super::say;
use crate::Fault;

/// Say that `fault` is not on this system.
pub fn strike(fault: Fault, _target: &str) {
    say(
        fault.name(),
        "not on this system (faulty has its code for Linux and Windows)",
    );
}

/// The coordinator's environment: not read on this system.
pub fn coordinator_environment() -> std::io::Result<String> {
    Err(std::io::Error::other("faulty reads it only on Linux"))
}
