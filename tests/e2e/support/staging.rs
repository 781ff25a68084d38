//! Where `nobody` runs: a folder of its own under `/tmp`, which every user can reach whatever
//! lies above the checkout.
//!
//! The tests run as root also run the harness as `nobody` (`super::user`). A checkout inside a
//! private folder (a clone into a `mktemp -d` folder of mode 0700, as CI makes) is out of
//! `nobody`'s reach, and with it `target/` and the tests' folders under `target/tmp`; the tests
//! do not change the modes of folders that are not theirs. So the first run as `nobody` in a
//! test process makes `/tmp/arena-e2e-<pid>-<n>/` (mode 0755, made fresh: never a folder that
//! was there before) and copies into it the binaries under test:
//!
//! - `bin/`: the harness and the Rust plugins (so that a bare plugin name, resolved beside the
//!   harness's plugin folder, finds the same files),
//! - `c/`: the C example and the C fixtures,
//! - `e2e/`: `nobody`'s test folders ([`super::user::User::dir`]).
//!
//! `nobody`'s runs use these copies (the same bytes as the checkout's, built by the same cargo
//! run) in every layout, reachable checkout or not, so that CI and a developer's machine test
//! the same thing. When the test process ends, `bin/` and `c/` are removed, and the folder with
//! them unless a failed test's folder is kept in `e2e/` (its path is printed). The same line
//! says how many harness runs were made as `nobody`, in how many tests.

use super::artifacts::Artifacts;
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// The folder every user may reach, and the binaries copied into it.
#[derive(Debug)]
pub struct Staging {
    /// `/tmp/arena-e2e-<pid>-<n>`.
    pub root: PathBuf,
    /// The copies of [`super::artifacts`] in `root`.
    pub artifacts: Artifacts,
}

impl Staging {
    /// The folder of `nobody`'s test folders.
    pub fn folders(&self) -> PathBuf {
        self.root.join("e2e")
    }
}

/// The staging folder, made on first use; a failure to make it fails every test that needs it.
pub fn staging() -> &'static Staging {
    static STAGING: OnceLock<Result<Staging, String>> = OnceLock::new();
    match STAGING.get_or_init(stage) {
        Ok(s) => s,
        Err(e) => panic!("cannot stage the binaries for nobody: {e}"),
    }
}

/// Harness runs as `nobody`, per test (the test thread's name).
static RUNS: Mutex<BTreeMap<String, usize>> = Mutex::new(BTreeMap::new());

/// Count a harness run as `nobody` for the test running now.
pub fn count_run() {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("?").to_string();
    *RUNS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(test)
        .or_default() += 1;
}

/// A new folder `path` of mode 0755; an error where something is there already.
fn new_folder(path: &Path) -> std::io::Result<()> {
    std::fs::create_dir(path)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
}

fn stage() -> Result<Staging, String> {
    let a = super::artifacts();
    let root = (0..1000)
        .map(|n| Path::new("/tmp").join(format!("arena-e2e-{}-{n}", std::process::id())))
        .find(|path| new_folder(path).is_ok())
        .ok_or("no new folder /tmp/arena-e2e-<pid>-<n> could be made")?;
    for sub in ["bin", "c", "e2e"] {
        new_folder(&root.join(sub)).map_err(|e| format!("{}/{sub}: {e}", root.display()))?;
    }
    let rust = |path: &Path| copy(path, &root.join("bin"));
    let c = |path: &Path| copy(path, &root.join("c"));
    let artifacts = Artifacts {
        harness: rust(&a.harness)?,
        plugin_dir: root.join("bin"),
        greedy: rust(&a.greedy)?,
        minimax: rust(&a.minimax)?,
        heuristic: rust(&a.heuristic)?,
        faulty: rust(&a.faulty)?,
        external: rust(&a.external)?,
        strong: rust(&a.strong)?,
        first_move: c(&a.first_move)?,
        crasher: c(&a.crasher)?,
        hanger: c(&a.hanger)?,
        printer: c(&a.printer)?,
        misbehaver: c(&a.misbehaver)?,
        sleeper: c(&a.sleeper)?,
        wrong_abi: c(&a.wrong_abi)?,
        not_a_plugin: c(&a.not_a_plugin)?,
        null_table: c(&a.null_table)?,
        short_table: c(&a.short_table)?,
    };
    let staging = Staging { root, artifacts };
    CLEAN_UP.set(staging.root.clone()).expect("staged once");
    // SAFETY: `clean_up` is an `extern "C" fn()` that touches only the file system and
    // standard error, and does not panic past its boundary (every error is ignored).
    unsafe { libc::atexit(clean_up) };
    Ok(staging)
}

/// A copy of the file `path` in the folder `into`, readable and executable by everyone.
fn copy(path: &Path, into: &Path) -> Result<PathBuf, String> {
    let name = path
        .file_name()
        .ok_or(format!("{} names no file", path.display()))?;
    let target = into.join(name);
    std::fs::copy(path, &target)
        .and_then(|_| std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o755)))
        .map_err(|e| format!("{} → {}: {e}", path.display(), target.display()))?;
    Ok(target)
}

/// The staging folder to remove at exit.
static CLEAN_UP: OnceLock<PathBuf> = OnceLock::new();

/// At the test process's exit: the line on `nobody`'s runs, then the copies removed, and the
/// folder unless a failed test's folder is kept in it.
extern "C" fn clean_up() {
    use std::io::Write;
    let Some(root) = CLEAN_UP.get() else { return };
    let runs = RUNS.lock().unwrap_or_else(|e| e.into_inner());
    let _ = writeln!(
        std::io::stderr(),
        "e2e: {} harness runs as nobody in {} tests (binaries staged in {})",
        runs.values().sum::<usize>(),
        runs.len(),
        root.display()
    );
    for sub in ["bin", "c"] {
        let _ = std::fs::remove_dir_all(root.join(sub));
    }
    let _ = std::fs::remove_dir(root.join("e2e"));
    let _ = std::fs::remove_dir(root);
}
