//! `examples/python/engine.py`, a GTP engine in plain Python 3, played through the `external`
//! plugin under the default sandbox, with the `python3` a user has first on `PATH` (on a
//! developer's machine often a pyenv shim or a virtual environment in the home folder, whose
//! installation the sandbox must open), and spoken to directly after a pass.

use crate::support::{artifacts, read_games, run_with_timeout, s, Output, TempDir};
use harness_core::record::Termination;
use othello_board::{Move, Position};
use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

fn engine_py() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/python/engine.py")
        .canonicalize()
        .expect("examples/python/engine.py")
}

/// The first `python3` on `PATH` (which `Command=python3 …` runs), or why there is none.
fn python3() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("python3"))
        .find(|p| p.is_file())
}

/// The `--engine` value of the Python engine, `py`, started by `Command=python3 ENGINE`.
fn py_engine() -> String {
    format!(
        "name=py,plugin=external,Command=python3 {},Protocol=gtp",
        s(&engine_py())
    )
}

/// A match of the Python engine given as `py` (an `--engine` value) against greedy, `pairs`
/// pairs at 1+0.05 on `xot-large`, run in `cwd` into `out`, with `path` as `PATH` if given.
fn play(py: &str, cwd: &Path, out: &Path, pairs: usize, path: Option<&OsStr>) -> Output {
    let a = artifacts();
    let pairs = pairs.to_string();
    let mut cmd = Command::new(&a.harness);
    cmd.args(["run", "--engine", py, "--engine"])
        .arg(format!("name=greedy,plugin={}", s(&a.greedy)))
        .args(["--format", "match", "--time", "1+0.05", "--pairs", &pairs])
        .args(["--openings", "xot-large", "--concurrency", "2", "--no-tui"])
        .arg("--out")
        .arg(out)
        .current_dir(cwd);
    if let Some(path) = path {
        cmd.env("PATH", path);
    }
    run_with_timeout(cmd, Duration::from_secs(300))
}

/// No game forfeited, and the Python engine's score (1 a win, ½ a draw) over the games.
fn python_score(out: &Path, output: &Output) -> f64 {
    let games = read_games(out);
    let mut points = 0.0;
    for g in &games {
        assert_eq!(
            g.termination,
            Termination::Normal,
            "game {}: {} ({})\n{output}",
            g.game,
            g.reason,
            std::fs::read_to_string(out.join("logs/py.stderr.log")).unwrap_or_default()
        );
        let py_black = g.black == "py";
        points += match (g.score.signum(), py_black) {
            (0, _) => 0.5,
            (1, true) | (-1, false) => 1.0,
            _ => 0.0,
        };
    }
    points / games.len() as f64
}

/// Ten pairs at 1+0.05 against greedy under the default sandbox: no forfeit, and at least 70%.
#[test]
fn the_python_engine_beats_greedy_under_the_default_sandbox() {
    let Some(python) = python3() else {
        return crate::support::skip("python engine", "no python3 on PATH");
    };
    let dir = TempDir::new("python-vs-greedy");
    let out = play(&py_engine(), dir.path(), &dir.join("out"), 10, None);
    assert_eq!(out.status.code(), Some(0), "{out}");
    let games = read_games(&dir.join("out"));
    assert_eq!(games.len(), 20, "{out}");
    let score = python_score(&dir.join("out"), &out);
    assert!(
        score >= 0.7,
        "the Python engine ({}) scored {:.0}% against greedy\n{out}",
        python.display(),
        100.0 * score
    );
}

/// The engine run as `python3` from a virtual environment the test makes (`python3 -m venv`,
/// from the `python3` on `PATH`: on a developer's machine a pyenv Python, whose standard library
/// the environment's interpreter loads from outside it), first on `PATH`: it plays without a
/// forfeit under the default sandbox.
#[test]
fn the_python_engine_plays_from_a_virtual_environment() {
    if python3().is_none() {
        return crate::support::skip("python engine", "no python3 on PATH");
    }
    let dir = TempDir::new("python-venv");
    let venv = dir.join("venv");
    let made = Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .output()
        .unwrap();
    assert!(made.status.success(), "python3 -m venv: {made:?}");
    let mut path = vec![venv.join("bin")];
    path.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap()));
    let path = std::env::join_paths(path).unwrap();
    let out = play(&py_engine(), dir.path(), &dir.join("out"), 1, Some(&path));
    assert_eq!(out.status.code(), Some(0), "{out}");
    python_score(&dir.join("out"), &out);
}

