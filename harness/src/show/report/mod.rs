//! The run report: `report.json`, `report.md` and `report.html` in the output folder.
//!
//! Everything here is a pure function of the run's inputs (the tournament, the finished
//! [`GameRecord`]s, the elapsed time and whether the run is over), so the coordinator can write
//! the report after every finished pair and `harness stats` can rewrite it from a journal: the
//! same inputs always give the same files. The numbers come from [`harness_core::stats`] and
//! [`harness_core::stats::sprt`]; this module only arranges them.
//!
//! - [`build`] makes the serializable [`Report`] (`report.json`, described field by field in
//!   `reports/report.schema.json` and `reports/README.md`);
//! - [`markdown`] renders the short summary a CI job shows (`report.md`);
//! - [`html`] renders one self-contained page (`report.html`) with inline SVG charts drawn in
//!   `chart`;
//! - [`write_reports`] writes all three atomically (temporary file, then rename);
//! - [`tune`] renders a tune's page (`tune.html`, `harness tune`), its charts also drawn in
//!   `chart`.
//!
//! Numbering: what a person reads (report.md, report.html, the terminal, `harness replay`)
//! counts games, pairs and openings from 1; report.json keeps the journal's numbers, which count
//! from 0 (`game`, `pair`, `opening.index` of `games.jsonl`).
//!
//! Non-finite numbers never reach the JSON: an infinite interval bound (the disc difference with
//! a single complete pair) is `null`, and so is a ratio whose denominator is zero.

mod chart;
pub mod commits;
mod html;
mod markdown;
#[cfg(test)]
mod tests;
pub mod tune;

pub use html::{esc, html};
pub use markdown::markdown;

use crate::show::standings::Standing;
use harness_core::plan::config::{OpeningOrder, OpeningSource, Tournament};
use harness_core::record::journal::replace_durably;
use harness_core::record::verdict_record::RunVerdict;
use harness_core::record::GameOutcome;
use harness_core::record::{GameRecord, Termination};
use harness_core::stats::sprt::{Decision, MatchTally, SprtParams};
use harness_core::stats::verdict::Outcome;
use harness_core::stats::{self, Estimate, MatchStats};
use othello_board::Color;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// Version of the `report.json` layout; raised on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

/// File names inside the output folder.
pub const JSON_FILE: &str = "report.json";
pub const MARKDOWN_FILE: &str = "report.md";
pub const HTML_FILE: &str = "report.html";

/// Trajectories (LLR and Elo over pairs) keep at most about this many points: past it they are
/// thinned to every k-th complete pair, always keeping the last one.
pub const MAX_TRAJECTORY_POINTS: usize = 1000;

/// What a report is made from.
pub struct ReportInput<'a> {
    /// Names, format, time control, the sequential test (if any).
    pub tournament: &'a Tournament,
    /// Finished games in any order.
    pub records: &'a [GameRecord],
    /// Wall time of the run so far, when known.
    pub elapsed: Option<harness_core::record::verdict_record::Elapsed>,
    /// False while the run is going on.
    pub finished: bool,
    /// The exact-solver analysis of the games (`analysis.jsonl`), when the folder has one.
    pub analysis: Option<&'a [harness_core::record::analysis::AnalysedGame]>,
    /// How the run ended, once it has: its outcome and the exit code the command gave.
    pub verdict: Option<&'a RunVerdict>,
    /// What the kernel enforced of each engine's sandbox, by engine name, in words
    /// (`Landlock ABI 7, seccomp, at most 256 tasks`), as `tournament.json` records it.
    pub sandbox_enforced: &'a [(String, String)],
    /// The run's sequential test as decided (`stats::test_decision`), when it has one: its
    /// decision stands though the final LLR moved back inside the bounds.
    pub test: Option<&'a harness_core::stats::sprt::SprtStatus>,
}

