//! Elo over commits: every comparable result in the ledger rated jointly, one row per player.
//!
//! A player is a plugin digest with its options; the build metadata says which commits claim
//! it (one build claimed by two commits is one player listing both). Results are compared only
//! under equal conditions (each engine's time control, the opening set without its seed,
//! adjudication, margins, the NPS reference): each conditions class is fitted on its own,
//! never mixed with another. Within a class, every game between two different players is one
//! observation of one joint Bradley-Terry rating (`stats::ratings`) of every player of the
//! class, whatever engine name it played under; a series (an engine name in a class) is drawn
//! from that fit relative to its anchor:
//!
//! - the build `--anchor` names ([`resolve`]): any player of the class (a baseline that played
//!   every game of the series is the usual one), by label, ref, commit (exact, or a prefix of 7
//!   or more), digest (exact, or a prefix of 4 or more), or engine name, each optionally
//!   `NAME@…` to pick the engine name it played under. A text that matches several players is
//!   an error listing them; one that matches nothing in a class leaves that class's series out
//!   (and matching nothing anywhere is an error listing the builds);
//! - else the series' first rated player.
//!
//! A player connected to the anchor by no chain of games has no rating (and an anchor
//! connected to none of a series' players is an error). Players are listed in the order of
//! their builds' dates (parsed with their UTC offsets), then the order recorded; a row whose
//! place no date fixes (no date, or a date another row shares) says so. A player matched
//! against itself is listed, with no rating from those games.

use anyhow::bail;
use harness_core::plan::config::Build;
use harness_core::record::GameOutcome;
use harness_core::stats::ratings::RatingFit;
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};

/// An engine of a recorded run, as history reads it.
#[derive(Clone, Debug)]
pub struct EngineSeen {
    pub run_id: String,
    /// The order the run was first recorded in (for the order of builds without a date).
    pub recorded: i64,
    pub conditions: String,
    pub name: String,
    pub digest: String,
    pub options: String,
    pub build: Build,
    /// The run's outcome (`pass`, `fail`, …) when it ended, for a run with a test.
    pub verdict: Option<String>,
}

/// A recorded game, as history reads it.
#[derive(Clone, Debug)]
pub struct GameSeen {
    pub run_id: String,
    pub pair: u64,
    pub black: String,
    pub white: String,
    pub score: i32,
    pub forfeit: bool,
}

/// The build a series is rated against.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Anchor {
    /// The build as a person reads it: `baseline@v1.0 (digest 0123abcd)`.
    pub build: String,
    pub digest: String,
    pub options: serde_json::Value,
    /// Whether `--anchor` named it; else it is the series' first rated build.
    pub named: bool,
}

/// One player of a series.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HistoryRow {
    pub engine: String,
    /// Every commit that claims the player, in the order of their dates, then as recorded.
    pub commits: Vec<String>,
    /// Every label, ref and date the builds gave.
    pub labels: Vec<String>,
    pub dates: Vec<String>,
    pub digest: String,
    pub options: serde_json::Value,
    /// Elo against the series' anchor with its 95% interval; null for a player with no game
    /// against another player, or none that connects it to the anchor.
    pub elo: Option<f64>,
    pub low: Option<f64>,
    pub high: Option<f64>,
    /// The games this player played under this engine name against another player.
    pub games: u32,
    pub runs: usize,
    /// The outcomes of the runs with a test in which the player was the candidate.
    pub verdicts: Vec<String>,
    /// The conditions class (canonical JSON) and its number in the output.
    pub conditions: serde_json::Value,
    pub series: usize,
    /// What `elo` is relative to; null when no player of the series is rated.
    pub anchor: Option<Anchor>,
    /// Whether the builds' dates fix this row's place: false for a row without a date, or
    /// whose date another row (or two of its own commits) shares, placed in the order
    /// recorded.
    pub order_known: bool,
}

/// The rows of every series, and what a reader should know that the rows do not say (a class
/// left out for want of the anchor, players not connected to it).
#[derive(Clone, Debug, Default)]
pub struct History {
    pub rows: Vec<HistoryRow>,
    pub notes: Vec<String>,
}

/// A player's key: its plugin's digest with its options.
fn player(e: &EngineSeen) -> String {
    format!("{}|{}", e.digest, e.options)
}