/// A relative script path in `Command` is refused before the first game, with the absolute
/// path to give instead and `WorkingDir`; with `WorkingDir` naming its folder it plays.
#[test]
fn a_relative_script_path_is_refused_before_the_first_game_unless_working_dir_holds_it() {
    let folder = engine_py().parent().unwrap().to_path_buf();
    let relative = "name=py,plugin=external,Command=python3 engine.py,Protocol=gtp";
    let dir = TempDir::new("python-relative");
    // Run from the script's folder, where `engine.py` names it.
    let refused = play(relative, &folder, &dir.join("refused"), 1, None);
    refused.assert_error().assert_stderr_has(&[
        "`engine.py` is a path relative to this folder",
        s(&engine_py()),
        "WorkingDir",
    ]);
    assert!(!dir.join("refused/games.jsonl").exists(), "{refused}");

    let with_folder = format!("{relative},WorkingDir={}", s(&folder));
    let played = play(&with_folder, dir.path(), &dir.join("played"), 1, None);
    assert_eq!(played.status.code(), Some(0), "{played}");
    python_score(&dir.join("played"), &played);

    // `WorkingDir=.` is the folder the command was given in (it once was the engine's scratch
    // folder, where every game forfeited), and it is recorded as that folder.
    let here = format!("{relative},WorkingDir=.");
    let dot = play(&here, &folder, &dir.join("dot"), 1, None);
    assert_eq!(dot.status.code(), Some(0), "{dot}");
    python_score(&dir.join("dot"), &dot);
    let pinned = std::fs::read_to_string(dir.join("dot/tournament.json")).unwrap();
    let canonical = folder.canonicalize().unwrap();
    assert!(pinned.contains(s(&canonical)), "{pinned}");

    // A program named by a relative path alone gets the same advice.
    let alone = "name=py,plugin=external,Command=./engine.py,Protocol=gtp";
    play(alone, &folder, &dir.join("alone"), 1, None)
        .assert_error()
        .assert_stderr_has(&[
            "`./engine.py` is a path relative to this folder",
            "WorkingDir",
        ]);
}

