//! FNV-1a, 64 bits: the stable digest (the same in every build and version) that pins a folder
//! to its plugin files and openings, tells two records' moves apart, and keys a solver's cache.

/// The FNV-1a offset basis: the digest of nothing.
pub const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// `bytes` folded into the digest `h` (start from [`FNV_START`]).
pub fn fnv1a_from(h: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(h, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The digest of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_from(FNV_START, bytes)
}

/// A file's digest as the output folder's files write it: 16 hex digits; empty when the file
/// cannot be read.
pub fn file_digest(path: &std::path::Path) -> String {
    std::fs::read(path)
        .map(|b| format!("{:016x}", fnv1a(&b)))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    /// The published FNV-1a 64 test vectors.
    #[test]
    fn reference_values() {
        assert_eq!(super::fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(super::fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(super::fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