/// The series of every conditions class (in the order first recorded, engine names in the
/// order first seen), players in commit order. `engine` keeps one engine name (an error when
/// no run has it); `anchor` names the build at 0 (see the module docs; an error when it
/// matches several builds, none, or none connected to a series).
pub fn history(
    engines: &[EngineSeen],
    games: &[GameSeen],
    engine: Option<&str>,
    anchor: Option<&str>,
) -> anyhow::Result<History> {
    if let Some(name) = engine {
        if !engines.iter().any(|e| e.name == name) {
            let known: BTreeSet<&str> = engines.iter().map(|e| e.name.as_str()).collect();
            bail!(
                "--engine {name}: no engine of that name in the ledger; its engines: {}",
                list_or_none(known.into_iter().map(str::to_string).collect())
            );
        }
    }
    let classes = classes(engines);
    let mut out = History::default();
    let mut candidates = Vec::new();
    let mut anchored = false;
    for (series, conditions) in classes.iter().enumerate() {
        let class = Class::new(engines, games, conditions);
        let names: Vec<&str> = class.names(engine);
        if names.is_empty() {
            continue;
        }
        let named = match anchor {
            None => None,
            Some(text) => match class.build(&format!("--anchor {text}"), text, series)? {
                Some(key) => Some(key),
                None => {
                    candidates.extend(class.players().iter().map(|k| class.describe(k)));
                    out.notes.push(format!(
                        "conditions #{}: no build matches --anchor {text}, so its series ({}) are left out",
                        series + 1,
                        names.join(", ")
                    ));
                    continue;
                }
            },
        };
        anchored |= named.is_some();
        for name in names {
            let rows = class.series_rows(name, named.as_deref(), anchor, series, &mut out.notes)?;
            out.rows.extend(rows);
        }
    }
    if let (Some(text), false) = (anchor, anchored) {
        bail!(
            "--anchor {text} matches no build{}; the builds: {}",
            engine.map_or(String::new(), |n| format!(
                " in the conditions of {n}'s series"
            )),
            list_or_none(candidates)
        );
    }
    Ok(out)
}

/// Two builds compared under one conditions class ([`compare`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    /// The conditions class (canonical JSON) and its number in `ledger history`'s output.
    pub conditions: serde_json::Value,
    pub series: usize,
    /// The builds as a person reads them.
    pub a: String,
    pub b: String,
    /// A against B in the games they played each other; null when they never met.
    pub head_to_head: Option<HeadToHead>,
    /// A's Elo relative to B in the class's joint fit, with its 95% interval; null when no
    /// chain of games connects them.
    pub joint: Option<JointElo>,
}

/// A against B where they met.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HeadToHead {
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub score: f64,
    /// Elo from the pentanomial model (complete pairs) with its 95% interval; null without a
    /// complete pair, a bound null where it is infinite.
    pub elo: Option<f64>,
    pub low: Option<f64>,
    pub high: Option<f64>,
}

/// A relative to B through every comparable game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JointElo {
    pub elo: f64,
    pub low: f64,
    pub high: f64,
    /// A's games against any other build of the class, and B's.
    pub games_a: u32,
    pub games_b: u32,
}

/// Build `a` against build `b` (each named as `--anchor` names one) in every conditions class
/// that has both: head to head where they met, and through the class's joint fit. An error
/// when either matches several builds in a class, or when no class has both (listing the
/// builds).
pub fn compare(
    engines: &[EngineSeen],
    games: &[GameSeen],
    a: &str,
    b: &str,
) -> anyhow::Result<Vec<Comparison>> {
    let classes = classes(engines);
    let mut out = Vec::new();
    let mut candidates = Vec::new();
    for (series, conditions) in classes.iter().enumerate() {
        let class = Class::new(engines, games, conditions);
        let (Some(ka), Some(kb)) = (class.build(a, a, series)?, class.build(b, b, series)?) else {
            candidates.extend(class.players().iter().map(|k| class.describe(k)));
            continue;
        };
        anyhow::ensure!(
            ka != kb,
            "{a} and {b} name one build under conditions #{}: {}",
            series + 1,
            class.describe(&ka)
        );
        let met = harness_core::stats::match_stats(&class.outcomes, &ka, &kb);
        let head_to_head = (met.games > 0).then(|| {
            let finite = |x: f64| x.is_finite().then_some(x);
            HeadToHead {
                games: met.games,
                wins: met.wins,
                draws: met.draws,
                losses: met.losses,
                score: met.score,
                elo: met.elo.as_ref().map(|e| e.value),
                low: met.elo.as_ref().and_then(|e| finite(e.low)),
                high: met.elo.as_ref().and_then(|e| finite(e.high)),
            }
        });
        let connected =
            class.group.contains_key(&ka) && class.group.get(&ka) == class.group.get(&kb);
        let joint = connected.then(|| {
            let ratings = class.fit.ratings(Some(&kb));
            let rating = |k: &str| ratings.iter().find(|r| r.name == k);
            let ra = rating(&ka).expect("a connected build is rated");
            JointElo {
                elo: ra.elo,
                low: ra.low,
                high: ra.high,
                games_a: ra.games,
                games_b: rating(&kb).map_or(0, |r| r.games),
            }
        });
        out.push(Comparison {
            conditions: serde_json::from_str(class.conditions).unwrap_or_default(),
            series,
            a: class.describe(&ka),
            b: class.describe(&kb),
            head_to_head,
            joint,
        });
    }
    if out.is_empty() {
        candidates.dedup();
        bail!(
            "{a} and {b} are not both builds of one conditions class (no comparable games); the builds: {}",
            list_or_none(candidates)
        );
    }
    Ok(out)
}

