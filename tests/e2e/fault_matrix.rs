//! The fault matrix: every fault of the `faulty` fixture engine (`engines/faulty`), with the
//! faulty engine as the first and as the second engine of a one-pair match against greedy, so
//! that it plays Black once and White once in each run. The fault strikes in the faulty
//! engine's third search of every game. Each run must exit 0 with every scheduled game in the
//! journal and no worker left behind; each game where the fault struck ends with the expected
//! termination against the faulty engine's colour; faults that are not the engine's to lose a
//! game with (info floods, garbage on the standard streams, a hanging destroy) leave every game
//! normal and the run quick.

use crate::support::{
    artifacts, check_ggf, check_record, check_schedule, engine, processes_with, read_games, s,
    worker_marker, Output, TempDir,
};
use harness_core::record::{GameRecord, PlayedMove, Termination};
use othello_board::{Color, Move, Position};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The faulty engine's search that strikes, in every game.
const STRIKE_AT: usize = 3;
/// The usual time control of the matrix.
const MOVE_TIME: &str = "move-time = 0.2\nmargin = 0.2";
/// A depth limit, where only the stall timeout bounds a search.
const DEPTH_LIMIT: &str = "depth = 2\nstall-timeout = 1.0";
/// The peak resident set (kB) the coordinator and each worker must stay below in the runs
/// whose memory is sampled.
const MEMORY_BOUND_KB: (u64, u64) = (48 << 10, 24 << 10);
/// How long one harness run may take before the test kills it.
const RUN_TIMEOUT: Duration = Duration::from_secs(60);

/// What a game where the fault struck must look like.
#[derive(Clone, Copy, Debug)]
enum Expect {
    /// The faulty engine forfeits with this termination; the reason holds every fragment.
    Forfeit(Termination, &'static [&'static str]),
    /// The game goes on and ends normally.
    Normal,
}

/// One row of the matrix.
struct Case {
    fault: &'static str,
    /// The inside of the `[time]` table.
    time: &'static str,
    expect: Expect,
    /// Each of the two runs must finish within this.
    max_wall: Duration,
    /// Sample the workers' memory too (info flood).
    watch_workers: bool,
    /// The faulty engine's `memory-limit`.
    memory_limit: Option<&'static str>,
}

impl Case {
    fn new(fault: &'static str, time: &'static str, expect: Expect) -> Case {
        Case {
            fault,
            time,
            expect,
            max_wall: Duration::from_secs(20),
            watch_workers: false,
            memory_limit: None,
        }
    }
}

/// A finished harness run with what was sampled while it ran.
struct Watched {
    output: Output,
    /// The coordinator's peak resident set (VmHWM, kB) at the last sample before it exited.
    coordinator_hwm_kb: u64,
    /// The largest peak resident set of any of its workers seen (kB), when sampled.
    worker_hwm_kb: u64,
}

