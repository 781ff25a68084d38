//! The weight file: a versioned, checksummed binary that the trainer writes and the plugin
//! embeds (or loads from the `EvalFile` option).
//!
//! Layout, all integers little-endian:
//!
//! | bytes            | content                                                        |
//! |------------------|----------------------------------------------------------------|
//! | 4                | magic `OEPW` ("Othello Engine Pattern Weights")                 |
//! | 4                | format version, `u32` = [`FORMAT_VERSION`]                      |
//! | 4                | phases, `u32`                                                   |
//! | 4                | number of shapes, `u32`                                         |
//! | per shape        | name length `u8`, name (ASCII), orbit count `u32`               |
//! | 4                | mobility table side, `u32` (= `MOBILITY_SIDE`)                  |
//! | per phase        | the compact weights: orbits of each shape in order, then the    |
//! |                  | mobility table, each an `i16` in evaluation units (1/100 disc)   |
//! | 8                | FNV-1a 64 checksum of every byte before it                      |
//!
//! Only one weight per orbit of symmetric configurations is stored (see `shape`); loading
//! expands them into full per-phase tables indexed directly by configuration.

use super::model::{Model, MOBILITY_SIDE};
use std::fmt;
use std::path::Path;

pub const MAGIC: &[u8; 4] = b"OEPW";
pub const FORMAT_VERSION: u32 = 1;

/// A weight file that cannot be used, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WeightError {
    Io {
        path: String,
        message: String,
    },
    Truncated {
        needed: usize,
        len: usize,
    },
    BadMagic,
    Version(u32),
    Checksum {
        stored: u64,
        computed: u64,
    },
    Model(String),
    TrailingBytes(usize),
    /// Any of the above, in a file.
    InFile {
        path: String,
        error: Box<WeightError>,
    },
}

impl fmt::Display for WeightError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeightError::Io { path, message } => {
                write!(f, "cannot read weight file {path}: {message}")
            }
            WeightError::Truncated { needed, len } => {
                write!(
                    f,
                    "weight file truncated: {len} bytes, at least {needed} needed"
                )
            }
            WeightError::BadMagic => write!(f, "not a pattern weight file (no `OEPW` magic)"),
            WeightError::Version(v) => write!(
                f,
                "weight file format version {v}; this engine reads version {FORMAT_VERSION}"
            ),
            WeightError::Checksum { stored, computed } => write!(
                f,
                "weight file corrupt: checksum {stored:016x} stored, {computed:016x} computed"
            ),
            WeightError::Model(m) => write!(f, "weight file describes an unusable model: {m}"),
            WeightError::TrailingBytes(n) => write!(f, "weight file has {n} bytes too many"),
            WeightError::InFile { path, error } => write!(f, "{path}: {error}"),
        }
    }
}

impl std::error::Error for WeightError {}

/// FNV-1a, 64 bits: enough to catch truncation and bit rot, no dependency.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// A model with its weights, expanded for evaluation: `tables[phase][entry]`.
#[derive(Debug)]
pub struct Weights {
    pub model: Model,
    /// Per phase, the full table: each shape's configurations, then mobility.
    pub tables: Vec<Box<[i16]>>,
    /// The checksum of the file they came from (shown in the engine's info).
    pub checksum: u64,
}

impl Weights {
    /// Read a weight file image.
    pub fn parse(bytes: &[u8]) -> Result<Weights, WeightError> {
        if bytes.len() < 8 + 16 {
            return Err(WeightError::Truncated {
                needed: 24,
                len: bytes.len(),
            });
        }
        if &bytes[..4] != MAGIC {
            return Err(WeightError::BadMagic);
        }
        let (body, tail) = bytes.split_at(bytes.len() - 8);
        let stored = u64::from_le_bytes(tail.try_into().expect("8 bytes"));
        let computed = fnv1a64(body);
        let mut r = Reader { bytes: body, at: 4 };
        let version = r.u32()?;
        if version != FORMAT_VERSION {
            return Err(WeightError::Version(version));
        }
        if stored != computed {
            return Err(WeightError::Checksum { stored, computed });
        }
        let phases = r.u32()? as usize;
        let n_shapes = r.u32()? as usize;
        // Every shape has at least two instances, each a feature lane.
        if n_shapes > super::model::LANES / 2 {
            return Err(WeightError::Model(format!("{n_shapes} shapes")));
        }
        let mut names = Vec::with_capacity(n_shapes);
        let mut orbits = Vec::with_capacity(n_shapes);
        for _ in 0..n_shapes {
            let len = r.take(1)?[0] as usize;
            let name = String::from_utf8_lossy(r.take(len)?).into_owned();
            names.push(name);
            orbits.push(r.u32()? as usize);
        }
        let side = r.u32()? as usize;
        if side != MOBILITY_SIDE {
            return Err(WeightError::Model(format!(
                "mobility table side {side}, this engine uses {MOBILITY_SIDE}"
            )));
        }
        let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let model = Model::new(&name_refs, phases).map_err(WeightError::Model)?;
        for (s, &o) in model.shapes.iter().zip(&orbits) {
            if s.orbits != o {
                return Err(WeightError::Model(format!(
                    "shape `{}` has {o} orbits in the file, {} here",
                    s.name, s.orbits
                )));
            }
        }
        let mut tables = Vec::with_capacity(phases);
        for _ in 0..phases {
            let compact = r.i16s(model.compact_len)?;
            tables.push(expand(&model, &compact));
        }
        if r.at != body.len() {
            return Err(WeightError::TrailingBytes(body.len() - r.at));
        }
        Ok(Weights {
            model,
            tables,
            checksum: stored,
        })
    }

