//! Core pinning (`[tournament] affinity = true`): each game slot owns a disjoint set of cores,
//! and the workers of a game are pinned to its slot's cores for as long as they play it.
//!
//! A slot gets as many cores as the most threads any engine uses (its `Threads` option, 1 when
//! it has none), taken in order from the cores the harness may run on (its own affinity mask,
//! so `taskset` and a batch system's allocation are respected). Both workers of a game share
//! the slot: they search in turn, never at once. Reading the cores allowed and pinning a
//! worker are the system's (`host::affinity`).

pub use crate::host::affinity::pin;
use harness_core::plan::config::Tournament;

/// The cores of each game slot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoreSlots {
    slots: Vec<Vec<usize>>,
}

impl CoreSlots {
    /// The slots of `t` on the cores the harness may use, or an error that names the shortage.
    pub fn plan(t: &Tournament) -> anyhow::Result<CoreSlots> {
        CoreSlots::split(t, &crate::host::affinity::allowed_cores()?)
    }

    /// [`CoreSlots::plan`] on the cores `cores`.
    fn split(t: &Tournament, cores: &[usize]) -> anyhow::Result<CoreSlots> {
        let threads = t
            .engines
            .iter()
            .map(|e| {
                e.options
                    .iter()
                    .find(|(name, _)| name.eq_ignore_ascii_case("Threads"))
                    .and_then(|(_, value)| value.parse::<usize>().ok())
                    .unwrap_or(1)
                    .max(1)
            })
            .max()
            .unwrap_or(1);
        let games = t.concurrency.max(1);
        anyhow::ensure!(
            games * threads <= cores.len(),
            "{}: affinity = true needs {games} games at once × {threads} thread(s) = {} cores, \
             but the harness may use {} ({}); lower `concurrency` or the engines' `Threads`, \
             or set affinity = false",
            t.source,
            games * threads,
            cores.len(),
            cores
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(",")
        );
        Ok(CoreSlots {
            slots: cores
                .chunks(threads)
                .take(games)
                .map(<[usize]>::to_vec)
                .collect(),
        })
    }

    /// The cores of slot `slot`.
    pub fn cores(&self, slot: usize) -> &[usize] {
        &self.slots[slot]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tournament(concurrency: usize, threads: Option<&str>) -> Tournament {
        let mut t = harness_core::plan::config::embedded_default();
        t.concurrency = concurrency;
        if let Some(n) = threads {
            t.engines[0].options.push(("Threads".into(), n.into()));
        }
        t
    }

    #[test]
    fn slots_are_disjoint_runs_of_the_allowed_cores() {
        let cores = [0, 1, 2, 3, 6, 7];
        let slots = CoreSlots::split(&tournament(3, None), &cores).unwrap();
        assert_eq!(slots.slots, vec![vec![0], vec![1], vec![2]]);
        let slots = CoreSlots::split(&tournament(3, Some("2")), &cores).unwrap();
        assert_eq!(slots.slots, vec![vec![0, 1], vec![2, 3], vec![6, 7]]);
    }

    #[test]
    fn too_few_cores_is_an_error_that_says_why() {
        let e = CoreSlots::split(&tournament(2, Some("2")), &[0, 1, 2])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(
                "2 games at once × 2 thread(s) = 4 cores, but the harness may use 3 (0,1,2)"
            ),
            "{e}"
        );
    }
}
