//! Fair play: an engine runs only on its own turn, and its clock cannot be gamed. The unfair
//! faults of `faulty` play real matches as the test's own user and, where that is root, as
//! `nobody` (whose workers have no cgroup: they are stopped by signals to their process
//! group), each beside a control that shows the harm (`ponder = true`, which lets the engine
//! run between its turns), so that every test can fail.

use crate::support::user::{users, User};
use crate::support::{engine, read_games, report_json, s, TempDir, TournamentFile};
use std::process::Command;

/// One run of faulty (`Fault = fault`, `StrikeAt = strike`, its table's extra lines `keys`)
/// against `opponent` under the `[time]` lines `time`, one pair, one game at a time, as
/// `user`; its output folder.
fn play(
    user: User,
    dir: &TempDir,
    (fault, strike, keys): (&str, u32, &str),
    opponent: &std::path::Path,
    time: &str,
) -> std::path::PathBuf {
    let a = user.artifacts();
    let faulty = engine(
        "faulty",
        s(&a.faulty),
        &format!("Fault = \"{fault}\", StrikeAt = {strike}"),
    ) + keys
        + "\n";
    let file = TournamentFile::new("match", 1, time)
        .concurrency(1)
        .engine(faulty)
        .engine(engine("opponent", s(opponent), ""));
    let path = dir.write("t.toml", &file.text());
    let mut command = Command::new(&a.harness);
    command
        .args(["run", s(&path), "--no-tui"])
        .current_dir(dir.path());
    user.wrap(&mut command);
    let output = crate::support::run_with_timeout(command, crate::support::HARNESS_TIMEOUT);
    output.assert_success();
    dir.join("out")
}

/// An engine's figure from `report.json`'s engine table.
fn usage(out: &std::path::Path, engine: &str, key: &str) -> f64 {
    let report = report_json(out);
    let row = report["engines"]
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["engine"] == engine))
        .unwrap_or_else(|| panic!("no row of {engine} in {report}"));
    row[key]
        .as_f64()
        .unwrap_or_else(|| panic!("no {key} of {engine} in {row}"))
}

/// Eight threads that spin for ever, from faulty's first search on: stopped between its turns
/// they use (about) no processor time there, however long the opponent thinks; let run
/// (`ponder = true`) they use seconds of it. The opponent's speed beside each is printed for
/// information (on 2 cores the spinners cost it most of its nodes).
#[test]
fn an_engine_that_spins_between_turns_gets_no_time_there() {
    for user in users() {
        let mut between = Vec::new();
        for keys in ["", "ponder = true"] {
            let dir = user.dir(&format!("fair-spin-{}", keys.is_empty()));
            let out = play(
                user,
                &dir,
                ("spin-between-turns", 1, keys),
                &user.artifacts().heuristic,
                "move-time = 0.05",
            );
            let cpu = usage(&out, "faulty", "cpu_between_turns_seconds");
            eprintln!(
                "{user:?} {keys:?}: faulty used {cpu:.3} s of CPU between its turns; heuristic searched {:.0} nodes/s",
                usage(&out, "opponent", "nodes_per_second")
            );
            between.push(cpu);
            let routes = std::fs::read_to_string(out.join("tournament.json")).unwrap();
            let expected = if keys.is_empty() {
                if user == User::Nobody {
                    "\"faulty\": \"SIGSTOP\""
                } else {
                    "\"faulty\": \"cgroup.freeze\""
                }
            } else {
                "\"faulty\": \"none (ponder = true)\""
            };
            // Where no v2 cgroup exists, root's workers are frozen through v1's freezer.
            let alternative = expected.replace("cgroup.freeze", "freezer.state");
            assert!(
                routes.contains(expected) || routes.contains(&alternative),
                "{user:?}: no {expected} in\n{routes}"
            );
        }
        assert!(
            between[0] < 0.05,
            "{user:?}: the stopped spinners used {:.3} s between turns",
            between[0]
        );
        assert!(
            between[1] > 0.5,
            "{user:?}: the control's spinners used only {:.3} s between turns",
            between[1]
        );
    }
}