    /// Read a weight file from disk.
    pub fn load(path: &Path) -> Result<Weights, WeightError> {
        let bytes = std::fs::read(path).map_err(|e| WeightError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        Weights::parse(&bytes).map_err(|e| WeightError::InFile {
            path: path.display().to_string(),
            error: Box::new(e),
        })
    }
}

/// The full table of one phase from its compact weights.
fn expand(model: &Model, compact: &[i16]) -> Box<[i16]> {
    let mut table = Vec::with_capacity(model.table_len);
    for (si, s) in model.shapes.iter().enumerate() {
        let base = model.orbit_offset[si];
        table.extend(s.canonical.iter().map(|&c| compact[base + c as usize]));
    }
    table.extend_from_slice(&compact[model.compact_len - MOBILITY_SIDE * MOBILITY_SIDE..]);
    table.into_boxed_slice()
}

/// Write a weight file image: `compact[phase]` holds `model.compact_len` weights.
pub fn write(model: &Model, compact: &[Vec<i16>]) -> Vec<u8> {
    assert_eq!(compact.len(), model.phases);
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(model.phases as u32).to_le_bytes());
    out.extend_from_slice(&(model.shapes.len() as u32).to_le_bytes());
    for s in &model.shapes {
        out.push(s.name.len() as u8);
        out.extend_from_slice(s.name.as_bytes());
        out.extend_from_slice(&(s.orbits as u32).to_le_bytes());
    }
    out.extend_from_slice(&(MOBILITY_SIDE as u32).to_le_bytes());
    for phase in compact {
        assert_eq!(phase.len(), model.compact_len);
        for w in phase {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }
    let sum = fnv1a64(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], WeightError> {
        let end = self.at + n;
        if end > self.bytes.len() {
            return Err(WeightError::Truncated {
                needed: end + 8,
                len: self.bytes.len() + 8,
            });
        }
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn u32(&mut self) -> Result<u32, WeightError> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }

    fn i16s(&mut self, n: usize) -> Result<Vec<i16>, WeightError> {
        let raw = self.take(2 * n)?;
        Ok(raw
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::model::DEFAULT_SHAPES;

    fn sample() -> (Model, Vec<u8>) {
        let model = Model::new(&DEFAULT_SHAPES[..3], 2).unwrap();
        let compact: Vec<Vec<i16>> = (0..2)
            .map(|p| {
                (0..model.compact_len)
                    .map(|i| ((i * 7 + p) % 601) as i16 - 300)
                    .collect()
            })
            .collect();
        let bytes = write(&model, &compact);
        (model, bytes)
    }

    #[test]
    fn round_trip_expands_orbits() {
        let (model, bytes) = sample();
        let w = Weights::parse(&bytes).unwrap();
        assert_eq!(w.tables.len(), 2);
        assert_eq!(w.tables[1].len(), model.table_len);
        // Two mirrored configurations of one shape read the same weight.
        let s = &w.model.shapes[0];
        let mut first = vec![usize::MAX; s.orbits];
        let (a, b) = (0..s.size())
            .find_map(|x| {
                let c = s.canonical[x] as usize;
                if first[c] == usize::MAX {
                    first[c] = x;
                    None
                } else {
                    Some((first[c], x))
                }
            })
            .unwrap();
        assert_eq!(w.tables[0][a], w.tables[0][b]);
    }

    #[test]
    fn damage_is_a_clear_error() {
        let (_, bytes) = sample();
        let mut flipped = bytes.clone();
        flipped[100] ^= 1;
        assert!(matches!(
            Weights::parse(&flipped),
            Err(WeightError::Checksum { .. })
        ));
        let cut = &bytes[..bytes.len() - 100];
        assert!(Weights::parse(cut).is_err());
        let mut magic = bytes.clone();
        magic[0] = b'X';
        assert_eq!(Weights::parse(&magic).unwrap_err(), WeightError::BadMagic);
        let mut version = bytes.clone();
        version[4] = 9;
        assert_eq!(
            Weights::parse(&version).unwrap_err(),
            WeightError::Version(9)
        );
        // Damage behind a recomputed checksum: an unknown shape, too many shapes.
        let reseal = |mut b: Vec<u8>| {
            let n = b.len() - 8;
            let sum = fnv1a64(&b[..n]);
            b[n..].copy_from_slice(&sum.to_le_bytes());
            b
        };
        let mut renamed = bytes.clone();
        let at = renamed.windows(9).position(|w| w == b"corner3x3").unwrap();
        renamed[at..at + 9].copy_from_slice(b"cornerXxX");
        let e = Weights::parse(&reseal(renamed)).unwrap_err();
        assert!(e.to_string().contains("cornerXxX"), "{e}");
        let mut many = bytes.clone();
        many[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            Weights::parse(&reseal(many)),
            Err(WeightError::Model(_))
        ));
        let missing = Weights::load(Path::new("/nonexistent/eval.weights")).unwrap_err();
        assert!(
            missing.to_string().contains("/nonexistent/eval.weights"),
            "{missing}"
        );
    }
}
