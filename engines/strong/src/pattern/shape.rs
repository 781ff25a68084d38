//! Pattern shapes, their instances on the board and the sharing of weights between
//! symmetric configurations.
//!
//! A shape is an ordered list of squares (the base instance). Its instances are the distinct
//! square sets obtained by applying the 8 board symmetries to it; every instance reads its
//! squares in the image order, so one weight table serves all of them.
//!
//! A configuration of a shape is a base-3 number: digit `i` (weight `3^i`) is the content of
//! the `i`-th square, 0 = empty, 1 = the side to move, 2 = the other side. When a symmetry
//! maps a shape onto itself with its squares in another order (an edge read from the other
//! end, a corner block mirrored in its diagonal), the two readings of one board must score
//! alike: the trainer fits one weight per orbit of configurations ([`Shape::canonical`]) and
//! the weight file stores only those.

use othello_sdk::board::Symmetry;

/// A pattern shape: a name (stored in weight files) and its base squares.
#[derive(Clone, Debug)]
pub struct Shape {
    pub name: &'static str,
    /// Base instance, in digit order (square indices, a1 = 0).
    pub squares: Vec<u8>,
    /// Every instance (the base first), each in the digit order of its symmetry image.
    pub instances: Vec<Vec<u8>>,
    /// For every configuration, the index of its orbit among `0..orbits`.
    pub canonical: Vec<u32>,
    /// Number of orbits: the weights the trainer fits and the file stores.
    pub orbits: usize,
}

/// Shape definitions: name and base squares in digit order. The set follows Edax's (Buro's
/// Logistello lineage): corner 3x3 and 2x5 blocks, edges with both X-squares, the second to
/// fourth lines and the diagonals of 4 to 8 squares; `corner_triangle` is Egaroucid's extra
/// corner shape, measured separately (see `docs/measurements.md`).
pub const SHAPE_TABLE: &[(&str, &str)] = &[
    ("corner3x3", "a1 b1 c1 a2 b2 c2 a3 b3 c3"),
    ("corner2x5", "a1 b1 c1 d1 e1 a2 b2 c2 d2 e2"),
    ("edge2x", "b2 a1 b1 c1 d1 e1 f1 g1 h1 g2"),
    ("line2", "a2 b2 c2 d2 e2 f2 g2 h2"),
    ("line3", "a3 b3 c3 d3 e3 f3 g3 h3"),
    ("line4", "a4 b4 c4 d4 e4 f4 g4 h4"),
    ("diag8", "a1 b2 c3 d4 e5 f6 g7 h8"),
    ("diag7", "b1 c2 d3 e4 f5 g6 h7"),
    ("diag6", "c1 d2 e3 f4 g5 h6"),
    ("diag5", "d1 e2 f3 g4 h5"),
    ("diag4", "e1 f2 g3 h4"),
    ("corner_triangle", "a1 b1 c1 d1 a2 b2 c2 a3 b3 a4"),
];

/// `a1`..`h8` to a square index.
fn square_index(name: &str) -> u8 {
    let b = name.as_bytes();
    assert!(
        b.len() == 2 && (b'a'..=b'h').contains(&b[0]) && (b'1'..=b'8').contains(&b[1]),
        "bad square `{name}` in a shape"
    );
    (b[1] - b'1') * 8 + (b[0] - b'a')
}

/// `3^n`.
pub const fn pow3(n: usize) -> usize {
    let mut p = 1;
    let mut i = 0;
    while i < n {
        p *= 3;
        i += 1;
    }
    p
}