/// A move reply written to the channel ahead of its request (a thread of the plugin, 1 ms
/// after its second search) does not answer the next request: the engine loses the game for
/// breaking the protocol, pondering (the reply is read before the request is sent) and under
/// a depth limit (where engines are not stopped). Stopped between turns, the thread runs only
/// while the engine searches: where it gets a processor in one of those turns, the reply
/// comes without that search's token and the game is lost the same way; on a busy machine it
/// may get none before the game ends (each turn lasts microseconds), and the game is played
/// out with the engine's own moves (and pondering, or under the depth limit, one of the two
/// games may end before the thread wakes). The opponent's games are untouched.
#[test]
fn a_reply_written_ahead_of_its_request_loses_the_game() {
    for user in users() {
        for (time, keys) in [
            ("move-time = 0.02", ""),
            ("move-time = 0.02", "ponder = true"),
            ("depth = 2", ""),
        ] {
            let dir = user.dir(&format!("fair-ahead-{}-{}", time.len(), keys.len()));
            let out = play(
                user,
                &dir,
                ("answer-ahead", 2, keys),
                &user.artifacts().greedy,
                time,
            );
            let games = read_games(&out);
            assert_eq!(games.len(), 2);
            let stopped = time.starts_with("move-time") && keys.is_empty();
            let normal = |g: &harness_core::record::GameRecord| {
                g.termination == harness_core::record::Termination::Normal
            };
            // Not stopped, the thread writes 1 ms after its search; on a busy machine it may
            // wake only after its engine's last turn of the game, which then ends normally:
            // one game of the two at least is lost for it.
            assert!(
                stopped || games.iter().any(|g| !normal(g)),
                "{user:?} {time} {keys}: no game lost for the reply written ahead: {games:?}"
            );
            for g in &games {
                if normal(g) {
                    continue;
                }
                let faulty = if g.black == "faulty" {
                    othello_board::Color::Black
                } else {
                    othello_board::Color::White
                };
                assert_eq!(g.forfeit_by, Some(faulty), "{time} {keys}: {g:?}");
                assert!(
                    g.reason.contains("broke the protocol")
                        && g.reason.contains("written ahead of its request"),
                    "{user:?} {time} {keys}: {}",
                    g.reason
                );
            }
        }
    }
}

/// The cores faulty's `spin-on-turn` says each strike used (one line a game).
fn spun_cores(out: &std::path::Path) -> Vec<f64> {
    let log = std::fs::read_to_string(out.join("logs/faulty.stderr.log")).unwrap_or_default();
    let cores: Vec<f64> = log
        .lines()
        .filter_map(|l| l.strip_prefix("faulty: spin-on-turn: 4 threads used "))
        .filter_map(|l| l.split(' ').next()?.parse().ok())
        .collect();
    assert_eq!(cores.len(), 2, "one strike a game:\n{log}");
    cores
}

