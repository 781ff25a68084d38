//! The sandbox against a red team's hostile plugins: each fault of `faulty` below plays a
//! one-pair match against greedy (striking in its second search) under the default sandbox,
//! where the harm must not happen and every game is played, and under `sandbox = "off"`,
//! where the harm (or, where it would damage the machine, the permission it needs, probed
//! harmlessly) must show, so that each test can fail. Where the cause is gone for every mode
//! (a coordinator socket to connect to, descriptors the coordinator inherited), both modes
//! must show no harm.
//!
//! Every test runs as the test's own user and, where that is root (as on CI, where many jobs
//! run as root in containers), again as an ordinary user (`nobody`, through `setpriv`): as
//! root the cgroups hold the worker and its capabilities are dropped; as an ordinary user no
//! cgroup can be made and the process group, which seccomp keeps the engine in, ends it.

use crate::sandbox::{hostile_with, Hostile};
use crate::support::user::{users, User};
use crate::support::{is_root, s, TempDir};
use std::os::unix::process::ExitStatusExt;
use std::process::Command;
use std::time::Duration;

impl User {
    /// [`hostile_with`] as this user, in `mode`, with `configure` applied first.
    pub(crate) fn hostile(
        self,
        dir: &TempDir,
        (fault, target, mode): (&str, &str, &str),
        configure: impl FnOnce(&mut Command),
    ) -> Hostile {
        hostile_with(self, dir, fault, target, &sandbox(mode), |c| {
            configure(c);
            self.wrap(c);
        })
    }
}

/// The table line of a sandbox mode.
pub(crate) fn sandbox(mode: &str) -> String {
    format!("sandbox = \"{mode}\"")
}

/// No coordinator socket exists to speak on: `impersonate` watches the coordinator's
/// temporary folder while both engines' workers start (and every later one) and finds none,
/// and every game is played by its own engine.
#[test]
fn no_plugin_can_speak_for_another_engines_worker() {
    for user in users() {
        for mode in ["strict", "off"] {
            let dir = user.dir(&format!("contained-impersonate-{mode}"));
            let temp = dir.join("tmp");
            std::fs::create_dir_all(&temp).unwrap();
            user.open_to(&temp);
            let run = user.hostile(&dir, ("impersonate", s(&temp), mode), |c| {
                c.env("TMPDIR", &temp);
            });
            run.assert_every_game_played()
                .assert_log_says("impersonate", &["no coordinator socket appeared"]);
            assert!(
                !run.output.stdout.contains("impersonated"),
                "{}",
                run.output
            );
        }
    }
}

/// A Unix socket at a path (a team ledger's PostgreSQL, any program's control socket) is out
/// of the sandbox's reach: no socket can be made to connect with.
#[test]
fn no_unix_socket_is_reached_from_the_sandbox() {
    for user in users() {
        let dir = user.dir("contained-connect-unix");
        let path = dir.join("listener.sock");
        let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        user.open_to(&path);
        listener.set_nonblocking(true).unwrap();
        user.hostile(&dir, ("connect-unix", s(&path), "strict"), |_| {})
            .assert_every_game_played()
            .assert_log_says("connect-unix", &["cannot connect", "not permitted"]);
        assert!(listener.accept().is_err(), "{user:?}: the engine connected");

        let dir = user.dir("contained-connect-unix-off");
        user.hostile(&dir, ("connect-unix", s(&path), "off"), |_| {})
            .assert_log_says("connect-unix", &["connected"]);
        assert!(
            listener.accept().is_ok(),
            "{user:?}: no connection without the sandbox"
        );
    }
}

/// The process ids `daemon`'s loops appended to `file`.
fn daemon_pids(file: &std::path::Path) -> Vec<i32> {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let mut pids: Vec<i32> = text.lines().filter_map(|l| l.trim().parse().ok()).collect();
    pids.sort_unstable();
    pids.dedup();
    pids
}

/// Kill the loops `daemon` started on `file`: those whose process ids it holds and any whose
/// command line names it.
fn kill_daemons(file: &std::path::Path) {
    let named = crate::support::processes_with(s(file));
    let pids = daemon_pids(file).into_iter().map(|p| p.to_string());
    for pid in pids.chain(named.into_iter().map(|p| p.pid)) {
        let _ = Command::new("kill").args(["-9", &pid]).status();
    }
}

