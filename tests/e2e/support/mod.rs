//! Shared helpers of the end-to-end tests: the build of the binaries under test (once per test
//! process), temporary folders, running the harness binary with a timeout, tournament files,
//! the matches several modules play (`matches`), checks of the journal files against the
//! rules of Othello, the users the harness runs as (`user`) with `nobody`'s copies of the
//! binaries in a folder it can reach (`staging`), and the parts of tests a machine cannot run
//! ([`skip`], [`not_possible_here`] and its one list, [`NOT_POSSIBLE_UNDER_CI`]).

mod artifacts;
pub mod browser;
mod check;
mod matches;
pub mod postgres;
mod process;
pub mod staging;
mod temp;
pub mod user;

pub use artifacts::{artifacts, compile_first_move};
pub use browser::{http_get, Browser};
pub use check::{
    book_moves, check_ggf, check_normal_record, check_record, check_schedule, engine_moves,
    first_pairing_elo_interval, games_of, read_games,
};
pub use matches::{
    deterministic_gauntlet, engine_flag, harness_line, match_args, match_file, match_of,
    play_shards, run, tune_of,
};
pub use postgres::PostgresServer;
pub use process::{
    harness, processes_with, run_with_timeout, spawn_harness, worker_marker, workers_of, Output,
    Process, Running, HARNESS_TIMEOUT,
};
pub use temp::TempDir;

use std::path::Path;
use std::time::{Duration, Instant};

/// A match of greedy against heuristic at 0.05 s a move (about a second a game), `pairs` pairs,
/// started in a new folder labelled `label` with its output captured; returns once `games`
/// games are in its journal (each game of a run that is cut short then costs the test little).
pub fn start_timed_match(
    label: &str,
    pairs: usize,
    games: usize,
) -> (TempDir, std::process::Child) {
    let a = artifacts();
    let dir = TempDir::new(label);
    let toml = TournamentFile::new("match", pairs, "move-time = 0.05")
        .engine(engine("greedy", s(&a.greedy), ""))
        .engine(engine("heuristic", s(&a.heuristic), ""))
        .text();
    dir.write("t.toml", &toml);
    let child = spawn_harness(dir.path(), &["run", "t.toml", "--no-tui"], true);
    wait_for_games(&dir.join("out/games.jsonl"), games);
    (dir, child)
}

/// The end of a run from [`start_timed_match`] that `signal` (its name) stopped: exit code 3
/// and the line saying so, no worker left, every recorded game valid and none a forfeit (the
/// games in flight were abandoned), report.json unfinished. Returns the games.
pub fn assert_stopped_by(
    signal: &str,
    dir: &TempDir,
    child: std::process::Child,
) -> Vec<harness_core::record::GameRecord> {
    let pid = child.id();
    let out = child.wait_with_output().expect("the harness ends");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(
        stdout.contains(&format!("interrupted by {signal}: ")),
        "{stdout}"
    );
    let left = workers_of(pid);
    assert!(left.is_empty(), "workers left: {left:#?}");
    let games = read_games(&dir.join("out"));
    for g in &games {
        check_record(g);
        assert!(
            !g.termination.is_forfeit(),
            "a forfeit from the stop: {}",
            g.reason
        );
    }
    let report = std::fs::read_to_string(dir.join("out/report.json")).expect("report.json");
    let report: serde_json::Value = serde_json::from_str(&report).expect("JSON");
    assert_eq!(report["finished"], false);
    games
}

