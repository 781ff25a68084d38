//! The `external` plugin: engines outside the ABI, over NBoard and GTP.
//!
//! The self-test loop points it at this harness's own front-ends (`harness nboard`, `harness
//! gtp`) serving a plugin, and checks every game is move for move the game of the plugin loaded
//! directly. Broken programs (exits at once, never answers, answers an illegal move, answers
//! garbage) cost their games with the reason recorded, and the run goes on.

use crate::support::{
    artifacts, check_normal_record, check_record, check_schedule, engine, engine_moves, harness,
    processes_with, read_games, s, toml_string, TempDir, TournamentFile,
};
use harness_core::record::{GameRecord, Termination};
use othello_board::Color;

/// A match of `first` against `second` into `out`, 3 pairs, both at depth `depth`.
fn match_toml(out: &str, depth: u32, first: &str, second: &str) -> String {
    TournamentFile::new("match", 3, &format!("depth = {depth}\nstall-timeout = 5.0"))
        .out(Some(out))
        .openings("builtin = \"xot-small\"\norder = \"shuffled\"\nseed = 5")
        .engine(first.to_string())
        .engine(second.to_string())
        .text()
}

/// An `[[engine]]` table for the external plugin running `command` with `protocol`.
fn external(name: &str, command: &str, protocol: &str, extra: &str) -> String {
    let a = artifacts();
    engine(
        name,
        s(&a.external),
        &format!(
            "Command = {}, Protocol = \"{protocol}\"{extra}",
            toml_string(command)
        ),
    )
}

/// The moves of every game, in game order, with engine names replaced by their colour's role.
fn moves_by_game(records: &[GameRecord]) -> Vec<Vec<String>> {
    let mut sorted: Vec<&GameRecord> = records.iter().collect();
    sorted.sort_by_key(|r| r.game);
    sorted
        .iter()
        .map(|r| r.moves.iter().map(|m| m.mv.clone()).collect())
        .collect()
}

fn assert_same_games(bridged: &[GameRecord], direct: &[GameRecord]) {
    assert_eq!(bridged.len(), direct.len());
    for r in bridged.iter().chain(direct) {
        check_normal_record(r);
    }
    assert_eq!(
        moves_by_game(bridged),
        moves_by_game(direct),
        "the bridged engine played differently"
    );
}

/// Play the same match twice, once with `bridged` and once with `direct` as the first engine
/// (both named `name`), against `opponent`; checks both ran cleanly and played the same games.
fn assert_bridge_plays_like_the_plugin(
    label: &str,
    depth: u32,
    name: &str,
    bridged: &str,
    direct: &str,
    opponent: &str,
) -> Vec<GameRecord> {
    let dir = TempDir::new(label);
    dir.write(
        "bridged.toml",
        &match_toml("bridged", depth, bridged, opponent),
    );
    dir.write(
        "direct.toml",
        &match_toml("direct", depth, direct, opponent),
    );
    harness(dir.path(), &["run", "bridged.toml"])
        .assert_success()
        .assert_no_workers_left();
    harness(dir.path(), &["run", "direct.toml"]).assert_success();
    let records = read_games(&dir.join("bridged"));
    let other = if records[0].black == name {
        records[0].white.clone()
    } else {
        records[0].black.clone()
    };
    check_schedule(&records, &[(name, other.as_str())], 3);
    assert_same_games(&records, &read_games(&dir.join("direct")));
    records
}

/// Over NBoard the bridge gives the depth with `set depth` (the served front-end has no
/// `--depth`: `set depth` alone decides, 10 until it is sent); minimax is deterministic at a
/// fixed depth and plays other games at other depths, so a depth lost or changed on the way
/// shows in the moves.
#[test]
fn nboard_bridge_to_harness_nboard_plays_like_the_plugin() {
    let a = artifacts();
    let command = format!("{} nboard --engine {}", s(&a.harness), s(&a.minimax));
    let records = assert_bridge_plays_like_the_plugin(
        "external-nboard",
        3,
        "minimax",
        &external("minimax", &command, "nboard", ""),
        &engine("minimax", s(&a.minimax), ""),
        &engine("greedy", s(&a.greedy), ""),
    );
    assert_many_moves_by(&records, "minimax");
}

/// Over GTP the bridge replays the game with `play` (which needs the game, from ABI 1.1's
/// `search_game`), and the depth goes on the served engine's command line (GTP has no depth);
/// minimax is deterministic at a fixed depth.
#[test]
fn gtp_bridge_to_harness_gtp_plays_like_the_plugin() {
    let a = artifacts();
    let command = format!("{} gtp --engine {} --depth 3", s(&a.harness), s(&a.minimax));
    let records = assert_bridge_plays_like_the_plugin(
        "external-gtp",
        3,
        "minimax",
        &external("minimax", &command, "gtp", ""),
        &engine("minimax", s(&a.minimax), ""),
        &engine("greedy", s(&a.greedy), ""),
    );
    assert_many_moves_by(&records, "minimax");
}