/// Whether `file` grows over half a second.
fn grows(file: &std::path::Path) -> bool {
    let size = || std::fs::metadata(file).map_or(0, |m| m.len());
    let before = size();
    std::thread::sleep(Duration::from_millis(500));
    size() > before
}

/// Nothing a plugin starts outlives its worker: a loop in a process group of its own (which
/// `kill` of the worker's group misses) and one in a new session are gone when the run ends.
/// The loops write to a folder the engine may write (`sandbox-write`), so that only their end
/// stops them.
#[test]
fn nothing_a_plugin_starts_outlives_the_run() {
    for user in users() {
        let dir = user.dir("contained-daemon");
        let folder = dir.join("written");
        std::fs::create_dir_all(&folder).unwrap();
        user.open_to(&folder);
        let alive = folder.join("alive");
        let keys = format!(
            "{}\nsandbox-write = [{}]",
            sandbox("strict"),
            crate::support::toml_string(s(&folder))
        );
        let run = hostile_with(user, &dir, "daemon", s(&alive), &keys, |c| user.wrap(c));
        run.assert_every_game_played();
        let outlived = grows(&alive);
        kill_daemons(&alive);
        assert!(
            !outlived,
            "{user:?}: a daemon outlived the run:\n{}",
            run.log
        );

        let dir = user.dir("contained-daemon-off");
        let alive = dir.join("alive");
        let run = user.hostile(&dir, ("daemon", s(&alive), "off"), |_| {});
        let outlived = grows(&alive);
        kill_daemons(&alive);
        assert!(
            outlived,
            "{user:?}: no daemon outlived the run without the sandbox:\n{}",
            run.log
        );
    }
}

/// Nothing a plugin starts outlives a coordinator killed with SIGKILL: the plugin clears its
/// worker's parent-death signal and starts a loop in the worker's own process group, deaf to
/// SIGHUP and SIGTERM; its worker exits when the channel closes, and the worker's supervisor,
/// outside the plugin's reach, ends the group (or the namespace's init, and with it
/// everything in it). In every sandbox mode: the supervisor is there with the sandbox off too.
#[test]
fn nothing_a_plugin_starts_outlives_a_killed_coordinator() {
    for user in users() {
        let a = user.artifacts();
        for mode in ["strict", "off"] {
            let dir = user.dir(&format!("contained-outlive-{mode}"));
            let folder = dir.join("written");
            std::fs::create_dir_all(&folder).unwrap();
            user.open_to(&folder);
            let alive = folder.join("alive");
            let options = format!(
                "Fault = \"outlive-coordinator\", StrikeAt = 2, Target = {}",
                crate::support::toml_string(s(&alive))
            );
            let keys = format!(
                "{}\nsandbox-write = [{}]\n",
                sandbox(mode),
                crate::support::toml_string(s(&folder))
            );
            // Long enough to be killed in: the loop starts in the first game.
            let file = crate::support::TournamentFile::new("match", 200, "depth = 2")
                .engine(crate::support::engine("faulty", s(&a.faulty), &options) + &keys)
                .engine(crate::support::engine("greedy", s(&a.greedy), ""));
            let path = dir.write("t.toml", &file.text());
            let mut command = Command::new(&a.harness);
            command
                .args(["run", s(&path), "--no-tui"])
                .current_dir(dir.path())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null());
            user.wrap(&mut command);
            let mut harness = crate::support::Running(command.spawn().unwrap());
            let started = std::time::Instant::now();
            // The plugin's "started" line must be in the log before the kill: a sandboxed
            // worker's stderr is copied into the log by the coordinator, so a line still in
            // the pipe when the coordinator dies is lost with it.
            let log_path = dir.join("out/logs/faulty.stderr.log");
            let started_line = || {
                std::fs::read_to_string(&log_path)
                    .is_ok_and(|l| l.contains("started") && l.contains("in the worker's group"))
            };
            while daemon_pids(&alive).is_empty() || !started_line() {
                assert!(
                    harness.0.try_wait().unwrap().is_none(),
                    "{user:?} {mode}: the run ended before the loop started"
                );
                assert!(
                    started.elapsed() < Duration::from_secs(60),
                    "{user:?} {mode}: no loop started, or its line never reached the log"
                );
                std::thread::sleep(Duration::from_millis(10));
            }
            harness.0.kill().unwrap();
            harness.0.wait().unwrap();
            std::thread::sleep(Duration::from_secs(1));
            let outlived = grows(&alive);
            kill_daemons(&alive);
            let log = std::fs::read_to_string(&log_path).unwrap_or_default();
            assert!(
                !outlived,
                "{user:?} {mode}: the loop outlived the coordinator by more than a second:\n{log}"
            );
        }
    }
}

