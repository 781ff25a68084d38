//! The sandbox of engine workers, against the hostile faults of the `faulty` fixture: each
//! runs in a one-pair match against greedy (faulty strikes in its second search of every
//! game) under `sandbox = "strict"`, where the harm must not happen (the journal, the output
//! folder and the secret intact and unread, no TCP connection, the coordinator alive, every
//! game played, the engine's log naming what was refused), and under `sandbox = "off"`, where
//! it must (so that each test can fail). A control run with `Fault = none` under `strict`
//! plays normally, so the sandbox does not pass by breaking plugins. The faults run as the
//! test's own user and, where that is root, as `nobody` too (`support::user`).

use crate::support::user::{users, User};
use crate::support::{
    artifacts, check_normal_record, engine, harness, read_games, s, Output, TempDir, TournamentFile,
};
use harness_core::record::GameRecord;
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};

/// The games of one pair: each engine plays Black once.
const GAMES: usize = 2;
/// What the secret file holds (its first 8 bytes are what `read-secret` would report).
const SECRET: &[u8] = b"SECRET-KEY-0123456789";

/// A finished run of a hostile fault.
pub struct Hostile {
    pub output: Output,
    pub out: PathBuf,
    /// The faulty engine's log (empty when the output folder is gone).
    pub log: String,
}

impl Hostile {
    /// The journal's games (which must all parse).
    pub fn games(&self) -> Vec<GameRecord> {
        read_games(&self.out)
    }

    /// The run finished with status 0 and every game played normally (the faults answer
    /// their normal move once refused).
    pub fn assert_every_game_played(&self) -> &Hostile {
        self.output.assert_success();
        let games = self.games();
        assert_eq!(games.len(), GAMES, "{}", self.output);
        for g in &games {
            check_normal_record(g);
        }
        self
    }

    /// The faulty engine's log has a line of `fault` holding each fragment.
    pub fn assert_log_says(&self, fault: &str, fragments: &[&str]) -> &Hostile {
        let prefix = format!("faulty: {fault}: ");
        let said = self
            .log
            .lines()
            .any(|l| l.starts_with(&prefix) && fragments.iter().all(|f| l.contains(f)));
        assert!(
            said,
            "no `{prefix}` line with {fragments:?} in the log:\n{}\n{}",
            self.log, self.output
        );
        self
    }
}

/// Play faulty (`Fault = fault`, `Target = target`, `sandbox = mode`) against greedy in
/// `dir`, output in `dir/out`.
pub fn hostile(dir: &TempDir, fault: &str, target: &str, mode: &str) -> Hostile {
    hostile_as(User::Invoker, dir, fault, target, mode)
}

/// [`hostile`] as `user`.
fn hostile_as(user: User, dir: &TempDir, fault: &str, target: &str, mode: &str) -> Hostile {
    hostile_with(
        user,
        dir,
        fault,
        target,
        &format!("sandbox = \"{mode}\""),
        |c| user.wrap(c),
    )
}

/// [`hostile`], with `user`'s binaries ([`User::artifacts`]: `nobody`'s staged copies), the
/// lines `keys` in faulty's table (its `sandbox` among them) and the harness's command set up
/// by `configure` (its environment, the program it runs under: `user`'s wrap is its to apply).
pub fn hostile_with(
    user: User,
    dir: &TempDir,
    fault: &str,
    target: &str,
    keys: &str,
    configure: impl FnOnce(&mut std::process::Command),
) -> Hostile {
    let a = user.artifacts();
    let options = format!(
        "Fault = \"{fault}\", StrikeAt = 2, Target = {}",
        crate::support::toml_string(target)
    );
    let faulty = engine("faulty", s(&a.faulty), &options) + keys + "\n";
    let file = TournamentFile::new("match", 1, "depth = 2")
        .engine(faulty)
        .engine(engine("greedy", s(&a.greedy), ""));
    let path = dir.write("t.toml", &file.text());
    let mut command = std::process::Command::new(&a.harness);
    command
        .args(["run", s(&path), "--no-tui"])
        .current_dir(dir.path());
    configure(&mut command);
    let output = crate::support::run_with_timeout(command, crate::support::HARNESS_TIMEOUT);
    let out = dir.join("out");
    let log = std::fs::read_to_string(out.join("logs/faulty.stderr.log")).unwrap_or_default();
    Hostile { output, out, log }
}

/// A file only its owner may read, holding [`SECRET`].
fn secret_file(dir: &TempDir) -> PathBuf {
    let path = dir.join("secret-key");
    std::fs::write(&path, SECRET).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    path
}