/// A game with a pass in it, replayed to the engine over GTP (`play w pass`), then `genmove`
/// for the side to move: a legal move of that position.
#[test]
fn the_python_engine_moves_after_a_pass() {
    if python3().is_none() {
        return crate::support::skip("python engine", "no python3 on PATH");
    }
    let (moves, after) = game_with_a_pass();
    let mut script = String::from("protocol_version\nboardsize 8\nclear_board\n");
    let mut color = 'b';
    for mv in &moves {
        let vertex = if mv.is_pass() {
            "pass".to_string()
        } else {
            mv.to_string()
        };
        script.push_str(&format!("play {color} {vertex}\n"));
        color = if color == 'b' { 'w' } else { 'b' };
    }
    script.push_str(&format!("time_settings 1 0 0\ngenmove {color}\nquit\n"));
    let mut child = Command::new("python3")
        .arg(engine_py())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let answers: Vec<&str> = stdout.split("\n\n").filter(|a| !a.is_empty()).collect();
    assert!(
        answers.iter().all(|a| a.starts_with('=')),
        "an answer refused: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let genmove = answers[answers.len() - 2].trim_start_matches('=').trim();
    let mv: Move = genmove.parse().unwrap();
    assert!(
        !mv.is_pass() && after.is_legal(mv),
        "`{genmove}` is not legal after the pass:\n{stdout}"
    );
}

/// The moves of a game from the start up to and including a pass that leaves the other side a
/// move, and the position after them: the first such game among fixed playouts (the n-th game
/// takes the legal square of index n + ply, modulo their number).
fn game_with_a_pass() -> (Vec<Move>, Position) {
    for pick in 0..64usize {
        let mut position = Position::START;
        let mut moves = Vec::new();
        while !position.is_game_over() {
            let legal: Vec<Move> = othello_board::Square::iter(position.legal_moves())
                .map(Move::at)
                .collect();
            let mv = if legal.is_empty() {
                Move::PASS
            } else {
                legal[(pick + moves.len()) % legal.len()]
            };
            position = position.play(mv).unwrap();
            moves.push(mv);
            if mv.is_pass() && position.legal_moves() != 0 {
                return (moves, position);
            }
        }
    }
    panic!("no playout passed mid-game");
}

/// The engine with the system's `python3` first on `PATH` plays under the default sandbox.
#[test]
fn the_python_engine_plays_with_the_systems_python3() {
    let system = Path::new("/usr/bin/python3");
    if !system.is_file() {
        return crate::support::skip("python engine", "no /usr/bin/python3");
    }
    let dir = TempDir::new("python-system");
    let system_first = OsStr::new("/usr/bin:/bin");
    let out = play(
        &py_engine(),
        dir.path(),
        &dir.join("out"),
        1,
        Some(system_first),
    );
    assert_eq!(out.status.code(), Some(0), "{out}");
    python_score(&dir.join("out"), &out);
}

/// A conda-style installation (`bin/python3` beside `lib/`, here a script that runs the
/// system's Python) first on `PATH`: opened to the engine when every user may read all of it,
/// so the engine plays; with a private file in it, refused before the first game, naming the
/// installation and the `sandbox-read` that opens it, which then lets it play.
#[test]
fn a_conda_style_installation_plays_or_is_refused_naming_its_sandbox_read() {
    use std::os::unix::fs::PermissionsExt;
    if !Path::new("/usr/bin/python3").is_file() {
        return crate::support::skip("python engine", "no /usr/bin/python3");
    }
    let dir = TempDir::new("python-conda");
    let prefix = dir.join("conda");
    std::fs::create_dir_all(prefix.join("lib")).unwrap();
    std::fs::create_dir_all(prefix.join("bin")).unwrap();
    let python = prefix.join("bin/python3");
    std::fs::write(&python, "#!/bin/sh\nexec /usr/bin/python3 \"$@\"\n").unwrap();
    std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut path = vec![prefix.join("bin")];
    path.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap()));
    let path = std::env::join_paths(path).unwrap();
    let py = py_engine();
    let run = |py: &str, out: &str| play(py, dir.path(), &dir.join(out), 1, Some(&path));
    let public = run(&py, "public");
    assert_eq!(public.status.code(), Some(0), "{public}");
    python_score(&dir.join("public"), &public);

    let key = prefix.join("lib/key");
    std::fs::write(&key, "secret").unwrap();
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
    let prefix = prefix.canonicalize().unwrap();
    let refused = run(&py, "refused");
    refused.assert_error().assert_stderr_has(&[
        &format!("runs from {}", s(&prefix)),
        "is private",
        &format!("sandbox-read={}", s(&prefix)),
    ]);
    assert!(!dir.join("refused/games.jsonl").exists(), "{refused}");
    let opened = run(&format!("{py},sandbox-read={}", s(&prefix)), "opened");
    assert_eq!(opened.status.code(), Some(0), "{opened}");
    python_score(&dir.join("opened"), &opened);
}

/// An engine of two files in a folder of its own: `main.py` says which Python runs it on its
/// standard error (the engine's log), then imports `helper.py` beside it (the example engine)
/// and plays.
fn two_file_engine(dir: &Path) -> PathBuf {
    let folder = dir.join("engine");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(engine_py(), folder.join("helper.py")).unwrap();
    std::fs::write(
        folder.join("main.py"),
        "import sys\nsys.stderr.write('running on Python ' + sys.version.split()[0] + '\\n')\n\
         sys.stderr.flush()\nimport helper\nhelper.main()\n",
    )
    .unwrap();
    folder.join("main.py")
}

/// The `--engine` value of the engine `py` whose script `main` runs on `python`.
fn py_engine_of(python: &str, main: &Path) -> String {
    format!(
        "name=py,plugin=external,Command={python} {},Protocol=gtp",
        s(main)
    )
}

/// One pair of the engine `py` (an `--engine` value) against greedy at depth 1 for greedy and
/// 1+0.05 for the Python, into `out`, run by `user` with `env` added.
fn one_pair(
    py: &str,
    out: &Path,
    user: crate::support::user::User,
    env: &[(&str, &str)],
) -> Output {
    let a = user.artifacts();
    let mut cmd = Command::new(&a.harness);
    cmd.args(["run", "--engine", py, "--engine"])
        .arg(format!("name=greedy,plugin={}", s(&a.greedy)))
        .args(["--format", "match", "--time", "1+0.05", "--pairs", "1"])
        .args(["--openings", "xot-large", "--no-tui", "--out"])
        .arg(out)
        .envs(env.iter().copied());
    user.wrap(&mut cmd);
    run_with_timeout(cmd, Duration::from_secs(120))
}