/// `name` chose more than ten moves in every game: the games compared are real games.
fn assert_many_moves_by(records: &[GameRecord], name: &str) {
    for r in records {
        let color = if r.black == name {
            Color::Black
        } else {
            Color::White
        };
        assert!(engine_moves(r, color).len() > 10, "game {}", r.game);
    }
}

/// Programs that break. One that cannot start (it exits, stays mute or answers nonsense at the
/// handshake) or cannot answer a move (garbage, silence) stops the run before its first game
/// with exit code 2 and the cause; one that answers illegal moves is asked to play (its
/// pre-flight reply is a warning), forfeits each game with the reason, and the run, in which
/// it never made a move, ends `unmeasured` (exit code 2). No program is left running.
#[test]
fn broken_external_programs_stop_the_run_or_forfeit_with_the_reason() {
    let a = artifacts();
    let dir = TempDir::new("external-broken");
    // NBoard programs written as shell scripts: they answer pings, and `go` as scripted.
    dir.write("illegal.sh", &nboard_script("echo '=== A1/0.00/0.0'"));
    dir.write("garbage.sh", &nboard_script("echo '=== hello'"));
    dir.write("silent.sh", &nboard_script(":"));
    dir.write(
        "gtp-garbage.sh",
        "while read -r line; do echo 'nonsense'; echo; done\n",
    );
    // The mute program: a `sleep` whose command line no other process has.
    let mute = format!("sleep 60.{}", std::process::id());
    // (name, command, protocol, the forfeits' termination when it plays, the reason)
    let cases: [(&str, String, &str, Option<Termination>, &str); 6] = [
        ("exits", "true".into(), "nboard", None, "exited"),
        (
            "mute",
            mute.clone(),
            "nboard",
            None,
            "did not answer in time (during the NBoard handshake)",
        ),
        (
            "illegal",
            "sh illegal.sh".into(),
            "nboard",
            Some(Termination::IllegalMove),
            "a1",
        ),
        (
            "garbage",
            "sh garbage.sh".into(),
            "nboard",
            None,
            "`hello` is not a move",
        ),
        ("silent", "sh silent.sh".into(), "nboard", None, "stalled"),
        (
            "gtp-garbage",
            "sh gtp-garbage.sh".into(),
            "gtp",
            None,
            "not a GTP response",
        ),
    ];
    for (name, command, protocol, termination, reason) in cases {
        let extra = format!(
            ", WorkingDir = {}, StartupTimeout = 1.0",
            toml_string(s(dir.path()))
        );
        let file = format!("{name}.toml");
        dir.write(
            &file,
            &match_toml(
                name,
                1,
                &external(name, &command, protocol, &extra),
                &engine("greedy", s(&a.greedy), ""),
            )
            .replace("pairs = 3", "pairs = 1"),
        );
        // Each program is a child of its worker, not a worker: watched while the run goes on.
        let watching = std::sync::atomic::AtomicBool::new(true);
        let (run, seen) = std::thread::scope(|scope| {
            let watcher = scope.spawn(|| {
                let mut seen = false;
                while watching.load(std::sync::atomic::Ordering::Relaxed) {
                    seen |= !running(&command).is_empty();
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                seen
            });
            let run = harness(dir.path(), &["run", &file]);
            watching.store(false, std::sync::atomic::Ordering::Relaxed);
            (run, watcher.join().expect("the watcher"))
        });
        run.assert_error().assert_no_workers_left();
        if command == mute {
            assert!(seen, "{name}: `{command}` never ran");
            let left = running(&command);
            assert!(left.is_empty(), "{name}: left after the run: {left:#?}");
        }
        let Some(termination) = termination else {
            run.assert_stderr_has(&[&format!("engine `{name}` cannot start"), reason]);
            assert!(!dir.join(name).join("games.jsonl").exists(), "{run}");
            continue;
        };
        assert!(
            run.stdout
                .contains(&format!("UNMEASURED: {name} never made a move")),
            "{run}"
        );
        let records = read_games(&dir.join(name));
        assert_eq!(records.len(), 2, "{name}: every game recorded");
        for r in &records {
            let side = if r.black == name {
                Color::Black
            } else {
                Color::White
            };
            assert_eq!(
                r.forfeit_by,
                Some(side),
                "{name}: game {}: {}",
                r.game,
                r.reason
            );
            assert_eq!(r.termination, termination, "{name}: {}", r.reason);
            assert!(
                r.reason.to_lowercase().contains(&reason.to_lowercase()),
                "{name}: reason `{}` lacks `{reason}`",
                r.reason
            );
        }
    }
}

/// Under a fixed move time the GTP bridge sends `time_settings 0 T 1` (byo-yomi only), and the
/// served engine gets T per move: at least 30 ms per move on average for T = 200 ms (measured
/// about 90: the heuristic engine stops deepening early), where a front-end that took it for an
/// empty main clock gives 1 ms; no game is forfeited.
#[test]
fn gtp_bridge_gives_the_served_engine_the_move_time() {
    let a = artifacts();
    let dir = TempDir::new("external-gtp-time");
    let command = format!("{} gtp --engine {}", s(&a.harness), s(&a.heuristic));
    let toml = match_toml(
        "out",
        1,
        &external("heuristic", &command, "gtp", ""),
        &engine("greedy", s(&a.greedy), ""),
    )
    .replace("pairs = 3", "pairs = 1")
    .replace("depth = 1", "move-time = 0.2");
    dir.write("t.toml", &toml);
    harness(dir.path(), &["run", "t.toml"])
        .assert_success()
        .assert_no_workers_left();
    let records = read_games(&dir.join("out"));
    let (mut time, mut moves) = (0, 0);
    for r in &records {
        check_record(r);
        assert_eq!(r.termination, Termination::Normal, "{}", r.reason);
        let color = if r.black == "heuristic" {
            Color::Black
        } else {
            Color::White
        };
        moves += engine_moves(r, color).len() as u64;
        time += if color == Color::Black {
            r.time_ms.black
        } else {
            r.time_ms.white
        };
    }
    assert!(
        time >= moves * 30,
        "{time} ms for {moves} moves: the move time did not reach the engine"
    );
}

/// Command lines of the live processes whose command line contains `marker` (a zombie has been
/// killed; it only waits for its parent to reap it).
fn running(marker: &str) -> Vec<String> {
    processes_with(marker)
        .into_iter()
        .filter(|p| !p.zombie)
        .map(|p| p.cmdline)
        .collect()
}

/// An NBoard program as a shell script: it answers `ping`, and runs `on_go` for `go`.
fn nboard_script(on_go: &str) -> String {
    format!(
        "while read -r cmd arg; do\n  case \"$cmd\" in\n    ping) echo \"pong $arg\" ;;\n    go) {on_go} ;;\n  esac\ndone\n"
    )
}

/// Wait up to `limit` for `check` to hold.
fn eventually(limit: std::time::Duration, check: impl Fn() -> bool) -> bool {
    let started = std::time::Instant::now();
    while started.elapsed() < limit {
        if check() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    check()
}

/// NBoard programs that never answer `go` (they spin, one of them in a forked grandchild too)
/// never answer the pre-flight's move: the run stops before its first game once a game would
/// have lost on time, and nothing of them survives it: the worker's process group is killed
/// with the worker. Nor do they survive a coordinator killed by SIGKILL while they spin: each
/// worker hears of its parent's death (PR_SET_PDEATHSIG) and kills its group.
#[test]
fn spinning_programs_do_not_outlive_the_run() {
    let a = artifacts();
    let dir = TempDir::new("external-spinners");
    dir.write("spin.sh", &nboard_script("while :; do :; done"));
    dir.write(
        "forkspin.sh",
        &nboard_script("( while :; do :; done ) & while :; do :; done"),
    );
    for script in ["spin.sh", "forkspin.sh"] {
        let path = dir.join(script);
        let marker = s(&path).to_string();
        let out = format!("out-{script}");
        let command = format!("sh {marker}");
        let toml = |time: &str| {
            TournamentFile::new("match", 1, time)
                .out(Some(&out))
                .engine(external("spinner", &command, "nboard", ""))
                .engine(engine("greedy", s(&a.greedy), ""))
                .text()
        };
        // Stopped before the first game (a game would lose on time after 0.4 s), nothing left.
        dir.write("t.toml", &toml("move-time = 0.3\nmargin = 0.1"));
        let run = harness(dir.path(), &["run", "t.toml", "--no-tui"]);
        run.assert_error()
            .assert_no_workers_left()
            .assert_stderr_has(&["engine `spinner` cannot start", "lost on time"]);
        assert!(!dir.join(&out).join("games.jsonl").exists(), "{run}");
        let left = running(&marker);
        assert!(left.is_empty(), "{script}: left after the run: {left:#?}");

        // The coordinator killed while the program spins (in the pre-flight's search, which
        // waits up to 30 s under 60 s a move): its workers take their groups with them.
        dir.write("t.toml", &toml("move-time = 60\nmargin = 1"));
        let _ = std::fs::remove_dir_all(dir.join(&out));
        // Killed once the program has had `go` and spins (and, for forkspin.sh, once the
        // grandchild it forks at `go` spins too): what must not survive is all there.
        let mut child =
            crate::support::spawn_harness(dir.path(), &["run", "t.toml", "--no-tui"], false);
        let spinning = eventually(std::time::Duration::from_secs(20), || {
            let family = processes_with(&marker);
            let spins = |p: &&crate::support::Process| !p.zombie && p.cpu_ticks >= 3;
            let forked = family
                .iter()
                .filter(spins)
                .any(|p| family.iter().any(|parent| parent.pid == p.ppid));
            family.iter().any(|p| spins(&p)) && (forked || script == "spin.sh")
        });
        let before = running(&marker);
        child.kill().expect("SIGKILL the coordinator");
        let _ = child.wait();
        assert!(
            spinning,
            "{script}: the program (and its grandchild) never spun: {before:#?}"
        );
        let gone = eventually(std::time::Duration::from_secs(5), || {
            running(&marker).is_empty()
        });
        assert!(
            gone,
            "{script}: running before the SIGKILL: {before:#?}; still running after: {:#?}",
            running(&marker)
        );
    }
}
