//! The cache of solved positions in a run's folder (`analysis-cache.jsonl`): a header naming
//! the solver (plugin file digest and options), then one line per solved position, appended
//! and flushed as it is solved, so a killed analysis resumes and a repeated one costs nothing.
//! A cache of another solver is refused, never mixed in or overwritten.

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The cache file in an output folder.
pub const CACHE_FILE: &str = "analysis-cache.jsonl";

/// Who solved the positions of a cache.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Solver {
    /// The plugin file, as given.
    pub plugin: String,
    /// FNV-1a of the plugin file.
    pub fnv1a: String,
    /// The options that can change a value: all but `Threads` and `Hash`, which only change
    /// the speed of an exact solve.
    pub options: Vec<(String, String)>,
}

impl Solver {
    /// Whether two solvers give the same values: the same plugin file (by its digest, however
    /// its path was written) with the same options.
    pub fn same_solver(&self, other: &Solver) -> bool {
        self.fnv1a == other.fnv1a && self.options == other.options
    }
}

#[derive(Serialize, Deserialize)]
struct Header {
    solver: Solver,
}

/// One solved position.
#[derive(Serialize, Deserialize)]
struct Entry {
    /// The position as a board string.
    p: String,
    /// Its exact value, Black's view.
    v: i32,
}

/// The solved positions of a folder, open for appending.
pub struct SolveCache {
    path: PathBuf,
    /// Open once the first solve is added.
    file: Option<File>,
    /// The header a new cache starts with, until it is written.
    header: Option<Solver>,
    pub values: HashMap<String, i32>,
}

impl SolveCache {
    /// Open (or create) the cache of `folder` for `solver`; an error names the cache's solver
    /// when it is another.
    pub fn open(folder: &Path, solver: &Solver) -> anyhow::Result<SolveCache> {
        let path = folder.join(CACHE_FILE);
        let mut values = HashMap::new();
        let exists = path.exists();
        if exists {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let mut lines = text.lines();
            let header: Header = lines
                .next()
                .and_then(|l| serde_json::from_str(l).ok())
                .with_context(|| format!("{}: not a solve cache (no header)", path.display()))?;
            if !header.solver.same_solver(solver) {
                bail!(
                    "{}: a cache of another solver ({} {} {:?}); move it away to analyse with {} {:?} (nothing was written)",
                    path.display(),
                    header.solver.plugin,
                    header.solver.fnv1a,
                    header.solver.options,
                    solver.plugin,
                    solver.options
                );
            }
            // A torn last line (a kill mid-write) is left out and written again when solved.
            for line in lines {
                if let Ok(e) = serde_json::from_str::<Entry>(line) {
                    values.insert(e.p, e.v);
                }
            }
        }
        // The file is written on the first solve, so that a refused solver leaves nothing.
        Ok(SolveCache {
            path,
            file: None,
            header: (!exists).then(|| solver.clone()),
            values,
        })
    }

    /// The cache file, opened for appending on first use (its header written if it is new; a
    /// torn last line ended, so the next entry starts on a line of its own).
    fn file(&mut self) -> anyhow::Result<&mut std::fs::File> {
        if self.file.is_none() {
            let path = &self.path;
            let mut file = OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .with_context(|| format!("cannot write {}", path.display()))?;
            if let Some(solver) = self.header.take() {
                writeln!(file, "{}", serde_json::to_string(&Header { solver })?)?;
            } else if !std::fs::read(path)?.ends_with(b"\n") {
                writeln!(file)?;
            }
            self.file = Some(file);
        }
        Ok(self.file.as_mut().expect("just opened"))
    }

    /// Add a solved position (written at once: a kill loses nothing solved before it).
    pub fn add(&mut self, position: String, value: i32) -> anyhow::Result<()> {
        let line = serde_json::to_string(&Entry {
            p: position.clone(),
            v: value,
        })?;
        let file = self.file()?;
        writeln!(file, "{line}")
            .and_then(|()| file.flush())
            .with_context(|| format!("cannot write {}", self.path.display()))?;
        self.values.insert(position, value);
        Ok(())
    }
}
