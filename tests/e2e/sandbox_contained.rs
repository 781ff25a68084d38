//! The sandbox against a red team's hostile plugins: each fault of `faulty` below plays a
//! one-pair match against greedy (striking in its second search) under the default sandbox,
//! where the harm must not happen and every game is played, and under `sandbox = "off"`,
//! where the harm (or, where it would damage the machine, the permission it needs, probed
//! harmlessly) must show, so that each test can fail. Where the cause is gone for every mode
//! (a coordinator socket to connect to, descriptors the coordinator inherited), both modes
//! must show no harm.

use crate::sandbox::{hostile, hostile_with};
use crate::support::{is_root, s, TempDir};
use std::os::unix::process::ExitStatusExt;
use std::time::Duration;

/// The table line of a sandbox mode.
fn sandbox(mode: &str) -> String {
    format!("sandbox = \"{mode}\"")
}

/// No coordinator socket exists to speak on: `impersonate` watches the coordinator's
/// temporary folder while both engines' workers start (and every later one) and finds none,
/// and every game is played by its own engine.
#[test]
fn no_plugin_can_speak_for_another_engines_worker() {
    for mode in ["strict", "off"] {
        let dir = TempDir::new(&format!("contained-impersonate-{mode}"));
        let temp = dir.join("tmp");
        std::fs::create_dir_all(&temp).unwrap();
        let run = hostile_with(&dir, "impersonate", s(&temp), &sandbox(mode), |c| {
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

/// A Unix socket at a path (a team ledger's PostgreSQL, any program's control socket) is out
/// of the sandbox's reach: no socket can be made to connect with.
#[test]
fn no_unix_socket_is_reached_from_the_sandbox() {
    let dir = TempDir::new("contained-connect-unix");
    let path = dir.join("listener.sock");
    let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
    listener.set_nonblocking(true).unwrap();
    hostile(&dir, "connect-unix", s(&path), "strict")
        .assert_every_game_played()
        .assert_log_says("connect-unix", &["cannot connect", "not permitted"]);
    assert!(listener.accept().is_err(), "the engine connected");

    let dir = TempDir::new("contained-connect-unix-off");
    hostile(&dir, "connect-unix", s(&path), "off").assert_log_says("connect-unix", &["connected"]);
    assert!(
        listener.accept().is_ok(),
        "no connection without the sandbox"
    );
}

/// The process ids `daemon`'s loops appended to `file`.
fn daemon_pids(file: &std::path::Path) -> Vec<i32> {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let mut pids: Vec<i32> = text.lines().filter_map(|l| l.trim().parse().ok()).collect();
    pids.sort_unstable();
    pids.dedup();
    pids
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
#[test]
fn nothing_a_plugin_starts_outlives_the_run() {
    let dir = TempDir::new("contained-daemon");
    let alive = dir.join("alive");
    hostile(&dir, "daemon", s(&alive), "strict").assert_every_game_played();
    assert!(
        !grows(&alive),
        "a daemon outlived the run: {:?}",
        daemon_pids(&alive)
    );

    let dir = TempDir::new("contained-daemon-off");
    let alive = dir.join("alive");
    let run = hostile(&dir, "daemon", s(&alive), "off");
    let outlived = grows(&alive);
    for pid in daemon_pids(&alive) {
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status();
    }
    assert!(
        outlived,
        "no daemon outlived the run without the sandbox:\n{}",
        run.log
    );
}

/// A plugin can set no resource limit on the coordinator: with the sandbox off, a 1-byte file
/// size limit kills the coordinator at its next write (SIGXFSZ).
#[test]
fn the_coordinator_is_not_the_engines_to_limit() {
    let dir = TempDir::new("contained-prlimit-parent");
    hostile(&dir, "prlimit-parent", "", "strict")
        .assert_every_game_played()
        .assert_log_says("prlimit-parent", &["cannot limit", "not permitted"]);

    let dir = TempDir::new("contained-prlimit-parent-off");
    let run = hostile(&dir, "prlimit-parent", "", "off");
    assert_eq!(
        run.output.status.signal(),
        Some(libc_sigxfsz()),
        "{}",
        run.output
    );
}

/// SIGXFSZ's number (25 on every Linux architecture but a few MIPS and SPARC ones).
fn libc_sigxfsz() -> i32 {
    25
}

/// A plugin can neither limit nor deprioritise the opponent's worker (the sandbox off: it
/// could, and says so for each of the coordinator's other workers it found).
#[test]
fn the_opponent_is_not_the_engines_to_limit() {
    let dir = TempDir::new("contained-limit-opponent");
    hostile(&dir, "limit-opponent", "", "strict")
        .assert_every_game_played()
        .assert_log_says("limit-opponent", &["cannot limit", "not permitted"]);

    let dir = TempDir::new("contained-limit-opponent-off");
    hostile(&dir, "limit-opponent", "", "off")
        .assert_log_says("limit-opponent", &["to 1 s of CPU at nice 19"]);
}

/// The coordinator's secrets stay out of reach: a variable of its environment is not in the
/// worker's (unless `sandbox-env` names it), and the coordinator's `/proc/PID/environ` cannot
/// be read.
#[test]
fn no_secret_of_the_environment_reaches_the_engine() {
    const NAME: &str = "HARNESS_TEST_SECRET";
    let with_secret = |c: &mut std::process::Command| {
        c.env(NAME, "s3cr3t");
    };
    let dir = TempDir::new("contained-environ");
    let run = hostile_with(&dir, "environ", NAME, &sandbox("strict"), with_secret);
    run.assert_every_game_played()
        .assert_log_says("environ", &["no HARNESS_TEST_SECRET here"])
        .assert_log_says("environ", &["cannot read the coordinator's environment"]);
    assert!(!run.log.contains("s3cr3t"), "{}", run.log);

    let dir = TempDir::new("contained-environ-off");
    hostile_with(&dir, "environ", NAME, &sandbox("off"), with_secret)
        .assert_log_says("environ", &["has HARNESS_TEST_SECRET=s3cr3t"]);
}

/// As root, the worker holds no capability: no hostname, no `reboot`, no device node (each
/// tried harmlessly). The sandbox off, root's powers are there; an ordinary user has none to
/// begin with, and the off twin is not run.
#[test]
fn a_worker_started_by_root_is_not_root_inside() {
    let dir = TempDir::new("contained-root-powers");
    hostile(&dir, "root-powers", "", "strict")
        .assert_every_game_played()
        .assert_log_says("root-powers", &["sethostname: Operation not permitted"])
        .assert_log_says("root-powers", &["reboot: Operation not permitted"])
        .assert_log_says("root-powers", &["mknod: Operation not permitted"])
        .assert_log_says("root-powers", &["CapEff 0000000000000000"]);
    if !is_root() {
        return;
    }
    let dir = TempDir::new("contained-root-powers-off");
    hostile(&dir, "root-powers", "", "off")
        .assert_log_says("root-powers", &["sethostname: set"])
        .assert_log_says("root-powers", &["reboot: Invalid argument"])
        .assert_log_says("root-powers", &["mknod: made a device node"]);
}

/// A descriptor the coordinator inherited (a `5>>file` in the shell that started it) is not
/// open in the worker, whatever the sandbox setting: the worker closes it before anything runs.
#[test]
fn a_descriptor_the_coordinator_inherited_is_not_the_engines() {
    for mode in ["strict", "off"] {
        let dir = TempDir::new(&format!("contained-inherited-fd-{mode}"));
        let file = dir.join("inherited");
        std::fs::write(&file, "").unwrap();
        let run = hostile_with(&dir, "inherited-fd", s(&file), &sandbox(mode), |c| {
            // The harness under a shell that opened descriptor 5 on `file`.
            let program = c.get_program().to_owned();
            let args: Vec<_> = c.get_args().map(|a| a.to_owned()).collect();
            let mut shell = std::process::Command::new("/bin/sh");
            shell
                .arg("-c")
                .arg("exec 5>>\"$0\"; exec \"$@\"")
                .arg(&file)
                .arg(program)
                .args(args)
                .current_dir(dir.path());
            *c = shell;
        });
        run.assert_every_game_played()
            .assert_log_says("inherited-fd", &["no descriptor of", "is open"]);
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "", "{mode}");
    }
}

/// System V shared memory, which outlives every process, cannot be made (the sandbox off, the
/// segment is made, then removed by the test).
#[test]
fn no_shared_memory_outlives_the_run() {
    let dir = TempDir::new("contained-shm");
    hostile(&dir, "shm", "", "strict")
        .assert_every_game_played()
        .assert_log_says("shm", &["cannot make a segment", "not permitted"]);

    let dir = TempDir::new("contained-shm-off");
    let run = hostile(&dir, "shm", "", "off");
    run.assert_log_says("shm", &["made segment"]);
    let id = run
        .log
        .lines()
        .find_map(|l| l.strip_prefix("faulty: shm: made segment "))
        .unwrap()
        .trim()
        .to_string();
    let _ = std::process::Command::new("ipcrm")
        .args(["-m", &id])
        .status();
}

/// Text from a plugin is data: a 16 MiB error message costs the engine its game (a message
/// longer than the coordinator reads) and leaves every output small; escape sequences, line
/// breaks and HTML in an error reach no terminal, journal or Markdown report as such.
#[test]
fn what_a_plugin_says_is_bounded_and_printable() {
    const MIB: u64 = 1 << 20;
    let dir = TempDir::new("contained-huge-error");
    let run = hostile(&dir, "huge-error", "", "strict");
    run.output.assert_success();
    assert!(
        run.output.stdout.len() < MIB as usize,
        "{} bytes",
        run.output.stdout.len()
    );
    assert!(
        run.output.stderr.len() < MIB as usize,
        "{} bytes",
        run.output.stderr.len()
    );
    for entry in std::fs::read_dir(&run.out).unwrap().flatten() {
        let size = entry.metadata().unwrap().len();
        assert!(size < MIB, "{}: {size} bytes", entry.path().display());
    }
    let lost: Vec<_> = run
        .games()
        .into_iter()
        .filter(|g| g.termination.is_forfeit())
        .collect();
    assert_eq!(lost.len(), 2, "{}", run.output);

    let dir = TempDir::new("contained-escape-text");
    let run = hostile(&dir, "escape-text", "", "strict");
    run.output.assert_success();
    let report = std::fs::read_to_string(run.out.join("report.md")).unwrap();
    let journal = std::fs::read_to_string(run.out.join("games.jsonl")).unwrap();
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
}

/// A plugin that fills its scratch folder past its `disk-limit` loses the game it does it in
/// (the coordinator looks while it searches), the run goes on, every game is recorded, and the
/// folder is gone at the end. With the sandbox off there is no scratch folder and no quota: it
/// writes all it wants.
#[test]
fn a_plugin_that_fills_the_disk_loses_its_games_and_the_run_goes_on() {
    let dir = TempDir::new("contained-fill-disk");
    let temp = dir.join("tmp");
    std::fs::create_dir_all(&temp).unwrap();
    let keys = format!("{}\ndisk-limit = \"16MiB\"", sandbox("strict"));
    let run = hostile_with(&dir, "fill-disk", "64", &keys, |c| {
        c.env("TMPDIR", &temp);
    });
    run.output.assert_success();
    let games = run.games();
    assert_eq!(games.len(), 2, "{}", run.output);
    for g in &games {
        assert_eq!(
            g.termination,
            harness::record::Termination::Crash,
            "{}",
            run.output
        );
        assert!(g.reason.contains("disk limit of 16 MiB"), "{}", g.reason);
    }
    let left: Vec<_> = std::fs::read_dir(&temp).unwrap().flatten().collect();
    assert!(left.is_empty(), "left in the temporary folder: {left:?}");

    let dir = TempDir::new("contained-fill-disk-off");
    let run = hostile_with(&dir, "fill-disk", "32", &sandbox("off"), |_| {});
    run.assert_every_game_played()
        .assert_log_says("fill-disk", &["wrote 32 MiB, all of it"]);
}
