//! `harness analyze`: where a run's games were lost, from exact solves.
//!
//! For every game of a journal (a plain, resumed, sharded or merged run), every position from
//! the first one with `N` or fewer empties to the end is solved exactly by a plugin (a search
//! with a depth limit equal to the empties, as `harness solve` does), and the moves played are
//! scored against those values (`stats::analysis`). The result is `analysis.jsonl` in the run's
//! folder (`record::analysis`).
//!
//! The solves run in worker processes, `jobs` at once, hosted as games are: a solver that
//! crashes or hangs on a position costs that position (the games that need it are reported
//! with it), and its worker is replaced. Solved positions go into the folder's cache
//! ([`cache`]), so a killed analysis resumes and a repeated one costs nothing. Before any
//! solve, the solver must answer a known position exactly: a plugin that does not honour depth
//! limits is refused.

mod cache;

pub use cache::{Solver, CACHE_FILE};

use crate::host::{EngineHost, HostError, WorkerSpec};
use anyhow::{bail, Context};
use cache::SolveCache;
use harness_core::plan::config::SandboxMode;
use harness_core::record::analysis::{AnalysedGame, ANALYSIS_FILE};
use harness_core::record::digest::file_digest;
use harness_core::record::journal::{read_journal, replace_durably, JSONL_FILE};
use harness_core::record::GameRecord;
use harness_core::stats::analysis::{score_line, LineMove, MOST_EMPTIES};
use othello_board::{Color, Move, Position};
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What `harness analyze` is given.
#[derive(Clone, Debug)]
pub struct AnalyzeArgs {
    /// The run's output folder (or a folder of shard folders).
    pub dir: PathBuf,
    pub from_empties: u32,
    /// The solver: a plugin path or a bare name looked up in `plugin_dir`.
    pub engine: String,
    pub plugin_dir: Option<PathBuf>,
    pub options: Vec<(String, String)>,
    /// Solves at once.
    pub jobs: usize,
    /// The solver's `Threads` option.
    pub threads: Option<u32>,
    /// The longest one solve may take.
    pub timeout: Duration,
    /// How the solver's workers are confined.
    pub sandbox: SandboxMode,
}

/// What an analysis did.
#[derive(Clone, Debug, Default)]
pub struct AnalysisSummary {
    pub games: Vec<AnalysedGame>,
    /// Distinct positions the games needed, those found in the cache, those solved now.
    pub positions: usize,
    pub cached: usize,
    pub solved: usize,
    /// Positions the solver failed on, with why.
    pub failed: Vec<(String, String)>,
    pub elapsed: Duration,
    /// Nodes of the solves made now.
    pub nodes: u64,
}

