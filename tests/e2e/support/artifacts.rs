//! The binaries under test, built once per test process.
//!
//! `cargo test` builds no cdylib and not the harness binary for this package, so the first test
//! that needs them runs `$CARGO build [--release] -p harness -p greedy -p minimax -p heuristic
//! -p faulty --message-format=json` on the workspace (in the profile of this test binary, so
//! that a release test run tests release artifacts) and takes the paths from cargo's JSON
//! messages. A nested cargo does not wait on the outer one: `cargo test` releases the build
//! folder's lock before it runs test binaries. The C plugins (the example and the fixtures of
//! `tests/fixtures/`) are compiled with `$CC` (default `cc`) as strict C11.

use super::process::run_with_timeout;
use super::s;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

/// Generous: a cold release build of the workspace on two cores.
const BUILD_TIMEOUT: Duration = Duration::from_secs(1200);

/// Absolute paths of everything the tests run.
#[derive(Debug)]
pub struct Artifacts {
    /// The `harness` binary.
    pub harness: PathBuf,
    /// The folder of the Rust plugin libraries (for `--plugin-dir` and bare names).
    pub plugin_dir: PathBuf,
    pub greedy: PathBuf,
    pub minimax: PathBuf,
    pub heuristic: PathBuf,
    /// The `faulty` test fixture engine.
    pub faulty: PathBuf,
    /// The `external` bridge plugin (NBoard / GTP programs).
    pub external: PathBuf,
    /// The strong engine.
    pub strong: PathBuf,
    /// `engines/c_example/first_move.c`.
    pub first_move: PathBuf,
    /// The fixtures of `tests/fixtures/`.
    pub crasher: PathBuf,
    pub hanger: PathBuf,
    pub printer: PathBuf,
    pub misbehaver: PathBuf,
    /// Takes `Delay` ms over every search, ignoring the stop flag.
    pub sleeper: PathBuf,
    pub wrong_abi: PathBuf,
    pub not_a_plugin: PathBuf,
    pub null_table: PathBuf,
    pub short_table: PathBuf,
}

/// The artifacts, built on first use; a failed build fails every test that needs them.
pub fn artifacts() -> &'static Artifacts {
    static ARTIFACTS: OnceLock<Result<Artifacts, String>> = OnceLock::new();
    match ARTIFACTS.get_or_init(build_all) {
        Ok(a) => a,
        Err(e) => panic!("cannot build the binaries under test:\n{e}"),
    }
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ is inside the workspace")
        .to_path_buf()
}

fn build_all() -> Result<Artifacts, String> {
    let root = workspace_root();
    let rust = build_rust(&root)?;
    let plugin = |name: &str| {
        rust.plugins
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| p.clone())
            .ok_or_else(|| format!("cargo reported no library for `{name}`"))
    };
    let (greedy, minimax, heuristic) =
        (plugin("greedy")?, plugin("minimax")?, plugin("heuristic")?);
    let plugin_dir = greedy.parent().expect("a file has a folder").to_path_buf();
    let faulty = plugin("faulty")?;
    let external = plugin("external")?;
    let strong = plugin("strong")?;
    for p in [&minimax, &heuristic, &faulty, &external, &strong] {
        if p.parent() != Some(plugin_dir.as_path()) {
            return Err(format!(
                "{} is not in {}",
                p.display(),
                plugin_dir.display()
            ));
        }
    }

    let include = root.join("engines/abi/include");
    let fixtures = root.join("tests/fixtures");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("e2e-c");
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let common = fixtures.join("fixture_engine.c");
    let c = |name: &str, sources: &[PathBuf]| compile_c(&include, sources, &out, name, &[]);
    Ok(Artifacts {
        harness: rust.harness,
        plugin_dir,
        greedy,
        minimax,
        heuristic,
        faulty,
        external,
        strong,
        first_move: c("first_move", &[root.join("engines/c_example/first_move.c")])?,
        crasher: c("crasher", &[common.clone(), fixtures.join("crasher.c")])?,
        hanger: c("hanger", &[common.clone(), fixtures.join("hanger.c")])?,
        printer: c("printer", &[common.clone(), fixtures.join("printer.c")])?,
        misbehaver: c(
            "misbehaver",
            &[common.clone(), fixtures.join("misbehaver.c")],
        )?,
        sleeper: c("sleeper", &[common, fixtures.join("sleeper.c")])?,
        wrong_abi: c("wrong_abi", &[fixtures.join("wrong_abi.c")])?,
        not_a_plugin: c("not_a_plugin", &[fixtures.join("not_a_plugin.c")])?,
        null_table: c("null_table", &[fixtures.join("null_table.c")])?,
        short_table: c("short_table", &[fixtures.join("short_table.c")])?,
    })
}