/// SIGXFSZ's number on Linux (x86, Arm, RISC-V).
const SIGXFSZ: i32 = 25;

/// A plugin can set no resource limit on the coordinator: with the sandbox off, a 1-byte file
/// size limit kills the coordinator at its next write (SIGXFSZ).
#[test]
fn the_coordinator_is_not_the_engines_to_limit() {
    for user in users() {
        let dir = user.dir("contained-prlimit-parent");
        user.hostile(&dir, ("prlimit-parent", "", "strict"), |_| {})
            .assert_every_game_played()
            .assert_log_says("prlimit-parent", &["cannot limit", "not permitted"]);

        let dir = user.dir("contained-prlimit-parent-off");
        let run = user.hostile(&dir, ("prlimit-parent", "", "off"), |_| {});
        assert_eq!(
            run.output.status.signal(),
            Some(SIGXFSZ),
            "{user:?}: {}",
            run.output
        );
    }
}

/// A plugin can neither limit nor deprioritise the opponent's worker (the sandbox off: it
/// could, and says so for each of the coordinator's other workers it found).
#[test]
fn the_opponent_is_not_the_engines_to_limit() {
    for user in users() {
        let dir = user.dir("contained-limit-opponent");
        let run = user.hostile(&dir, ("limit-opponent", "", "strict"), |_| {});
        run.assert_every_game_played();
        // In a PID namespace of its own the opponent is not there to find; without one, it is
        // found and every attempt refused.
        if namespaces_made(&run).contains(&"pid".to_string()) {
            run.assert_log_says("limit-opponent", &["found no other worker"]);
        } else {
            run.assert_log_says("limit-opponent", &["cannot limit", "CPU", "not permitted"])
                .assert_log_says("limit-opponent", &["cannot renice", "not permitted"]);
        }

        let dir = user.dir("contained-limit-opponent-off");
        user.hostile(&dir, ("limit-opponent", "", "off"), |_| {})
            .assert_log_says("limit-opponent", &["to 1 s of CPU"])
            .assert_log_says("limit-opponent", &["reniced", "to 19"]);
    }
}

/// The coordinator's secrets stay out of reach: a variable of its environment is not in the
/// worker's (unless `sandbox-env` names it), and the coordinator's `/proc/PID/environ` cannot
/// be read.
#[test]
fn no_secret_of_the_environment_reaches_the_engine() {
    const NAME: &str = "HARNESS_TEST_SECRET";
    let with_secret = |c: &mut Command| {
        c.env(NAME, "s3cr3t");
    };
    for user in users() {
        let dir = user.dir("contained-environ");
        let run = user.hostile(&dir, ("environ", NAME, "strict"), with_secret);
        run.assert_every_game_played()
            .assert_log_says("environ", &["no HARNESS_TEST_SECRET here"])
            .assert_log_says("environ", &["cannot read the coordinator's environment"]);
        assert!(!run.log.contains("s3cr3t"), "{user:?}: {}", run.log);

        let dir = user.dir("contained-environ-env");
        let keys = format!("{}\nsandbox-env = [\"{NAME}\"]", sandbox("strict"));
        hostile_with(user, &dir, "environ", NAME, &keys, |c| {
            with_secret(c);
            user.wrap(c);
        })
        .assert_every_game_played()
        .assert_log_says("environ", &["has HARNESS_TEST_SECRET=s3cr3t"]);

        let dir = user.dir("contained-environ-off");
        user.hostile(&dir, ("environ", NAME, "off"), with_secret)
            .assert_log_says("environ", &["has HARNESS_TEST_SECRET=s3cr3t"]);
    }
}