/// Analyse the games of `args.dir`; `say` hears the progress lines.
pub fn run(args: &AnalyzeArgs, mut say: impl FnMut(&str)) -> anyhow::Result<AnalysisSummary> {
    let started = Instant::now();
    if !(1..=MOST_EMPTIES).contains(&args.from_empties) {
        bail!(
            "--from-empties {}: give 1 to {MOST_EMPTIES} (from more empties an exact solve can take hours per position)",
            args.from_empties
        );
    }
    let records = games_of(&args.dir, &mut say)?;
    let (plugin, options) = super::tool_engine(
        &args.engine,
        args.plugin_dir.as_deref(),
        &args.options,
        args.threads,
    )?;
    let solver = Solver {
        plugin: plugin.display().to_string(),
        fnv1a: file_digest(&plugin),
        options: options
            .iter()
            .filter(|(n, _)| !["threads", "hash"].contains(&n.to_ascii_lowercase().as_str()))
            .cloned()
            .collect(),
    };
    anyhow::ensure!(
        !solver.fnv1a.is_empty(),
        "{}: no such plugin file",
        plugin.display()
    );
    let mut cache = SolveCache::open(&args.dir, &solver)?;
    let lines: Vec<GameLine> = records
        .iter()
        .map(|r| line_of(r, args.from_empties))
        .collect();
    // The positions to solve, each once, the most empties first (the longest solves start
    // first, so the last ones to finish are short).
    let mut needed: BTreeMap<String, (u32, Position)> = BTreeMap::new();
    for line in lines.iter().filter_map(|l| l.as_ref().ok()) {
        for p in line.positions.iter().filter(|p| !p.is_game_over()) {
            needed.entry(p.to_string()).or_insert((p.empties(), *p));
        }
    }
    let positions = needed.len();
    let mut todo: Vec<(String, Position)> = needed
        .into_iter()
        .filter(|(key, _)| !cache.values.contains_key(key))
        .map(|(key, (_, p))| (key, p))
        .collect();
    todo.sort_by_key(|(_, p)| std::cmp::Reverse(p.empties()));
    let cached = positions - todo.len();
    say(&format!(
        "analyze: {} games, {positions} positions from {} empties ({cached} in the cache, {} to solve) with {} ({} at once)",
        records.len(),
        args.from_empties,
        todo.len(),
        plugin.display(),
        args.jobs
    ));
    let spec = WorkerSpec {
        name: args.engine.clone(),
        plugin,
        options,
        stderr_log: Some(args.dir.join("logs").join("analyze.stderr.log")),
        memory_limit: None,
        sandbox: super::confinement(args.sandbox),
        between_turns: crate::host::turns::BetweenTurns::Stopped,
    };
    let _ = std::fs::create_dir_all(args.dir.join("logs"));
    let outcome = Solves::new(&spec, args, todo.len()).run(todo, &mut cache, &mut say)?;
    let games = lines
        .iter()
        .zip(&records)
        .map(|(line, r)| analysed(line, r, args.from_empties, &cache.values, &outcome.failed))
        .collect::<Vec<_>>();
    write_analysis(&args.dir, &games)?;
    Ok(AnalysisSummary {
        games,
        positions,
        cached,
        solved: outcome.solved,
        failed: outcome.failed.into_iter().collect(),
        elapsed: started.elapsed(),
        nodes: outcome.nodes,
    })
}

/// The games of a run's folder, in game order, each once: its journal, or its shards'. A
/// merged journal beside shard folders that hold games it lacks is stale: refused, so that
/// the analysis never silently covers fewer games than the run played.
fn games_of(dir: &Path, say: &mut impl FnMut(&str)) -> anyhow::Result<Vec<GameRecord>> {
    let shards = shard_journals(dir)?;
    let merged = dir.join(JSONL_FILE);
    let journals = if merged.exists() {
        vec![merged.clone()]
    } else {
        shards.clone()
    };
    if journals.is_empty() {
        bail!(
            "{}: no journal ({JSONL_FILE}, or shard-I-of-N folders holding one)",
            dir.display()
        );
    }
    let by_game = read_games(&journals, say)?;
    if merged.exists() && !shards.is_empty() {
        let in_shards = read_games(&shards, &mut |_| {})?;
        let missing = in_shards
            .keys()
            .filter(|g| !by_game.contains_key(g))
            .count();
        if missing > 0 {
            bail!(
                "{}: its merged journal holds {} games, but its shard folders hold {missing} more: run `harness merge {}` first, then analyze",
                dir.display(),
                by_game.len(),
                dir.display()
            );
        }
    }
    if by_game.is_empty() {
        bail!("{}: the journal holds no game", dir.display());
    }
    Ok(by_game.into_values().collect())
}

/// The journals of the shard folders (`shard-I-of-N`) in `dir`, sorted.
fn shard_journals(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let shards = harness_core::record::run_folder::RunFolder::at(dir)
        .shards()
        .with_context(|| format!("cannot read {}", dir.display()))?;
    Ok(shards
        .into_iter()
        .map(|shard| shard.join(JSONL_FILE))
        .filter(|journal| journal.exists())
        .collect())
}

/// The games of `journals` by game number, the first record of each; a torn last line is said.
fn read_games(
    journals: &[PathBuf],
    say: &mut impl FnMut(&str),
) -> anyhow::Result<BTreeMap<usize, GameRecord>> {
    let mut by_game = BTreeMap::new();
    for path in journals {
        let text =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        if !text.is_empty() && !text.ends_with(b"\n") {
            say(&format!(
                "analyze: {}: its last line is torn (a run killed while writing it): left out",
                path.display()
            ));
        }
        for r in read_journal(path)? {
            by_game.entry(r.game).or_insert(r);
        }
    }
    Ok(by_game)
}

