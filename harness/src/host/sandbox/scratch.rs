//! A worker's scratch folder: the one place a sandboxed engine may write by default, its
//! current directory and its `TMPDIR`. The coordinator makes it before the worker starts, in
//! the system's temporary folder, and removes it with everything in it when the worker is
//! gone ([`Scratch`] is removed on drop).

use std::path::{Path, PathBuf};

/// A scratch folder, removed when dropped.
#[derive(Debug)]
pub struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    /// Make a new, empty folder named for this coordinator and `worker` (a number unique in
    /// this process), readable and writable by its owner alone.
    pub fn make(worker: usize) -> std::io::Result<Scratch> {
        use std::os::unix::fs::DirBuilderExt;
        let dir = std::env::temp_dir().join(format!(
            "othello-harness-{}-{worker}.scratch",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
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
