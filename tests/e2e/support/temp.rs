//! Temporary folders under cargo's `target/tmp` (`nobody`'s in the staging folder), removed
//! when the test passes and kept (with a note on stderr) when it fails.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// A new, empty folder `target/tmp/e2e/<label>-<pid>-<n>`.
    pub fn new(label: &str) -> TempDir {
        TempDir::new_in(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("e2e"), label)
    }

    /// A new, empty folder `<parent>/<label>-<pid>-<n>` (`nobody`'s test folders are made in
    /// the staging folder, `super::staging`).
    pub fn new_in(parent: &Path, label: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = parent.join(format!("{label}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", path.display()));
        TempDir { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn join(&self, relative: impl AsRef<Path>) -> PathBuf {
        self.path.join(relative)
    }

    /// Write `text` to `name` in the folder and return the file's path.
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.path.join(name);
        std::fs::write(&path, text)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!(
                "e2e: test failed; its files are kept in {}",
                self.path.display()
            );
        } else {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}