/// The part of a game that is analysed: its moves from the first position with `from` or
/// fewer empties, the positions before each of them and where the line ends.
struct AnalysedLine {
    moves: Vec<LineMove>,
    /// One more than `moves`: the position before each move, and the last.
    positions: Vec<Position>,
    /// The index in the record's moves of the first analysed move.
    first: usize,
}

/// A line, or why the game has none.
type GameLine = Result<AnalysedLine, String>;

/// The line of a game from its first position with `from` or fewer empties.
fn line_of(r: &GameRecord, from: u32) -> GameLine {
    let mut pos: Position = r
        .start
        .parse()
        .map_err(|e| format!("bad start position: {e}"))?;
    let moves = r.parsed_moves().ok_or("a move that does not parse")?;
    let mut line: Option<AnalysedLine> = None;
    for (i, &mv) in moves.iter().enumerate() {
        // A forced pass a book line leaves implicit.
        if pos.must_pass() && !mv.is_pass() {
            pos = pos.play(Move::PASS).map_err(|e| e.to_string())?;
        }
        if line.is_none() && pos.empties() <= from {
            line = Some(AnalysedLine {
                moves: Vec::new(),
                positions: Vec::new(),
                first: i,
            });
        }
        if let Some(l) = &mut line {
            l.positions.push(pos);
            l.moves.push(LineMove {
                square: if mv.is_pass() {
                    "pass".into()
                } else {
                    mv.to_string()
                },
                black: pos.side_to_move == Color::Black,
                empties: pos.empties(),
            });
        }
        pos = pos
            .play(mv)
            .map_err(|e| format!("move {} is illegal: {e}", i + 1))?;
    }
    match line {
        Some(mut l) => {
            l.positions.push(pos);
            Ok(l)
        }
        None if pos.empties() <= from => Ok(AnalysedLine {
            moves: Vec::new(),
            positions: vec![pos],
            first: moves.len(),
        }),
        None => Err(format!("the game ended before {from} empties")),
    }
}

/// A game's analysis from its line and the values found (or its error).
fn analysed(
    line: &GameLine,
    r: &GameRecord,
    from: u32,
    values: &HashMap<String, i32>,
    failed: &BTreeMap<String, String>,
) -> AnalysedGame {
    let mut game = AnalysedGame {
        game: r.game,
        from_empties: from,
        value: None,
        moves: Vec::new(),
        decisive: None,
        final_value: None,
        black: r.black.clone(),
        white: r.white.clone(),
        score: r.score,
        error: None,
    };
    let line = match line {
        Ok(l) => l,
        Err(e) => {
            game.error = Some(e.clone());
            return game;
        }
    };
    let mut exact = Vec::with_capacity(line.positions.len());
    for p in &line.positions {
        if p.is_game_over() {
            exact.push(p.final_score_black());
            continue;
        }
        let key = p.to_string();
        match values.get(&key) {
            Some(&v) => exact.push(v),
            None => {
                let why = failed.get(&key).map_or("not solved", String::as_str);
                game.error = Some(format!("position {key}: {why}"));
                return game;
            }
        }
    }
    match score_line(&line.moves, &exact) {
        Ok((mut moves, decisive)) => {
            // From the adjudication's first move on, the solver played, not the engines.
            let solver_from = r.adjudication.as_ref().and_then(|a| a.first_move);
            for (k, m) in moves.iter_mut().enumerate() {
                m.solver = solver_from.is_some_and(|first| line.first + k >= first);
            }
            game.value = Some(exact[0]);
            game.final_value = exact.last().copied();
            game.moves = moves;
            game.decisive = decisive;
        }
        Err(e) => game.error = Some(format!("from move {}: {e}", line.first + 1)),
    }
    game
}

/// Write `analysis.jsonl`, one game a line in game order, replacing an earlier one at once.
fn write_analysis(dir: &Path, games: &[AnalysedGame]) -> anyhow::Result<()> {
    let path = dir.join(ANALYSIS_FILE);
    replace_durably(&path, |w| {
        for g in games {
            serde_json::to_writer(&mut *w, g)?;
            w.write_all(b"\n")?;
        }
        Ok(())
    })
    .with_context(|| format!("cannot write {}", path.display()))
}