/// The worker holds no capability: no hostname, no `reboot`, no device node (each tried
/// harmlessly). With the sandbox off, root's powers are there (an ordinary user has none to
/// begin with, and its off twin is not run).
#[test]
fn a_worker_started_by_root_is_not_root_inside() {
    for user in users() {
        let dir = user.dir("contained-root-powers");
        user.hostile(&dir, ("root-powers", "", "strict"), |_| {})
            .assert_every_game_played()
            .assert_log_says("root-powers", &["sethostname: Operation not permitted"])
            .assert_log_says("root-powers", &["reboot: Operation not permitted"])
            .assert_log_says("root-powers", &["mknod: Operation not permitted"])
            .assert_log_says("root-powers", &["CapEff 0000000000000000"]);
        if user == User::Nobody || !is_root() {
            continue;
        }
        let dir = user.dir("contained-root-powers-off");
        user.hostile(&dir, ("root-powers", "", "off"), |_| {})
            .assert_log_says("root-powers", &["sethostname: set"])
            .assert_log_says("root-powers", &["reboot: Invalid argument"])
            .assert_log_says("root-powers", &["mknod: made a device node"]);
    }
}

/// A descriptor the coordinator inherited (a `5>>file` in the shell that started it) is not
/// open in the worker, whatever the sandbox setting: the worker closes it before anything runs.
#[test]
fn a_descriptor_the_coordinator_inherited_is_not_the_engines() {
    for user in users() {
        for mode in ["strict", "off"] {
            let dir = user.dir(&format!("contained-inherited-fd-{mode}"));
            let file = dir.join("inherited");
            std::fs::write(&file, "").unwrap();
            let run = user.hostile(&dir, ("inherited-fd", s(&file), mode), |_| {});
            // Run again under a shell that opened descriptor 5 on `file` (as the test's own
            // user) and then became the harness (as `user`).
            let dir = user.dir(&format!("contained-inherited-fd-{mode}-shell"));
            let run_under_shell =
                hostile_with(user, &dir, "inherited-fd", s(&file), &sandbox(mode), |c| {
                    user.wrap(c);
                    let program = c.get_program().to_owned();
                    let args: Vec<_> = c.get_args().map(|a| a.to_owned()).collect();
                    let mut shell = Command::new("/bin/sh");
                    shell
                        .arg("-c")
                        .arg("exec 5>>\"$0\"; exec \"$@\"")
                        .arg(&file)
                        .arg(program)
                        .args(args)
                        .current_dir(dir.path());
                    *c = shell;
                });
            for run in [run, run_under_shell] {
                run.assert_every_game_played()
                    .assert_log_says("inherited-fd", &["no descriptor of", "is open"]);
            }
            assert_eq!(
                std::fs::read_to_string(&file).unwrap(),
                "",
                "{user:?} {mode}"
            );
        }
    }
}

/// System V shared memory, which outlives every process, cannot be made (the sandbox off, the
/// segment is made, then removed by the test).
#[test]
fn no_shared_memory_outlives_the_run() {
    for user in users() {
        let dir = user.dir("contained-shm");
        user.hostile(&dir, ("shm", "", "strict"), |_| {})
            .assert_every_game_played()
            .assert_log_says("shm", &["cannot make a segment", "not permitted"]);

        let dir = user.dir("contained-shm-off");
        let run = user.hostile(&dir, ("shm", "", "off"), |_| {});
        run.assert_log_says("shm", &["made segment"]);
        for id in run
            .log
            .lines()
            .filter_map(|l| l.strip_prefix("faulty: shm: made segment "))
        {
            let _ = Command::new("ipcrm").args(["-m", id.trim()]).status();
        }
    }
}

