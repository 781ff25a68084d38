//! The move-generation kernel the search runs on: the rules crate's [`Kernel`]s (portable,
//! BMI2, AVX2, AVX-512), chosen once per search, and the macro that turns a run-time
//! [`KernelId`] into a kernel token for generic code.
//!
//! The search is written once, generic over `K: Kernel`. Every recursive step (a node of the
//! midgame search, of the solver, of the last-N solvers) goes through [`Kernel::enter`], which
//! for the x86 kernels runs the node's body inside a `#[target_feature]` function of the rules
//! crate: the kernel's SIMD moves and flips inline into the node, and so does everything the
//! node inlines (mobility counts become POPCNT, the stability and parity helpers use BMI).
//! That keeps this crate free of `unsafe`: the only `unsafe` is the rules crate's, behind the
//! tokens' CPU checks.
//!
//! Invariant: a token is only built from a [`KernelId`] the CPU can run; [`with_kernel!`]
//! falls back to the portable kernel otherwise.

pub use othello_sdk::board::kernel::{Kernel, KernelId, Portable};

/// The kernel searches use unless told otherwise: the fastest this CPU runs.
pub fn default_kernel() -> KernelId {
    KernelId::fastest()
}

/// Parses a kernel name (`portable`, `bmi2`, `avx2`, `avx512`); `None` if unknown or if this
/// CPU cannot run it.
pub fn kernel_named(name: &str) -> Option<KernelId> {
    KernelId::ALL
        .into_iter()
        .find(|k| k.name() == name)
        .filter(|k| k.is_available())
}

/// `with_kernel!(id, k => expr)`: evaluates `expr` with `k` bound to the token of kernel `id`
/// (a monomorphised copy of `expr` per kernel); a kernel this CPU lacks runs as portable.
macro_rules! with_kernel {
    ($id:expr, $k:ident => $body:expr) => {{
        #[allow(unused_imports)]
        use $crate::kernel::{KernelId, Portable};
        match $id {
            #[cfg(target_arch = "x86_64")]
            KernelId::Avx512 => match othello_sdk::board::kernel::Avx512::new() {
                Some($k) => $body,
                None => {
                    let $k = Portable;
                    $body
                }
            },
            #[cfg(target_arch = "x86_64")]
            KernelId::Avx2 => match othello_sdk::board::kernel::Avx2::new() {
                Some($k) => $body,
                None => {
                    let $k = Portable;
                    $body
                }
            },
            #[cfg(target_arch = "x86_64")]
            KernelId::Bmi2 => match othello_sdk::board::kernel::Bmi2::new() {
                Some($k) => $body,
                None => {
                    let $k = Portable;
                    $body
                }
            },
            _ => {
                let $k = Portable;
                $body
            }
        }
    }};
}
pub(crate) use with_kernel;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_runs_and_agrees() {
        let b = othello_sdk::board::Board::START;
        for id in KernelId::ALL {
            let moves = with_kernel!(id, k => k.enter(|k| k.moves(b.player, b.opponent)));
            assert_eq!(moves, b.moves(), "{id}");
        }
        assert!(kernel_named("portable").is_some());
        assert!(kernel_named("nonsense").is_none());
        assert!(default_kernel().is_available());
    }
}