/// Wait (at most a minute) until the journal `path` has `games` lines.
pub fn wait_for_games(path: &Path, games: usize) {
    let started = Instant::now();
    while std::fs::read_to_string(path).map_or(0, |t| t.lines().count()) < games {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "fewer than {games} games in {} after a minute",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The names of a folder's entries, sorted.
pub fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The `report.json` of the output folder `out`.
pub fn report_json(out: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(out.join("report.json")).expect("report.json");
    serde_json::from_str(&text).expect("report.json is JSON")
}

/// Skip the rest of a test that this machine cannot run (`reason` says why), visibly: the line
/// goes straight to standard error, which the test runner does not capture as it captures
/// `eprintln!`. Under CI (`CI` set), whose machine is set up for every test, it fails instead.
pub fn skip(test: &str, reason: &str) {
    use std::io::Write;
    assert!(
        std::env::var_os("CI").is_none(),
        "{test}: {reason}; CI must run it"
    );
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {reason}");
}

/// The parts of tests that may be impossible on CI's machine, each with its reason: the one
/// place that lets [`not_possible_here`] pass under CI. A part that cannot run and is not here
/// fails CI. Listed only what no layout of the checkout can give (the staging folder,
/// [`staging`], gives `nobody` a layout it reaches wherever the checkout lies): settings of the
/// kernel or the container that the tests do not change. docs/architecture.md ("Parts that
/// cannot run") points here.
pub const NOT_POSSIBLE_UNDER_CI: &[(&str, &str)] = &[(
    "no_plugin_makes_a_namespace, the sandbox off",
    "the kernel or the container may refuse an ordinary user a user namespace \
     (kernel.unprivileged_userns_clone = 0, user.max_user_namespaces = 0, a seccomp profile \
     without unshare); the strict half still runs",
)];

/// Every part [`NOT_POSSIBLE_UNDER_CI`] lists is one that a test names (as the first argument
/// of a [`not_possible_here`] call, on a line of its own), so that no stale entry lets a
/// renamed part through.
#[test]
fn every_part_listed_as_not_possible_is_one_a_test_names() {
    let mut sources = String::new();
    let mut folders = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("e2e")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                sources.push_str(&std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    for (part, reason) in NOT_POSSIBLE_UNDER_CI {
        assert!(!reason.is_empty(), "{part}: no reason");
        let call = sources.lines().collect::<Vec<_>>().windows(2).any(|w| {
            w[0].trim_end().ends_with("not_possible_here(") && w[1].trim() == format!("\"{part}\",")
        });
        assert!(
            call,
            "`{part}` is listed but no not_possible_here call names it"
        );
    }
}

/// A part of a test that this machine rules out (`reason` says why), said on stderr like
/// [`skip`]'s lines. Under CI (`CI` set) it fails unless the part is listed in
/// [`NOT_POSSIBLE_UNDER_CI`]: a part a machine cannot run is a decision written down, not a
/// line in a log.
pub fn not_possible_here(test: &str, reason: &str) {
    use std::io::Write;
    let listed = NOT_POSSIBLE_UNDER_CI.iter().find(|(t, _)| *t == test);
    assert!(
        std::env::var_os("CI").is_none() || listed.is_some(),
        "{test}: {reason}; CI must run it, or list it with its reason in \
         support::NOT_POSSIBLE_UNDER_CI (tests/e2e/support/mod.rs)"
    );
    let _ = writeln!(std::io::stderr(), "NOT POSSIBLE HERE {test}: {reason}");
}

/// A path as text for command lines and tournament files (the test paths are UTF-8).
pub fn s(path: &Path) -> &str {
    path.to_str()
        .unwrap_or_else(|| panic!("{} is not UTF-8", path.display()))
}

/// A tournament file as the tests write it: `[tournament]` (format, pairs, concurrency 2,
/// output folder `out` unless changed), `[time]` and `[openings]` from the lines given (the
/// built-in `xot-small` by default), any further tables, then the engines in order.
#[derive(Clone, Debug)]
pub struct TournamentFile {
    format: &'static str,
    pairs: usize,
    concurrency: u32,
    out: Option<String>,
    time: String,
    openings: String,
    tables: String,
    engines: String,
}

impl TournamentFile {
    /// `format` with `pairs` pairs per pairing and the `[time]` lines `time`.
    pub fn new(format: &'static str, pairs: usize, time: &str) -> TournamentFile {
        TournamentFile {
            format,
            pairs,
            concurrency: 2,
            out: Some("out".to_string()),
            time: time.to_string(),
            openings: "builtin = \"xot-small\"".to_string(),
            tables: String::new(),
            engines: String::new(),
        }
    }

    pub fn concurrency(mut self, n: u32) -> TournamentFile {
        self.concurrency = n;
        self
    }

    /// The output folder; `None` leaves the key out (the harness's default applies).
    pub fn out(mut self, out: Option<&str>) -> TournamentFile {
        self.out = out.map(str::to_string);
        self
    }

    /// The `[openings]` lines.
    pub fn openings(mut self, lines: &str) -> TournamentFile {
        self.openings = lines.to_string();
        self
    }

    /// Further tables (e.g. `[sprt]`), written before the engines.
    pub fn table(mut self, text: &str) -> TournamentFile {
        self.tables.push('\n');
        self.tables.push_str(text);
        self
    }

    /// An `[[engine]]` table (from [`engine`]), plus any extra lines for it.
    pub fn engine(mut self, table: String) -> TournamentFile {
        self.engines.push_str(&table);
        self
    }

    pub fn text(&self) -> String {
        let out = match &self.out {
            Some(o) => format!("out = {}\n", toml_string(o)),
            None => String::new(),
        };
        format!(
            "[tournament]\nformat = \"{}\"\npairs = {}\nconcurrency = {}\n{out}\n[time]\n{}\n\n[openings]\n{}\n{}{}",
            self.format, self.pairs, self.concurrency, self.time, self.openings, self.tables, self.engines
        )
    }
}

/// An `[[engine]]` table: `plugin` is a bare name or a path, `options` an inline table's
/// inside (`Depth = 2, Pruning = "none"`) or empty.
pub fn engine(name: &str, plugin: &str, options: &str) -> String {
    let mut t = format!(
        "\n[[engine]]\nname = {}\nplugin = {}\n",
        toml_string(name),
        toml_string(plugin)
    );
    if !options.is_empty() {
        t.push_str(&format!("options = {{ {options} }}\n"));
    }
    t
}

/// `text` as a TOML basic string.
pub fn toml_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Whether the tests run as root (CI's machines do): servers and browsers that refuse root are
/// started accordingly.
pub fn is_root() -> bool {
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// The Landlock ABI version the kernel offers, asked of it directly
/// (`landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)`); `None` where it has
/// none (a kernel built without Landlock, or with it left out of the security modules).
pub fn kernel_landlock_abi() -> Option<u64> {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_long = 1;
    // SAFETY: with this flag the call reads no attributes (a null pointer of size 0).
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    u64::try_from(abi).ok().filter(|&abi| abi > 0)
}

/// Where a test's screenshots of pages go: `HARNESS_SCREENSHOTS` when set (the pictures in
/// `docs/` are made so), else the test's folder.
pub fn screenshot_path(dir: &TempDir, name: &str) -> std::path::PathBuf {
    match std::env::var_os("HARNESS_SCREENSHOTS") {
        Some(d) => std::path::PathBuf::from(d).join(name),
        None => dir.join(name),
    }
}

/// Whether the POSIX message queue `name` exists: it opens for reading (and is closed again),
/// or the kernel says there is none; any other answer fails the test.
pub fn message_queue_exists(name: &str) -> bool {
    let c_name = std::ffi::CString::new(name).unwrap();
    // SAFETY: `c_name` is a valid C string; without `O_CREAT` no further argument is read.
    let queue = unsafe { libc::mq_open(c_name.as_ptr(), libc::O_RDONLY) };
    if queue == -1 {
        let error = std::io::Error::last_os_error();
        assert_eq!(
            error.kind(),
            std::io::ErrorKind::NotFound,
            "{name}: {error}"
        );
        return false;
    }
    // SAFETY: `queue` is the descriptor just opened, owned by nothing else.
    unsafe { libc::mq_close(queue) };
    true
}

/// Remove the POSIX message queue `name`, where it exists.
pub fn remove_message_queue(name: &str) {
    let name = std::ffi::CString::new(name).unwrap();
    // SAFETY: `name` is a valid C string.
    unsafe { libc::mq_unlink(name.as_ptr()) };
}