/// Text from a plugin is data: a 16 MiB error message costs the engine its game (a message
/// longer than the coordinator reads) and leaves every output small; escape sequences, line
/// breaks and HTML in an error reach no terminal, journal or Markdown report as such, and a
/// right-to-left override no output at all.
#[test]
fn what_a_plugin_says_is_bounded_and_printable() {
    const MIB: usize = 1 << 20;
    for user in users() {
        let dir = user.dir("contained-huge-error");
        let run = user.hostile(&dir, ("huge-error", "", "strict"), |_| {});
        run.output.assert_success();
        assert!(
            run.output.stdout.len() < MIB,
            "{} bytes",
            run.output.stdout.len()
        );
        assert!(
            run.output.stderr.len() < MIB,
            "{} bytes",
            run.output.stderr.len()
        );
        for entry in std::fs::read_dir(&run.out).unwrap().flatten() {
            let size = entry.metadata().unwrap().len() as usize;
            assert!(size < MIB, "{}: {size} bytes", entry.path().display());
        }
        let lost: Vec<_> = run
            .games()
            .into_iter()
            .filter(|g| g.termination.is_forfeit())
            .collect();
        assert_eq!(lost.len(), 2, "{}", run.output);
        for g in &lost {
            assert!(
                g.reason.contains("a message longer than 1 MiB"),
                "{}",
                g.reason
            );
        }

        let dir = user.dir("contained-escape-text");
        let run = user.hostile(&dir, ("escape-text", "", "strict"), |_| {});
        run.output.assert_success();
        let read = |name: &str| std::fs::read_to_string(run.out.join(name)).unwrap();
        let report = read("report.md");
        let journal = read("games.jsonl");
        for (what, text) in [
            ("stdout", &run.output.stdout),
            ("stderr", &run.output.stderr),
            ("report.md", &report),
        ] {
            assert!(
                !text.contains('\u{1b}') && !text.contains('\r'),
                "{what}:\n{text}"
            );
        }
        assert!(!report.contains("<script>"), "{report}");
        assert!(report.contains("&lt;script&gt;"), "{report}");
        assert!(!journal.contains("\\r\\nforged"), "{journal}");
        assert!(journal.contains("forged line"), "{journal}");
        // The right-to-left override reaches no output as itself, only as its escape.
        assert!(journal.contains("u{202e}exe.txt"), "{journal}");
        for (what, text) in [
            ("stdout", run.output.stdout.clone()),
            ("stderr", run.output.stderr.clone()),
            ("games.jsonl", journal),
            ("report.md", report),
            ("report.html", read("report.html")),
            ("report.json", read("report.json")),
        ] {
            assert!(!text.contains('\u{202e}'), "{what}:\n{text}");
        }
    }
}

/// An engine's log is what the coordinator copies of its worker's stderr, at most its
/// `log-limit` per worker: a plugin whose panic writes 16 MiB to stderr in every game leaves a
/// log of at most a MiB for each worker that hit the limit, which the log says. With the
/// sandbox off the worker writes the log itself, all of it.
#[test]
fn an_engines_log_is_held_to_its_log_limit() {
    const MIB: u64 = 1 << 20;
    for user in users() {
        let dir = user.dir("contained-log-limit");
        let keys = format!("{}\nlog-limit = \"1MiB\"", sandbox("strict"));
        let run = hostile_with(user, &dir, "huge-error", "", &keys, |c| user.wrap(c));
        run.output.assert_success();
        let log = run.out.join("logs/faulty.stderr.log");
        let size = std::fs::metadata(&log).unwrap().len();
        let cut = run
            .log
            .matches("reached its log-limit of 1048576 bytes")
            .count() as u64;
        assert!(cut >= 1, "{user:?}: no worker's log was cut ({size} bytes)");
        assert!(
            size <= (cut + 1) * (MIB + 4096),
            "{user:?}: {size} bytes in the log of {cut} cut workers"
        );

        let dir = user.dir("contained-log-limit-off");
        let run = user.hostile(&dir, ("huge-error", "", "off"), |_| {});
        let size = std::fs::metadata(run.out.join("logs/faulty.stderr.log"))
            .unwrap()
            .len();
        assert!(
            size > 16 * MIB,
            "{user:?}: {size} bytes without the sandbox"
        );
    }
}

