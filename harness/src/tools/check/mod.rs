//! `harness check`: a plugin's compliance, item by item, each on a fresh worker (so that a
//! crash or a hang fails its own item and nothing else). Searches are of the bench positions
//! ([`super::positions`]) and of four games played to their end.
//!
//! | item | passes when |
//! | --- | --- |
//! | `pre-flight` | what a run asks of every engine before its first game (`play::preflight`): after `new_game`, a legal move of the first position of `xot-large` under a move time of 100 ms, answered within 2 s of the stop flag (a run waits no longer than a game would) |
//! | `stop` | under a move time (20 searches of 50 ms) the answer comes at most 100 ms (p99) after the stop flag, and under a clock of 300 ms (5 searches) within the clock plus 100 ms |
//! | `limits` | a depth-2 search reports a depth of at most 2, and a 5,000-node search at most 10,000 nodes |
//! | `passes-and-end` | every position of 4 games played to the end (passes in their histories) gets a legal move at depth 1 |
//! | `determinism` | the same depth-5 search twice (after `new_game`, `Threads = 1`) gives the same move and node count |
//! | `new-game` | after another search and `new_game`, a search gives the move and nodes of a fresh instance |
//! | `option-ranges` | each declared int or float option refuses a value below its minimum and above its maximum; an enum an undeclared value; a bool `maybe` |
//! | `memory` | the worker's resident memory grows by at most 32 MiB from the 100th to the 1,000th depth-1 search (not checked without `/proc`) |
//! | `between-turns` | with the engine let run between its turns, its worker uses at most 100 ms of CPU in the 1 s between five searches of 50 ms (an engine that spins or goes on searching after its answer fails); the route that stops it between turns in a timed run is named (not checked where the worker's CPU time cannot be read) |
//! | `destroy` | after a search and `new_game`, the quit destroys the instance and the worker exits by itself (within the worker's grace of 2 s) |
//! | `sandbox-write`, `sandbox-connect`, `sandbox-signal`, … ([`sandbox`]) | from inside the worker, a write outside its scratch folder, a TCP connection and a signal to the coordinator are refused (not checked without Landlock; they fail with `--sandbox off`) |
//! | `sandbox-namespaces` ([`sandbox`]) | the worker runs in PID, IPC and mount namespaces of its own, with its own `/proc` and a `tmpfs` scratch folder (not checked where the system gives none; fails with `--sandbox off`) |
//!
//! Every worker runs under an address-space limit ([`CheckSpec::memory_limit`]), so a plugin
//! that allocates without end fails the item it is in with the limit named, and the machine
//! survives. The other items end their workers with a kill once their answer is in: a destroy
//! that never returns fails `destroy` alone and costs its 2 s once.
//!
//! Not checked, and said so: `search_game` against `search` (the worker chooses the entry
//! point) and two instances in one process (a worker hosts one).

use super::positions::{bench_positions, playout_games};
use crate::host::turns::BetweenTurns;
use crate::host::{EngineHost, HostError, Quit, SearchBudget, WorkerSpec};
use anyhow::Context;
use harness_core::plan::config::SandboxMode;
use harness_core::search_terms::SearchLimits;
use othello_board::{GameHistory, Move, Position};
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// The longest a search without a time limit may take in a check.
const STALL: Duration = Duration::from_secs(4);
/// Latest an answer may come after the stop flag.
const STOP_LATENCY: Duration = Duration::from_millis(100);
/// How long past the stop flag the host waits before giving up on an answer.
const STOP_MARGIN: Duration = Duration::from_secs(2);
/// The most CPU time an engine let run between its turns may use in [`IDLE_BETWEEN_TURNS`]
/// times five.
const BETWEEN_TURNS_CPU: Duration = Duration::from_millis(100);
/// The time between two of the `between-turns` item's searches.
const IDLE_BETWEEN_TURNS: Duration = Duration::from_millis(200);
/// The most resident memory 900 searches may add.
const MEMORY_GROWTH: u64 = 32 << 20;

/// What to check: a plugin file and its options.
#[derive(Clone, Debug)]
pub struct CheckSpec {
    pub name: String,
    pub plugin: PathBuf,
    pub options: Vec<(String, String)>,
    /// Each worker's address-space limit in bytes.
    pub memory_limit: u64,
    /// Where the workers' stderr goes (appended): a crash under the memory limit is told from
    /// the allocation failure written there.
    pub stderr_log: PathBuf,
    /// How each worker is confined.
    pub sandbox: SandboxMode,
}