struct RustArtifacts {
    harness: PathBuf,
    /// (target name, library path)
    plugins: Vec<(String, PathBuf)>,
}

fn build_rust(root: &Path) -> Result<RustArtifacts, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.arg("build")
        .arg("--manifest-path")
        .arg(root.join("Cargo.toml"))
        .args([
            "-p",
            "harness",
            "-p",
            "greedy",
            "-p",
            "minimax",
            "-p",
            "heuristic",
            "-p",
            "faulty",
            "-p",
            "external",
            "-p",
            "strong",
        ])
        .arg("--message-format=json");
    if !cfg!(debug_assertions) {
        cmd.arg("--release");
    }
    let output = run_with_timeout(cmd, BUILD_TIMEOUT);
    if !output.status.success() {
        return Err(output.to_string());
    }
    eprintln!("e2e: nested cargo build finished in {:.1?}", output.elapsed);
    let mut harness = None;
    let mut plugins = Vec::new();
    for line in output.stdout.lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if msg["reason"] != "compiler-artifact" {
            continue;
        }
        let name = msg["target"]["name"].as_str().unwrap_or_default();
        if name == "harness" {
            if let Some(exe) = msg["executable"].as_str() {
                harness = Some(PathBuf::from(exe));
            }
        }
        let libraries = msg["filenames"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|f| f.as_str())
            .filter(|f| f.ends_with(std::env::consts::DLL_SUFFIX));
        for lib in libraries {
            plugins.push((name.to_string(), PathBuf::from(lib)));
        }
    }
    let harness = harness.ok_or_else(|| format!("no harness executable reported:\n{output}"))?;
    for p in plugins.iter().map(|(_, p)| p).chain([&harness]) {
        if !p.is_file() {
            return Err(format!("{} does not exist after the build", p.display()));
        }
        s(p);
    }
    Ok(RustArtifacts { harness, plugins })
}

/// The C example plugin (`engines/c_example/first_move.c`) compiled into `<out>/lib<name>.so`
/// with `flags` after the usual ones (`-O0` rebuilds it into other bytes that play alike).
pub fn compile_first_move(out: &Path, name: &str, flags: &[&str]) -> PathBuf {
    let root = workspace_root();
    compile_c(
        &root.join("engines/abi/include"),
        &[root.join("engines/c_example/first_move.c")],
        out,
        name,
        flags,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// Compile C `sources` as strict C11 (then `flags`) into `<out>/lib<name>.<so>`. The library is
/// written under a temporary name and renamed, so a concurrent test process never loads a
/// half-written file.
fn compile_c(
    include: &Path,
    sources: &[PathBuf],
    out: &Path,
    name: &str,
    flags: &[&str],
) -> Result<PathBuf, String> {
    let target = out.join(format!(
        "{}{name}{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    let partial = out.join(format!("{name}.{}.partial", std::process::id()));
    let cc = std::env::var_os("CC").unwrap_or_else(|| "cc".into());
    let mut cmd = Command::new(cc);
    cmd.args([
        "-std=c11",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-pedantic",
        "-O2",
        "-shared",
        "-fPIC",
    ])
    .args(flags)
    .arg("-I")
    .arg(include)
    .args(sources)
    .arg("-o")
    .arg(&partial);
    let output = run_with_timeout(cmd, Duration::from_secs(120));
    if !output.status.success() {
        return Err(format!("cannot compile {name}:\n{output}"));
    }
    std::fs::rename(&partial, &target).map_err(|e| format!("{}: {e}", target.display()))?;
    Ok(target)
}