/// The node count `read-secret` reports when it read the secret.
fn secret_as_nodes() -> u64 {
    u64::from_le_bytes(SECRET[..8].try_into().unwrap())
}

fn nodes_reported(games: &[GameRecord]) -> Vec<u64> {
    games
        .iter()
        .flat_map(|g| g.moves.iter().filter_map(|m| m.nodes))
        .collect()
}

#[test]
fn a_plugin_that_plays_normally_plays_every_game_under_the_sandbox() {
    let dir = TempDir::new("sandbox-control");
    let run = hostile(&dir, "none", "", "strict");
    run.assert_every_game_played();
    let pinned: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.out.join("tournament.json")).unwrap())
            .unwrap();
    assert_eq!(
        pinned["engines"][0]["sandbox"]["mode"], "strict",
        "{pinned}"
    );
    let enforced = &pinned["sandbox_enforced"]["faulty"];
    let abi = enforced["landlock_abi"].as_u64();
    match crate::support::kernel_landlock_abi() {
        // The worker's ABI is the kernel's, or the highest the harness knows below it.
        Some(kernel) => assert!(
            abi.is_some_and(|abi| (1..=kernel).contains(&abi)),
            "the kernel offers Landlock ABI {kernel}: {pinned}"
        ),
        None => {
            assert_eq!(abi, Some(0), "{pinned}");
            crate::support::skip(
                "a_plugin_that_plays_normally_plays_every_game_under_the_sandbox",
                "this kernel has no Landlock: the file rules are not tried",
            );
        }
    }
    // Where the kernel enforces it all, `required` plays as `strict` does.
    if enforced["landlock_full"] == true && enforced["seccomp"] == true {
        let dir = TempDir::new("sandbox-control-required");
        hostile(&dir, "none", "", "required").assert_every_game_played();
    } else {
        crate::support::skip(
            "`required` in a_plugin_that_plays_normally_plays_every_game_under_the_sandbox",
            "this kernel does not enforce the whole sandbox (Landlock's every right, seccomp)",
        );
    }
}

#[test]
fn the_journal_is_not_the_engines_to_write() {
    for user in users() {
        let dir = user.dir("sandbox-write-journal");
        let journal = dir.join("out/games.jsonl");
        hostile_as(user, &dir, "write-journal", s(&journal), "strict")
            .assert_every_game_played()
            .assert_log_says("write-journal", &["cannot append", "denied"]);
        assert!(!std::fs::read_to_string(&journal)
            .unwrap()
            .contains("a line the engine wrote"));

        let dir = user.dir("sandbox-write-journal-off");
        let journal = dir.join("out/games.jsonl");
        hostile_as(user, &dir, "write-journal", s(&journal), "off")
            .assert_log_says("write-journal", &["appended a line"]);
        assert!(std::fs::read_to_string(&journal)
            .unwrap()
            .contains("a line the engine wrote"));
    }
}

#[test]
fn the_output_folder_is_not_the_engines_to_delete() {
    for user in users() {
        let dir = user.dir("sandbox-delete-output");
        let out = dir.join("out");
        hostile_as(user, &dir, "delete-output", s(&out), "strict")
            .assert_every_game_played()
            .assert_log_says("delete-output", &["cannot remove", "denied"]);
        assert!(out.join("report.json").is_file());

        let dir = user.dir("sandbox-delete-output-off");
        let out = dir.join("out");
        let run = hostile_as(user, &dir, "delete-output", s(&out), "off");
        let games = std::fs::read_to_string(out.join("games.jsonl")).unwrap_or_default();
        assert!(
            games.lines().count() < GAMES,
            "{user:?}: the journal survived:\n{}",
            run.output
        );
    }
}

/// A file only `user` may read, holding [`SECRET`].
fn secret_file_of(user: User, dir: &TempDir) -> PathBuf {
    let path = secret_file(dir);
    if user == User::Nobody {
        std::os::unix::fs::chown(&path, Some(65534), Some(65534)).unwrap();
    }
    path
}

#[test]
fn a_private_file_is_not_the_engines_to_read() {
    for user in users() {
        let dir = user.dir("sandbox-read-secret");
        let secret = secret_file_of(user, &dir);
        let run = hostile_as(user, &dir, "read-secret", s(&secret), "strict");
        run.assert_every_game_played()
            .assert_log_says("read-secret", &["cannot read", "denied"]);
        assert!(!run.log.contains("SECRET"), "{}", run.log);
        assert!(!nodes_reported(&run.games()).contains(&secret_as_nodes()));
        assert_eq!(std::fs::read(&secret).unwrap(), SECRET);

        let dir = user.dir("sandbox-read-secret-off");
        let secret = secret_file_of(user, &dir);
        let run = hostile_as(user, &dir, "read-secret", s(&secret), "off");
        run.assert_log_says("read-secret", &["SECRET-K"]);
        assert!(nodes_reported(&run.games()).contains(&secret_as_nodes()));
    }
}

