//! Stable discs: discs that can never be flipped again, whatever is played.
//!
//! Used two ways: the evaluation counts stable edge discs, and both searches try the
//! stability cutoff (Edax; [`stability_cutoff`], here): if the opponent owns `s` stable discs,
//! the side to move cannot finish above `64 - 2 s`, so a node whose alpha is already there
//! fails low at once.
//!
//! The estimate (Edax's `get_stability`) is a lower bound of the true set:
//! 1. edges: exact, from a 256 x 256 table of every (player, opponent) edge line, computed once
//!    by trying every sequence of moves on the line (`find_edge_stable`);
//! 2. a disc on four full lines (row, column, both diagonals) is stable;
//! 3. propagation: an inner disc is stable when, in each of the 4 directions, its line is full
//!    or one of its two neighbours along the line is stable (of either side: only own stable
//!    discs are tracked here, which is the usual weaker but safe form).

use othello_sdk::board::Board;
use std::sync::OnceLock;

struct Tables {
    /// `edge[p * 256 + o]`: stable squares of `p` on an 8-square line.
    edge: Vec<u8>,
    /// Packed column byte -> column a squares, and the same for column h.
    unpack_a: [u64; 256],
    unpack_h: [u64; 256],
    /// Masks of the 15 + 15 diagonals (directions 7 and 9) with 3 squares or more.
    diag7: Vec<u64>,
    diag9: Vec<u64>,
}

static TABLES: OnceLock<Tables> = OnceLock::new();

fn tables() -> &'static Tables {
    TABLES.get_or_init(build)
}

/// Build the tables now (they are built lazily on first use otherwise).
pub fn init() {
    let _ = tables();
}

/// Edge stability by exhaustion: `stable` keeps the discs of `p` that stay `p`'s after every
/// move either side can make on the line, recursively.
fn find_edge_stable(p: u32, o: u32, mut stable: u32) -> u32 {
    let e = !(p | o) & 0xFF;
    stable &= p;
    if stable == 0 || e == 0 {
        return stable;
    }
    for x in 0..8 {
        if e & (1 << x) == 0 {
            continue;
        }
        // Either side places a disc on x (legal on the line or not: a move elsewhere on the
        // board may make it legal) and flips what it brackets on the line.
        for side in 0..2 {
            let (mut me, mut other) = if side == 0 { (p, o) } else { (o, p) };
            me |= 1 << x;
            // towards lower bits
            let mut y = x - 1;
            let mut run = 0;
            while y >= 0 && other & (1 << y) != 0 {
                run |= 1 << y;
                y -= 1;
            }
            if y >= 0 && me & (1 << y) != 0 {
                me |= run;
                other &= !run;
            }
            // towards higher bits
            let mut y = x + 1;
            let mut run = 0;
            while y < 8 && other & (1 << y) != 0 {
                run |= 1 << y;
                y += 1;
            }
            if y < 8 && me & (1 << y) != 0 {
                me |= run;
                other &= !run;
            }
            let (np, no) = if side == 0 { (me, other) } else { (other, me) };
            stable = find_edge_stable(np, no, stable);
            if stable == 0 {
                return 0;
            }
        }
    }
    stable
}

/// Column a gathered into a byte (bit order is whatever the multiplication gives; it is undone
/// by `unpack_a`, and edge stability does not depend on the line's direction).
#[inline(always)]
fn pack_a(x: u64) -> usize {
    ((x & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080) >> 56) as usize
}

#[inline(always)]
fn pack_h(x: u64) -> usize {
    pack_a(x >> 7)
}

