//! `run-id`: a run's stable id, one line in its output folder (for a sharded run, in the folder
//! that holds the `shard-I-of-N` folders). Made when the run first starts, by whichever process
//! gets there first (an exclusive create, so two shards starting at once agree), and read by
//! the other shards, by `merge` and by the ledger. `--restart` sets it aside with the games, so
//! the new run gets a new id.

use anyhow::Context;
use std::io::Write;
use std::path::Path;

/// The file's name.
pub const RUN_ID_FILE: &str = "run-id";

/// The id of the run whose folder (or shards' folder) is `dir`, made now if it has none.
pub fn ensure(dir: &Path) -> anyhow::Result<String> {
    let path = dir.join(RUN_ID_FILE);
    if let Some(id) = read(dir)? {
        return Ok(id);
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let id = new_id(dir);
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
    {
        Ok(mut file) => {
            file.write_all(format!("{id}\n").as_bytes())
                .and_then(|()| file.sync_all())
                .with_context(|| format!("cannot write {}", path.display()))?;
            Ok(id)
        }
        // Another process made it first: its id is the run's.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            // Its writer may not have written the line yet.
            for _ in 0..100 {
                if let Some(id) = read(dir)? {
                    return Ok(id);
                }
                std::thread::yield_now();
            }
            anyhow::bail!("{}: empty (another process is making it?)", path.display())
        }
        Err(e) => Err(e).with_context(|| format!("cannot create {}", path.display())),
    }
}

/// The id in `dir`'s `run-id`, if it has a whole one.
pub fn read(dir: &Path) -> anyhow::Result<Option<String>> {
    let path = dir.join(RUN_ID_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) if text.ends_with('\n') && !text.trim().is_empty() => {
            Ok(Some(text.trim().to_string()))
        }
        Ok(_) => Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// When the run of `dir` first started, from its `run-id` (whole seconds).
pub fn started_at(dir: &Path) -> Option<std::time::SystemTime> {
    let id = read(dir).ok()??;
    let seconds: u64 = id.split_once('-')?.0.parse().ok()?;
    Some(std::time::UNIX_EPOCH + std::time::Duration::from_secs(seconds))
}

/// A new id: the time, then a digest of the time, the process, the host and the folder, so
/// that two runs started at the same second on different machines differ.
fn new_id(dir: &Path) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let host = harness_os::host_name();
    let seed = format!(
        "{}.{}|{}|{}|{}",
        now.as_secs(),
        now.subsec_nanos(),
        std::process::id(),
        host.trim(),
        dir.display()
    );
    format!(
        "{}-{:016x}",
        now.as_secs(),
        super::digest::fnv1a(seed.as_bytes())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first call makes the id, every later one (and a concurrent one) reads it.
    #[test]
    fn one_id_per_folder_whoever_asks_first() {
        let dir = std::env::temp_dir().join(format!("run-id-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let ids: Vec<String> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8).map(|_| s.spawn(|| ensure(&dir).unwrap())).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(ids.iter().all(|id| *id == ids[0]), "{ids:?}");
        assert_eq!(read(&dir).unwrap().as_deref(), Some(ids[0].as_str()));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