/// Whether a connection waits on `listener` (non-blocking).
fn connected(listener: &TcpListener) -> bool {
    listener.set_nonblocking(true).unwrap();
    listener.accept().is_ok()
}

#[test]
fn no_tcp_connection_leaves_the_sandbox() {
    for user in users() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port().to_string();
        let dir = user.dir("sandbox-connect");
        hostile_as(user, &dir, "connect", &port, "strict")
            .assert_every_game_played()
            .assert_log_says("connect", &["cannot connect", "not permitted"]);
        assert!(!connected(&listener), "{user:?}: the engine connected");

        let dir = user.dir("sandbox-connect-off");
        hostile_as(user, &dir, "connect", &port, "off")
            .assert_log_says("connect", &["connected to"]);
        assert!(
            connected(&listener),
            "{user:?}: no connection without the sandbox"
        );
    }
}

#[test]
fn the_coordinator_is_not_the_engines_to_kill() {
    for user in users() {
        let dir = user.dir("sandbox-kill-parent");
        hostile_as(user, &dir, "kill-parent", "", "strict")
            .assert_every_game_played()
            .assert_log_says("kill-parent", &["cannot send SIGKILL", "not permitted"]);

        let dir = user.dir("sandbox-kill-parent-off");
        let run = hostile_as(user, &dir, "kill-parent", "", "off");
        assert_eq!(
            run.output.status.signal(),
            Some(9),
            "{user:?}: {}",
            run.output
        );
    }
}

#[test]
fn a_shell_runs_but_writes_nothing_outside() {
    for user in users() {
        let dir = user.dir("sandbox-exec-shell");
        let touched = dir.join("touched");
        hostile_as(user, &dir, "exec-shell", s(&touched), "strict")
            .assert_every_game_played()
            .assert_log_says("exec-shell", &["failed"]);
        assert!(!touched.exists());

        let dir = user.dir("sandbox-exec-shell-off");
        let touched = dir.join("touched");
        hostile_as(user, &dir, "exec-shell", s(&touched), "off")
            .assert_log_says("exec-shell", &["touched"]);
        assert!(touched.exists(), "{user:?}");
    }
}

/// The process cap the kernel enforced for faulty, from `tournament.json`.
fn process_cap(out: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(out.join("tournament.json")).unwrap();
    let pinned: serde_json::Value = serde_json::from_str(&text).unwrap();
    pinned["sandbox_enforced"]["faulty"]["process_cap"].as_u64()
}

/// No twin without the sandbox: as root nothing else would stop it short of its own limit.
/// Not run as `nobody`: an ordinary user gets no pids cgroup, and the fault would start its
/// 4,096 processes before the process group ends them (`sandbox_contained` shows what an
/// ordinary user's worker is held to).
#[test]
fn a_fork_bomb_stops_at_the_process_cap() {
    let dir = TempDir::new("sandbox-fork-bomb");
    let run = hostile(&dir, "fork-bomb", "", "strict");
    run.assert_every_game_played();
    match process_cap(&run.out) {
        Some(cap) => {
            run.assert_log_says(
                "fork-bomb",
                &["processes, then:", "temporarily unavailable"],
            );
            let started: u64 = run
                .log
                .lines()
                .find_map(|l| l.strip_prefix("faulty: fork-bomb: started "))
                .and_then(|l| l.split(' ').next()?.parse().ok())
                .unwrap();
            assert!(started < cap, "{started} processes under a cap of {cap}");
        }
        None => crate::support::skip(
            "a_fork_bomb_stops_at_the_process_cap",
            "no pids cgroup on this machine: the cap is recorded as missing",
        ),
    }
    run.output.assert_no_workers_left();
}