/// The conditions classes of `engines`, in the order first recorded.
fn classes(engines: &[EngineSeen]) -> Vec<&str> {
    let mut classes: Vec<&str> = Vec::new();
    for e in engines {
        if !classes.contains(&e.conditions.as_str()) {
            classes.push(&e.conditions);
        }
    }
    classes
}

/// `a; b; c`, or `none`.
fn list_or_none(items: Vec<String>) -> String {
    if items.is_empty() {
        "none".to_string()
    } else {
        items.join("; ")
    }
}

/// One conditions class: its engines, its games between players, their joint fit and which
/// players a chain of games connects.
struct Class<'a> {
    conditions: &'a str,
    engines: Vec<&'a EngineSeen>,
    /// Each game between two different players: (black's name, white's name, black's
    /// player, white's player).
    played: Vec<(&'a str, &'a str, String, String)>,
    /// Every game of the class as the fit sees it (players by key).
    outcomes: Vec<GameOutcome>,
    fit: RatingFit,
    /// Each player with a game against another, and the number of its connected group.
    group: HashMap<String, usize>,
}

impl<'a> Class<'a> {
    fn new(engines: &'a [EngineSeen], games: &'a [GameSeen], conditions: &'a str) -> Class<'a> {
        let in_class: Vec<&EngineSeen> = engines
            .iter()
            .filter(|e| e.conditions == conditions)
            .collect();
        let key_of: HashMap<(&str, &str), String> = in_class
            .iter()
            .map(|e| ((e.run_id.as_str(), e.name.as_str()), player(e)))
            .collect();
        let mut played = Vec::new();
        let mut outcomes = Vec::new();
        for g in games {
            let (Some(black), Some(white)) = (
                key_of.get(&(g.run_id.as_str(), g.black.as_str())),
                key_of.get(&(g.run_id.as_str(), g.white.as_str())),
            ) else {
                continue;
            };
            outcomes.push(GameOutcome {
                pair: harness_core::record::digest::fnv1a(
                    format!("{}#{}", g.run_id, g.pair).as_bytes(),
                ),
                black: black.clone(),
                white: white.clone(),
                black_disc_diff: g.score,
                forfeit: g.forfeit,
                opening: None,
            });
            if black != white {
                played.push((
                    g.black.as_str(),
                    g.white.as_str(),
                    black.clone(),
                    white.clone(),
                ));
            }
        }
        let group = groups(played.iter().map(|(_, _, b, w)| (b.as_str(), w.as_str())));
        Class {
            conditions,
            engines: in_class,
            played,
            fit: RatingFit::new(&outcomes),
            outcomes,
            group,
        }
    }

    /// The engine names of the class, in the order first seen (only `engine` when given).
    fn names(&self, engine: Option<&str>) -> Vec<&'a str> {
        let mut names: Vec<&str> = Vec::new();
        for e in &self.engines {
            if !names.contains(&e.name.as_str()) && engine.is_none_or(|n| n == e.name) {
                names.push(&e.name);
            }
        }
        names
    }

