//! Warnings about a valid tournament that will not measure what its author likely means: said
//! once before the first game, never an error (the tournament is played as written).

use super::{TimeControl, Tournament};

impl Tournament {
    /// What to warn about before playing this tournament with an opening set of
    /// `openings` openings:
    ///
    /// - more pairs than openings: the openings repeat, engines that play the same moves from
    ///   the same position replay the same games: the intervals count the pairs of one opening
    ///   as one (none with fewer than 5 openings) and the sequential test's error rates do not
    ///   hold (`stats::openings`);
    /// - an option named `Depth` set or tuned for an engine that plays under a depth limit:
    ///   the limit sets each search's depth, so the option likely changes nothing (and a tune
    ///   of it measures noise).
    pub fn warnings(&self, openings: usize) -> Vec<String> {
        let mut warnings = Vec::new();
        if self.pairs as usize > openings {
            warnings.push(format!(
                "{}: {} pairs per pairing from {openings} openings: openings repeat, deterministic engines replay the same games: the intervals will count the pairs of one opening as one (and give none with fewer than 5 openings), and the sequential test's error rates do not hold; use a larger opening set (e.g. builtin xot-large) or fewer pairs",
                self.source, self.pairs
            ));
        }
        let tuned = self.tune.as_ref().map(|tune| (tune.engine, &tune.params));
        for (i, e) in self.engines.iter().enumerate() {
            let TimeControl::Depth(depth) = self.time_rules(i).control else {
                continue;
            };
            let is_depth = |name: &str| name.eq_ignore_ascii_case("depth");
            let set = e.options.iter().find(|(name, _)| is_depth(name));
            let tuned_here = tuned
                .filter(|(engine, _)| *engine == i)
                .and_then(|(_, params)| params.iter().find(|p| is_depth(&p.name)));
            if let Some(p) = tuned_here {
                warnings.push(format!(
                    "{}: engine `{}`: the tuned option `{}` is overridden by the time control `depth {depth}`, which sets every search's depth: the tune would measure noise; tune under a clock or a node limit",
                    self.source, e.name, p.name
                ));
            } else if let Some((name, value)) = set {
                warnings.push(format!(
                    "{}: engine `{}`: option `{name} = {value}` is likely overridden by the time control `depth {depth}`, which sets every search's depth",
                    self.source, e.name
                ));
            }
        }
        warnings
    }
}