/// `sandbox-read` (here on the command line, paths joined by `:`) opens a private file to the
/// engine: what docs/guide/sandbox.md's "Allowing a data file" promises.
#[test]
fn sandbox_read_allows_a_data_file() {
    let a = artifacts();
    let dir = TempDir::new("sandbox-read-allowed");
    let secret = secret_file(&dir);
    let faulty = format!(
        "name=faulty,plugin={},Fault=read-secret,StrikeAt=2,Target={},sandbox-read={}:{}",
        s(&a.faulty),
        s(&secret),
        s(dir.path()),
        s(&secret)
    );
    let greedy = format!("name=greedy,plugin={}", s(&a.greedy));
    let out = dir.join("out");
    let args = [
        "run",
        "--engine",
        &faulty,
        "--engine",
        &greedy,
        "--format",
        "match",
        "--pairs",
        "1",
        "--time",
        "depth=2",
        "--out",
        s(&out),
        "--no-tui",
    ];
    harness(dir.path(), &args).assert_success();
    let games = read_games(&out);
    assert!(nodes_reported(&games).contains(&secret_as_nodes()));
    let pinned = std::fs::read_to_string(out.join("tournament.json")).unwrap();
    assert!(pinned.contains("secret-key"), "{pinned}");
}

/// A run resumed with another sandbox setting is refused like any changed condition; what
/// the kernel enforced is recorded, and under a depth limit not compared (a run recorded
/// under another kernel resumes: its games do not depend on time; a timed run compares the
/// fair-play terms, `fair_play::a_resume_under_other_fair_play_conditions_is_refused`). The
/// reports and `harness info` say what was enforced.
#[test]
fn the_setting_pins_the_run_and_what_was_enforced_is_shown() {
    let a = artifacts();
    let dir = TempDir::new("sandbox-pinned");
    let file = TournamentFile::new("match", 2, "depth = 2")
        .engine(engine("faulty", s(&a.faulty), ""))
        .engine(engine("greedy", s(&a.greedy), ""));
    let path = dir.write("t.toml", &file.text());
    let out = dir.join("out");
    harness(dir.path(), &["run", s(&path), "--no-tui"]).assert_success();
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains("Sandbox: faulty: strict (Landlock"),
        "{report}"
    );

    harness(
        dir.path(),
        &[
            "run",
            s(&path),
            "--no-tui",
            "--pairs",
            "3",
            "--sandbox",
            "off",
        ],
    )
    .assert_error()
    .assert_stderr_has(&["engines[0].sandbox.mode strict → off"]);

    let pinned_path = out.join("tournament.json");
    let mut pinned: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&pinned_path).unwrap()).unwrap();
    pinned["sandbox_enforced"]["faulty"] = serde_json::json!({
        "landlock_abi": 3, "landlock_full": false, "seccomp": true, "process_cap": null,
        "missing": ["an older kernel"]
    });
    std::fs::write(&pinned_path, pinned.to_string()).unwrap();
    harness(dir.path(), &["run", s(&path), "--no-tui", "--pairs", "3"]).assert_success();
    assert_eq!(read_games(&out).len(), 6);

    let info = harness(dir.path(), &["info", s(&a.greedy)]);
    info.assert_success();
    assert!(
        info.stdout.contains("sandbox  strict (Landlock ABI"),
        "{info}"
    );
    let info = harness(dir.path(), &["info", s(&a.greedy), "--sandbox", "off"]);
    assert!(info.stdout.contains("sandbox  off"), "{info}");
}

/// The shipped engines play under the default sandbox with the files their options name:
/// `strong` with `EvalFile` (its committed weights), and `external` driving this harness's
/// NBoard front-end (a nested harness, whose own worker is sandboxed inside this one's).
#[test]
fn shipped_engines_play_under_the_sandbox_with_their_files() {
    let a = artifacts();
    let dir = TempDir::new("sandbox-shipped");
    let weights = Path::new(env!("CARGO_MANIFEST_DIR")).join("../engines/strong/data/eval.weights");
    let weights = weights.canonicalize().unwrap();
    let strong = engine(
        "strong",
        s(&a.strong),
        &format!("EvalFile = {}", crate::support::toml_string(s(&weights))),
    );
    let command = format!("{} nboard --engine {}", s(&a.harness), s(&a.minimax));
    let external = engine(
        "external",
        s(&a.external),
        &format!(
            "Command = {}, Protocol = \"nboard\"",
            crate::support::toml_string(&command)
        ),
    );
    let file = TournamentFile::new("match", 1, "depth = 2")
        .engine(strong)
        .engine(external);
    let path = dir.write("t.toml", &file.text());
    let run = harness(dir.path(), &["run", s(&path), "--no-tui"]);
    run.assert_success();
    assert!(!run.stderr.contains("warning"), "{run}");
    let games = read_games(&dir.join("out"));
    assert_eq!(games.len(), GAMES, "{run}");
    for g in &games {
        check_normal_record(g);
    }
}