/// A Python engine of two files (`main.py` doing `import helper`, `helper.py` beside it) plays
/// under the default sandbox, as root and as `nobody`: the script's own folder is opened to it
/// (it once forfeited every game with "No module named 'helper'").
#[test]
fn a_python_engine_of_two_files_plays_under_the_default_sandbox() {
    for user in crate::support::user::users() {
        let dir = user.dir("python-two-files");
        let main = two_file_engine(dir.path());
        // The system's Python, which `nobody` may run (a pyenv root in /root is not theirs).
        let py = py_engine_of("/usr/bin/python3", &main);
        let out = dir.join("out");
        let played = one_pair(&py, &out, user, &[]);
        assert_eq!(played.status.code(), Some(0), "{user:?}:\n{played}");
        assert_eq!(read_games(&out).len(), 2, "{user:?}:\n{played}");
        python_score(&out, &played);
    }
}

/// With pyenv, the engine runs the Python the user's shell would (`PYENV_VERSION` set in the
/// harness's environment, which the sandbox does not pass on): the shim is resolved by the
/// harness, the run says which Python and records it in `tournament.json`, and the engine's own
/// log shows that version played.
#[test]
fn a_pyenv_shim_runs_the_python_the_users_shell_runs() {
    let Some(shim) = python3().filter(|p| {
        std::fs::read_to_string(p).is_ok_and(|t| t.starts_with("#!") && t.contains("pyenv"))
    }) else {
        return crate::support::skip("pyenv engine", "the python3 on PATH is no pyenv shim");
    };
    // The pyenv root the shim names, and a version that is not the one pyenv picks here.
    let text = std::fs::read_to_string(&shim).unwrap();
    let root = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("export PYENV_ROOT="))
        .map(|r| PathBuf::from(r.trim_matches('"')))
        .expect("a pyenv shim exports PYENV_ROOT");
    let current = Command::new(root.join("libexec/pyenv"))
        .arg("version-name")
        .env("PYENV_ROOT", &root)
        .output()
        .unwrap();
    let current = String::from_utf8_lossy(&current.stdout).trim().to_string();
    let mut versions: Vec<String> = std::fs::read_dir(root.join("versions"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|v| v.starts_with("3.") && *v != current)
                .collect()
        })
        .unwrap_or_default();
    versions.sort();
    let Some(version) = versions.last().cloned() else {
        return crate::support::skip("pyenv engine", "pyenv has no second Python 3");
    };
    let dir = TempDir::new("python-pyenv");
    let main = two_file_engine(dir.path());
    let py = py_engine_of("python3", &main);
    let out = dir.join("out");
    let played = one_pair(
        &py,
        &out,
        crate::support::user::User::Invoker,
        &[("PYENV_VERSION", &version)],
    );
    assert_eq!(played.status.code(), Some(0), "{played}");
    let program = root.join("versions").join(&version).join("bin/python3");
    assert!(
        played.stderr.contains(&format!(
            "is a pyenv shim; the engine runs {} (Python {version})",
            program.display()
        )),
        "{played}"
    );
    let log = std::fs::read_to_string(out.join("logs/py.stderr.log")).unwrap();
    assert!(
        log.contains(&format!("running on Python {version}")) && !log.contains(&current),
        "pyenv's Python {current} played instead of {version}:\n{log}"
    );
    let pinned = std::fs::read_to_string(out.join("tournament.json")).unwrap();
    assert!(pinned.contains(&program.display().to_string()), "{pinned}");
}

/// The script a `Command` names is part of the engine: edited, it is another engine, and the
/// folder of the run it played is not resumed with it (it once was: the plugin, `external`,
/// was the same).
#[test]
fn an_edited_script_is_another_engine_on_resume() {
    let dir = TempDir::new("python-edited");
    let main = two_file_engine(dir.path());
    let py = py_engine_of("/usr/bin/python3", &main);
    let out = dir.join("out");
    let user = crate::support::user::User::Invoker;
    let first = one_pair(&py, &out, user, &[]);
    assert_eq!(first.status.code(), Some(0), "{first}");
    let same = one_pair(&py, &out, user, &[]);
    same.assert_resumed(2, 2);
    let mut script = std::fs::OpenOptions::new()
        .append(true)
        .open(&main)
        .unwrap();
    script.write_all(b"# a change\n").unwrap();
    let edited = one_pair(&py, &out, user, &[]);
    edited
        .assert_error()
        .assert_stderr_has(&["a different tournament", "command_fnv1a"]);
}