/// The whole report, as written to `report.json`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// Always [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// False while the run is still going on (a refreshed, partial report), and for a run
    /// stopped before its end (its `verdict` says so).
    pub finished: bool,
    /// How the run ended; null while it goes on.
    pub verdict: Option<RunVerdict>,
    pub tournament: TournamentSummary,
    pub totals: Totals,
    /// One entry per engine pairing, in the tournament's pairing order.
    pub pairings: Vec<Standing>,
    /// Openings that repeat within a pairing, and what the intervals and the test make of it
    /// (`stats::openings`); null when no opening repeats.
    pub repeated_openings: Option<stats::openings::RepeatedOpenings>,
    /// Joint Bradley-Terry ratings; only with more than two engines.
    pub ratings: Option<RatingsReport>,
    /// The sequential test; only when the tournament configures one.
    pub sprt: Option<SprtReport>,
    /// Every game pair (one opening between two engines), by pairing then pair number.
    pub openings: Vec<OpeningResult>,
    /// Forfeits counted by engine and termination.
    pub forfeits: Vec<ForfeitCount>,
    /// Each engine's searches: moves, mean depth, time per move, nodes per second.
    pub engines: Vec<harness_core::stats::usage::EngineUsage>,
    /// Where games were lost, from `harness analyze`; null without an analysis.
    pub analysis: Option<AnalysisReport>,
}

/// The exact-solver analysis of the games, per engine.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AnalysisReport {
    /// The analysis starts at the first position with this many empties or fewer.
    pub from_empties: u32,
    /// Games analysed, and those the analysis could not score (with an error).
    pub games: usize,
    pub games_with_error: usize,
    pub engines: Vec<harness_core::stats::analysis::EngineErrors>,
    /// What the engines' figures leave out: the moves the adjudication's exact solver played,
    /// and the games whose analysed part it played from the start.
    pub solver: harness_core::stats::analysis::SolverPart,
    /// Games of the journal the analysis does not cover (played after it was made): run
    /// `harness analyze` again to include them.
    pub games_not_covered: usize,
}

impl AnalysisReport {
    /// The lines under an analysis table: what it leaves out, and the games it does not cover.
    pub fn notes(&self) -> Vec<String> {
        let mut notes: Vec<String> = self.solver.note().into_iter().collect();
        if self.games_not_covered > 0 {
            notes.push(format!(
                "the analysis covers {} of the journal's {} games: run `harness analyze` again to include the rest",
                self.games + self.games_with_error,
                self.games + self.games_with_error + self.games_not_covered
            ));
        }
        notes
    }
}

/// The tournament as configured.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TournamentSummary {
    /// The tournament file as given.
    pub source: String,
    /// `match`, `gauntlet` or `round-robin`.
    pub format: String,
    /// Engine display names, in file order.
    pub engines: Vec<String>,
    /// `10s+0.1s`, `0.5s/move`, `depth 6` or `100000 nodes`.
    pub time_control: String,
    /// Game pairs per engine pairing (the most a sequential test may play).
    pub pairs_per_pairing: u32,
    /// Games the schedule holds in all.
    pub planned_games: usize,
    pub concurrency: usize,
    /// `builtin:NAME` or the opening file's path.
    pub openings: String,
    /// `sequential` or `shuffled (seed N)`.
    pub opening_order: String,
    /// Each engine's sandbox setting and what the kernel enforced of it.
    pub sandbox: Vec<EngineSandbox>,
}

/// One engine's sandbox in a report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EngineSandbox {
    pub engine: String,
    /// `strict`, `required` or `off`.
    pub setting: String,
    /// What the kernel enforced, in words; `not recorded` for a folder of an earlier version.
    pub enforced: String,
}

impl TournamentSummary {
    /// `a: strict (Landlock ABI 7, seccomp, at most 256 tasks); b: off`.
    pub fn sandbox_line(&self) -> String {
        let each = self.sandbox.iter().map(|s| match s.setting.as_str() {
            "off" => format!("{}: off", s.engine),
            setting => format!("{}: {setting} ({})", s.engine, s.enforced),
        });
        each.collect::<Vec<_>>().join("; ")
    }
}

/// Totals over the run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Totals {
    /// Finished games.
    pub games: usize,
    /// Complete pairs over all pairings.
    pub complete_pairs: u32,
    /// Drawn games.
    pub draws: usize,
    /// Games that ended by a forfeit.
    pub forfeits: usize,
    /// The run's elapsed time in seconds (`record::run_clock`: its sessions' sum; a merged
    /// run's span); null when unknown.
    pub elapsed_seconds: Option<f64>,
    /// The latest session's part of it, when the run was played in this folder.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_seconds: Option<f64>,
    /// A merged run: its shards' elapsed times summed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shards_elapsed_seconds: Option<f64>,
    /// Engine thinking time summed over all games, in seconds.
    pub engine_seconds: f64,
}

