//! The model: which shapes, how many phases, and how a position maps to table entries.
//!
//! Every instance of every shape is a *feature*; with Edax's shape set that is 46 features.
//! A position is scored by one table entry per feature plus one mobility entry (the number of
//! legal moves of each side, a `MOBILITY_SIDE`² table), all from the weight set of the
//! position's phase (its number of empties, cut into `phases` equal slices).
//!
//! Feature indices change only where discs change, so they are kept up to date move by move
//! (see [`super::eval`]): for every square, [`Model::delta`] holds `3^digit` in the lane of
//! each feature that reads the square. Playing square `s` and flipping `F`, from the mover's
//! view `s` goes 0 -> 1 (+delta) and each flipped square 2 -> 1 (-delta); from the other
//! side's view `s` goes 0 -> 2 (+2 delta) and each flip 1 -> 2 (+delta).

use super::shape::Shape;
use othello_sdk::board::Board;

/// Lanes of a feature vector: the most features a model may have (padding lanes stay 0).
pub const LANES: usize = 64;
/// Mobility counts are clamped below this; the mobility table is `MOBILITY_SIDE²` entries.
pub const MOBILITY_SIDE: usize = 32;
/// Largest number of phases a model may have.
pub const MAX_PHASES: usize = 60;

/// Feature indices of one position from one side's view, one lane per feature.
pub type Lanes = [u16; LANES];

/// A model structure (no weights).
#[derive(Clone, Debug)]
pub struct Model {
    pub shapes: Vec<Shape>,
    pub phases: usize,
    /// Per feature: its shape (index into `shapes`).
    pub feature_shape: Vec<usize>,
    /// Per feature: the offset of its shape's table in a phase's full weight table.
    pub feature_offset: Vec<u32>,
    /// Per shape: the offset of its orbits in a phase's compact (trained, stored) weights.
    pub orbit_offset: Vec<usize>,
    /// Entries of a phase's full table (shapes, then mobility).
    pub table_len: usize,
    /// Entries of a phase's compact weights (orbits, then mobility).
    pub compact_len: usize,
    /// Per square: `3^digit` in the lane of each feature reading it.
    pub delta: Box<[Lanes; 64]>,
    /// Phase of a position by its number of empties (0..=64).
    pub phase_of_empties: [u8; 65],
}

/// Shape names of the default model (Edax's set).
pub const DEFAULT_SHAPES: &[&str] = &[
    "corner3x3",
    "corner2x5",
    "edge2x",
    "line2",
    "line3",
    "line4",
    "diag8",
    "diag7",
    "diag6",
    "diag5",
    "diag4",
];

impl Model {
    /// A model of the named shapes with `phases` weight sets. Errors name the unknown shape
    /// or the limit broken.
    pub fn new(names: &[&str], phases: usize) -> Result<Model, String> {
        if phases == 0 || phases > MAX_PHASES {
            return Err(format!("{phases} phases: must be 1..={MAX_PHASES}"));
        }
        let shapes = names
            .iter()
            .map(|n| Shape::named(n).ok_or_else(|| format!("unknown pattern shape `{n}`")))
            .collect::<Result<Vec<_>, _>>()?;
        let mut feature_shape = Vec::new();
        let mut feature_offset = Vec::new();
        let mut orbit_offset = Vec::new();
        let mut delta = Box::new([[0u16; LANES]; 64]);
        let (mut table_len, mut compact_len) = (0usize, 0usize);
        for (si, s) in shapes.iter().enumerate() {
            orbit_offset.push(compact_len);
            for inst in &s.instances {
                let f = feature_shape.len();
                if f == LANES {
                    return Err(format!("more than {LANES} pattern features"));
                }
                for (digit, &q) in inst.iter().enumerate() {
                    delta[q as usize][f] = super::shape::pow3(digit) as u16;
                }
                feature_shape.push(si);
                feature_offset.push(table_len as u32);
            }
            table_len += s.size();
            compact_len += s.orbits;
        }
        table_len += MOBILITY_SIDE * MOBILITY_SIDE;
        compact_len += MOBILITY_SIDE * MOBILITY_SIDE;
        let mut phase_of_empties = [0u8; 65];
        for (e, p) in phase_of_empties.iter_mut().enumerate() {
            let played = 60 - e.min(60);
            *p = (played * phases / 60).min(phases - 1) as u8;
        }
        Ok(Model {
            shapes,
            phases,
            feature_shape,
            feature_offset,
            orbit_offset,
            table_len,
            compact_len,
            delta,
            phase_of_empties,
        })
    }

