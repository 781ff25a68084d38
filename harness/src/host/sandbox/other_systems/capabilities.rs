//! Capabilities on a system other than Linux: there are none to drop. A worker keeps the
//! privileges of the user who started the harness, and the sandbox's report says so.

/// Nothing to drop here: the reason is what the sandbox records as missing.
pub fn drop_all() -> Result<(), String> {
    Err("no Linux capabilities on this system: the worker keeps its user's privileges".to_string())
}

/// Linux's capability sets do not exist here.
pub fn held() -> Option<u64> {
    None
}