/// A run whose output folder's file system has less room than its engines' logs at their
/// `log-limit` and the journal need is refused before its first game, with what it needs
/// (a 40 MiB `tmpfs`, mounted by the test as root: two engines at 16 MiB and 16 MiB for the
/// journal do not fit); with `log-limit = "1MiB"` it plays. A tune into it is refused too.
#[test]
fn a_run_without_room_for_its_logs_is_refused() {
    if !is_root() {
        return crate::support::skip(
            "a_run_without_room_for_its_logs_is_refused",
            "mounting a small file system needs root",
        );
    }
    let dir = TempDir::new("contained-free-space");
    let small = dir.join("small");
    std::fs::create_dir_all(&small).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=40m", "tmpfs", s(&small)])
        .status()
        .unwrap();
    assert!(
        mounted.success(),
        "cannot mount a tmpfs on {}",
        small.display()
    );
    let a = crate::support::artifacts();
    let out = small.join("out");
    let play = |extra: &str| {
        let file = crate::support::TournamentFile::new("match", 1, "depth = 2")
            .out(Some(s(&out)))
            .engine(crate::support::engine("greedy", s(&a.greedy), "") + extra)
            .engine(crate::support::engine("minimax", s(&a.minimax), "") + extra);
        let path = dir.write("t.toml", &file.text());
        crate::support::harness(dir.path(), &["run", s(&path), "--no-tui"])
    };
    let refused = play("");
    let allowed = play("log-limit = \"1MiB\"\n");
    // A tune is refused the same way (its match has three engines: θ+, θ− and the opponent).
    let tune = format!(
        "[tournament]\nformat = \"match\"\nconcurrency = 1\nout = {}\n\n[time]\ndepth = 1\n\n[openings]\nbuiltin = \"xot-small\"\n\n\
         [[engine]]\nname = \"mm\"\nplugin = {}\n\n[[engine]]\nname = \"greedy\"\nplugin = {}\n\n\
         [tune]\nengine = \"mm\"\nopponent = \"greedy\"\niterations = 1\n\n\
         [tune.params]\nDepth = {{ start = 2, min = 1, max = 3, c-end = 1.0, r-end = 0.1 }}\n",
        crate::support::toml_string(s(&small.join("tune"))),
        crate::support::toml_string(s(&a.minimax)),
        crate::support::toml_string(s(&a.greedy)),
    );
    let tune_path = dir.write("tune.toml", &tune);
    let tune_refused = crate::support::harness(dir.path(), &["tune", s(&tune_path), "--no-tui"]);
    let _ = Command::new("umount").arg(s(&small)).status();
    assert_eq!(refused.status.code(), Some(2), "{refused}");
    refused.assert_stderr_has(&["MiB free", "needs 48 MiB", "log-limit"]);
    allowed.assert_success();
    assert_eq!(tune_refused.status.code(), Some(2), "{tune_refused}");
    tune_refused.assert_stderr_has(&["MiB free", "a run needs", "log-limit"]);
}

/// The namespaces the supervisor made for faulty's worker, from `tournament.json`.
fn namespaces_made(run: &Hostile) -> Vec<String> {
    let text = std::fs::read_to_string(run.out.join("tournament.json")).unwrap_or_default();
    let record: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    record["sandbox_enforced"]["faulty"]["namespaces"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| n.as_str().map(str::to_string))
        .collect()
}

/// A plugin cannot fill the disk past its `disk-limit`: where its scratch folder is a `tmpfs`
/// of that size (namespaces made), the write past it is refused and the engine plays on; where
/// it is a folder on disk, it loses the game it does it in (the coordinator looks while it
/// searches). Either way the run goes on, every game is recorded, and the folder is gone at
/// the end. With the sandbox off there is no scratch folder and no quota: it writes all it
/// wants.
#[test]
fn a_plugin_that_fills_the_disk_loses_its_games_and_the_run_goes_on() {
    for user in users() {
        let dir = user.dir("contained-fill-disk");
        let temp = dir.join("tmp");
        std::fs::create_dir_all(&temp).unwrap();
        user.open_to(&temp);
        let keys = format!("{}\ndisk-limit = \"16MiB\"", sandbox("strict"));
        let run = hostile_with(user, &dir, "fill-disk", "64", &keys, |c| {
            c.env("TMPDIR", &temp);
            user.wrap(c);
        });
        run.output.assert_success();
        let games = run.games();
        assert_eq!(games.len(), 2, "{}", run.output);
        if namespaces_made(&run).contains(&"tmpfs".to_string()) {
            run.assert_every_game_played()
                .assert_log_says("fill-disk", &["then: No space left on device"]);
            let most = run.log.lines().filter_map(|l| {
                let rest = l.strip_prefix("faulty: fill-disk: wrote ")?;
                rest.split(' ').next()?.parse::<u64>().ok()
            });
            assert!(most.into_iter().all(|mib| mib <= 16), "{}", run.log);
        } else {
            for g in &games {
                assert_eq!(
                    g.termination,
                    harness_core::record::Termination::Crash,
                    "{}",
                    run.output
                );
                assert!(g.reason.contains("disk limit of 16 MiB"), "{}", g.reason);
            }
        }
        let left: Vec<_> = std::fs::read_dir(&temp).unwrap().flatten().collect();
        assert!(left.is_empty(), "left in the temporary folder: {left:?}");

        let dir = user.dir("contained-fill-disk-off");
        user.hostile(&dir, ("fill-disk", "32", "off"), |_| {})
            .assert_every_game_played()
            .assert_log_says("fill-disk", &["wrote 32 MiB, all of it"]);
    }
}