/// The joint rating list.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RatingsReport {
    /// The engine held at 0 (the first engine of the tournament); null for mean zero.
    pub anchor: Option<String>,
    /// Best first.
    pub engines: Vec<RatingRow>,
}

/// One engine in the joint rating list.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RatingRow {
    /// 1 for the best.
    pub rank: usize,
    pub name: String,
    pub elo: f64,
    pub low: f64,
    pub high: f64,
    pub games: u32,
    pub score: f64,
}

/// The sequential test of the candidate (first engine) against the baseline (second).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SprtReport {
    pub candidate: String,
    pub baseline: String,
    pub params: SprtParams,
    /// `ln(β/(1−α))`: at or below it H0 is accepted.
    pub lower_bound: f64,
    /// `ln((1−β)/α)`: at or above it H1 is accepted.
    pub upper_bound: f64,
    pub llr: f64,
    /// `accept_h1`, `accept_h0` or `continue`.
    pub decision: Decision,
    /// Games between the two engines.
    pub games: u32,
    /// Complete pairs between the two engines.
    pub pairs: u32,
    /// Observations the LLR is computed from: games (trinomial) or complete pairs.
    pub observations: u64,
    /// LLR after each complete pair, in pair order.
    pub trajectory: Vec<TrajectoryPoint>,
}

/// The LLR after a prefix of the pairs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TrajectoryPoint {
    /// Complete pairs so far.
    pub pairs: u32,
    /// Pair number (schedule id) of the last of them.
    pub pair: usize,
    pub llr: f64,
}

/// The Elo estimate after a prefix of the pairs (for the charts; not in the JSON).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloPoint {
    pub pairs: u32,
    pub elo: Estimate,
}

/// One game pair: an opening played twice by the same two engines.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpeningResult {
    /// The pairing's first engine (A) and its opponent (B).
    pub a: String,
    pub b: String,
    /// Pair number in the schedule.
    pub pair: usize,
    /// Index in the opening set (0-based).
    pub opening_index: usize,
    pub opening: String,
    /// The pair's games, by game number.
    pub games: Vec<OpeningGame>,
    /// A's points in the pair (0 to 2), when both games are done.
    pub a_points: Option<f64>,
    /// Sum of the games' disc differences from A's view, when both games are done.
    pub a_discs: Option<i32>,
}

/// One game of a pair.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpeningGame {
    pub game: usize,
    pub black: String,
    pub white: String,
    /// Black's disc difference.
    pub score: i32,
    pub result: String,
    pub termination: Termination,
}

/// Forfeits of one engine for one reason.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ForfeitCount {
    pub engine: String,
    pub termination: Termination,
    pub count: usize,
    /// Game numbers, ascending.
    pub games: Vec<usize>,
    /// The reason recorded for the first of them.
    pub example: String,
}