    /// The player `text` names in the class (see [`resolve`]), if any; an error naming the
    /// builds when it names several (`what` says where the text came from).
    fn build(&self, what: &str, text: &str, series: usize) -> anyhow::Result<Option<String>> {
        match resolve(&self.engines, text) {
            Resolved::One(key) => Ok(Some(key)),
            Resolved::Nothing => Ok(None),
            Resolved::Several(keys) => bail!(
                "{what} matches {} builds under conditions #{}: {}; name one (NAME@BUILD, a longer commit or digest prefix)",
                keys.len(),
                series + 1,
                keys.iter()
                    .map(|k| self.describe(k))
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        }
    }

    /// Every player of the class, in the order first seen.
    fn players(&self) -> Vec<String> {
        let mut keys: Vec<String> = Vec::new();
        for e in &self.engines {
            let key = player(e);
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        keys
    }

    /// Player `key` as a person reads it: `baseline@v1.0 (digest 0123abcd, Depth=2)`.
    fn describe(&self, key: &str) -> String {
        let mine: Vec<&&EngineSeen> = self.engines.iter().filter(|e| player(e) == key).collect();
        let mut names: Vec<&str> = Vec::new();
        let mut claims: Vec<String> = Vec::new();
        for e in &mine {
            if !names.contains(&e.name.as_str()) {
                names.push(&e.name);
            }
            let b = &e.build;
            let commit = b.commit.as_ref().map(|c| c.chars().take(12).collect());
            for claim in [b.label.clone(), b.git_ref.clone(), commit]
                .into_iter()
                .flatten()
            {
                if !claims.contains(&claim) {
                    claims.push(claim);
                }
            }
        }
        let Some(first) = mine.first() else {
            return key.to_string();
        };
        let options = options_text(&first.options);
        format!(
            "{}@{} (digest {}{})",
            names.join("/"),
            if claims.is_empty() {
                "-".to_string()
            } else {
                claims.join(",")
            },
            first.digest.chars().take(8).collect::<String>(),
            if options.is_empty() {
                String::new()
            } else {
                format!(", {options}")
            }
        )
    }

    /// The players that played as `name`, in commit order, rated against `named` (a player
    /// key) or the series' first rated player.
    fn series_rows(
        &self,
        name: &str,
        named: Option<&str>,
        anchor_text: Option<&str>,
        series: usize,
        notes: &mut Vec<String>,
    ) -> anyhow::Result<Vec<HistoryRow>> {
        let mine: Vec<&EngineSeen> = self
            .engines
            .iter()
            .copied()
            .filter(|e| e.name == name)
            .collect();
        let order = commit_order(&mine);
        let anchor_key = match named {
            Some(key) => {
                let anchor_group = self.group.get(key);
                let connected = anchor_group.is_some()
                    && order.iter().any(|p| self.group.get(&p.key) == anchor_group);
                if !connected {
                    let reachable: Vec<String> = self
                        .players()
                        .into_iter()
                        .filter(|k| {
                            self.group.contains_key(k)
                                && order
                                    .iter()
                                    .any(|p| self.group.get(&p.key) == self.group.get(k))
                        })
                        .map(|k| self.describe(&k))
                        .collect();
                    bail!(
                        "--anchor {}: the build {} played no games that connect it to {name} under conditions #{}, so no Elo of {name} can be drawn relative to it; the builds connected to {name}: {}",
                        anchor_text.unwrap_or_default(),
                        self.describe(key),
                        series + 1,
                        list_or_none(reachable)
                    );
                }
                Some(key.to_string())
            }
            None => order
                .iter()
                .find(|p| self.group.contains_key(&p.key))
                .map(|p| p.key.clone()),
        };
        let ratings = self.fit.ratings(anchor_key.as_deref());
        let anchor = anchor_key.as_ref().map(|key| {
            let e = self
                .engines
                .iter()
                .find(|e| player(e) == *key)
                .expect("the anchor is a player of the class");
            Anchor {
                build: self.describe(key),
                digest: e.digest.clone(),
                options: serde_json::from_str(&e.options).unwrap_or_default(),
                named: named.is_some(),
            }
        });
        let anchor_group = anchor_key.as_ref().and_then(|k| self.group.get(k));
        let mut rows = Vec::new();
        for p in &order {
            let connected = anchor_group.is_some() && self.group.get(&p.key) == anchor_group;
            let rating = ratings
                .iter()
                .find(|r| r.name == p.key)
                .filter(|_| connected);
            if !connected && self.group.contains_key(&p.key) {
                notes.push(format!(
                    "{name} under conditions #{}: {} has no games connecting it to {}, so it has no Elo here",
                    series + 1,
                    self.describe(&p.key),
                    anchor.as_ref().map_or("-", |a| a.build.as_str())
                ));
            }
            let runs: BTreeSet<&str> = p.seen.iter().map(|e| e.run_id.as_str()).collect();
            let games = self
                .played
                .iter()
                .filter(|(bn, wn, bk, wk)| {
                    (*bn == name && *bk == p.key) || (*wn == name && *wk == p.key)
                })
                .count();
            let mut labels = claims(&p.seen, |b| b.label.as_ref());
            labels.extend(claims(&p.seen, |b| b.git_ref.as_ref()));
            rows.push(HistoryRow {
                engine: name.to_string(),
                commits: claims(&p.seen, |b| b.commit.as_ref()),
                labels,
                dates: claims(&p.seen, |b| b.date.as_ref()),
                digest: p.seen[0].digest.clone(),
                options: serde_json::from_str(&p.seen[0].options).unwrap_or_default(),
                elo: rating.map(|r| r.elo),
                low: rating.map(|r| r.low),
                high: rating.map(|r| r.high),
                games: u32::try_from(games).unwrap_or(u32::MAX),
                runs: runs.len(),
                verdicts: p.seen.iter().filter_map(|e| e.verdict.clone()).collect(),
                conditions: serde_json::from_str(self.conditions).unwrap_or_default(),
                series,
                anchor: anchor.clone(),
                order_known: p.order_known,
            });
        }
        Ok(rows)
    }
}

/// A player of a series and its engines, in the order its builds' dates and records put it.
struct Placed<'a> {
    key: String,
    /// Its engines in the order of their dates, then as recorded.
    seen: Vec<&'a EngineSeen>,
    order_known: bool,
}

/// The players of a series' engines: by their earliest build date (an instant, its UTC offset
/// applied), then the order first recorded; players without a date after those with one, in
/// the order recorded.
fn commit_order<'a>(mine: &[&'a EngineSeen]) -> Vec<Placed<'a>> {
    let place = |e: &EngineSeen| (e.build.date.as_deref().and_then(instant), e.recorded);
    let mut sorted: Vec<&EngineSeen> = mine.to_vec();
    sorted.sort_by_key(|e| {
        let (at, recorded) = place(e);
        (at.is_none(), at, recorded)
    });
    let mut players: Vec<Placed> = Vec::new();
    for e in sorted {
        let key = player(e);
        match players.iter_mut().find(|p| p.key == key) {
            Some(p) => p.seen.push(e),
            None => players.push(Placed {
                key,
                seen: vec![e],
                order_known: true,
            }),
        }
    }
    // Each player's place is its first (earliest) engine's.
    let firsts: Vec<Option<i64>> = players.iter().map(|p| place(p.seen[0]).0).collect();
    for (i, p) in players.iter_mut().enumerate() {
        // Two commits of one binary with one date: which came first is unknown.
        let mut commit_dates: Vec<(&str, Option<i64>)> = Vec::new();
        for e in &p.seen {
            if let Some(c) = e.build.commit.as_deref() {
                if !commit_dates.iter().any(|(x, _)| *x == c) {
                    commit_dates.push((c, place(e).0));
                }
            }
        }
        let shared_within = commit_dates.iter().enumerate().any(|(j, (_, at))| {
            (at.is_none() && commit_dates.len() > 1)
                || commit_dates[..j].iter().any(|(_, b)| b == at)
        });
        p.order_known = firsts[i].is_some()
            && !firsts
                .iter()
                .enumerate()
                .any(|(j, f)| j != i && *f == firsts[i])
            && !shared_within;
    }
    players
}

