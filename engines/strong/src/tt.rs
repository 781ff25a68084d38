//! Transposition table: buckets of 4 entries (one 64-byte cache line), shared between search
//! threads without locks.
//!
//! Each entry is two `AtomicU64`: `key ^ data` and `data` (the "lockless hashing" of Hyatt and
//! Mann): a reader recomputes `key` from both words, so an entry torn by a concurrent writer
//! simply fails to match and is treated as a miss. Data packs, low bits first:
//! lower bound (i16), upper bound (i16), depth (u8), best move (u8, 255 = none), age (u8),
//! kind (u8: 0 = midgame, 1 = exact endgame, 2 + level = selective endgame at that selectivity
//! level).
//!
//! Scores are in the unit of the search that stored them: evaluation units for midgame
//! entries, discs for endgame entries (whose bounds are exact game values, valid at any depth).
//! Replacement: the same position is updated in place (bounds intersected when the depth and
//! kind match); otherwise the entry with the lowest priority in the bucket goes, where an
//! entry of an older search (age) ranks below every entry of the current one, then by depth.

use othello_sdk::board::playout::SplitMix64;
use othello_sdk::board::Board;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// Entries per bucket.
const WAYS: usize = 4;
/// No best move.
pub const NO_MOVE: u8 = 255;

/// Entry kinds.
pub const KIND_MID: u8 = 0;
pub const KIND_END: u8 = 1;
/// Selective endgame entries: `KIND_END_SELECTIVE + level`, the level an index into
/// `mpc::SELECTIVITY` (a higher level cut less, so its results are more reliable).
pub const KIND_END_SELECTIVE: u8 = 2;

/// How much an entry of `kind` is worth keeping: exact above selective above midgame.
#[inline]
fn kind_rank(kind: u8) -> u8 {
    match kind {
        KIND_MID => 0,
        KIND_END => 2,
        _ => 1,
    }
}

/// What a probe returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtData {
    pub lower: i32,
    pub upper: i32,
    pub depth: u8,
    pub mv: u8,
    pub age: u8,
    pub kind: u8,
}

impl TtData {
    fn pack(&self) -> u64 {
        (self.lower as i16 as u16 as u64)
            | (self.upper as i16 as u16 as u64) << 16
            | (self.depth as u64) << 32
            | (self.mv as u64) << 40
            | (self.age as u64) << 48
            | (self.kind as u64) << 56
    }

    fn unpack(d: u64) -> TtData {
        TtData {
            lower: d as u16 as i16 as i32,
            upper: (d >> 16) as u16 as i16 as i32,
            depth: (d >> 32) as u8,
            mv: (d >> 40) as u8,
            age: (d >> 48) as u8,
            kind: (d >> 56) as u8,
        }
    }
}

struct Entry {
    key: AtomicU64,
    data: AtomicU64,
}

/// One bucket: [`WAYS`] entries in one 64-byte cache line, so a probe costs one memory
/// access. The alignment is the point: a `Vec<Entry>` of 64 MiB comes from `malloc` 16 bytes
/// past a page boundary (its chunk header), which put every bucket across two cache lines
/// (figures: `docs/measurements.md`, "Figures behind the constants").
#[repr(align(64))]
struct Bucket([Entry; WAYS]);

const _: () = assert!(size_of::<Bucket>() == 64 && align_of::<Bucket>() == 64);

/// The table. `Sync`: share it with `Arc` between threads.
pub struct Tt {
    buckets: Vec<Bucket>,
    /// Bucket index mask (number of buckets - 1).
    mask: u64,
    age: AtomicU8,
}

/// 64-bit hash of a board (player and opponent are both significant), cheap enough to compute
/// at every node instead of maintaining Zobrist keys: the opponent's discs through SplitMix64's
/// mixing function, XORed into the player's, and the result mixed again.
///
/// Both words are mixed in full before they meet: a product carries a change only upwards, so
/// keys built from products let nearby boards share a key (the test
/// `hash_collision_of_the_first_version_no_longer_misleads_the_solver`; the history:
/// `docs/measurements.md`, "Figures behind the constants"). Two distinct boards share a key only if `mix(o1) ^ mix(o2) == p1 ^ p2` with
/// `o1 != o2` (never when the opponents are equal: `mix` is a bijection), as rarely as random
/// keys do.
#[inline(always)]
pub fn hash(b: &Board) -> u64 {
    SplitMix64::mix(b.player ^ SplitMix64::mix(b.opponent))
}

impl Tt {
    /// A table of about `mib` MiB (rounded down to a power of two buckets, at least one).
    pub fn new(mib: usize) -> Tt {
        let bytes = mib.max(1) << 20;
        let count = (bytes / size_of::<Bucket>()).max(1);
        let count = 1usize << (usize::BITS - 1 - count.leading_zeros());
        let empty = || Entry {
            key: AtomicU64::new(0),
            data: AtomicU64::new(0),
        };
        Tt {
            buckets: (0..count)
                .map(|_| Bucket(std::array::from_fn(|_| empty())))
                .collect(),
            mask: count as u64 - 1,
            age: AtomicU8::new(0),
        }
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.buckets.len() * size_of::<Bucket>()
    }

