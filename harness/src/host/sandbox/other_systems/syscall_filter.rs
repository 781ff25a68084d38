//! The system-call filter on a system other than Linux: seccomp is Linux's, so no call is
//! filtered, and the sandbox's report says so.

/// A process here is never inside a seccomp filter.
pub fn inside_a_filter() -> bool {
    false
}

/// Refused with the reason the sandbox records as missing.
pub fn install() -> Result<(), String> {
    Err("no seccomp on this system: the worker's system calls are not filtered".to_string())
}