/// Builds the report. Records are taken in schedule order (by game number).
pub fn build(input: &ReportInput) -> Report {
    let t = input.tournament;
    let records = sorted(input.records);
    let outcomes = harness_core::record::outcomes(&records);
    let matches = pairing_stats(t, &outcomes);
    let pairings: Vec<Standing> = matches.iter().map(Standing::of).collect();

    let names = crate::show::standings::engine_order(&t.engine_names(), &records);
    let ratings = (names.len() > 2).then(|| {
        let anchor = t.engines.first().map(|e| e.name.as_str());
        let list = stats::ratings(&outcomes, anchor);
        let anchored = anchor.filter(|a| list.iter().any(|r| r.name == *a));
        RatingsReport {
            anchor: anchored.map(str::to_string),
            engines: list
                .into_iter()
                .enumerate()
                .map(|(i, r)| RatingRow {
                    rank: i + 1,
                    name: r.name,
                    elo: r.elo,
                    low: r.low,
                    high: r.high,
                    games: r.games,
                    score: r.score,
                })
                .collect(),
        }
    });

    let sprt = t.sprt.as_ref().and_then(|cfg| {
        let (a, b) = (&t.engines.first()?.name, &t.engines.get(1)?.name);
        let m = stats::match_stats(&outcomes, a, b);
        let mut status = cfg.params.status(&m);
        if let Some(decided) = input.test {
            status.decision = decided.decision;
        }
        Some(SprtReport {
            candidate: a.clone(),
            baseline: b.clone(),
            params: cfg.params,
            lower_bound: status.lower,
            upper_bound: status.upper,
            llr: status.llr,
            decision: status.decision,
            games: m.games,
            pairs: m.pairs,
            observations: status.observations,
            trajectory: sprt_trajectory(&cfg.params, a, b, &records),
        })
    });

    let (elapsed_seconds, session_seconds, shards_elapsed_seconds) =
        harness_core::record::verdict_record::Elapsed::seconds(input.elapsed);
    let forfeit_games = records
        .iter()
        .filter(|r| r.termination.is_forfeit())
        .count();
    Report {
        schema_version: SCHEMA_VERSION,
        finished: input.finished,
        verdict: input.verdict.cloned(),
        tournament: summary(t, input.sandbox_enforced),
        totals: Totals {
            games: records.len(),
            complete_pairs: matches.iter().map(|m| m.pairs).sum(),
            draws: records.iter().filter(|r| r.score == 0).count(),
            forfeits: forfeit_games,
            elapsed_seconds,
            session_seconds,
            shards_elapsed_seconds,
            engine_seconds: records
                .iter()
                .map(|r| (r.time_ms.black + r.time_ms.white) as f64 / 1000.0)
                .sum(),
        },
        repeated_openings: stats::openings::RepeatedOpenings::of(
            matches.iter().map(MatchStats::clusters),
        ),
        pairings,
        ratings,
        sprt,
        openings: opening_results(&matches, &records),
        forfeits: forfeits(&records),
        engines: harness_core::stats::usage::engine_usage(&records),
        analysis: input.analysis.map(|games| analysis_report(games, &records)),
    }
}

/// The analysis section: the engines' errors, and what they leave out.
pub fn analysis_report(
    games: &[harness_core::record::analysis::AnalysedGame],
    records: &[GameRecord],
) -> AnalysisReport {
    let covered: std::collections::HashSet<usize> = games.iter().map(|g| g.game).collect();
    AnalysisReport {
        from_empties: games.iter().map(|g| g.from_empties).max().unwrap_or(0),
        games: games.iter().filter(|g| g.error.is_none()).count(),
        games_with_error: games.iter().filter(|g| g.error.is_some()).count(),
        engines: harness_core::stats::analysis::engine_errors(games),
        solver: harness_core::stats::analysis::solver_part(games),
        games_not_covered: records
            .iter()
            .filter(|r| !covered.contains(&r.game))
            .count(),
    }
}

/// The cells of an engine's row in the md and html reports: name, games, moves, mean depth,
/// ms per move, nodes per second, seconds per game, CPU seconds used outside its turns (`-`
/// where there is no value).
fn usage_cells(u: &harness_core::stats::usage::EngineUsage) -> [String; 8] {
    let opt =
        |v: Option<f64>, digits: usize| v.map_or("-".to_string(), |v| format!("{v:.digits$}"));
    [
        u.engine.clone(),
        u.games.to_string(),
        u.moves.to_string(),
        opt(u.mean_depth, 1),
        opt(u.ms_per_move, 1),
        opt(u.nodes_per_second, 0),
        format!("{:.2}", u.seconds_per_game),
        opt(u.cpu_between_turns_seconds, 3),
    ]
}