/// The distinct values `pick` gives of a player's builds, in the order given.
fn claims(seen: &[&EngineSeen], pick: fn(&Build) -> Option<&String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in seen {
        if let Some(v) = pick(&e.build) {
            if !out.contains(v) {
                out.push(v.clone());
            }
        }
    }
    out
}

/// What an anchor's text matches in a class.
#[derive(Debug, PartialEq)]
enum Resolved {
    One(String),
    Nothing,
    Several(Vec<String>),
}

/// The players of `engines` that `text` names: `[NAME@]BUILD`, where BUILD is a label, ref,
/// commit or digest given whole (these win), else a commit prefix of 7 or more or a digest
/// prefix of 4 or more, else (without `NAME@`) an engine name.
fn resolve(engines: &[&EngineSeen], text: &str) -> Resolved {
    let (name, build) = match text.split_once('@') {
        Some((n, b)) if engines.iter().any(|e| e.name == n) => (Some(n), b),
        _ => (None, text),
    };
    let pool: Vec<&&EngineSeen> = engines
        .iter()
        .filter(|e| name.is_none_or(|n| e.name == n))
        .collect();
    let keys = |matches: &dyn Fn(&EngineSeen) -> bool| -> Vec<String> {
        let mut keys: Vec<String> = Vec::new();
        for e in &pool {
            let key = player(e);
            if matches(e) && !keys.contains(&key) {
                keys.push(key);
            }
        }
        keys
    };
    let is = |v: &Option<String>| v.as_deref() == Some(build);
    let mut found = keys(&|e| {
        is(&e.build.label) || is(&e.build.git_ref) || is(&e.build.commit) || e.digest == build
    });
    if found.is_empty() && !build.is_empty() {
        found = keys(&|e| {
            (build.len() >= 7
                && e.build
                    .commit
                    .as_deref()
                    .is_some_and(|c| c.starts_with(build)))
                || (build.len() >= 4 && e.digest.starts_with(build))
        });
    }
    if found.is_empty() && name.is_none() {
        found = keys(&|e| e.name == build);
    }
    match found.len() {
        0 => Resolved::Nothing,
        1 => Resolved::One(found.remove(0)),
        _ => Resolved::Several(found),
    }
}

/// The connected groups of the graph whose edges are `games` (pairs of players): each
/// player's group number.
fn groups<'k>(games: impl Iterator<Item = (&'k str, &'k str)>) -> HashMap<String, usize> {
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut parent: Vec<usize> = Vec::new();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for (a, b) in games {
        let mut id = |k: &'k str| {
            *index.entry(k).or_insert_with(|| {
                parent.push(parent.len());
                parent.len() - 1
            })
        };
        let (a, b) = (id(a), id(b));
        let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
        parent[ra] = rb;
    }
    index
        .into_iter()
        .map(|(k, i)| (k.to_string(), root(&mut parent, i)))
        .collect()
}

