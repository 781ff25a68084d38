//! A run's folder on disk, the one place that knows which folders make up a run: a plain
//! run's folder holds its files; a sharded run's folder holds one `shard-I-of-N` folder per
//! shard (each a run folder of its own, with its journal and `tournament.json`) and, once
//! merged, the merged run's files beside them. A shard's run is its parent folder: the run's
//! id, its ledger entry, a tune's θ and `decision.json` live there.
//!
//! Every command, the ledger, the browser and the tuner find a run's folders through
//! [`RunFolder`]; the planner only names a shard's folder ([`shard_folder_name`]) and never
//! reads the disk. Shards are listed in shard order (`shard-2-of-12` before `shard-10-of-12`).
//! A missing file is absent; any other failure to read one is an error that names it
//! ([`RunFolder::read_file`]).

use anyhow::Context;
use std::path::{Path, PathBuf};

/// `shard-2-of-8`: the folder of shard `index` of `count` below the run's.
pub fn shard_folder_name(index: usize, count: usize) -> String {
    format!("shard-{index}-of-{count}")
}

/// The shard `(index, count)` a folder name such as `shard-2-of-8` stands for
/// ([`shard_folder_name`]'s inverse); `None` for any other name, and for an index not below
/// the count.
pub fn shard_of_folder_name(name: &str) -> Option<(usize, usize)> {
    let (index, count) = name.strip_prefix("shard-")?.split_once("-of-")?;
    let (index, count) = (index.parse().ok()?, count.parse().ok()?);
    (index < count).then_some((index, count))
}

/// What a run folder is, by its name and what it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FolderKind {
    /// A run of its own: its files are its run's.
    Plain,
    /// Shard `index` of `count` of the run in the parent folder.
    Shard { index: usize, count: usize },
    /// The folder of a sharded run: its shards' folders, and the merged files once merged.
    Sharded,
}

/// A run's output folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunFolder {
    dir: PathBuf,
}

impl RunFolder {
    pub fn at(dir: impl Into<PathBuf>) -> RunFolder {
        RunFolder { dir: dir.into() }
    }

    /// The folder itself.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The path of the run file `name` in the folder.
    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// The run file `name`'s text; `None` when the folder has no such file. Any other failure
    /// (a permission, a folder where the file should be, bytes that are not UTF-8) is an error
    /// naming the file.
    pub fn read_file(&self, name: &str) -> anyhow::Result<Option<String>> {
        let path = self.file(name);
        match std::fs::read_to_string(&path) {
            Ok(text) => Ok(Some(text)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
        }
    }

    /// The shard this folder is, by its name.
    pub fn shard(&self) -> Option<(usize, usize)> {
        self.dir
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(shard_of_folder_name)
    }

    /// What the folder is: a shard by its name, a sharded run's folder when it holds shard
    /// folders (a folder that cannot be listed is plain).
    pub fn kind(&self) -> FolderKind {
        if let Some((index, count)) = self.shard() {
            return FolderKind::Shard { index, count };
        }
        match self.shards() {
            Ok(shards) if !shards.is_empty() => FolderKind::Sharded,
            _ => FolderKind::Plain,
        }
    }

    /// The folder of the run this one belongs to: a shard's parent, else the folder itself.
    pub fn run_dir(&self) -> &Path {
        match self.shard() {
            Some(_) => self
                .dir
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new(".")),
            None => &self.dir,
        }
    }

    /// The shard folders inside (`shard-I-of-N`, folders only), in shard order: by N, then
    /// by I. An error when the folder cannot be listed (`NotFound` when it does not exist).
    pub fn shards(&self) -> std::io::Result<Vec<PathBuf>> {
        let mut shards: Vec<((usize, usize), PathBuf)> = std::fs::read_dir(&self.dir)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir())
            .filter_map(|p| {
                let (index, count) = p
                    .file_name()
                    .and_then(|n| n.to_str())
                    .and_then(shard_of_folder_name)?;
                Some(((count, index), p))
            })
            .collect();
        shards.sort_by_key(|(order, _)| *order);
        Ok(shards.into_iter().map(|(_, p)| p).collect())
    }

    /// The folders that hold the run's journals: its shard folders when it has some, else
    /// the folder itself (as also when it cannot be listed).
    pub fn journal_folders(&self) -> Vec<PathBuf> {
        match self.shards() {
            Ok(shards) if !shards.is_empty() => shards,
            _ => vec![self.dir.clone()],
        }
    }
}

impl RunFolder {
    /// The run's games, read whole from the journals of [`RunFolder::journal_folders`], the
    /// first record of each game number (a game a shard and its merge both hold is one game);
    /// a journal that cannot be read gives none.
    pub fn games(&self) -> Vec<super::GameRecord> {
        let mut seen = std::collections::HashSet::new();
        self.journal_folders()
            .into_iter()
            .flat_map(|folder| {
                super::journal::read_journal(&folder.join(super::journal::JSONL_FILE))
                    .unwrap_or_default()
            })
            .filter(|r| seen.insert(r.game))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_folders_come_in_shard_order_not_name_order() {
        let dir = std::env::temp_dir().join(format!("shard-order-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for i in [10, 2, 0, 11, 1] {
            std::fs::create_dir_all(dir.join(shard_folder_name(i, 12))).unwrap();
        }
        std::fs::create_dir_all(dir.join("shard-x-of-12")).unwrap();
        std::fs::write(dir.join("shard-3-of-12"), "a file, not a shard").unwrap();
        let folder = RunFolder::at(&dir);
        let names: Vec<String> = folder
            .shards()
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                "shard-0-of-12",
                "shard-1-of-12",
                "shard-2-of-12",
                "shard-10-of-12",
                "shard-11-of-12"
            ]
        );
        assert_eq!(folder.kind(), FolderKind::Sharded);
        assert_eq!(folder.journal_folders().len(), 5);
        let shard = RunFolder::at(dir.join("shard-2-of-12"));
        assert_eq!(
            shard.kind(),
            FolderKind::Shard {
                index: 2,
                count: 12
            }
        );
        assert_eq!(shard.run_dir(), dir.as_path());
        assert_eq!(shard.journal_folders(), [dir.join("shard-2-of-12")]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_file_is_absent_and_an_unreadable_one_an_error_naming_it() {
        let dir = std::env::temp_dir().join(format!("run-folder-read-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("verdict.json")).unwrap();
        let folder = RunFolder::at(&dir);
        assert!(folder.read_file("tournament.json").unwrap().is_none());
        let error = folder.read_file("verdict.json").unwrap_err();
        assert!(format!("{error:#}").contains("verdict.json"), "{error:#}");
        assert_eq!(folder.kind(), FolderKind::Plain);
        assert_eq!(folder.run_dir(), dir.as_path());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn shard_names_read_back() {
        assert_eq!(shard_of_folder_name(&shard_folder_name(2, 8)), Some((2, 8)));
        for not_a_shard in ["shard-3-of-3", "shard-a-of-3", "shard-1", "shards-1-of-2"] {
            assert_eq!(shard_of_folder_name(not_a_shard), None, "{not_a_shard}");
        }
    }
}
