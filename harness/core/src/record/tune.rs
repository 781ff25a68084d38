//! What a tune keeps in its output folder besides the games (`reports/README.md` describes
//! each field):
//! - `tune.jsonl`: one [`TuneLine`] per iteration applied to θ, in the order applied;
//! - `tune-dispatch.jsonl`: one [`Dispatch`] per iteration begun, written (and synced) before
//!   its first game starts: the θ it was dispatched with, Δ, the values played and the gain
//!   index, so that a resumed run finishes a begun iteration with the same values and applies
//!   its result with the gains it was played with.
//!
//! - `tune-theta.json` (a sharded tune only, in the folder of the shard folders): the current
//!   θ as the aggregator last applied it, a [`ThetaFile`], replaced atomically; each shard
//!   reads it when it begins an iteration.
//!
//! Lines are appended with one write and synced, like the games' journal; a reader skips a torn
//! last line.

use super::journal::write_durably;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// One line per applied iteration.
pub const TUNE_FILE: &str = "tune.jsonl";
/// One line per iteration begun.
pub const DISPATCH_FILE: &str = "tune-dispatch.jsonl";

/// θ of a sharded tune, in the folder that holds the shard folders.
pub const THETA_FILE: &str = "tune-theta.json";

/// Parameter name → value, in the tune's order: a JSON object whose keys keep that order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Values<T>(pub Vec<(String, T)>);

impl<T: Copy> Values<T> {
    /// The values of `names` (in order) taken from `values`.
    pub fn of(names: &[&str], values: &[T]) -> Values<T> {
        Values(
            names
                .iter()
                .zip(values)
                .map(|(n, v)| (n.to_string(), *v))
                .collect(),
        )
    }

    /// The values alone, in order.
    pub fn values(&self) -> Vec<T> {
        self.0.iter().map(|(_, v)| *v).collect()
    }
}

impl<T: Serialize> Serialize for Values<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Values<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Values<T>, D::Error> {
        struct InOrder<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for InOrder<T> {
            type Value = Values<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of parameter values")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Values<T>, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry::<String, T>()? {
                    out.push(entry);
                }
                Ok(Values(out))
            }
        }
        deserializer.deserialize_map(InOrder(std::marker::PhantomData))
    }
}

/// An iteration applied to θ: a line of `tune.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuneLine {
    /// 1-based; iteration i plays round i − 1 of the schedule.
    pub iteration: u64,
    pub delta: Values<i8>,
    /// The values θ+ played (integer options after stochastic rounding).
    pub plus: Values<f64>,
    pub minus: Values<f64>,
    /// The pair's result for θ+: its wins minus its losses (against an opponent: half the
    /// difference between θ+'s and θ−'s wins minus losses), from −2 to 2.
    pub result: f64,
    /// θ after this iteration's update.
    pub theta: Values<f64>,
}

/// An iteration begun: a line of `tune-dispatch.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dispatch {
    pub iteration: u64,
    /// The gain index: iterations applied to θ when this one was dispatched, plus one.
    pub k: u64,
    /// θ at dispatch.
    pub theta: Values<f64>,
    pub delta: Values<i8>,
    pub plus: Values<f64>,
    pub minus: Values<f64>,
}

/// θ as the aggregator of a sharded tune last wrote it: the iterations applied (1 to
/// `applied`, in order) and θ after them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThetaFile {
    pub applied: u64,
    pub theta: Values<f64>,
    /// The tune it belongs to (its `[tune]` table as `tournament.json` pins it): a shard
    /// refuses the θ of another tune left in the folder.
    pub tune: TuneRecord,
}

/// A tune's `[tune]` table as `tournament.json` and `theta.json` pin it: a resumed tune, a
/// shard of one, must be the same tune.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuneRecord {
    /// The tuned engine and its opponent (`null`: itself), as indices into the engines.
    pub engine: usize,
    pub opponent: Option<usize>,
    pub seed: u64,
    pub iterations: u64,
    #[serde(rename = "A")]
    pub big_a: f64,
    pub alpha: f64,
    pub gamma: f64,
    pub params: Vec<TunedParamRecord>,
    /// Keys of a newer version, kept as read.
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

/// One tuned option of a [`TuneRecord`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TunedParamRecord {
    pub name: String,
    pub start: f64,
    pub min: f64,
    pub max: f64,
    pub c_end: f64,
    pub r_end: f64,
    /// Keys of a newer version, kept as read.
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