/// `VmHWM` of `/proc/<pid>/status` in kB.
fn vm_hwm_kb(pid: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Run the harness with `args` in `dir` like `support::harness`, sampling the coordinator's
/// (and with `watch_workers` its workers') peak memory every few milliseconds.
fn run_watched(dir: &Path, args: &[&str], watch_workers: bool) -> Watched {
    let mut cmd = Command::new(&artifacts().harness);
    cmd.args(args)
        .current_dir(dir)
        // A Rust plugin's panic hook prints (and symbolizes) a backtrace when this is set, which
        // can take longer than the move time: keep the panic case about the panic.
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let command = format!("{cmd:?}");
    let started = Instant::now();
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {command}: {e}"));
    let pid = child.id();
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let (mut coordinator_hwm_kb, mut worker_hwm_kb) = (0, 0);
    let (status, timed_out) = loop {
        // Sample before reaping: once waited for, /proc/<pid> is gone.
        if let Some(kb) = vm_hwm_kb(&pid.to_string()) {
            coordinator_hwm_kb = coordinator_hwm_kb.max(kb);
        }
        if watch_workers {
            for w in processes_with(&worker_marker(pid))
                .into_iter()
                .map(|p| p.pid)
            {
                worker_hwm_kb = worker_hwm_kb.max(vm_hwm_kb(&w).unwrap_or(0));
            }
        }
        if let Some(status) = child.try_wait().expect("wait for the harness") {
            break (status, false);
        }
        if started.elapsed() > RUN_TIMEOUT {
            let _ = child.kill();
            break (child.wait().expect("wait for the killed harness"), true);
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let output = Output {
        command,
        pid,
        status,
        stdout: stdout.join().expect("stdout reader"),
        stderr: stderr.join().expect("stderr reader"),
        elapsed: started.elapsed(),
    };
    assert!(!timed_out, "killed after {RUN_TIMEOUT:?}:\n{output}");
    Watched {
        output,
        coordinator_hwm_kb,
        worker_hwm_kb,
    }
}

/// The moves the faulty engine chose in a game (not book moves, not forced passes).
fn chosen_moves(r: &GameRecord, color: Color) -> Vec<&PlayedMove> {
    let mut pos: Position = r.start.parse().expect("start position");
    let mut chosen = Vec::new();
    for m in &r.moves {
        let mv: Move = m.mv.parse().expect("move text");
        if !m.book && !pos.must_pass() && pos.side_to_move == color {
            chosen.push(m);
        }
        pos = pos.play(mv).expect("legal move");
    }
    chosen
}

/// What one run of a case measured, for the test's totals and its report.
struct RunResult {
    /// Games per termination (as `Debug` text).
    terminations: BTreeMap<String, usize>,
    /// Games in which the faulty engine reached its striking search.
    struck: usize,
    watched: Watched,
    records: Vec<GameRecord>,
    /// The faulty engine's log (`logs/faulty.stderr.log`: its workers' stderr).
    log: String,
}

/// Play one pair of `case`, faulty as the first engine or the second, and check every game.
fn run_case(case: &Case, faulty_first: bool) -> RunResult {
    let a = artifacts();
    let label = format!(
        "fault-{}-{}",
        case.fault,
        if faulty_first { "first" } else { "second" }
    );
    let dir = TempDir::new(&label);
    let mut faulty = engine(
        "faulty",
        s(&a.faulty),
        &format!("Fault = \"{}\", StrikeAt = {STRIKE_AT}", case.fault),
    );
    if let Some(limit) = case.memory_limit {
        faulty.push_str(&format!("memory-limit = \"{limit}\"\n"));
    }
    let greedy = engine("greedy", s(&a.greedy), "");
    let (first, second, engines) = if faulty_first {
        ("faulty", "greedy", faulty + &greedy)
    } else {
        ("greedy", "faulty", greedy + &faulty)
    };
    let toml = format!(
        "[tournament]\nformat = \"match\"\npairs = 1\nconcurrency = 2\nout = \"out\"\n\n\
         [time]\n{}\n\n[openings]\nbuiltin = \"xot-small\"\n{engines}",
        case.time
    );
    dir.write("t.toml", &toml);
    let watched = run_watched(dir.path(), &["run", "t.toml"], case.watch_workers);
    let run = &watched.output;
    if case.watch_workers {
        eprintln!(
            "fault_matrix: {label}: {} after {:.2?}, coordinator VmHWM {} kB, worker VmHWM {} kB",
            run.status, run.elapsed, watched.coordinator_hwm_kb, watched.worker_hwm_kb
        );
        // Nobody drowns: the bounds sit well above what a flooded coordinator and worker hold
        // with bounded queues, on a quiet machine and a busy one, and below what a worker with
        // an unbounded report queue reaches (docs/architecture.md, "Engine reports").
        assert!(
            watched.coordinator_hwm_kb < MEMORY_BOUND_KB.0,
            "{label}: the coordinator peaked at {} kB:\n{run}",
            watched.coordinator_hwm_kb
        );
        assert!(
            watched.worker_hwm_kb < MEMORY_BOUND_KB.1,
            "{label}: a worker peaked at {} kB:\n{run}",
            watched.worker_hwm_kb
        );
    }
    run.assert_success().assert_no_workers_left();
    assert!(
        run.elapsed < case.max_wall,
        "{label}: the run took {:?} (limit {:?}):\n{run}",
        run.elapsed,
        case.max_wall
    );
    let out = dir.join("out");
    let records = read_games(&out);
    assert_eq!(
        records.len(),
        2,
        "{label}: every scheduled game is recorded"
    );
    check_schedule(&records, &[(first, second)], 1);
    check_ggf(&out, &records);

    let log = std::fs::read(out.join("logs/faulty.stderr.log")).unwrap_or_default();
    let log = String::from_utf8_lossy(&log).into_owned();
    if case.fault == "stdout-garbage" {
        // The garbage went to the engine's log (stderr), not into the protocol.
        assert!(
            log.contains(r#"{"type":"moved","mv":0"#),
            "{label}: no garbage in the log:\n{log}"
        );
    }

    let mut terminations = BTreeMap::new();
    let mut struck = 0;
    for r in &records {
        let ctx = format!("{label}, game {} ({} vs {})", r.game, r.black, r.white);
        let end = check_record(r);
        let color = if r.black == "faulty" {
            Color::Black
        } else {
            Color::White
        };
        *terminations
            .entry(format!("{:?}", r.termination))
            .or_insert(0) += 1;
        let searches = chosen_moves(r, color).len();
        match case.expect {
            Expect::Forfeit(termination, fragments) if r.termination != Termination::Normal => {
                struck += 1;
                assert_eq!(r.termination, termination, "{ctx}: {}", r.reason);
                assert_eq!(r.forfeit_by, Some(color), "{ctx}: forfeit_by");
                let against = if color == Color::Black { -64 } else { 64 };
                assert_eq!(r.score, against, "{ctx}: score");
                let at: Position = r
                    .forfeit_position
                    .as_deref()
                    .unwrap_or_else(|| panic!("{ctx}: no forfeit_position"))
                    .parse()
                    .unwrap_or_else(|e| panic!("{ctx}: forfeit_position: {e}"));
                assert_eq!(at, end, "{ctx}: forfeit_position is where the game stopped");
                assert_eq!(at.side_to_move, color, "{ctx}: faulty to move");
                assert!(!at.must_pass(), "{ctx}: forfeit in a forced pass");
                assert_eq!(
                    searches,
                    STRIKE_AT - 1,
                    "{ctx}: the fault strikes in search {STRIKE_AT}"
                );
                assert!(
                    r.reason.contains("`faulty`"),
                    "{ctx}: reason `{}`",
                    r.reason
                );
                for f in fragments {
                    assert!(r.reason.contains(f), "{ctx}: `{f}` not in `{}`", r.reason);
                }
                if case.fault == "illegal" {
                    // The answered square is occupied in the forfeit position.
                    let square = r.reason.rsplit(": ").next().unwrap_or_default();
                    let mv: Move = square
                        .parse()
                        .unwrap_or_else(|e| panic!("{ctx}: {square}: {e}"));
                    let sq = mv.square().expect("a square, not a pass");
                    let occupied = at.black() | at.white();
                    assert_ne!(occupied & (1u64 << sq.index()), 0, "{ctx}: {square}");
                }
            }
            _ => {
                // A game the fault did not end is a normal game, also when it struck.
                assert_eq!(
                    r.termination,
                    Termination::Normal,
                    "{ctx}: {} ({})",
                    r.reason,
                    run
                );
                assert_eq!(r.forfeit_by, None, "{ctx}");
                assert_eq!(r.forfeit_position, None, "{ctx}");
                if searches >= STRIKE_AT {
                    struck += 1;
                }
            }
        }
    }
    RunResult {
        terminations,
        struck,
        watched,
        records,
        log,
    }
}

/// Run `case` with faulty first and second, and check the totals over both runs: the games
/// per termination, and that the fault struck in every game.
fn check_case(case: Case) -> Vec<RunResult> {
    let runs = [run_case(&case, true), run_case(&case, false)];
    let mut totals: BTreeMap<String, usize> = BTreeMap::new();
    for r in &runs {
        for (t, n) in &r.terminations {
            *totals.entry(t.clone()).or_insert(0) += n;
        }
    }
    let expected_key = match case.expect {
        Expect::Forfeit(t, _) => format!("{t:?}"),
        Expect::Normal => format!("{:?}", Termination::Normal),
    };
    let expected = BTreeMap::from([(expected_key, 4)]);
    assert_eq!(totals, expected, "{}: games per termination", case.fault);
    let struck: usize = runs.iter().map(|r| r.struck).sum();
    // Every game lasts long enough for the faulty engine's striking search (also with `none`).
    assert_eq!(struck, 4, "{}: games where it struck", case.fault);
    for (r, order) in runs.iter().zip(["first", "second"]) {
        eprintln!(
            "fault_matrix: {:<14} faulty {order:<6}: {:?} in {:.2?}, coordinator VmHWM {} kB",
            case.fault, r.terminations, r.watched.output.elapsed, r.watched.coordinator_hwm_kb
        );
    }
    runs.into()
}

fn forfeit(fault: &'static str, t: Termination, fragments: &'static [&'static str]) {
    check_case(Case::new(fault, MOVE_TIME, Expect::Forfeit(t, fragments)));
}

/// What the faulty engine writes to its log when its destroy is called with `destroy-hang`.
const DESTROY_REACHED: &str = "faulty: destroy reached; it never returns";
/// What a worker writes to the engine's log when its grace for the end of the engine ran out.
const GRACE_OVER: &str = "harness worker: the engine did not finish within 2 s of the end";

/// The baseline: without a fault, every game is normal (and long enough for a strike), and the
/// worker ends without waiting out its grace.
#[test]
fn none_plays_every_game_normally() {
    for r in check_case(Case::new("none", MOVE_TIME, Expect::Normal)) {
        assert!(!r.log.contains(GRACE_OVER), "{}", r.log);
    }
}

#[test]
fn segfault_is_a_crash_with_sigsegv() {
    forfeit("segfault", Termination::Crash, &["crashed", "SIGSEGV"]);
}

#[test]
fn abort_is_a_crash_with_sigabrt() {
    forfeit("abort", Termination::Crash, &["crashed", "SIGABRT"]);
}

#[test]
fn panic_is_an_engine_error_with_the_message() {
    forfeit(
        "panic",
        Termination::EngineError,
        &["faulty: deliberate panic in search 3"],
    );
}

#[test]
fn exit_mid_search_is_a_crash_with_status_0() {
    forfeit(
        "exit",
        Termination::Crash,
        &["crashed", "exited with status 0"],
    );
}

#[test]
fn loop_ignoring_stop_loses_on_time() {
    forfeit("loop", Termination::TimeForfeit, &["lost on time"]);
}

#[test]
fn loop_under_a_depth_limit_stalls() {
    check_case(Case::new(
        "loop",
        DEPTH_LIMIT,
        Expect::Forfeit(Termination::Stalled, &["stalled", "1000 ms"]),
    ));
}

#[test]
fn sleep_past_the_deadline_loses_on_time() {
    forfeit("sleep", Termination::TimeForfeit, &["lost on time"]);
}

#[test]
fn occupied_square_is_an_illegal_move() {
    forfeit("illegal", Termination::IllegalMove, &["illegal move: "]);
}

#[test]
fn out_of_range_value_is_an_illegal_move() {
    forfeit(
        "out-of-range",
        Termination::IllegalMove,
        &["illegal move: value 99"],
    );
}

#[test]
fn pass_with_moves_is_an_illegal_move() {
    forfeit("bad-pass", Termination::IllegalMove, &["illegal move: PA"]);
}

/// Thousands of info reports per millisecond for two seconds, then a legal move: the engine
/// answered within its budget and must not lose; neither the coordinator nor the worker may
/// drown (peak memory under [`MEMORY_BOUND_KB`]). Run with `--nocapture` to see the measured
/// memory and times.
#[test]
fn info_flood_is_harmless() {
    let case = Case {
        watch_workers: true,
        ..Case::new(
            "info-flood",
            "move-time = 3.0\nmargin = 0.2",
            Expect::Normal,
        )
    };
    for r in check_case(case) {
        for g in &r.records {
            let color = if g.black == "faulty" {
                Color::Black
            } else {
                Color::White
            };
            let flood = chosen_moves(g, color)[STRIKE_AT - 1];
            eprintln!(
                "fault_matrix: info-flood game {}: {} reports sent in {} ms (as the coordinator \
                 measured the move), coordinator VmHWM {} kB, worker VmHWM {} kB",
                g.game,
                flood.nodes.unwrap_or(0),
                flood.time_ms.unwrap_or(0),
                r.watched.coordinator_hwm_kb,
                r.watched.worker_hwm_kb
            );
            assert!(
                flood.nodes.unwrap_or(0) > 100_000,
                "game {}: the flood did not happen",
                g.game
            );
        }
    }
}

/// Protocol-looking garbage on the engine's stdout and stderr cannot reach the protocol
/// (a socket): the games are normal, and the garbage is in the engine's log.
#[test]
fn garbage_on_stdout_and_stderr_is_harmless() {
    check_case(Case::new("stdout-garbage", MOVE_TIME, Expect::Normal));
}

/// An engine that allocates without end, under a memory limit, loses the game with a crash
/// whose reason names the limit; the run goes on (and the machine survives).
#[test]
fn allocating_without_end_hits_the_memory_limit() {
    let mut case = Case::new(
        "allocate",
        MOVE_TIME,
        Expect::Forfeit(
            Termination::Crash,
            &["crashed", "SIGABRT", "memory limit of 256 MiB hit"],
        ),
    );
    case.memory_limit = Some("256MiB");
    check_case(case);
}

/// A destroy that never returns must not hang the run's end: the destroy is reached (the
/// engine says so in its log), the worker gives it its grace period of 2 s and then exits by
/// itself (it says so after the engine), before the coordinator's own kill 3 s after the quit
/// would; each run is bounded by `Case::max_wall`, 20 s, and leaves no worker behind.
#[test]
fn hanging_destroy_does_not_hang_the_run() {
    for r in check_case(Case::new("destroy-hang", MOVE_TIME, Expect::Normal)) {
        let log = &r.log;
        let reached = log.find(DESTROY_REACHED);
        let grace_over = log.find(GRACE_OVER);
        assert!(
            reached.is_some() && reached < grace_over,
            "destroy reached, then the worker's grace over, in that order:\n{log}"
        );
        // Once per worker of the engine (two games at once: two workers).
        assert_eq!(
            log.matches(DESTROY_REACHED).count(),
            log.matches(GRACE_OVER).count(),
            "{log}"
        );
    }
}