/// `memory-limit` binds the worker and everything it starts together where a memory cgroup
/// can be made (root here): 4 children holding 80 MiB each at once do not fit in 256 MiB. With
/// the sandbox off, each process has the limit to itself (`RLIMIT_AS`) and all 4 hold theirs.
/// An ordinary user has no memory cgroup: the record says so (`missing`), and docs/guide/sandbox.md.
#[test]
fn memory_limit_counts_what_the_engine_starts() {
    if !is_root() {
        return crate::support::skip(
            "memory_limit_counts_what_the_engine_starts",
            "not root: no memory cgroup to bind the worker's processes together",
        );
    }
    let keys = |mode: &str| format!("{}\nmemory-limit = \"256MiB\"", sandbox(mode));
    let held = |run: &Hostile| -> usize {
        let line = run
            .log
            .lines()
            .find_map(|l| l.strip_prefix("faulty: allocate-children: "))
            .unwrap_or_else(|| panic!("no allocate-children line:\n{}\n{}", run.log, run.output));
        line.split(' ').next().unwrap().parse().unwrap()
    };
    let dir = User::Invoker.dir("contained-allocate-children");
    let run = hostile_with(
        User::Invoker,
        &dir,
        "allocate-children",
        "",
        &keys("strict"),
        |_| {},
    );
    assert!(held(&run) < 4, "{}", run.log);

    let dir = User::Invoker.dir("contained-allocate-children-off");
    let run = hostile_with(
        User::Invoker,
        &dir,
        "allocate-children",
        "",
        &keys("off"),
        |_| {},
    );
    assert_eq!(held(&run), 4, "{}", run.log);
}

/// The most resident memory (`VmHWM`, KiB) seen of the processes whose command line holds
/// `marker`, sampled every 20 ms until `done` is set.
fn peak_memory_kib(marker: String, done: std::sync::Arc<std::sync::atomic::AtomicBool>) -> u64 {
    let mut peak = 0;
    while !done.load(std::sync::atomic::Ordering::Relaxed) {
        for p in crate::support::processes_with(&marker) {
            let status = std::fs::read_to_string(format!("/proc/{}/status", p.pid));
            let hwm = status.ok().and_then(|s| {
                let line = s.lines().find(|l| l.starts_with("VmHWM:"))?.to_string();
                line.split_whitespace().nth(1)?.parse::<u64>().ok()
            });
            peak = peak.max(hwm.unwrap_or(0));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    peak
}

/// A plugin that writes 256 MiB of live reports straight to its channel (past the worker's
/// own rate limit) while the coordinator waits for the other engine (which sleeps 5 s in its
/// second search of each game) does not grow the coordinator: it reads one message of at most
/// 1 MiB at a time into a bounded queue and takes one report per 10 ms. The run ends with every
/// game recorded.
#[test]
fn a_flood_on_the_channel_does_not_grow_the_coordinator() {
    use crate::support::{engine, toml_string, TournamentFile};
    for user in users() {
        let a = user.artifacts();
        let dir = user.dir("contained-channel-flood");
        // Both strike in their second search of each game: a flood in the first one (the
        // pre-flight's, then every game's) leaves the flooder no move of its own, a run that
        // measured nothing (exit 2).
        let flooder = engine(
            "flooder",
            s(&a.faulty),
            "Fault = \"channel-flood\", StrikeAt = 2",
        );
        let sleeper = engine("sleeper", s(&a.faulty), "Fault = \"sleep\", StrikeAt = 2");
        let file = TournamentFile::new("match", 1, "depth = 2")
            .engine(flooder)
            .engine(sleeper);
        let path = dir.write("t.toml", &file.text());
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let marker = format!("run {}", toml_string(s(&path)).trim_matches('"'));
        let watch = {
            let done = done.clone();
            std::thread::spawn(move || peak_memory_kib(marker, done))
        };
        let mut command = Command::new(&a.harness);
        command
            .args(["run", s(&path), "--no-tui"])
            .current_dir(dir.path());
        user.wrap(&mut command);
        let output = crate::support::run_with_timeout(command, crate::support::HARNESS_TIMEOUT);
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        let peak_mib = watch.join().unwrap() >> 10;
        output.assert_success();
        assert_eq!(
            crate::support::read_games(&dir.join("out")).len(),
            2,
            "{output}"
        );
        assert!(peak_mib > 0, "{user:?}: the coordinator was not seen");
        assert!(
            peak_mib < 100,
            "{user:?}: the coordinator grew to {peak_mib} MiB"
        );
    }
}