    /// Number of pattern features (shape instances).
    pub fn features(&self) -> usize {
        self.feature_shape.len()
    }

    /// The phase of `b`.
    #[inline]
    pub fn phase(&self, b: &Board) -> usize {
        self.phase_of_empties[b.empty().count_ones() as usize] as usize
    }

    /// Feature indices of `b` from the side to move's view and from the other side's view,
    /// computed from scratch.
    pub fn lanes(&self, b: &Board) -> (Lanes, Lanes) {
        let (mut mine, mut theirs) = ([0u16; LANES], [0u16; LANES]);
        let mut p = b.player;
        while p != 0 {
            let d = &self.delta[p.trailing_zeros() as usize];
            p &= p - 1;
            for l in 0..LANES {
                mine[l] = mine[l].wrapping_add(d[l]);
                theirs[l] = theirs[l].wrapping_add(2 * d[l]);
            }
        }
        let mut o = b.opponent;
        while o != 0 {
            let d = &self.delta[o.trailing_zeros() as usize];
            o &= o - 1;
            for l in 0..LANES {
                mine[l] = mine[l].wrapping_add(2 * d[l]);
                theirs[l] = theirs[l].wrapping_add(d[l]);
            }
        }
        (mine, theirs)
    }

    /// The mobility entry of `b` (offset within a phase's table, after the shapes).
    #[inline]
    pub fn mobility_index(b: &Board) -> usize {
        let mine = crate::flips::moves(b.player, b.opponent).count_ones() as usize;
        let theirs = crate::flips::moves(b.opponent, b.player).count_ones() as usize;
        mine.min(MOBILITY_SIDE - 1) * MOBILITY_SIDE + theirs.min(MOBILITY_SIDE - 1)
    }

    /// The compact (trained) weight ids that score `b`: one per feature, then mobility.
    /// This is what the trainer fits.
    pub fn compact_ids(&self, b: &Board, out: &mut Vec<u32>) {
        out.clear();
        for (si, s) in self.shapes.iter().enumerate() {
            for k in 0..s.instances.len() {
                let c = s.canonical[s.index(k, b.player, b.opponent)] as usize;
                out.push((self.orbit_offset[si] + c) as u32);
            }
        }
        out.push(
            (self.compact_len - MOBILITY_SIDE * MOBILITY_SIDE + Self::mobility_index(b)) as u32,
        );
    }

    /// The names of the shapes, in order.
    pub fn shape_names(&self) -> Vec<&'static str> {
        self.shapes.iter().map(|s| s.name).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello_sdk::board::playout;

    #[test]
    fn scratch_lanes_match_shape_indices() {
        let m = Model::new(DEFAULT_SHAPES, 30).unwrap();
        assert_eq!(m.features(), 46);
        for b in playout::random_positions(200, 7).iter().map(|p| p.board) {
            let (mine, theirs) = m.lanes(&b);
            let mut f = 0;
            for s in &m.shapes {
                for k in 0..s.instances.len() {
                    assert_eq!(mine[f] as usize, s.index(k, b.player, b.opponent));
                    assert_eq!(theirs[f] as usize, s.index(k, b.opponent, b.player));
                    f += 1;
                }
            }
            assert!(mine[f..].iter().all(|&x| x == 0));
        }
    }

    #[test]
    fn phases_cover_the_game() {
        let m = Model::new(DEFAULT_SHAPES, 30).unwrap();
        assert_eq!(m.phase_of_empties[60], 0);
        assert_eq!(m.phase_of_empties[59], 0);
        assert_eq!(m.phase_of_empties[58], 1);
        assert_eq!(m.phase_of_empties[1], 29);
        assert!(Model::new(DEFAULT_SHAPES, 0).is_err());
        assert!(Model::new(&["nonsense"], 10)
            .unwrap_err()
            .contains("nonsense"));
    }
}