fn build() -> Tables {
    let mut edge = vec![0u8; 65536];
    for p in 0..256u32 {
        for o in 0..256u32 {
            if p & o == 0 {
                edge[(p * 256 + o) as usize] = find_edge_stable(p, o, p) as u8;
            }
        }
    }
    let mut unpack_a = [0u64; 256];
    let mut unpack_h = [0u64; 256];
    for byte in 0..256usize {
        for row in 0..8 {
            let a = 1u64 << (row * 8);
            if pack_a(a) & byte != 0 {
                unpack_a[byte] |= a;
                unpack_h[byte] |= a << 7;
            }
        }
    }
    let mut diag7 = Vec::new();
    let mut diag9 = Vec::new();
    for start in 0..64i32 {
        for (list, dc) in [(&mut diag9, 1i32), (&mut diag7, -1i32)] {
            // Start only from the first square of a line (its predecessor is off-board).
            let (c, r) = (start % 8, start / 8);
            let (pc, pr) = (c - dc, r - 1);
            if (0..8).contains(&pc) && (0..8).contains(&pr) {
                continue;
            }
            let (mut c, mut r, mut m, mut n) = (c, r, 0u64, 0);
            while (0..8).contains(&c) && (0..8).contains(&r) {
                m |= 1 << (r * 8 + c);
                n += 1;
                c += dc;
                r += 1;
            }
            if n >= 3 {
                list.push(m);
            }
        }
    }
    Tables {
        edge,
        unpack_a,
        unpack_h,
        diag7,
        diag9,
    }
}

/// Stable discs of `p` on the four edges (exact for each edge line in isolation).
#[inline]
pub fn stable_edges(p: u64, o: u64) -> u64 {
    let t = tables();
    let e = |pp: usize, oo: usize| t.edge[pp * 256 + oo] as u64;
    e((p & 0xFF) as usize, (o & 0xFF) as usize)
        | e((p >> 56) as usize, (o >> 56) as usize) << 56
        | t.unpack_a[e(pack_a(p), pack_a(o)) as usize]
        | t.unpack_h[e(pack_h(p), pack_h(o)) as usize]
}

/// Squares on full lines: (rows, columns, diagonals 7, diagonals 9).
#[inline]
fn full_lines(occ: u64) -> [u64; 4] {
    let t = tables();
    // Rows: fold each byte onto its lowest bit.
    let mut r = occ & (occ >> 4);
    r &= r >> 2;
    r &= r >> 1;
    let rows = (r & 0x0101_0101_0101_0101).wrapping_mul(0xFF);
    // Columns: fold the 8 rows onto row 1.
    let mut c = occ & (occ >> 32);
    c &= c >> 16;
    c &= c >> 8;
    let cols = (c & 0xFF).wrapping_mul(0x0101_0101_0101_0101);
    let mut d7 = 0;
    for &m in &t.diag7 {
        d7 |= m & 0u64.wrapping_sub((occ & m == m) as u64);
    }
    let mut d9 = 0;
    for &m in &t.diag9 {
        d9 |= m & 0u64.wrapping_sub((occ & m == m) as u64);
    }
    // Short diagonals (corners' 1- and 2-square lines) count as full: a disc there cannot be
    // flipped along them.
    [rows, cols, d7 | SHORT_DIAG7, d9 | SHORT_DIAG9]
}

/// Diagonal-7 lines of fewer than 3 squares (a1; b1-a2; g8-h7; h8).
const SHORT_DIAG7: u64 = (1 << 0) | (1 << 1) | (1 << 8) | (1 << 62) | (1 << 55) | (1 << 63);
/// Diagonal-9 lines of fewer than 3 squares (h1; g1-h2; a7-b8; a8).
const SHORT_DIAG9: u64 = (1 << 7) | (1 << 6) | (1 << 15) | (1 << 48) | (1 << 57) | (1 << 56);

/// A lower bound of the stable discs of `p` (opponent `o`).
pub fn stable_discs(p: u64, o: u64) -> u64 {
    let full = full_lines(p | o);
    let mut stable = stable_edges(p, o) | (full[0] & full[1] & full[2] & full[3] & p);
    if stable == 0 {
        return 0;
    }
    let central = p & 0x007E_7E7E_7E7E_7E00;
    loop {
        let old = stable;
        let h = (stable >> 1) | (stable << 1) | full[0];
        let v = (stable >> 8) | (stable << 8) | full[1];
        let d7 = (stable >> 7) | (stable << 7) | full[2];
        let d9 = (stable >> 9) | (stable << 9) | full[3];
        stable |= h & v & d7 & d9 & central;
        if stable == old {
            return stable;
        }
    }
}