/// The result of one item.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Pass(String),
    Fail(String),
    NotChecked(String),
}

mod sandbox;

/// The items, in the order they run and print.
pub const ITEMS: [&str; 21] = [
    "pre-flight",
    "stop",
    "limits",
    "passes-and-end",
    "determinism",
    "new-game",
    "option-ranges",
    "memory",
    "between-turns",
    "destroy",
    "search-game-vs-search",
    "two-instances",
    sandbox::ITEMS[0],
    sandbox::ITEMS[1],
    sandbox::ITEMS[2],
    sandbox::ITEMS[3],
    sandbox::ITEMS[4],
    sandbox::ITEMS[5],
    sandbox::ITEMS[6],
    sandbox::ITEMS[7],
    sandbox::ITEMS[8],
];

/// Run every item, writing the table to `out`; the items and their outcomes.
pub fn run(spec: &CheckSpec, out: &mut dyn Write) -> anyhow::Result<Vec<(&'static str, Outcome)>> {
    let runtime = crate::host::session_runtime().context("cannot start the runtime")?;
    // A plugin that does not load is one error, as `info` and `bench` say it, not a failed
    // row for every item.
    let first = runtime
        .block_on(start(spec))
        .with_context(|| format!("{}: cannot check a plugin that does not start", spec.name))?;
    runtime.block_on(end(first));
    writeln!(out, "{:<22} {:<11} detail", "item", "result")?;
    let mut results = Vec::new();
    for item in ITEMS {
        let outcome = runtime.block_on(check_item(spec, item));
        let (word, detail) = match &outcome {
            Outcome::Pass(d) => ("pass", d),
            Outcome::Fail(d) => ("FAIL", d),
            Outcome::NotChecked(d) => ("not checked", d),
        };
        writeln!(out, "{item:<22} {word:<11} {detail}")?;
        results.push((item, outcome));
    }
    let failed = results
        .iter()
        .filter(|(_, o)| matches!(o, Outcome::Fail(_)))
        .count();
    writeln!(
        out,
        "check: {} passed, {failed} failed, {} not checked",
        results
            .iter()
            .filter(|(_, o)| matches!(o, Outcome::Pass(_)))
            .count(),
        results
            .iter()
            .filter(|(_, o)| matches!(o, Outcome::NotChecked(_)))
            .count()
    )?;
    Ok(results)
}

/// One item; any error of the host (a crash, a forfeit, a refused start) fails it.
async fn check_item(spec: &CheckSpec, item: &str) -> Outcome {
    let result = match item {
        "pre-flight" => preflight(spec).await,
        "stop" => stop(spec).await,
        "limits" => limits(spec).await,
        "passes-and-end" => passes_and_end(spec).await,
        "determinism" => determinism(spec).await,
        "new-game" => new_game(spec).await,
        "option-ranges" => option_ranges(spec).await,
        "memory" => memory(spec).await,
        "between-turns" => between_turns(spec).await,
        "destroy" => destroy(spec).await,
        item if sandbox::ITEMS.contains(&item) => return sandbox::check(spec, item).await,
        "search-game-vs-search" => {
            return Outcome::NotChecked("the worker chooses the ABI entry point".into())
        }
        _ => return Outcome::NotChecked("a worker process hosts one instance".into()),
    };
    match result {
        Ok(Ok(detail)) => Outcome::Pass(detail),
        Ok(Err(detail)) => Outcome::Fail(detail),
        Err(e) => match e.downcast::<NotMeasurable>() {
            Ok(NotMeasurable(why)) => Outcome::NotChecked(why),
            Err(e) => Outcome::Fail(format!("{e:#}")),
        },
    }
}

/// A check's answer: `Ok(detail)` passes, `Err(detail)` fails; a host error fails too, and
/// [`NotMeasurable`] leaves the item not checked.
type Verdict = anyhow::Result<Result<String, String>>;

/// What this system gives no reading of, which an item needs (a worker's resident memory or
/// CPU time): the item is not checked, with this reason, rather than failed or passed.
#[derive(Debug)]
struct NotMeasurable(String);

impl std::fmt::Display for NotMeasurable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotMeasurable {}

/// A started worker with `Threads = 1` when the plugin declares it.
async fn start(spec: &CheckSpec) -> anyhow::Result<EngineHost> {
    start_as(spec, BetweenTurns::Stopped).await
}

/// [`start`], stopped between turns or not.
async fn start_as(spec: &CheckSpec, between_turns: BetweenTurns) -> anyhow::Result<EngineHost> {
    super::start_worker_single_threaded(&worker_spec(spec, between_turns)).await
}