/// A build date as seconds since the Unix epoch: `YYYY-MM-DD` (midnight UTC) or
/// `YYYY-MM-DDTHH:MM[:SS[.fraction]]` with `Z`, an offset (`+02:00`, `-0500`) or none (UTC);
/// `None` for anything else.
pub fn instant(date: &str) -> Option<i64> {
    let date = date.trim();
    let number = |s: &str| -> Option<i64> {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    let (day, rest) = (date.get(..10)?, &date[10..]);
    let parts: Vec<&str> = day.split('-').collect();
    let [y, m, d] = parts[..] else { return None };
    let (y, m, d) = (number(y)?, number(m)?, number(d)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let days = days_from_civil(y, m, d);
    if rest.is_empty() {
        return Some(days * 86_400);
    }
    let rest = rest.strip_prefix(['T', 't', ' '])?;
    let zone_at = rest.find(['Z', 'z', '+', '-']).unwrap_or(rest.len());
    let (clock, zone) = rest.split_at(zone_at);
    let clock = clock.split('.').next()?;
    let fields: Vec<&str> = clock.split(':').collect();
    let (h, min, s) = match fields[..] {
        [h, m] => (number(h)?, number(m)?, 0),
        [h, m, s] => (number(h)?, number(m)?, number(s)?),
        _ => return None,
    };
    if h > 23 || min > 59 || s > 60 {
        return None;
    }
    let offset = match zone {
        "" | "Z" | "z" => 0,
        _ => {
            let sign = if zone.starts_with('-') { -1 } else { 1 };
            let digits: String = zone[1..].chars().filter(|c| *c != ':').collect();
            if digits.len() != 4 {
                return None;
            }
            sign * (number(&digits[..2])? * 3600 + number(&digits[2..])? * 60)
        }
    };
    Some(days * 86_400 + h * 3600 + min * 60 + s - offset)
}

/// Days from 1970-01-01 to the proleptic Gregorian date `y-m-d`.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let day_of_year = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// An engine's stored options (`[["Depth","2"]]`) as a person reads them: `Depth=2`.
pub fn options_text(options: &str) -> String {
    let parsed: Vec<(String, String)> = serde_json::from_str(options).unwrap_or_default();
    parsed
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLASS: &str = r#"{"time":"depth 2"}"#;

    /// Engine `name` of run `run` (recorded `recorded`-th), digest `digest`, with a build.
    fn engine(run: &str, recorded: i64, name: &str, digest: &str, build: Build) -> EngineSeen {
        EngineSeen {
            run_id: run.into(),
            recorded,
            conditions: CLASS.into(),
            name: name.into(),
            digest: digest.into(),
            options: "[]".into(),
            build,
            verdict: None,
        }
    }

    fn commit(c: &str, date: Option<&str>) -> Build {
        Build {
            commit: Some(c.into()),
            date: date.map(str::to_string),
            ..Build::default()
        }
    }

    fn label(l: &str) -> Build {
        Build {
            label: Some(l.into()),
            ..Build::default()
        }
    }

    /// `wins` games won by `a` and `losses` lost, colours alternating, in run `run`.
    fn games(run: &str, a: &str, b: &str, wins: u32, losses: u32) -> Vec<GameSeen> {
        (0..wins + losses)
            .map(|i| {
                let a_won = i < wins;
                let (black, white) = if i % 2 == 0 { (a, b) } else { (b, a) };
                let black_won = a_won == (black == a);
                GameSeen {
                    run_id: run.into(),
                    pair: u64::from(i / 2),
                    black: black.into(),
                    white: white.into(),
                    score: if black_won { 10 } else { -10 },
                    forfeit: false,
                }
            })
            .collect()
    }

    /// The CI flow: two runs of a weak candidate (two commits, one binary) against one
    /// baseline labelled v1.0, which wins 3 games of 4.
    fn ci_flow() -> (Vec<EngineSeen>, Vec<GameSeen>) {
        let engines = vec![
            engine("r1", 1, "candidate", "aaaa0001", commit("c1", None)),
            engine("r1", 1, "baseline", "bbbb0001", label("v1.0")),
            engine("r2", 2, "candidate", "aaaa0001", commit("c2", None)),
            engine("r2", 2, "baseline", "bbbb0001", label("v1.0")),
        ];
        let mut played = games("r1", "candidate", "baseline", 10, 30);
        played.extend(games("r2", "candidate", "baseline", 10, 30));
        (engines, played)
    }

    #[test]
    fn an_anchor_in_another_series_rates_the_candidate_against_it() {
        let (engines, games) = ci_flow();
        let h = history(&engines, &games, Some("candidate"), Some("v1.0")).unwrap();
        assert_eq!(h.rows.len(), 1, "{h:#?}");
        let row = &h.rows[0];
        // 25% against the baseline: Elo(0.25) = -190.85.
        assert!((row.elo.unwrap() + 190.85).abs() < 0.1, "{row:#?}");
        assert!(row.high.unwrap() < 0.0, "{row:#?}");
        let anchor = row.anchor.as_ref().unwrap();
        assert!(anchor.named);
        assert_eq!(anchor.build, "baseline@v1.0 (digest bbbb0001)");
        assert_eq!(row.games, 80);
        // `NAME@…`, a digest prefix and an engine name say the same; without an anchor the
        // series' first build is 0, and the row says so.
        for text in ["baseline@v1.0", "bbbb", "baseline"] {
            let other = history(&engines, &games, Some("candidate"), Some(text)).unwrap();
            assert_eq!(other.rows[0].elo, row.elo, "{text}");
        }
        let plain = history(&engines, &games, Some("candidate"), None).unwrap();
        assert_eq!(plain.rows[0].elo, Some(0.0));
        let anchor = plain.rows[0].anchor.as_ref().unwrap();
        assert!(!anchor.named);
        assert_eq!(anchor.build, "candidate@c1,c2 (digest aaaa0001)");
    }

    #[test]
    fn an_anchor_that_matches_nothing_or_several_builds_is_an_error_naming_them() {
        let (mut engines, mut games) = ci_flow();
        let absent = history(&engines, &games, None, Some("deadbeef")).unwrap_err();
        let text = absent.to_string();
        assert!(
            text.contains("--anchor deadbeef matches no build"),
            "{text}"
        );
        assert!(text.contains("baseline@v1.0 (digest bbbb0001)"), "{text}");
        assert!(text.contains("candidate@c1,c2"), "{text}");
        // A second baseline build under the same label: v1.0 is ambiguous, the digest not.
        engines.push(engine("r3", 3, "candidate", "aaaa0001", commit("c3", None)));
        engines.push(engine("r3", 3, "baseline", "bbbb0002", label("v1.0")));
        games.extend(self::games("r3", "candidate", "baseline", 20, 20));
        let several = history(&engines, &games, None, Some("v1.0")).unwrap_err();
        let text = several.to_string();
        assert!(text.contains("matches 2 builds"), "{text}");
        assert!(
            text.contains("digest bbbb0001") && text.contains("digest bbbb0002"),
            "{text}"
        );
        assert!(history(&engines, &games, None, Some("bbbb0002")).is_ok());
        // A commit prefix shorter than 7 characters is no commit.
        assert!(history(&engines, &games, None, Some("c")).is_err());
    }

    #[test]
    fn an_anchor_no_games_connect_to_the_series_is_an_error() {
        let (mut engines, mut games) = ci_flow();
        engines.push(engine("r9", 9, "other", "cccc0001", label("x")));
        engines.push(engine("r9", 9, "rival", "dddd0001", label("y")));
        games.extend(self::games("r9", "other", "rival", 5, 5));
        let err = history(&engines, &games, Some("candidate"), Some("x")).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("no games that connect it to candidate"),
            "{text}"
        );
        assert!(text.contains("baseline@v1.0"), "{text}");
        // rival, which played x (5-5), is rated against it.
        let h = history(&engines, &games, Some("rival"), Some("x")).unwrap();
        assert!(h.rows[0].elo.unwrap().abs() < 1e-6, "{h:#?}");
        assert!(h.rows[0]
            .anchor
            .as_ref()
            .unwrap()
            .build
            .starts_with("other@x"));
    }

    #[test]
    fn an_anchor_missing_from_a_class_leaves_its_series_out_and_says_so() {
        let (mut engines, mut games) = ci_flow();
        let other = r#"{"time":"depth 4"}"#;
        for (name, digest) in [("candidate", "aaaa0001"), ("baseline", "eeee0001")] {
            let mut e = engine("r5", 5, name, digest, label("deep"));
            e.conditions = other.into();
            engines.push(e);
        }
        games.extend(self::games("r5", "candidate", "baseline", 3, 3));
        let h = history(&engines, &games, Some("candidate"), Some("v1.0")).unwrap();
        assert_eq!(h.rows.len(), 1, "{h:#?}");
        assert_eq!(h.rows[0].series, 0);
        assert!(
            h.notes[0].contains("conditions #2: no build matches --anchor v1.0"),
            "{h:?}"
        );
        let both = history(&engines, &games, Some("candidate"), None).unwrap();
        assert_eq!(both.rows.len(), 2);
    }

    #[test]
    fn games_count_the_series_own_games() {
        // One binary as the candidate and as the baseline of a self-check, beside a real
        // opponent: the candidate's row counts its 8 games, not the digest's 8 + 6.
        let engines = vec![
            engine("r1", 1, "candidate", "aaaa0001", commit("c1", None)),
            engine("r1", 1, "baseline", "bbbb0001", label("v1.0")),
            engine("r2", 2, "candidate", "bbbb0001", commit("c2", None)),
            engine("r2", 2, "baseline", "bbbb0001", label("v1.0")),
            engine("r3", 3, "baseline", "bbbb0001", label("v1.0")),
            engine("r3", 3, "third", "ffff0001", label("t")),
        ];
        let mut played = games("r1", "candidate", "baseline", 4, 4);
        played.extend(games("r2", "candidate", "baseline", 1, 1));
        played.extend(games("r3", "baseline", "third", 3, 3));
        let h = history(&engines, &played, Some("candidate"), None).unwrap();
        let counts: Vec<u32> = h.rows.iter().map(|r| r.games).collect();
        // c2 played only itself: no rated game.
        assert_eq!(counts, [8, 0], "{h:#?}");
        let base = history(&engines, &played, Some("baseline"), None).unwrap();
        assert_eq!(base.rows[0].games, 14, "{base:#?}");
    }

    #[test]
    fn builds_are_ordered_by_their_instants_and_unknown_order_is_said() {
        // c2 is later than c1 though its text sorts first (another offset); c3 and c4 share
        // a date; c5 has none.
        let builds = [
            ("c2", "aaaa0002", Some("2026-11-27T09:30:00+00:00")),
            ("c1", "aaaa0001", Some("2026-11-27T10:00:00+02:00")),
            ("c4", "aaaa0004", Some("2026-11-28")),
            ("c3", "aaaa0003", Some("2026-11-28")),
            ("c5", "aaaa0005", None),
        ];
        let mut engines = Vec::new();
        let mut played = Vec::new();
        for (i, (c, digest, date)) in builds.iter().enumerate() {
            let run = format!("r{i}");
            engines.push(engine(
                &run,
                i as i64,
                "candidate",
                digest,
                commit(c, *date),
            ));
            engines.push(engine(
                &run,
                i as i64,
                "baseline",
                "bbbb0001",
                label("v1.0"),
            ));
            played.extend(games(&run, "candidate", "baseline", 2, 2));
        }
        let h = history(&engines, &played, Some("candidate"), Some("v1.0")).unwrap();
        let order: Vec<(&str, bool)> = h
            .rows
            .iter()
            .map(|r| (r.commits[0].as_str(), r.order_known))
            .collect();
        assert_eq!(
            order,
            [
                ("c1", true),
                ("c2", true),
                ("c4", false),
                ("c3", false),
                ("c5", false)
            ]
        );
    }

    #[test]
    fn compare_gives_head_to_head_and_the_joint_fit() {
        let (mut engines, mut games) = ci_flow();
        // A third build that met only the baseline: no head to head with c1, a joint Elo.
        engines.push(engine("r3", 3, "candidate", "aaaa0003", commit("c3", None)));
        engines.push(engine("r3", 3, "baseline", "bbbb0001", label("v1.0")));
        games.extend(self::games("r3", "candidate", "baseline", 20, 20));
        let c = compare(&engines, &games, "c1", "v1.0").unwrap();
        assert_eq!(c.len(), 1);
        let met = c[0].head_to_head.as_ref().unwrap();
        assert_eq!((met.games, met.wins, met.losses), (80, 20, 60));
        let joint = c[0].joint.as_ref().unwrap();
        assert!((joint.elo + 190.85).abs() < 0.1, "{joint:?}");
        assert_eq!((joint.games_a, joint.games_b), (80, 120));
        let c = compare(&engines, &games, "c3", "c1").unwrap();
        assert!(c[0].head_to_head.is_none());
        // c3 scored 50% and c1 25% against v1.0: c3 is Elo(0.75) above c1.
        assert!(
            (c[0].joint.as_ref().unwrap().elo - 190.85).abs() < 0.1,
            "{c:?}"
        );
        let err = compare(&engines, &games, "c1", "nothing").unwrap_err();
        assert!(err.to_string().contains("not both builds"), "{err}");
        assert!(compare(&engines, &games, "c1", "c2").is_err(), "one build");
    }

    #[test]
    fn an_unknown_engine_is_an_error_listing_the_known_ones() {
        let (engines, games) = ci_flow();
        let err = history(&engines, &games, Some("candidat"), None).unwrap_err();
        assert!(
            err.to_string().contains("its engines: baseline; candidate"),
            "{err}"
        );
    }

    #[test]
    fn instants_apply_offsets_and_refuse_what_is_not_a_date() {
        assert_eq!(instant("1970-01-02"), Some(86_400));
        assert_eq!(
            instant("2026-11-27T10:00:00+02:00"),
            instant("2026-11-27T08:00:00Z")
        );
        assert_eq!(
            instant("2026-11-27 08:00"),
            instant("2026-11-27T08:00:00.5Z")
        );
        assert_eq!(instant("2000-03-01"), Some(951_868_800));
        for bad in [
            "yesterday",
            "2026-13-01",
            "2026-11-27T25:00",
            "2026-11-27T10:00+2",
        ] {
            assert_eq!(instant(bad), None, "{bad}");
        }
    }
}