/// On a kernel without Landlock (here: the harness under a seccomp filter that makes the
/// Landlock calls fail as such a kernel's do, `tests/fixtures/without_landlock.py`), `strict`
/// warns once and plays with what the kernel has (seccomp, the process cap), and says so in
/// `tournament.json`; `required` refuses to start the engine (exit 2); `harness check` says
/// its sandbox items are not checked.
#[test]
fn a_kernel_without_landlock_is_warned_of_once_and_required_refuses() {
    let a = artifacts();
    let wrapper = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/without_landlock.py");
    if std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_err()
    {
        return crate::support::skip("without Landlock", "no python3 to run the fixture");
    }
    let dir = TempDir::new("sandbox-no-landlock");
    let without = |args: &[&str]| {
        let mut cmd = std::process::Command::new("python3");
        cmd.arg(&wrapper)
            .arg(&a.harness)
            .args(args)
            .current_dir(dir.path());
        crate::support::run_with_timeout(cmd, crate::support::HARNESS_TIMEOUT)
    };
    let file = TournamentFile::new("match", 2, "depth = 2")
        .engine(engine("faulty", s(&a.faulty), ""))
        .engine(engine("greedy", s(&a.greedy), ""));
    let path = dir.write("t.toml", &file.text());
    let run = without(&["run", s(&path), "--no-tui"]);
    run.assert_success();
    assert_eq!(read_games(&dir.join("out")).len(), 4, "{run}");
    let warnings = run.stderr.matches("only part of the sandbox").count();
    assert_eq!(warnings, 1, "{run}");
    assert!(run.stderr.contains("no Landlock in this kernel"), "{run}");
    let pinned = std::fs::read_to_string(dir.join("out/tournament.json")).unwrap();
    let pinned: serde_json::Value = serde_json::from_str(&pinned).unwrap();
    let enforced = &pinned["sandbox_enforced"]["faulty"];
    assert_eq!(enforced["landlock_abi"], 0, "{pinned}");
    assert_eq!(enforced["seccomp"], true, "{pinned}");

    let out = dir.join("required");
    without(&[
        "run",
        s(&path),
        "--no-tui",
        "--sandbox",
        "required",
        "--out",
        s(&out),
    ])
    .assert_error()
    .assert_stderr_has(&["sandbox = \"required\"", "cannot enforce", "no Landlock"]);
    assert!(!out.join("games.jsonl").exists());

    let check = without(&["check", s(&a.greedy)]);
    for item in ["sandbox-write", "sandbox-connect", "sandbox-signal"] {
        let row = check
            .stdout
            .lines()
            .find(|l| l.starts_with(item))
            .unwrap_or_default();
        assert!(row.contains("not checked"), "{item}: {row}\n{check}");
    }
}

/// The scratch folders of a coordinator killed outright (its workers die with it, their
/// folders stay) are removed by the next coordinator's first worker.
#[test]
fn a_killed_runs_scratch_folders_are_swept_by_the_next() {
    let a = artifacts();
    let dir = TempDir::new("sandbox-sweep");
    let temp = dir.join("tmp");
    std::fs::create_dir_all(&temp).unwrap();
    let scratch = || -> Vec<PathBuf> {
        let entries = std::fs::read_dir(&temp).unwrap().flatten();
        let names = entries.map(|e| e.path());
        names
            .filter(|p| p.to_string_lossy().ends_with(".scratch"))
            .collect()
    };
    let greedy = format!("name=greedy,plugin={}", s(&a.greedy));
    let slow = format!("name=slow,plugin={},Fault=sleep,StrikeAt=1", s(&a.faulty));
    let mut run = std::process::Command::new(&a.harness)
        .args([
            "run", "--engine", &greedy, "--engine", &slow, "--format", "match",
        ])
        .args(["--pairs", "1", "--time", "0.5/move", "--no-tui", "--out"])
        .arg(dir.join("out"))
        .env("TMPDIR", &temp)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while scratch().len() < 2 && started.elapsed() < std::time::Duration::from_secs(30) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    run.kill().unwrap();
    run.wait().unwrap();
    let left = scratch();
    assert!(left.len() >= 2, "no scratch folders while it ran: {left:?}");

    let mut info = std::process::Command::new(&a.harness);
    info.args(["info", s(&a.greedy)]).env("TMPDIR", &temp);
    crate::support::run_with_timeout(info, crate::support::HARNESS_TIMEOUT).assert_success();
    assert_eq!(scratch(), Vec::<PathBuf>::new());
}