impl ThetaFile {
    /// The file in `dir`; `None` when there is none yet (the aggregator has applied nothing).
    pub fn read(dir: &Path) -> anyhow::Result<Option<ThetaFile>> {
        let path = dir.join(THETA_FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text)
                .map(Some)
                .map_err(|e| anyhow::anyhow!("{}: not a θ file: {e}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => anyhow::bail!("cannot read {}: {e}", path.display()),
        }
    }

    /// Replace the file in `dir` atomically: a shard reads the old θ or the new one.
    pub fn write(&self, dir: &Path) -> anyhow::Result<()> {
        let path = dir.join(THETA_FILE);
        let text = serde_json::to_string_pretty(self)? + "\n";
        write_durably(&path, text.as_bytes())
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))
    }
}

/// The complete lines of a JSON-lines file (none when it does not exist); a torn last line is
/// left out, a line that does not parse is an error naming the file and line.
pub fn read_lines<T: for<'de> Deserialize<'de>>(path: &Path) -> anyhow::Result<Vec<T>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => anyhow::bail!("cannot read {}: {e}", path.display()),
    };
    let complete = text.rfind('\n').map_or(0, |i| i + 1);
    text[..complete]
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l)
                .map_err(|e| anyhow::anyhow!("{}:{}: {e}", path.display(), i + 1))
        })
        .collect()
}

/// A JSON-lines file opened for appending: each line is written with one call and synced.
pub struct LineWriter {
    file: File,
    path: PathBuf,
}

impl LineWriter {
    /// Open `path` for appending, cutting off a torn last line first.
    pub fn open(path: &Path) -> anyhow::Result<LineWriter> {
        if let Ok(bytes) = std::fs::read(path) {
            let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            if complete < bytes.len() {
                let f = OpenOptions::new().write(true).open(path)?;
                f.set_len(complete as u64)?;
                f.sync_all()?;
            }
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| anyhow::anyhow!("cannot open {} for writing: {e}", path.display()))?;
        Ok(LineWriter {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Append one value as a line, durably (synced before this returns).
    pub fn append<T: Serialize>(&mut self, value: &T) -> anyhow::Result<()> {
        self.write_line(value, true)
    }

    /// Append one value as a line in one write, not synced: for a file rebuilt from the
    /// durable ones whenever it is opened (`tune.jsonl`), where a sync per line would only
    /// cost time.
    pub fn append_derived<T: Serialize>(&mut self, value: &T) -> anyhow::Result<()> {
        self.write_line(value, false)
    }

    fn write_line<T: Serialize>(&mut self, value: &T, sync: bool) -> anyhow::Result<()> {
        let mut line = serde_json::to_string(value)?;
        line.push('\n');
        (|| {
            self.file.write_all(line.as_bytes())?;
            if sync {
                self.file.sync_data()?;
            }
            Ok::<(), std::io::Error>(())
        })()
        .map_err(|e| anyhow::anyhow!("cannot append to {}: {e}", self.path.display()))
    }
}

/// Replace the JSON-lines file `path` with `values`, atomically.
pub fn rewrite_lines<T: Serialize>(path: &Path, values: &[T]) -> anyhow::Result<()> {
    let mut text = String::new();
    for v in values {
        text.push_str(&serde_json::to_string(v)?);
        text.push('\n');
    }
    write_durably(path, text.as_bytes())
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_keep_their_order_and_lines_survive_a_torn_end() {
        let line = TuneLine {
            iteration: 3,
            delta: Values::of(&["Zeta", "Alpha"], &[1, -1]),
            plus: Values::of(&["Zeta", "Alpha"], &[5.0, 0.25]),
            minus: Values::of(&["Zeta", "Alpha"], &[3.0, 0.75]),
            result: -1.0,
            theta: Values::of(&["Zeta", "Alpha"], &[4.1, 0.5]),
        };
        let text = serde_json::to_string(&line).unwrap();
        assert!(text.starts_with(
            r#"{"iteration":3,"delta":{"Zeta":1,"Alpha":-1},"plus":{"Zeta":5.0,"Alpha":0.25}"#
        ));
        let back: TuneLine = serde_json::from_str(&text).unwrap();
        assert_eq!(back, line);
        let dir = std::env::temp_dir().join(format!("tune-lines-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(TUNE_FILE);
        let mut w = LineWriter::open(&path).unwrap();
        w.append(&line).unwrap();
        drop(w);
        // A torn line (a kill mid-write) is skipped by readers and cut off by the next writer.
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"{\"iteration\":4,")
            .unwrap();
        assert_eq!(
            read_lines::<TuneLine>(&path).unwrap(),
            std::slice::from_ref(&line)
        );
        LineWriter::open(&path).unwrap().append(&line).unwrap();
        assert_eq!(read_lines::<TuneLine>(&path).unwrap().len(), 2);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