/// The worker of an item.
fn worker_spec(spec: &CheckSpec, between_turns: BetweenTurns) -> WorkerSpec {
    WorkerSpec {
        name: spec.name.clone(),
        plugin: spec.plugin.clone(),
        options: spec.options.clone(),
        stderr_log: Some(spec.stderr_log.clone()),
        memory_limit: Some(spec.memory_limit),
        sandbox: super::confinement(spec.sandbox),
        between_turns,
    }
}

/// The end of an item's worker once its answer is in: a kill (the quit, and the destroy it
/// calls, are the `destroy` item's).
async fn end(mut host: EngineHost) {
    host.kill().await;
}

/// One search of `game`; its legal move (an illegal one is an error) and what it reported.
async fn search(
    host: &mut EngineHost,
    game: &GameHistory,
    limits: SearchLimits,
    budget: SearchBudget,
) -> anyhow::Result<(Move, harness_core::search_terms::SearchInfo, Duration)> {
    let position = game.position().map_err(anyhow::Error::msg)?;
    let reply = host
        .search(game, &limits, budget, |_| {}, std::future::pending())
        .await?;
    let mv = Move::from_wire(reply.mv as i64)
        .filter(|m| position.is_legal(*m))
        .with_context(|| format!("illegal move {} in {position}", reply.mv))?;
    Ok((mv, reply.info, reply.elapsed))
}

fn stall() -> SearchBudget {
    SearchBudget::Stall { timeout: STALL }
}

/// The midgame positions of the bench set (40 empties and more).
fn midgame() -> Vec<Position> {
    bench_positions()
        .into_iter()
        .filter(|p| p.empties() >= 40)
        .collect()
}

async fn preflight(spec: &CheckSpec) -> Verdict {
    let mut host = start(spec).await?;
    host.new_game().await?;
    let opening = &harness_core::plan::openings::builtin("xot-large")
        .expect("the built-in set")
        .openings[0];
    let history = opening.history();
    // A run's pre-flight under a move time ([`crate::host::engine_host::PREFLIGHT_MOVE_TIME`])
    // and this suite's margin: stopped then, answered within the margin, as a run waits no
    // longer than a game of that move time and margin would.
    let probe = crate::host::engine_host::PREFLIGHT_MOVE_TIME;
    let limits = SearchLimits::MoveTime(probe);
    let budget = SearchBudget::Deadline {
        budget: probe,
        margin: STOP_MARGIN,
    };
    let answered = search(&mut host, &history, limits, budget).await;
    end(host).await;
    Ok(match answered {
        Ok((mv, _, elapsed)) => Ok(format!(
            "answered {mv} in {} ms (a move of the first xot-large position at 100 ms, as a run asks before its first game)",
            elapsed.as_millis()
        )),
        Err(e) => Err(format!("{e:#}; a run of this engine would stop before its first game")),
    })
}

async fn stop(spec: &CheckSpec) -> Verdict {
    let mut host = start(spec).await?;
    let move_time = Duration::from_millis(50);
    let mut late = Vec::new();
    for p in midgame().iter().cycle().take(20) {
        host.new_game().await?;
        let budget = SearchBudget::Deadline {
            budget: move_time,
            margin: STOP_MARGIN,
        };
        let (_, _, elapsed) = search(
            &mut host,
            &GameHistory::new(*p),
            SearchLimits::MoveTime(move_time),
            budget,
        )
        .await?;
        late.push(elapsed.saturating_sub(move_time));
    }
    late.sort();
    let p99 = late[(late.len() * 99).div_ceil(100) - 1];
    let clock = Duration::from_millis(300);
    let mut longest = Duration::ZERO;
    for p in midgame().iter().take(5) {
        host.new_game().await?;
        let budget = SearchBudget::Deadline {
            budget: clock,
            margin: STOP_MARGIN,
        };
        let limits = SearchLimits::Clock {
            left: [clock; 2],
            increment: [Duration::ZERO; 2],
        };
        let (_, _, elapsed) = search(&mut host, &GameHistory::new(*p), limits, budget).await?;
        longest = longest.max(elapsed);
    }
    end(host).await;
    let detail = format!(
        "p99 {} ms after the stop flag (move time 50 ms); longest {} ms on a 300 ms clock",
        p99.as_millis(),
        longest.as_millis()
    );
    Ok(if p99 <= STOP_LATENCY && longest <= clock + STOP_LATENCY {
        Ok(detail)
    } else {
        Err(detail)
    })
}