impl Shape {
    /// The shape called `name` in [`SHAPE_TABLE`].
    pub fn named(name: &str) -> Option<Shape> {
        SHAPE_TABLE
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(n, sq)| Shape::new(n, sq.split_whitespace().map(square_index).collect()))
    }

    fn new(name: &'static str, squares: Vec<u8>) -> Shape {
        let n = squares.len();
        let mut instances: Vec<Vec<u8>> = Vec::new();
        // Digit permutations that map the base onto itself: perm[i] = digit read at i.
        let mut self_maps: Vec<Vec<usize>> = Vec::new();
        for s in Symmetry::ALL {
            let image: Vec<u8> = squares
                .iter()
                .map(|&q| s.apply(1u64 << q).trailing_zeros() as u8)
                .collect();
            let set = |v: &[u8]| v.iter().fold(0u64, |m, &q| m | 1 << q);
            if set(&image) == set(&squares) {
                let perm = image
                    .iter()
                    .map(|q| squares.iter().position(|b| b == q).expect("same set"))
                    .collect();
                self_maps.push(perm);
            }
            if !instances.iter().any(|i| set(i) == set(&image)) {
                instances.push(image);
            }
        }
        // Orbit ids: a configuration and its self-map images share the smallest one's id.
        let size = pow3(n);
        let mut canonical = vec![u32::MAX; size];
        let mut orbits = 0u32;
        let mut digits = vec![0usize; n];
        for c in 0..size {
            if canonical[c] != u32::MAX {
                continue;
            }
            let mut x = c;
            for d in digits.iter_mut() {
                *d = x % 3;
                x /= 3;
            }
            for perm in &self_maps {
                let image: usize = (0..n).rev().fold(0, |acc, i| acc * 3 + digits[perm[i]]);
                canonical[image] = orbits;
            }
            orbits += 1;
        }
        Shape {
            name,
            squares,
            instances,
            canonical,
            orbits: orbits as usize,
        }
    }

    /// Configurations of this shape: `3^squares`.
    pub fn size(&self) -> usize {
        pow3(self.squares.len())
    }

    /// The configuration of instance `k` in a position, from the side to move's view.
    pub fn index(&self, k: usize, player: u64, opponent: u64) -> usize {
        self.instances[k].iter().rev().fold(0, |acc, &q| {
            acc * 3 + ((player >> q) & 1) as usize + 2 * ((opponent >> q) & 1) as usize
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instance_counts_and_orbits() {
        let expect = [
            ("corner3x3", 4, 9),
            ("corner2x5", 8, 10),
            ("edge2x", 4, 10),
            ("line2", 4, 8),
            ("line3", 4, 8),
            ("line4", 4, 8),
            ("diag8", 2, 8),
            ("diag7", 4, 7),
            ("diag6", 4, 6),
            ("diag5", 4, 5),
            ("diag4", 4, 4),
            ("corner_triangle", 4, 10),
        ];
        for (name, instances, squares) in expect {
            let s = Shape::named(name).unwrap();
            assert_eq!(s.instances.len(), instances, "{name}");
            assert_eq!(s.squares.len(), squares, "{name}");
        }
        // corner2x5 has no self-symmetry: every configuration is its own orbit.
        let c = Shape::named("corner2x5").unwrap();
        assert_eq!(c.orbits, c.size());
        // A line read from either end: (3^8 + 3^4 palindromes) / 2 orbits.
        let l = Shape::named("line2").unwrap();
        assert_eq!(l.orbits, (pow3(8) + pow3(4)) / 2);
        // The 3x3 block mirrored in its diagonal: 3 squares fixed, 3 pairs swapped.
        let b = Shape::named("corner3x3").unwrap();
        assert_eq!(b.orbits, (pow3(9) + pow3(6)) / 2);
    }

    #[test]
    fn mirrored_readings_share_an_orbit() {
        // The top edge with one disc on b1, and its mirror image with the disc on g1: two
        // configurations of one instance, one orbit.
        let e = Shape::named("edge2x").unwrap();
        let at = |q: &str| 1u64 << square_index(q);
        let a = e.index(0, at("b1"), at("a1"));
        let h = e.index(0, at("g1"), at("h1"));
        assert_ne!(a, h);
        assert_eq!(e.canonical[a], e.canonical[h]);
        assert_ne!(e.canonical[a], e.canonical[e.index(0, at("a1"), at("b1"))]);
    }
}
