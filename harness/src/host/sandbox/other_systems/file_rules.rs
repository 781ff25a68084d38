//! File rules on a system other than Linux: Landlock is Linux's, and no replacement is built
//! yet, so a sandboxed worker's files are not confined and the sandbox's report says so.

use std::path::PathBuf;

/// No system folder is singled out: nothing is closed to a worker here.
pub const SYSTEM_READ: &[&str] = &[];

/// What Landlock enforced (never anything here).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Landlocked {
    pub abi: u32,
    pub full: bool,
}

/// Refused with the reason the sandbox records as missing.
pub fn restrict(_read: &[PathBuf], _write: &[PathBuf]) -> Result<Landlocked, String> {
    Err("no Landlock on this system: the worker's files are not confined".to_string())
}
