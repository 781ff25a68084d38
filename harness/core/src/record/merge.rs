//! Merging the journals of a tournament's shards (`harness merge`), and following them as they
//! grow (`harness merge --watch`).
//!
//! [`JournalIndex::build`] reads every shard's `games.jsonl` once, keeping each game's record
//! without its moves, a digest of its moves and where its line is; [`JournalIndex::write`]
//! then copies the lines in game order into one journal and writes the GGF file from them.
//! Memory is the light records only, whatever the size of the journals. A game found twice
//! with the same moves and result (a shard run twice, a copied folder) is kept once; the same
//! game with other moves or another result is a [`MergeError::Conflict`] naming both folders.
//! A torn last line (a shard killed mid-write) is left out, as every reader does.
//!
//! [`JournalFollower`] reads a journal from where it stopped last time: a watcher's cost per
//! interval is the new lines, not the games already read.

use super::digest::{fnv1a_from, FNV_START};
use super::journal::{replace_durably, GGF_FILE, JSONL_FILE};
use super::{ggf, GameRecord};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Why shard journals cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("{path}: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{path}:{line}: not a game record: {error}")]
    BadLine {
        path: PathBuf,
        line: usize,
        error: String,
    },
    #[error("game {game} is recorded differently in {first} and {second} ({what}): the shards do not agree")]
    Conflict {
        game: usize,
        first: PathBuf,
        second: PathBuf,
        what: String,
    },
}

/// Where a game's line is: folder (index into the folders), byte offset and length.
#[derive(Clone, Copy, Debug)]
struct LineAt {
    folder: usize,
    offset: u64,
    len: usize,
}

/// Where a game's GGF line is in the spool written while indexing.
#[derive(Clone, Copy, Debug)]
struct GgfAt {
    offset: u64,
    len: usize,
}

/// A game as the merge compares it.
#[derive(Clone, Debug)]
pub struct IndexedGame {
    /// The record without its moves.
    pub record: GameRecord,
    /// FNV-1a of the moves as played (not the engines' times or scores, which differ between
    /// two runs of the same deterministic game).
    moves_digest: u64,
    at: LineAt,
    ggf: GgfAt,
}

/// Every game of a set of shard folders, by game number.
#[derive(Debug)]
pub struct JournalIndex {
    pub folders: Vec<PathBuf>,
    /// The games' GGF lines, written as they were read (each journal line is parsed once).
    spool: spool::Spool,
    pub games: BTreeMap<usize, IndexedGame>,
    /// Games found more than once, alike (kept once).
    pub duplicates: usize,
    /// Folders whose last line was torn (left out).
    pub torn: Vec<PathBuf>,
}

fn moves_digest(r: &GameRecord) -> u64 {
    r.moves.iter().fold(FNV_START, |h, m| {
        fnv1a_from(fnv1a_from(h, m.mv.as_bytes()), b",")
    })
}

/// What differs between two records of the same game, if anything that matters.
fn difference(a: &IndexedGame, b: &IndexedGame) -> Option<String> {
    let (x, y) = (&a.record, &b.record);
    if (&x.black, &x.white, x.pair, &x.opening.text)
        != (&y.black, &y.white, y.pair, &y.opening.text)
    {
        return Some(format!(
            "{} vs {} from `{}` / {} vs {} from `{}`",
            x.black, x.white, x.opening.text, y.black, y.white, y.opening.text
        ));
    }
    if a.moves_digest != b.moves_digest {
        return Some("other moves".to_string());
    }
    if (x.score, x.termination, x.forfeit_by) != (y.score, y.termination, y.forfeit_by) {
        return Some(format!(
            "result {} {:?} / {} {:?}",
            x.score, x.termination, y.score, y.termination
        ));
    }
    None
}