/// An engine that declares one thread (no `Threads` option) and spins four during its own
/// search is held to its CPU cap (a core and a quarter) where a cpu cgroup can be made (root):
/// its turns use at most that, measured by the engine from its CPU ticks over wall time. With
/// the sandbox off (no cgroup) as the control, it uses the cores it finds: checked to be more
/// than the cap where the machine has four cores or more (on two, the control's figure is
/// printed: another test sharing them leaves it anywhere below two).
#[test]
fn an_engine_is_held_to_its_declared_threads_on_its_turn() {
    let user = User::Invoker;
    // faulty spinning once a game on its turn, its table's extra lines `keys`: its folder.
    let spin = |folder: &str, keys: &str| {
        let dir = user.dir(folder);
        let time = "move-time = 1";
        let out = play(
            user,
            &dir,
            ("spin-on-turn", 2, keys),
            &user.artifacts().greedy,
            time,
        );
        (dir, out)
    };
    let (_dir, out) = spin("fair-cpu-cap", "");
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tournament.json")).unwrap())
            .unwrap();
    let enforced = &record["sandbox_enforced"]["faulty"];
    let Some(cap) = enforced["cpu_cap_percent"].as_f64() else {
        return crate::support::skip(
            "an_engine_is_held_to_its_declared_threads_on_its_turn",
            &format!("no CPU cap can be made here: {}", enforced["missing"]),
        );
    };
    assert_eq!(cap, 125.0, "{enforced}");
    // The kernel's bandwidth control holds the cgroup to its quota in each 100 ms period; a
    // period the turn begins or ends in may be counted whole.
    let bound = cap / 100.0 * 1.15;
    let capped = spun_cores(&out);
    let (_off_dir, off) = spin("fair-cpu-cap-off", "sandbox = \"off\"");
    let control = spun_cores(&off);
    eprintln!("4 spinners on faulty's turn: capped at {cap}%: {capped:?} cores; sandbox off: {control:?} cores");
    assert!(
        capped.iter().all(|&c| c <= bound),
        "capped at {cap}%, the spinners used {capped:?} cores"
    );
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores >= 4 {
        assert!(
            control.iter().any(|&c| c > bound),
            "with the sandbox off the spinners used only {control:?} cores of {cores}"
        );
    }
}

/// The games a folder holds were played under the fair-play conditions the kernel gave then
/// (stopped between turns, the CPU cap, the namespaces, as `tournament.json` records them): a
/// resume that would play more under others is refused with exit code 2 and names the
/// engine, the journal untouched; a run whose conditions agree extends it. (The first run's
/// record is edited to stand for another machine's: this one gives what it gives.)
#[test]
fn a_resume_under_other_fair_play_conditions_is_refused() {
    let a = crate::support::artifacts();
    let dir = TempDir::new("fair-resume");
    let file = |pairs: usize| {
        TournamentFile::new("match", pairs, "move-time = 0.01")
            .engine(engine("greedy", s(&a.greedy), ""))
            .engine(engine("minimax", s(&a.minimax), "Depth = 1"))
            .text()
    };
    dir.write("t.toml", &file(1));
    crate::support::harness(dir.path(), &["run", "t.toml", "--no-tui"]).assert_success();
    let pinned = dir.join("out/tournament.json");
    let journal = dir.join("out/games.jsonl");
    let (as_played, games) = (
        std::fs::read_to_string(&pinned).unwrap(),
        std::fs::read(&journal).unwrap(),
    );
    let mut record: serde_json::Value = serde_json::from_str(&as_played).unwrap();
    assert!(
        record["stop_routes"]["greedy"].is_string(),
        "no stop route recorded:\n{as_played}"
    );
    // Values this machine never gives: a cap is threads × 100 + 25, and a PID namespace
    // comes with the user namespace.
    let greedy = &mut record["sandbox_enforced"]["greedy"];
    if greedy.is_object() {
        greedy["cpu_cap_percent"] = 999.into();
        greedy["namespaces"] = serde_json::json!(["user"]);
    }
    std::fs::write(&pinned, serde_json::to_string_pretty(&record).unwrap()).unwrap();

    dir.write("t.toml", &file(2));
    crate::support::harness(dir.path(), &["run", "t.toml", "--no-tui"])
        .assert_error()
        .assert_stderr_has(&[
            "cannot resume",
            "2 games",
            "fair-play conditions",
            "greedy: stopped between turns, CPU capped at 999%, namespaces user then",
            "another `out`",
        ]);
    assert_eq!(
        std::fs::read(&journal).unwrap(),
        games,
        "the journal changed"
    );

    std::fs::write(&pinned, &as_played).unwrap();
    crate::support::harness(dir.path(), &["run", "t.toml", "--no-tui"]).assert_resumed(2, 4);
}