async fn limits(spec: &CheckSpec) -> Verdict {
    let mut host = start(spec).await?;
    let mut deepest = 0;
    let mut most_nodes = 0;
    for p in midgame() {
        host.new_game().await?;
        let game = GameHistory::new(p);
        let (_, info, _) = search(&mut host, &game, SearchLimits::Depth(2), stall()).await?;
        deepest = deepest.max(info.depth);
        host.new_game().await?;
        let (_, info, _) = search(&mut host, &game, SearchLimits::Nodes(5000), stall()).await?;
        most_nodes = most_nodes.max(info.nodes);
    }
    end(host).await;
    let detail = format!("depth 2 reported {deepest}; 5000 nodes reported {most_nodes}");
    Ok(if deepest <= 2 && most_nodes <= 10_000 {
        Ok(detail)
    } else {
        Err(detail)
    })
}

async fn passes_and_end(spec: &CheckSpec) -> Verdict {
    let mut host = start(spec).await?;
    let (mut searched, mut after_pass) = (0, 0);
    for game in playout_games("xot-large", 4) {
        host.new_game().await?;
        for n in 0..=game.moves.len() {
            let prefix = GameHistory {
                start: game.start,
                moves: game.moves[..n].to_vec(),
            };
            let p = prefix.position().map_err(anyhow::Error::msg)?;
            if p.is_game_over() || p.must_pass() {
                continue;
            }
            search(&mut host, &prefix, SearchLimits::Depth(1), stall())
                .await
                .with_context(|| format!("after {n} moves"))?;
            searched += 1;
            after_pass += usize::from(n > 0 && game.moves[n - 1] == Move::PASS);
        }
    }
    end(host).await;
    Ok(Ok(format!(
        "{searched} positions to the end of 4 games, {after_pass} just after a pass"
    )))
}

/// `new_game` then a depth-5 search of `p`: the move and the nodes.
async fn fresh_search(host: &mut EngineHost, p: Position) -> anyhow::Result<(Move, u64)> {
    host.new_game().await?;
    let (mv, info, _) = search(host, &GameHistory::new(p), SearchLimits::Depth(5), stall()).await?;
    Ok((mv, info.nodes))
}

/// A search's answer as a person reads it: `e6 in 4002000 nodes`.
fn searched((mv, nodes): (Move, u64)) -> String {
    format!("{mv} in {nodes} nodes")
}

async fn determinism(spec: &CheckSpec) -> Verdict {
    let mut host = start(spec).await?;
    let mut differ = Vec::new();
    for (i, p) in midgame().into_iter().enumerate() {
        let a = fresh_search(&mut host, p).await?;
        let b = fresh_search(&mut host, p).await?;
        if a != b {
            differ.push(format!(
                "position {}: {} then {}",
                i + 1,
                searched(a),
                searched(b)
            ));
        }
    }
    end(host).await;
    Ok(if differ.is_empty() {
        Ok("the same move and nodes twice at depth 5".into())
    } else {
        Err(differ.join("; "))
    })
}

async fn new_game(spec: &CheckSpec) -> Verdict {
    let positions = midgame();
    let mut fresh = start(spec).await?;
    let expected = fresh_search(&mut fresh, positions[0]).await?;
    end(fresh).await;
    let mut used = start(spec).await?;
    fresh_search(&mut used, positions[1]).await?;
    let after = fresh_search(&mut used, positions[0]).await?;
    end(used).await;
    Ok(if after == expected {
        Ok("a used instance after new_game searches as a fresh one".into())
    } else {
        Err(format!(
            "fresh instance {}, used one after new_game {}",
            searched(expected),
            searched(after)
        ))
    })
}

async fn option_ranges(spec: &CheckSpec) -> Verdict {
    let probe = start(spec).await?;
    let options = probe.plugin.options.clone();
    end(probe).await;
    let mut values = Vec::new();
    for o in &options {
        match o.kind.as_str() {
            "int" if o.min < o.max => {
                values.push((o.name.clone(), format!("{}", o.min as i64 - 1)));
                values.push((o.name.clone(), format!("{}", o.max as i64 + 1)));
            }
            "float" if o.min < o.max => {
                let span = (o.max - o.min).max(1.0);
                values.push((o.name.clone(), format!("{}", o.min - span)));
                values.push((o.name.clone(), format!("{}", o.max + span)));
            }
            "enum" => values.push((o.name.clone(), "no-such-value".to_string())),
            "bool" => values.push((o.name.clone(), "maybe".to_string())),
            _ => {}
        }
    }
    let mut accepted = Vec::new();
    for (name, value) in &values {
        let mut host = start(spec).await?;
        match host.set_option(name, value).await {
            Err(HostError::Option { .. }) => {}
            Err(e) => return Err(e.into()),
            Ok(()) => {
                accepted.push(format!("{name}={value}"));
                end(host).await;
            }
        }
    }
    Ok(if accepted.is_empty() {
        Ok(format!("{} values out of range refused", values.len()))
    } else {
        Err(format!("accepted {}", accepted.join(", ")))
    })
}