    /// Forget everything (new game).
    pub fn clear(&self) {
        for e in self.buckets.iter().flat_map(|b| &b.0) {
            e.key.store(0, Ordering::Relaxed);
            e.data.store(0, Ordering::Relaxed);
        }
    }

    /// A new search starts: entries stored from now on outrank older ones.
    pub fn new_search(&self) {
        self.age.fetch_add(1, Ordering::Relaxed);
    }

    #[inline(always)]
    fn bucket(&self, h: u64) -> &[Entry; WAYS] {
        &self.buckets[(h & self.mask) as usize].0
    }

    /// The entry of the position with hash `h`, if stored.
    #[inline]
    pub fn probe(&self, h: u64) -> Option<TtData> {
        for e in self.bucket(h) {
            let d = e.data.load(Ordering::Relaxed);
            if e.key.load(Ordering::Relaxed) ^ d == h && d != 0 {
                return Some(TtData::unpack(d));
            }
        }
        None
    }

    /// Store a search result: `score` found with window `(alpha, beta)` (fail-soft) at `depth`
    /// (for endgame entries, the number of empties), best move `mv`.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn store(
        &self,
        h: u64,
        kind: u8,
        depth: u32,
        alpha: i32,
        beta: i32,
        score: i32,
        mv: u8,
        bound: i32,
    ) {
        let age = self.age.load(Ordering::Relaxed);
        let (lower, upper) = if score <= alpha {
            (-bound, score)
        } else if score >= beta {
            (score, bound)
        } else {
            (score, score)
        };
        let mut new = TtData {
            lower,
            upper,
            depth: depth.min(255) as u8,
            mv,
            age,
            kind,
        };
        let bucket = self.bucket(h);
        let mut victim = 0;
        let mut victim_priority = i32::MAX;
        for (i, e) in bucket.iter().enumerate() {
            let d = e.data.load(Ordering::Relaxed);
            if e.key.load(Ordering::Relaxed) ^ d == h && d != 0 {
                let old = TtData::unpack(d);
                if old.kind == new.kind && old.depth == new.depth {
                    // Same search depth: both bounds hold, keep their intersection.
                    let lo = old.lower.max(new.lower);
                    let up = old.upper.min(new.upper);
                    if lo <= up {
                        new.lower = lo;
                        new.upper = up;
                    }
                    if new.mv == NO_MOVE {
                        new.mv = old.mv;
                    }
                } else if (kind_rank(old.kind), old.depth) > (kind_rank(new.kind), new.depth) {
                    // A deeper (or exact) result stays; refresh its age and maybe its move.
                    let mut keep = old;
                    keep.age = age;
                    if keep.mv == NO_MOVE {
                        keep.mv = new.mv;
                    }
                    new = keep;
                }
                let d = new.pack();
                e.data.store(d, Ordering::Relaxed);
                e.key.store(h ^ d, Ordering::Relaxed);
                return;
            }
            let old = TtData::unpack(d);
            let priority = (kind_rank(old.kind) as i32) * 64
                + old.depth as i32
                + if old.age == age && d != 0 { 1024 } else { 0 };
            if priority < victim_priority {
                victim_priority = priority;
                victim = i;
            }
        }
        let d = new.pack();
        bucket[victim].data.store(d, Ordering::Relaxed);
        bucket[victim].key.store(h ^ d, Ordering::Relaxed);
    }
}

/// Entries of a [`LocalTable`]: `1 << LOCAL_TABLE_BITS` of 24 bytes (384 KiB, within a core's
/// L2 cache); a larger one makes a smaller tree, but slower, as it leaves the cache (figures:
/// `docs/measurements.md`, "Figures behind the constants").
pub const LOCAL_TABLE_BITS: u32 = 14;

/// A small per-thread table for exact solver nodes close to the leaves: direct-mapped, keyed
/// by the whole board (no false hits), small enough to stay in the core's cache, so a probe
/// costs no memory round trip (the shared table's probes are cache misses). Bounds are
/// exact-game bounds in discs; only searches whose result is exact below the node may use it
/// (the selective endgame cuts only at 14 empties and more).
pub struct LocalTable {
    entries: Vec<LocalEntry>,
    /// 64 minus the index's bits: how far [`LocalTable::slot`] shifts its mix down.
    shift: u32,
}

#[derive(Clone, Copy, Default)]
struct LocalEntry {
    player: u64,
    opponent: u64,
    lower: i8,
    upper: i8,
    mv: u8,
}

impl LocalTable {
    /// A table of `1 << bits` entries (24 bytes each).
    pub fn new(bits: u32) -> LocalTable {
        LocalTable {
            entries: vec![LocalEntry::default(); 1 << bits],
            shift: 64 - bits.clamp(1, 63),
        }
    }