/// Game numbers as a person reads them, from 1: `1, 4, 7` for the journal's games 0, 3 and 6.
fn game_numbers(games: &[usize]) -> String {
    games
        .iter()
        .map(|g| (g + 1).to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The LLR of `params`' test of `candidate` against `baseline` after each complete pair between
/// them, in pair order (by pair number), recomputed from the records exactly as the final
/// status is. The point for pair `k` uses every game between the two engines whose pair number
/// is at most that of the `k`-th complete pair. Past [`MAX_TRAJECTORY_POINTS`] pairs only every
/// k-th pair is kept (and always the last).
pub fn sprt_trajectory(
    params: &SprtParams,
    candidate: &str,
    baseline: &str,
    records: &[GameRecord],
) -> Vec<TrajectoryPoint> {
    prefix_stats(records, candidate, baseline)
        .into_iter()
        .map(|(pair, m)| TrajectoryPoint {
            pairs: m.pairs() as u32,
            pair,
            llr: params.llr(&params.sample_of(&m)),
        })
        .collect()
}

/// The pentanomial Elo of `a` against `b` with its interval after each complete pair, in pair
/// order, thinned like [`sprt_trajectory`].
pub fn elo_trajectory(a: &str, b: &str, records: &[GameRecord]) -> Vec<EloPoint> {
    prefix_stats(records, a, b)
        .into_iter()
        .filter_map(|(_, m)| {
            stats::pentanomial_estimate(&m.pentanomial).map(|(elo, _)| EloPoint {
                pairs: m.pairs() as u32,
                elo,
            })
        })
        .collect()
}

/// Disc differences per game from `a`'s view in its games against `b` that were played out
/// (a forfeit's ±64 is a result, not a disc count), by game number.
pub fn disc_differences(a: &str, b: &str, records: &[GameRecord]) -> Vec<i32> {
    sorted(records)
        .iter()
        .filter(|r| !r.termination.is_forfeit())
        .filter_map(|r| {
            if r.black == a && r.white == b {
                Some(r.score)
            } else if r.black == b && r.white == a {
                Some(-r.score)
            } else {
                None
            }
        })
        .collect()
}

/// Writes `report.json`, `report.md` and `report.html` into `out_dir` (created if missing),
/// each through a temporary file in the same folder renamed over the old one, so a reader never
/// sees a half-written report.
pub fn write_reports(out_dir: &Path, input: &ReportInput) -> anyhow::Result<()> {
    use anyhow::Context;
    std::fs::create_dir_all(out_dir)
        .with_context(|| format!("cannot create output folder {}", out_dir.display()))?;
    let report = build(input);
    // Streamed: the JSON of a long run's per-opening results is tens of megabytes.
    write_atomic(&out_dir.join(JSON_FILE), |w| {
        serde_json::to_writer_pretty(&mut *w, &report)?;
        Ok(w.write_all(b"\n")?)
    })?;
    let md = markdown(&report);
    write_atomic(&out_dir.join(MARKDOWN_FILE), |w| {
        Ok(w.write_all(md.as_bytes())?)
    })?;
    let page = html(&report, input.records)?;
    write_atomic(&out_dir.join(HTML_FILE), |w| {
        Ok(w.write_all(page.as_bytes())?)
    })?;
    Ok(())
}

/// Write a report file at once ([`replace_durably`]): a reader never sees half of one.
fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    use anyhow::Context;
    let mut failed = None;
    replace_durably(path, |w| {
        write(w).map_err(|e| {
            failed = Some(e);
            std::io::Error::other("the report could not be written")
        })
    })
    .map_err(|e| failed.unwrap_or_else(|| e.into()))
    .with_context(|| format!("cannot write {}", path.display()))
}

/// The records in game order: borrowed when they already are (a finished run's, a merge's).
fn sorted(records: &[GameRecord]) -> std::borrow::Cow<'_, [GameRecord]> {
    harness_core::record::in_game_order(records)
}

/// Statistics per pairing: the tournament's pairings first (engine order as in the file), then
/// any other pair of engines that met in the records.
fn pairing_stats(t: &Tournament, outcomes: &[GameOutcome]) -> Vec<MatchStats> {
    let mut list: Vec<MatchStats> = t
        .pairings()
        .into_iter()
        .map(|(i, j)| stats::match_stats(outcomes, &t.engines[i].name, &t.engines[j].name))
        .collect();
    for m in stats::all_matches(outcomes) {
        let known = list
            .iter()
            .any(|k| (k.a == m.a && k.b == m.b) || (k.a == m.b && k.b == m.a));
        if !known {
            list.push(m);
        }
    }
    list
}

