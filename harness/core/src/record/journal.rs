//! The results journal: every finished game, appended and flushed the moment it ends.
//!
//! Two files in the output folder, written only by the coordinator's single journal writer:
//! - `games.jsonl`: one [`GameRecord`] per line (JSON), the source of every statistic;
//! - `games.ggf`: the same game as one GGF record per line, for Othello tools.
//!
//! Each record is written with one `write_all` of a complete line followed by a flush, so an
//! interrupted run leaves every finished game in both files; a reader skips a torn last line.

use crate::record::{ggf, GameRecord};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

/// A journal opened for appending.
pub struct Journal {
    jsonl: File,
    ggf: File,
    pub dir: PathBuf,
}

/// File names inside the output folder.
pub const JSONL_FILE: &str = "games.jsonl";
pub const GGF_FILE: &str = "games.ggf";

impl Journal {
    /// Create the output folder if needed and open both files for appending.
    pub fn open(dir: &Path) -> anyhow::Result<Journal> {
        use anyhow::Context;
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create output folder {}", dir.display()))?;
        let open = |name: &str| {
            let path = dir.join(name);
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .with_context(|| format!("cannot open {} for writing", path.display()))
        };
        Ok(Journal {
            jsonl: open(JSONL_FILE)?,
            ggf: open(GGF_FILE)?,
            dir: dir.to_path_buf(),
        })
    }

    /// Append one game to both files. The JSON line is written with one call and made durable
    /// (`fsync` of its data) before this returns: once a game is reported finished, a crash of
    /// the machine cannot lose it. The GGF file is derived from the journal and rebuilt on
    /// resume, so it is only flushed.
    pub fn append(&mut self, record: &GameRecord) -> anyhow::Result<()> {
        let mut line = serde_json::to_string(record)?;
        line.push('\n');
        self.jsonl.write_all(line.as_bytes())?;
        self.jsonl.flush()?;
        self.jsonl.sync_data()?;
        let mut g = ggf::write_game(record);
        g.push('\n');
        self.ggf.write_all(g.as_bytes())?;
        self.ggf.flush()?;
        Ok(())
    }
}

/// Write a small file so that it is either absent or complete ([`replace_durably`]).
pub fn write_durably(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    replace_durably(path, |w| w.write_all(bytes))
}

/// The one way a file is replaced in this crate (`tournament.json`, a rebuilt `games.ggf`, a
/// merged journal, the reports): `write` fills a temporary file beside it (`.NAME.PID.tmp`, so
/// two processes never share one), which
/// is fsynced, renamed over the target, and the folder fsynced. A reader sees the old file or
/// the new one, never half of one, and a crash leaves one of them. The temporary file is
/// removed when writing fails.
pub fn replace_durably(
    path: &Path,
    write: impl FnOnce(&mut std::io::BufWriter<File>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = (|| {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, File::create(&tmp)?);
        write(&mut w)?;
        w.into_inner().map_err(|e| e.into_error())?.sync_all()
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    std::fs::rename(&tmp, path)?;
    harness_os::files::sync_folder(dir)
}

/// Make an output folder's journal consistent before a run appends to it, and return its
/// games: a torn last line (a write cut short by a kill) is cut off the file, and `games.ggf`
/// is rebuilt from the journal (it may lack the last game, or hold a torn line).
pub fn recover(dir: &Path) -> anyhow::Result<Vec<GameRecord>> {
    use anyhow::Context;
    let path = dir.join(JSONL_FILE);
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    // Everything up to the last newline is complete lines; anything after it is torn.
    let complete = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let mut records = Vec::new();
    let mut valid_end = 0;
    for (i, line) in text[..complete].split(|&b| b == b'\n').enumerate() {
        let line_end = valid_end + line.len() + 1;
        if line.iter().all(u8::is_ascii_whitespace) {
            valid_end = line_end.min(complete);
            continue;
        }
        match serde_json::from_slice::<GameRecord>(line) {
            Ok(r) => records.push(r),
            Err(e) if line_end >= complete => {
                // A damaged last line: treat it as torn.
                let _ = e;
                break;
            }
            Err(e) => anyhow::bail!("{}:{}: not a game record: {e}", path.display(), i + 1),
        }
        valid_end = line_end;
    }
    if valid_end < text.len() {
        let file = OpenOptions::new().write(true).open(&path)?;
        file.set_len(valid_end as u64)
            .with_context(|| format!("cannot cut the torn end off {}", path.display()))?;
        file.sync_all()?;
    }
    let ggf_path = dir.join(GGF_FILE);
    replace_durably(&ggf_path, |w| {
        for r in &records {
            writeln!(w, "{}", ggf::write_game(r))?;
        }
        Ok(())
    })
    .with_context(|| format!("cannot write {}", ggf_path.display()))?;
    Ok(records)
}

/// The journal a command is pointed at: an output folder's `games.jsonl`, or the file itself.
pub fn journal_path(folder_or_file: &Path) -> PathBuf {
    if folder_or_file.is_dir() {
        folder_or_file.join(JSONL_FILE)
    } else {
        folder_or_file.to_path_buf()
    }
}

/// Read a `games.jsonl` file. A torn last line (an interrupted write) is skipped; any other bad
/// line is an error naming the file and line.
pub fn read_journal(path: &Path) -> anyhow::Result<Vec<GameRecord>> {
    use anyhow::Context;
    let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let lines: Vec<String> = BufReader::new(file)
        .lines()
        .collect::<Result<_, _>>()
        .with_context(|| format!("cannot read {}", path.display()))?;
    let mut records = Vec::with_capacity(lines.len());
    let last = lines.len();
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<GameRecord>(line) {
            Ok(r) => records.push(r),
            Err(_) if i + 1 == last => break,
            Err(e) => anyhow::bail!("{}:{}: not a game record: {e}", path.display(), i + 1),
        }
    }
    Ok(records)
}
