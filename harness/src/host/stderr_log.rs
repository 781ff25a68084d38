//! An engine's stderr log: a sandboxed worker's stderr copied into it up to its `log-limit`
//! ([`copy_into`]), and its end, where the cause of an engine that cannot start usually
//! is (an interpreter's "can't open file", a missing module, a loader's error), quoted in the
//! error that stops the run.
//!
//! The log may be large (a chatty engine, up to its disk limit), so only its last
//! [`TAIL_BYTES`] are read, from the end, and of those the last [`TAIL_LINES`] lines kept, each
//! made printable as every text from a plugin is ([`super::engine_text::clean`]). The cause
//! of a crash under a memory limit is looked for in the first [`HEAD_BYTES`] the worker wrote
//! ([`head_from`]).

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// The most lines quoted from the end of a log.
pub const TAIL_LINES: usize = 20;
/// The most bytes read from the end of a log.
pub const TAIL_BYTES: u64 = 16 << 10;
/// The most characters kept of one quoted line.
const LINE_CHARS: usize = 300;

/// The last lines of a log, and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogTail {
    pub path: PathBuf,
    /// At most [`TAIL_LINES`], oldest first; blank lines left out.
    pub lines: Vec<String>,
}

impl std::fmt::Display for LogTail {
    /// `its stderr log, PATH, ends with:` and the lines indented, or that it is empty.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.lines.is_empty() {
            return write!(f, "its stderr log, {}, is empty", self.path.display());
        }
        write!(f, "its stderr log, {}, ends with:", self.path.display())?;
        for line in &self.lines {
            write!(f, "\n    {line}")?;
        }
        Ok(())
    }
}

/// The last lines of the log at `path`; `None` when it cannot be read (it was never made).
pub fn tail(path: &Path) -> Option<LogTail> {
    let mut file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    let from = len.saturating_sub(TAIL_BYTES);
    file.seek(SeekFrom::Start(from)).ok()?;
    let mut bytes = Vec::new();
    file.take(TAIL_BYTES).read_to_end(&mut bytes).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let mut lines: Vec<&str> = text.lines().collect();
    // A read that starts inside the file starts inside a line: that piece is not quoted.
    if from > 0 && !lines.is_empty() {
        lines.remove(0);
    }
    lines.retain(|l| !l.trim().is_empty());
    let kept: Vec<String> = lines[lines.len().saturating_sub(TAIL_LINES)..]
        .iter()
        .map(|l| {
            let line: String = l.trim_end().chars().take(LINE_CHARS).collect();
            super::engine_text::clean(&line).0
        })
        .collect();
    Some(LogTail {
        path: path.to_path_buf(),
        lines: kept,
    })
}

/// The most bytes of a worker's own part of a log read for the cause of its crash
/// ([`head_from`]).
pub const HEAD_BYTES: u64 = 64 << 10;

/// The first [`HEAD_BYTES`] a worker wrote to the log at `path`, from `start` (the log's
/// length when the worker started: the engine's workers share its log); empty when it cannot
/// be read. A bounded read, whatever the log's size; blocking, so a coordinator calls it off
/// its runtime's threads.
pub fn head_from(path: &Path, start: u64) -> String {
    let read = || -> std::io::Result<Vec<u8>> {
        let mut file = std::fs::File::open(path)?;
        file.seek(SeekFrom::Start(start))?;
        let mut bytes = Vec::new();
        file.take(HEAD_BYTES).read_to_end(&mut bytes)?;
        Ok(bytes)
    };
    read()
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default()
}

/// Copy a sandboxed worker's stderr (a pipe: the worker, its supervisor and all they start
/// write to it) into the engine's log, at most `limit` bytes; past it, one line says so and
/// the rest is read and dropped, so that no writer blocks. The worker never holds the log
/// file, so a plugin cannot fill the output folder through it. Ends when every writer has
/// closed the pipe (the worker and all it started are gone).
pub fn copy_into(
    mut pipe: tokio::process::ChildStderr,
    log: std::fs::File,
    limit: u64,
) -> tokio::task::JoinHandle<()> {
    use std::io::Write;
    use tokio::io::AsyncReadExt;
    // The log is written with plain writes of at most 16 KiB: into the page cache, as
    // quick as the pipe's read.
    tokio::spawn(async move {
        let mut log = log;
        let mut buffer = vec![0u8; 16 << 10];
        let mut copied = 0u64;
        let mut writable = true;
        loop {
            let n = match pipe.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            let room = usize::try_from(limit.saturating_sub(copied)).unwrap_or(usize::MAX);
            let take = n.min(room);
            if writable && take > 0 {
                writable = log.write_all(&buffer[..take]).is_ok();
                copied += take as u64;
            }
            if writable && take < n {
                let note = format!(
                    "\nharness: this worker's log reached its log-limit of {limit} bytes; the rest is dropped\n"
                );
                let _ = log.write_all(note.as_bytes());
                writable = false;
            }
        }
        let _ = log.flush();
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_is_the_last_lines_read_from_the_end() {
        let dir = std::env::temp_dir().join(format!("stderr-log-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("e.stderr.log");
        // Far more than the bytes read: the first lines are never read, the last 20 quoted.
        let mut text = String::new();
        for i in 0..5000 {
            text.push_str(&format!("line {i} of the engine's chatter\n"));
        }
        text.push_str("\n\x1b[2Jpython3: can't open file '/x/missing.py'\n");
        std::fs::write(&log, &text).unwrap();
        let t = tail(&log).unwrap();
        assert_eq!(t.lines.len(), TAIL_LINES);
        assert_eq!(t.lines[0], "line 4981 of the engine's chatter");
        // Control characters escaped, the blank line left out.
        assert_eq!(
            t.lines[TAIL_LINES - 1],
            "\\u{1b}[2Jpython3: can't open file '/x/missing.py'"
        );
        assert!(t.to_string().starts_with(&format!(
            "its stderr log, {}, ends with:\n    line 4981",
            log.display()
        )));
        std::fs::write(&log, "").unwrap();
        assert!(tail(&log).unwrap().to_string().ends_with("is empty"));
        assert_eq!(tail(&dir.join("none")), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A worker's part of a shared log is read from where it began, and no further than
    /// [`HEAD_BYTES`] however large the log grew.
    #[test]
    fn the_head_is_the_worker_s_own_part_and_bounded() {
        let dir = std::env::temp_dir().join(format!("stderr-head-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("e.stderr.log");
        let earlier = "an earlier worker: memory allocation of 1 bytes failed\n";
        let mine = "memory allocation of 4096 bytes failed\n";
        let mut text = format!("{earlier}{mine}");
        text.push_str(&"x".repeat(3 * HEAD_BYTES as usize));
        std::fs::write(&log, &text).unwrap();
        let head = head_from(&log, earlier.len() as u64);
        assert!(head.starts_with(mine), "{head:.80}");
        assert_eq!(head.len() as u64, HEAD_BYTES);
        assert_eq!(head_from(&dir.join("none"), 0), "");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