impl JournalIndex {
    /// Read the journals of `folders` (each must hold a `games.jsonl`), spooling the games' GGF
    /// lines into a temporary file in `spool_dir` (removed with the index).
    pub fn build(folders: &[PathBuf], spool_dir: &Path) -> Result<JournalIndex, MergeError> {
        let spool = spool::Spool::create(spool_dir).map_err(|error| MergeError::Io {
            path: spool_dir.to_path_buf(),
            error,
        })?;
        let mut index = JournalIndex {
            folders: folders.to_vec(),
            spool,
            games: BTreeMap::new(),
            duplicates: 0,
            torn: Vec::new(),
        };
        for (f, folder) in folders.iter().enumerate() {
            let path = folder.join(JSONL_FILE);
            let io = |error| MergeError::Io {
                path: path.clone(),
                error,
            };
            let mut reader = BufReader::with_capacity(1 << 20, File::open(&path).map_err(io)?);
            let mut line = Vec::new();
            let mut offset = 0u64;
            let mut number = 0;
            loop {
                line.clear();
                let n = reader.read_until(b'\n', &mut line).map_err(io)?;
                if n == 0 {
                    break;
                }
                number += 1;
                let at = LineAt {
                    folder: f,
                    offset,
                    len: n,
                };
                offset += n as u64;
                let complete = line.ends_with(b"\n");
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                if !complete {
                    // A torn last line: a write cut short by a kill.
                    index.torn.push(folder.clone());
                    break;
                }
                let record = match serde_json::from_slice::<GameRecord>(&line) {
                    Ok(r) => r,
                    Err(e) => {
                        // A damaged line at the very end is torn too; elsewhere it is an error.
                        let mut rest = Vec::new();
                        reader.read_to_end(&mut rest).map_err(io)?;
                        if rest.iter().all(u8::is_ascii_whitespace) {
                            index.torn.push(folder.clone());
                            break;
                        }
                        return Err(MergeError::BadLine {
                            path: path.clone(),
                            line: number,
                            error: e.to_string(),
                        });
                    }
                };
                let digest = moves_digest(&record);
                if let Some(first) = index.games.get(&record.game) {
                    let game = IndexedGame {
                        moves_digest: digest,
                        record: record.without_moves(),
                        at,
                        ggf: first.ggf,
                    };
                    match difference(first, &game) {
                        None => index.duplicates += 1,
                        Some(what) => {
                            return Err(MergeError::Conflict {
                                game: game.record.game + 1,
                                first: folders[first.at.folder].clone(),
                                second: folder.clone(),
                                what,
                            })
                        }
                    }
                    continue;
                }
                // The GGF line now, while the moves are at hand: the journal is parsed once.
                let mut text = ggf::write_game(&record);
                text.push('\n');
                let ggf = index
                    .spool
                    .append(text.as_bytes())
                    .map_err(|error| MergeError::Io {
                        path: index.spool.path.clone(),
                        error,
                    })?;
                // Without its moves, but with their summary (moves searched, depths): the
                // Engines table of the merge reads it.
                let light = record.without_moves();
                index.games.insert(
                    light.game,
                    IndexedGame {
                        moves_digest: digest,
                        record: light,
                        at,
                        ggf,
                    },
                );
            }
        }
        index.spool.flush().map_err(|error| MergeError::Io {
            path: index.spool.path.clone(),
            error,
        })?;
        Ok(index)
    }

    /// The light records, by game number (the index is used up: call [`write`](Self::write)
    /// first).
    pub fn into_records(self) -> Vec<GameRecord> {
        self.games.into_values().map(|g| g.record).collect()
    }

    /// Write `out/games.jsonl` (every game's line as the shard wrote it, in game order) and
    /// `out/games.ggf`, each replaced at once ([`replace_durably`]).
    pub fn write(&mut self, out: &Path) -> Result<(), MergeError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |error| MergeError::Io { path, error }
        };
        std::fs::create_dir_all(out).map_err(io(out))?;
        let sources: Vec<File> = self
            .folders
            .iter()
            .map(|f| File::open(f.join(JSONL_FILE)).map_err(io(&f.join(JSONL_FILE))))
            .collect::<Result<_, _>>()?;
        self.spool.flush().map_err(io(&self.spool.path))?;
        // The journal lines, read back from each shard's journal where the index found them.
        let jsonl = out.join(JSONL_FILE);
        replace_durably(&jsonl, |w| {
            let mut line = Vec::new();
            for game in self.games.values() {
                line.resize(game.at.len, 0);
                harness_os::files::read_exact_at(
                    &sources[game.at.folder],
                    &mut line,
                    game.at.offset,
                )?;
                w.write_all(&line)?;
            }
            Ok(())
        })
        .map_err(io(&jsonl))?;
        // The GGF lines, from the spool written while indexing.
        let ggf = out.join(GGF_FILE);
        replace_durably(&ggf, |w| {
            let mut line = Vec::new();
            for game in self.games.values() {
                line.resize(game.ggf.len, 0);
                harness_os::files::read_exact_at(&self.spool.file, &mut line, game.ggf.offset)?;
                w.write_all(&line)?;
            }
            Ok(())
        })
        .map_err(io(&ggf))
    }
}