    /// Forget everything.
    pub fn clear(&mut self) {
        self.entries.fill(LocalEntry::default());
    }

    /// Where `b` lives: the top bits of the two words' products with odd constants, XORed.
    /// The top bits of a product depend on every bit of the word, so boards that differ
    /// anywhere spread over the slots; two boards may share a slot, never an entry (the entry
    /// holds the whole board), so this index need not be a strong key like [`hash`], and costs
    /// two independent multiplications where `hash` chains four.
    #[inline(always)]
    pub fn slot(&self, b: &Board) -> usize {
        let x = b.player.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ b.opponent.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        (x >> self.shift) as usize
    }

    /// The bounds and move stored for `b` (at [`LocalTable::slot`] `slot`), as a shared-table
    /// entry of kind [`KIND_END`].
    #[inline(always)]
    pub fn probe(&self, b: &Board, slot: usize) -> Option<TtData> {
        let e = &self.entries[slot];
        let hit = e.player == b.player && e.opponent == b.opponent && (e.player | e.opponent) != 0;
        hit.then_some(TtData {
            lower: e.lower as i32,
            upper: e.upper as i32,
            depth: 0,
            mv: e.mv,
            age: 0,
            kind: KIND_END,
        })
    }

    /// Store the null-window result `score` of `b` against `alpha` (fail-soft), best move
    /// `mv`; the bounds of an entry of the same board are intersected.
    #[inline(always)]
    pub fn store(&mut self, b: &Board, slot: usize, alpha: i32, score: i32, mv: u8) {
        let (mut lower, mut upper) = if score <= alpha {
            (-64, score)
        } else {
            (score, 64)
        };
        let e = &mut self.entries[slot];
        if e.player == b.player && e.opponent == b.opponent {
            lower = lower.max(e.lower as i32);
            upper = upper.min(e.upper as i32);
        }
        *e = LocalEntry {
            player: b.player,
            opponent: b.opponent,
            lower: lower as i8,
            upper: upper as i8,
            mv,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first version's key for both boards below (see [`hash`]).
    const FIRST_VERSION_SHARED_KEY: [(u64, u64); 2] = [
        (0x8080_9802_0080_0000, 0x3e7f_67fd_7f7f_5c1c),
        (0xc080_9802_0080_0000, 0x3e7f_67fd_ff7f_5c1c),
    ];

    #[test]
    fn boards_differing_in_the_high_squares_get_distinct_keys() {
        let [(p1, o1), (p2, o2)] = FIRST_VERSION_SHARED_KEY;
        assert_ne!(hash(&Board::new(p1, o1)), hash(&Board::new(p2, o2)));
        // Player discs on any of squares 56-63 and opponent discs on any of 25-32 (65,536
        // boards, the same discs elsewhere): the first version multiplied the player's word as
        // it was and the opponent's rotated left by 31, so in both products these squares
        // reach only the top 8 bits, and the 65,536 boards had 256 keys between them. Each
        // gets its own key now, and their low 16 bits (a table's bucket index) spread as
        // random keys' do.
        let (base_p, base_o) = (0x0000_0010_0018_0000u64, 0x0000_0008_0000_1000u64);
        let mut keys = Vec::with_capacity(1 << 16);
        for high in 0..256u64 {
            for low in 0..256u64 {
                let b = Board {
                    player: base_p | high << 56,
                    opponent: base_o | low << 25,
                };
                keys.push(hash(&b));
            }
        }
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), keys.len(), "keys shared between boards");
        let mut buckets = vec![0u32; 1 << 16];
        for k in &keys {
            buckets[(k & 0xffff) as usize] += 1;
        }
        // 2^16 random keys in 2^16 buckets leave e^-1 = 36.8% of them empty (sd 0.12%).
        let empty = buckets.iter().filter(|&&n| n == 0).count() as f64 / 65536.0;
        assert!((0.362..0.374).contains(&empty), "{empty}");
    }

    #[test]
    fn pack_round_trip_and_bounds() {
        let d = TtData {
            lower: -6400,
            upper: 6399,
            depth: 17,
            mv: 63,
            age: 200,
            kind: KIND_END,
        };
        assert_eq!(TtData::unpack(d.pack()), d);
        let tt = Tt::new(1);
        let h = hash(&Board::START);
        assert!(tt.probe(h).is_none());
        tt.store(h, KIND_MID, 5, -10, 10, 20, 19, 10_000);
        let e = tt.probe(h).unwrap();
        assert_eq!((e.lower, e.upper, e.mv, e.depth), (20, 10_000, 19, 5));
        tt.store(h, KIND_MID, 5, -10, 10, 30, 19, 10_000); // fail high again: lower 30
        assert_eq!(tt.probe(h).unwrap().lower, 30);
        tt.store(h, KIND_MID, 5, 30, 40, 25, NO_MOVE, 10_000); // fail low at 25 < 30: conflict
        let e = tt.probe(h).unwrap();
        assert!(e.lower <= e.upper);
        tt.clear();
        assert!(tt.probe(h).is_none());
    }
}