/// The solves of an analysis: `jobs` workers pulling positions from one queue.
struct Solves<'a> {
    spec: &'a WorkerSpec,
    args: &'a AnalyzeArgs,
    total: usize,
}

/// What the solves found.
#[derive(Default)]
struct SolvesDone {
    solved: usize,
    nodes: u64,
    failed: BTreeMap<String, String>,
}

impl<'a> Solves<'a> {
    fn new(spec: &'a WorkerSpec, args: &'a AnalyzeArgs, total: usize) -> Solves<'a> {
        Solves { spec, args, total }
    }

    /// Solve `todo` into the cache, reporting progress every few seconds.
    fn run(
        &self,
        todo: Vec<(String, Position)>,
        cache: &mut SolveCache,
        say: &mut impl FnMut(&str),
    ) -> anyhow::Result<SolvesDone> {
        let runtime = crate::host::session_runtime().context("cannot start the runtime")?;
        runtime.block_on(self.solve_all(todo, cache, say))
    }

    async fn solve_all(
        &self,
        todo: Vec<(String, Position)>,
        cache: &mut SolveCache,
        say: &mut impl FnMut(&str),
    ) -> anyhow::Result<SolvesDone> {
        let mut first = EngineHost::spawn(self.spec).await?;
        first.new_game().await?;
        first.prove_exact(self.args.timeout).await?;
        let queue = std::sync::Arc::new(std::sync::Mutex::new(todo.into_iter()));
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let mut workers = tokio::task::JoinSet::new();
        let mut hosts = vec![Some(first)];
        hosts.resize_with(self.args.jobs.max(1), || None);
        for host in hosts {
            let (queue, tx, spec, timeout) = (
                queue.clone(),
                tx.clone(),
                self.spec.clone(),
                self.args.timeout,
            );
            workers.spawn(async move { solve_from(queue, host, spec, timeout, tx).await });
        }
        drop(tx);
        let mut done = SolvesDone::default();
        let (started, mut last_said) = (Instant::now(), Instant::now());
        while let Some((key, answer)) = rx.recv().await {
            match answer {
                Ok(a) => {
                    cache.add(key, a.value)?;
                    done.solved += 1;
                    done.nodes += a.nodes;
                }
                Err(e) => {
                    say(&format!("analyze: the solver failed on {key}: {e}"));
                    done.failed.insert(key, e.to_string());
                }
            }
            if last_said.elapsed() >= Duration::from_secs(5) {
                last_said = Instant::now();
                let n = done.solved + done.failed.len();
                say(&format!(
                    "analyze: {n} of {} positions done ({} solved, {} failed), {:.1} positions/s",
                    self.total,
                    done.solved,
                    done.failed.len(),
                    n as f64 / started.elapsed().as_secs_f64().max(1e-3)
                ));
            }
        }
        while workers.join_next().await.is_some() {}
        Ok(done)
    }
}

/// One worker's loop: take a position, solve it, send the answer; a worker that failed is
/// replaced before the next position.
async fn solve_from(
    queue: std::sync::Arc<std::sync::Mutex<std::vec::IntoIter<(String, Position)>>>,
    mut host: Option<EngineHost>,
    spec: WorkerSpec,
    timeout: Duration,
    answers: tokio::sync::mpsc::UnboundedSender<(
        String,
        Result<crate::host::ExactAnswer, HostError>,
    )>,
) {
    loop {
        let Some((key, position)) = queue.lock().expect("queue lock").next() else {
            break;
        };
        let mut h = match host.take().filter(EngineHost::is_alive) {
            Some(h) => h,
            None => match EngineHost::spawn(&spec).await {
                Ok(h) => h,
                Err(e) => {
                    let _ = answers.send((key, Err(e)));
                    continue;
                }
            },
        };
        let answer = h
            .solve_exactly(position, timeout, std::future::pending())
            .await;
        if h.is_alive() {
            host = Some(h);
        }
        if answers.send((key, answer)).is_err() {
            break;
        }
    }
    if let Some(h) = host {
        h.shutdown().await;
    }
}