/// Match statistics after each complete pair (pair-number order), thinned past
/// [`MAX_TRAJECTORY_POINTS`].
/// The running counts of `a` against `b` after each complete pair (by pair number, thinned to
/// [`MAX_TRAJECTORY_POINTS`]), each counting every game between them up to that pair. One
/// walk over the games: the counts grow pair by pair (a report of 200,000 games must not
/// recompute the statistics a thousand times).
fn prefix_stats(records: &[GameRecord], a: &str, b: &str) -> Vec<(usize, MatchTally)> {
    let mut games: Vec<&GameRecord> = records
        .iter()
        .filter(|r| (r.black == a && r.white == b) || (r.black == b && r.white == a))
        .collect();
    games.sort_by_key(|r| (r.pair, r.game));
    let outcomes: Vec<GameOutcome> = games.iter().map(|r| r.outcome()).collect();
    // The games of each pair number, and whether they are a complete pair.
    let groups: Vec<&[GameOutcome]> = outcomes.chunk_by(|x, y| x.pair == y.pair).collect();
    let is_complete =
        |g: &[GameOutcome]| matches!(g, [x, y] if stats::pair_observation(x, y, a).is_some());
    let complete = groups.iter().filter(|g| is_complete(g)).count();
    let stride = complete.div_ceil(MAX_TRAJECTORY_POINTS).max(1);
    let mut tally = MatchTally::new(a, b);
    let mut points = Vec::new();
    let mut seen = 0;
    for group in groups {
        for game in group {
            tally.add_game(game);
        }
        if is_complete(group) {
            tally.add_pair(&group[0], &group[1]);
            seen += 1;
            if seen % stride == 0 || seen == complete {
                points.push((group[0].pair as usize, tally.clone()));
            }
        }
    }
    points
}

fn summary(t: &Tournament, enforced: &[(String, String)]) -> TournamentSummary {
    let sandbox = t
        .engines
        .iter()
        .map(|e| EngineSandbox {
            engine: e.name.clone(),
            setting: e.sandbox.mode.as_str().to_string(),
            enforced: enforced
                .iter()
                .find(|(name, _)| *name == e.name)
                .map_or("not recorded".to_string(), |(_, line)| line.clone()),
        })
        .collect();
    TournamentSummary {
        source: t.source.clone(),
        format: t.format.as_str().to_string(),
        engines: t.engines.iter().map(|e| e.name.clone()).collect(),
        time_control: t.time_description(),
        pairs_per_pairing: t.pairs,
        planned_games: t.game_count(),
        concurrency: t.concurrency,
        openings: match &t.openings.source {
            OpeningSource::Builtin(name) => format!("builtin:{name}"),
            OpeningSource::File(path) => path.display().to_string(),
        },
        opening_order: match t.openings.order {
            OpeningOrder::Sequential => "sequential".to_string(),
            OpeningOrder::Shuffled { seed } => format!("shuffled (seed {seed})"),
        },
        sandbox,
    }
}

fn points(score: i32) -> f64 {
    match score.signum() {
        1 => 1.0,
        0 => 0.5,
        _ => 0.0,
    }
}

fn opening_results(matches: &[MatchStats], records: &[GameRecord]) -> Vec<OpeningResult> {
    let mut out = Vec::new();
    for m in matches {
        let mut by_pair: BTreeMap<usize, Vec<&GameRecord>> = BTreeMap::new();
        for r in records
            .iter()
            .filter(|r| (r.black == m.a && r.white == m.b) || (r.black == m.b && r.white == m.a))
        {
            by_pair.entry(r.pair).or_default().push(r);
        }
        for (pair, games) in by_pair {
            let complete = games.len() == 2 && ((games[0].black == m.a) != (games[1].black == m.a));
            let a_view = |r: &GameRecord| if r.black == m.a { r.score } else { -r.score };
            out.push(OpeningResult {
                a: m.a.clone(),
                b: m.b.clone(),
                pair,
                opening_index: games[0].opening.index,
                opening: games[0].opening.text.clone(),
                a_points: complete.then(|| games.iter().map(|r| points(a_view(r))).sum()),
                a_discs: complete.then(|| games.iter().map(|r| a_view(r)).sum()),
                games: games
                    .iter()
                    .map(|r| OpeningGame {
                        game: r.game,
                        black: r.black.clone(),
                        white: r.white.clone(),
                        score: r.score,
                        result: r.result.clone(),
                        termination: r.termination,
                    })
                    .collect(),
            });
        }
    }
    out
}