/// Reads a growing journal from where it stopped: each [`poll`](Self::poll) returns the records
/// completed since the last one. A file that shrank (a shard restarted from scratch) is read
/// again from its start, and the caller told so.
#[derive(Debug)]
pub struct JournalFollower {
    path: PathBuf,
    offset: u64,
    /// A line begun but not finished at the last poll.
    partial: Vec<u8>,
}

/// What a poll found.
#[derive(Debug, Default)]
pub struct Polled {
    /// New complete records, without their moves.
    pub records: Vec<GameRecord>,
    /// The file was shorter than what had been read: it was started over.
    pub restarted: bool,
}

impl JournalFollower {
    pub fn new(path: PathBuf) -> JournalFollower {
        JournalFollower {
            path,
            offset: 0,
            partial: Vec::new(),
        }
    }

    /// Bytes consumed so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The records completed since the last poll (none while the file does not exist). A line
    /// that does not parse is skipped: the journal's writer never writes one but as a torn last
    /// line, which a resumed shard cuts off and writes again.
    pub fn poll(&mut self) -> std::io::Result<Polled> {
        let mut polled = Polled::default();
        let mut file = match File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(polled),
            Err(e) => return Err(e),
        };
        let len = file.metadata()?.len();
        if len < self.offset {
            polled.restarted = true;
            self.offset = 0;
            self.partial.clear();
        } else if len < self.offset + self.partial.len() as u64 {
            // A torn last line was cut off by a resumed shard: it will be written again.
            self.partial.clear();
        }
        file.seek(SeekFrom::Start(self.offset + self.partial.len() as u64))?;
        let mut fresh = std::mem::take(&mut self.partial);
        file.take(len - (self.offset + fresh.len() as u64))
            .read_to_end(&mut fresh)?;
        let complete = fresh.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        for line in fresh[..complete].split(|&b| b == b'\n') {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            if let Ok(r) = serde_json::from_slice::<GameRecord>(line) {
                polled.records.push(r.without_moves());
            }
        }
        self.offset += complete as u64;
        self.partial = fresh[complete..].to_vec();
        Ok(polled)
    }
}

/// A temporary file the index appends GGF lines to and reads them back from; removed on drop.
mod spool {
    use std::fs::File;
    use std::io::Write;
    use std::path::{Path, PathBuf};

    #[derive(Debug)]
    pub struct Spool {
        pub path: PathBuf,
        pub file: File,
        writer: std::io::BufWriter<File>,
        len: u64,
    }

    impl Spool {
        pub fn create(dir: &Path) -> std::io::Result<Spool> {
            let path = dir.join(format!(".merge-ggf-{}.tmp", std::process::id()));
            let file = std::fs::OpenOptions::new()
                .create(true)
                .truncate(true)
                .read(true)
                .write(true)
                .open(&path)?;
            let writer = std::io::BufWriter::with_capacity(1 << 20, file.try_clone()?);
            Ok(Spool {
                path,
                file,
                writer,
                len: 0,
            })
        }

        /// Append a line; where it is.
        pub fn append(&mut self, bytes: &[u8]) -> std::io::Result<super::GgfAt> {
            self.writer.write_all(bytes)?;
            let at = super::GgfAt {
                offset: self.len,
                len: bytes.len(),
            };
            self.len += bytes.len() as u64;
            Ok(at)
        }

        /// Everything appended reaches the file.
        pub fn flush(&mut self) -> std::io::Result<()> {
            self.writer.flush()
        }
    }

    impl Drop for Spool {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}
