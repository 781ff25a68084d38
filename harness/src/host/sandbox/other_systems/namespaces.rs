//! Namespaces on a system other than Linux: there are none, so a sandboxed worker runs in the
//! supervisor's view of the system, and the sandbox's report says so.

use std::path::Path;

/// What was made of the namespaces (nothing here), and what was not.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Made {
    pub namespaces: Vec<String>,
    pub missing: Vec<String>,
}

/// Refused with the reason the supervisor reports as missing; the worker then starts as it
/// would without a sandbox.
pub fn unshare_outside() -> Result<Made, String> {
    Err(
        "no namespaces on this system: the worker sees the machine's processes and files"
            .to_string(),
    )
}

/// Never reached here (the namespaces were not made); says so if it is.
pub fn set_up_inside(_scratch: &Path, _size: u64, made: &mut Made) {
    made.missing
        .push("no namespaces on this system".to_string());
}