/// Number of stable discs of the opponent of the side to move.
#[inline]
pub fn opponent_stable_count(player: u64, opponent: u64) -> i32 {
    stable_discs(opponent, player).count_ones() as i32
}

/// Edax's thresholds for trying the stability cutoff: with `n` empties, only when
/// `alpha >= STABILITY_THRESHOLD[n]` (lower alphas are never cut by it in practice).
const STABILITY_THRESHOLD: [i32; 61] = [
    99, 99, 99, 99, 6, 8, 10, 12, 14, 16, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46,
    48, 48, 50, 50, 52, 52, 54, 54, 56, 56, 58, 58, 60, 60, 62, 62, 64, 64, 64, 64, 64, 64, 64, 64,
    64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64,
];

/// Stability cutoff: the opponent's stable discs cap the final score at `64 - 2 * stable`.
/// Returns that cap when it is at or below `alpha`.
#[inline]
pub fn stability_cutoff(b: &Board, alpha: i32) -> Option<i32> {
    let n = b.empties() as usize;
    if alpha >= STABILITY_THRESHOLD[n.min(60)] {
        let cap = 64 - 2 * opponent_stable_count(b.player, b.opponent);
        if cap <= alpha {
            return Some(cap);
        }
    }
    None
}

/// The stability cutoff from below, for null-window solver nodes: the side to move's own
/// `s` stable discs guarantee it at least `2 s - 64`, so a node whose alpha is below that
/// fails high at once. It pays where alpha is near -64, on the losing side of a search for a
/// wipeout (FFO #59: a defender with one stable disc has survived). Tried when `-alpha - 1`
/// passes the threshold of [`stability_cutoff`], as the same test from the opponent's side.
#[inline]
pub fn stability_cutoff_below(b: &Board, alpha: i32) -> Option<i32> {
    let n = b.empties() as usize;
    if -alpha > STABILITY_THRESHOLD[n.min(60)] {
        let floor = 2 * opponent_stable_count(b.opponent, b.player) - 64;
        if floor > alpha {
            return Some(floor);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corners_and_full_edges_are_stable() {
        // Player owns a1 and b1, opponent c1: a1 and b1 are stable.
        let s = stable_discs(0b11, 0b100);
        assert_eq!(s & 0b11, 0b11);
        // A lone disc on c1 is not.
        assert_eq!(stable_discs(0b100, 0), 0);
        // Column a full of player discs: all stable; the same via the unpack table.
        let col_a = 0x0101_0101_0101_0101;
        assert_eq!(stable_discs(col_a, 0) & col_a, col_a);
        let col_h = col_a << 7;
        assert_eq!(stable_discs(col_h, 0) & col_h, col_h);
    }

    /// Random play-outs: a disc reported stable is never flipped later.
    #[test]
    fn stable_discs_never_flip() {
        let mut s = 0x1234_5678_9ABC_DEF1u64;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for _ in 0..300 {
            let mut b = Board::START;
            // (black, white) stable sets seen so far, as masks of colour-fixed discs.
            let mut black_to_move = true;
            let mut stable_black = 0u64;
            let mut stable_white = 0u64;
            loop {
                let (black, white) = if black_to_move {
                    (b.player, b.opponent)
                } else {
                    (b.opponent, b.player)
                };
                assert_eq!(black & stable_black, stable_black);
                assert_eq!(white & stable_white, stable_white);
                stable_black |= stable_discs(black, white);
                stable_white |= stable_discs(white, black);
                let moves = b.moves();
                if moves == 0 {
                    if b.pass().moves() == 0 {
                        break;
                    }
                    b = b.pass();
                    black_to_move = !black_to_move;
                    continue;
                }
                let n = moves.count_ones();
                let mut m = moves;
                for _ in 0..(next() % n as u64) {
                    m &= m - 1;
                }
                let sq = m.trailing_zeros();
                b = b.play_with_flips(sq, b.flips(sq));
                black_to_move = !black_to_move;
            }
        }
    }
}