/// The resident memory of a process, in bytes (Linux).
fn resident(pid: u32) -> anyhow::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .with_context(|| format!("cannot read the memory of process {pid}"))?;
    let kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .context("no VmRSS")?;
    Ok(kib * 1024)
}

async fn memory(spec: &CheckSpec) -> Verdict {
    if resident(std::process::id()).is_err() {
        return Err(NotMeasurable(
            "a process's resident memory cannot be read on this system (no /proc)".into(),
        )
        .into());
    }
    let mut host = start(spec).await?;
    let pid = host.pid().context("the worker has no process id")?;
    let positions = bench_positions();
    let mut at_100 = 0;
    for i in 0..1000 {
        if i % positions.len() == 0 {
            host.new_game().await?;
        }
        let game = GameHistory::new(positions[i % positions.len()]);
        search(&mut host, &game, SearchLimits::Depth(1), stall()).await?;
        if i == 99 {
            at_100 = resident(pid)?;
        }
    }
    let at_1000 = resident(pid)?;
    end(host).await;
    let growth = at_1000.saturating_sub(at_100);
    let detail = format!(
        "resident {} MiB after 100 searches, {} MiB after 1000",
        at_100 >> 20,
        at_1000 >> 20
    );
    Ok(if growth <= MEMORY_GROWTH {
        Ok(detail)
    } else {
        Err(detail)
    })
}

/// Five searches of 50 ms with 200 ms between them, the engine let run there: the CPU time
/// its worker used outside its turns. A run stops it there when the run is timed, so this is
/// what it would take from its opponent with `ponder = true`, or a sign of a thread pool that
/// busy-waits.
async fn between_turns(spec: &CheckSpec) -> Verdict {
    let route = start(spec).await?;
    let stopped_by = route.stop_route();
    end(route).await;
    let mut host = start_as(spec, BetweenTurns::Runs("harness check measures it")).await?;
    let move_time = Duration::from_millis(50);
    for p in midgame().iter().take(5) {
        host.new_game().await?;
        let budget = SearchBudget::Deadline {
            budget: move_time,
            margin: STOP_MARGIN,
        };
        let game = GameHistory::new(*p);
        search(&mut host, &game, SearchLimits::MoveTime(move_time), budget).await?;
        tokio::time::sleep(IDLE_BETWEEN_TURNS).await;
    }
    let used = host.cpu_between_turns();
    end(host).await;
    let Some(used) = used else {
        return Err(
            NotMeasurable("the worker's CPU time cannot be read on this system".into()).into(),
        );
    };
    let idle = IDLE_BETWEEN_TURNS * 5;
    let said = format!(
        "{} ms of CPU in {} ms between its turns (at most {} ms); stopped there in a timed run by {stopped_by}",
        used.as_millis(),
        idle.as_millis(),
        BETWEEN_TURNS_CPU.as_millis()
    );
    Ok(if used <= BETWEEN_TURNS_CPU {
        Ok(said)
    } else {
        Err(format!(
            "{said}: it runs when it is not asked (threads that spin, a search that goes on after its answer); with `ponder = true` it would take that from its opponent"
        ))
    })
}

async fn destroy(spec: &CheckSpec) -> Verdict {
    let mut host = start(spec).await?;
    let game = GameHistory::new(midgame()[0]);
    search(&mut host, &game, SearchLimits::Depth(2), stall()).await?;
    host.new_game().await?;
    let started = std::time::Instant::now();
    Ok(match host.shutdown().await {
        Quit::Clean => Ok(format!(
            "destroyed and exited {} ms after the quit",
            started.elapsed().as_millis()
        )),
        Quit::Unclean(why) => Err(why),
    })
}

#[cfg(test)]
mod tests {
    /// A search's answer reads as a move and a count, not as Rust's debug text.
    #[test]
    fn a_search_reads_as_words() {
        let mv: othello_board::Move = "e6".parse().unwrap();
        assert_eq!(super::searched((mv, 4_002_000)), "e6 in 4002000 nodes");
    }
}