fn forfeits(records: &[GameRecord]) -> Vec<ForfeitCount> {
    let mut map: BTreeMap<(String, String), ForfeitCount> = BTreeMap::new();
    for r in records.iter().filter(|r| r.termination.is_forfeit()) {
        let engine = match r.forfeit_by {
            Some(Color::Black) => r.black.clone(),
            Some(Color::White) => r.white.clone(),
            None => "?".to_string(),
        };
        let key = (engine.clone(), r.termination.as_str().to_string());
        let entry = map.entry(key).or_insert_with(|| ForfeitCount {
            engine,
            termination: r.termination,
            count: 0,
            games: Vec::new(),
            example: r.reason.clone(),
        });
        entry.count += 1;
        entry.games.push(r.game);
    }
    map.into_values().collect()
}

/// A word on a report of a run that has not finished: `running` while it goes on, `stopped`
/// for one that ended before its last game (an interrupted run, a merge with games missing).
pub fn status_note(report: &Report) -> Option<&'static str> {
    match (&report.verdict, report.finished) {
        (_, true) => None,
        (None, false) => Some("running"),
        (Some(_), false) => Some("stopped"),
    }
}

/// The run's verdict in words, when it ended other than it reads from the results: failed
/// (`**FAIL**: <the rule broken>`), interrupted or incomplete. A report opens with it, and the
/// test's decision ([`headline`]) follows on a line of its own. A pass, or a test that ran
/// out of games, is what the headline already says.
pub fn verdict_line(report: &Report) -> Option<String> {
    let v = report
        .verdict
        .as_ref()
        .filter(|v| !matches!(v.outcome, Outcome::Pass | Outcome::Undecided))?;
    Some(format!(
        "**{}**: {} (exit code {})",
        v.outcome.label(),
        v.reasons.join("; "),
        v.exit_code
    ))
}

/// The headline: the SPRT decision in words, or the first pairing's Elo, or the leader.
pub fn headline(report: &Report) -> String {
    // A run that ended (whatever its verdict) is no longer running.
    let running = !report.finished && report.verdict.is_none();
    let progress = if running { " (running)" } else { "" };
    if let Some(s) = &report.sprt {
        let bounds = format!("[{:.2}, {:.2}]", s.lower_bound, s.upper_bound);
        let meaning =
            crate::show::text::decision_meaning(s.decision, &s.params, &s.candidate, &s.baseline);
        let label = crate::show::text::decision_label(s.decision);
        let unmeasured = report
            .verdict
            .as_ref()
            .is_some_and(|v| v.outcome == Outcome::Unmeasured);
        return match (s.decision, meaning) {
            _ if unmeasured => format!(
                "**No measurement**: {} (LLR {:.2}, bounds {bounds})",
                crate::show::text::unmeasured_decision(s.decision),
                s.llr
            ),
            (Decision::AcceptH1 | Decision::AcceptH0, Some(m)) => {
                let why = crate::show::text::decision_evidence(
                    s.decision,
                    s.llr,
                    (s.lower_bound, s.upper_bound),
                    2,
                    ("≥", "≤"),
                );
                format!("**{label}**: {m} ({why})")
            }
            _ if !running => format!(
                "**No decision**: {} vs {} stopped after {} pairs (LLR {:.2}, bounds {bounds})",
                s.candidate, s.baseline, s.pairs, s.llr
            ),
            _ => format!(
                "**Running**: {} vs {}, LLR {:.2} within {bounds} after {} pairs",
                s.candidate, s.baseline, s.llr, s.pairs
            ),
        };
    }
    if let Some(r) = &report.ratings {
        if let [first, second, ..] = &r.engines[..] {
            return format!(
                "**{}** tops the joint rating, {:.1} Elo ahead of {} ({:.1}% score in {} games){progress}",
                first.name,
                first.elo - second.elo,
                second.name,
                100.0 * first.score,
                first.games
            );
        }
    }
    match report.pairings.first() {
        Some(p) => match &p.elo {
            Some(elo) => format!(
                "**{}** vs **{}**: {} Elo after {} pairs ({}, score {:.1}%){progress}",
                p.a,
                p.b,
                elo.text(),
                p.pairs,
                p.wdl(),
                100.0 * p.score
            ),
            None => format!(
                "**{}** vs **{}**: {} after {} games, no complete pair yet{progress}",
                p.a,
                p.b,
                p.wdl(),
                p.games
            ),
        },
        None => format!("No games yet{progress}"),
    }
}
