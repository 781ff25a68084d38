//! A worker's scratch folder: the one place a sandboxed engine may write by default, its
//! current directory and its `TMPDIR`. The coordinator makes it before the worker starts, in
//! the system's temporary folder, and removes it with everything in it when the worker is
//! gone ([`Scratch`] is removed on drop). A coordinator killed outright cannot remove its
//! workers' folders: the first worker a later coordinator starts removes those whose
//! coordinator is gone (same pid namespace, process id no longer alive).

use std::path::{Path, PathBuf};

/// The start of every scratch folder's name; the pid namespace, the coordinator's process id
/// and the worker's number follow.
const PREFIX: &str = "othello-harness-";
const SUFFIX: &str = ".scratch";

/// A scratch folder, removed when dropped.
#[derive(Debug)]
pub struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    /// Make a new, empty folder named for this coordinator and `worker` (a number unique in
    /// this process), readable and writable by its owner alone.
    pub fn make(worker: usize) -> std::io::Result<Scratch> {
        static SWEPT: std::sync::Once = std::sync::Once::new();
        let temp = std::env::temp_dir();
        let namespace = pid_namespace();
        SWEPT.call_once(|| sweep(&temp, &namespace));
        let dir = temp.join(format!(
            "{PREFIX}{namespace}-{}-{worker}{SUFFIX}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        crate::host::system::make_private_folder(&dir)?;
        Ok(Scratch { dir })
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// This process's pid namespace (its inode number): process ids are compared only within it.
pub(super) fn pid_namespace() -> String {
    let link = std::fs::read_link("/proc/self/ns/pid").unwrap_or_default();
    let digits: String = link
        .to_string_lossy()
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    if digits.is_empty() {
        "0".to_string()
    } else {
        digits
    }
}

/// Remove the scratch folders in `temp` of coordinators of the pid namespace `namespace` that
/// are gone.
fn sweep(temp: &Path, namespace: &str) {
    let Ok(entries) = std::fs::read_dir(temp) else {
        return;
    };
    let ours = format!("{PREFIX}{namespace}-");
    for entry in entries.flatten() {
        let name = entry.file_name();
        let rest = name
            .to_str()
            .and_then(|n| n.strip_prefix(&ours))
            .and_then(|n| n.strip_suffix(SUFFIX));
        if rest.is_some_and(coordinator_gone) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Whether the coordinator named at the start of `rest` (`PID-…`, the part of a scratch or
/// cgroup folder's name after the pid namespace) is gone: no process has its id.
pub(super) fn coordinator_gone(rest: &str) -> bool {
    rest.split('-')
        .next()
        .and_then(|pid| pid.parse::<u32>().ok())
        .is_some_and(crate::host::system::process_gone)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folders_of_gone_coordinators_are_swept_and_no_others() {
        let temp = std::env::temp_dir().join(format!("scratch-sweep-{}", std::process::id()));
        std::fs::create_dir_all(&temp).unwrap();
        let ns = pid_namespace();
        // Above the kernel's largest process id (2^22): never alive.
        let gone = temp.join(format!("{PREFIX}{ns}-4194305-1{SUFFIX}"));
        let alive = temp.join(format!("{PREFIX}{ns}-{}-1{SUFFIX}", std::process::id()));
        let elsewhere = temp.join(format!("{PREFIX}1{ns}-4194305-1{SUFFIX}"));
        for dir in [&gone, &alive, &elsewhere] {
            std::fs::create_dir_all(dir).unwrap();
        }
        sweep(&temp, &ns);
        assert!(!gone.exists());
        assert!(alive.exists() && elsewhere.exists());
        std::fs::remove_dir_all(&temp).unwrap();
    }
}
