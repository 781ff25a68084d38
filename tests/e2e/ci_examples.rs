//! The CI examples of `docs/examples/` run as written: their shell steps are read from the
//! workflow file and executed with bash as a runner would, in a scratch folder laid out as the
//! workflow's checkout steps leave it, with the harness already built (no second build) and
//! the runner's variables and secrets replaced by local files and values.

use crate::support::{artifacts, s, TempDir};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// One step of a workflow: its name, its `env:` and its `run:` script.
#[derive(Debug, Default)]
struct Step {
    name: String,
    env: Vec<(String, String)>,
    run: String,
}

/// The number of spaces a line starts with.
fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The steps of a GitHub Actions workflow (the subset of YAML its files use: `- name:` items
/// with `env:` maps and `run: |` blocks).
fn steps(yml: &str) -> Vec<Step> {
    let lines: Vec<&str> = yml.lines().collect();
    let mut steps = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(name) = lines[i].trim_start().strip_prefix("- name: ") else {
            i += 1;
            continue;
        };
        let step_indent = indent(lines[i]);
        let mut step = Step {
            name: name.trim().to_string(),
            ..Step::default()
        };
        i += 1;
        while i < lines.len() {
            let line = lines[i];
            if !line.trim().is_empty() && indent(line) <= step_indent {
                break;
            }
            let key_indent = indent(line);
            let inner = |j: usize| {
                j < lines.len() && (lines[j].trim().is_empty() || indent(lines[j]) > key_indent)
            };
            if line.trim() == "env:" {
                i += 1;
                while inner(i) {
                    if let Some((k, v)) = lines[i].trim().split_once(": ") {
                        step.env.push((k.to_string(), v.to_string()));
                    }
                    i += 1;
                }
                continue;
            }
            if line.trim() == "run: |" {
                i += 1;
                let mut block = Vec::new();
                while inner(i) {
                    block.push(lines[i].get(key_indent + 2..).unwrap_or("").to_string());
                    i += 1;
                }
                step.run = block.join("\n");
                continue;
            }
            i += 1;
        }
        steps.push(step);
    }
    steps
}

/// `text` with each `${{ secrets.NAME }}` replaced by `secrets`' value for NAME; any other
/// expression fails the test (the workflow uses something the test does not provide).
fn substituted(text: &str, secrets: &[(&str, &str)]) -> String {
    let mut out = text.to_string();
    for (name, value) in secrets {
        out = out.replace(&format!("${{{{ secrets.{name} }}}}"), value);
    }
    assert!(
        !out.contains("${{"),
        "an expression the test does not provide: {out}"
    );
    out
}

/// Run `step` as a runner does (`bash --noprofile --norc -eo pipefail`), in `dir`, with `env`
/// and the step's own; returns its exit code and output.
fn run_step(
    step: &Step,
    dir: &Path,
    env: &[(String, String)],
    secrets: &[(&str, &str)],
) -> (i32, String) {
    let mut command = Command::new("bash");
    command
        .args(["--noprofile", "--norc", "-eo", "pipefail", "-c"])
        .arg(substituted(&step.run, secrets))
        .current_dir(dir);
    for (k, v) in env {
        command.env(k, v);
    }
    for (k, v) in &step.env {
        command.env(k, substituted(v, secrets));
    }
    let output = command.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.code().unwrap_or(-1), text)
}

/// A git repository in `dir` with one commit dated `date`; its commit id.
fn repository(dir: &Path, date: &str) -> String {
    std::fs::create_dir_all(dir).unwrap();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_AUTHOR_DATE", date)
            .env("GIT_COMMITTER_DATE", date)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    git(&["init", "-q"]);
    std::fs::write(dir.join("engine.c"), "/* the candidate */\n").unwrap();
    git(&["add", "."]);
    git(&[
        "-c",
        "user.name=ci",
        "-c",
        "user.email=ci@example.org",
        "commit",
        "-q",
        "-m",
        "candidate",
    ]);
    git(&["rev-parse", "HEAD"])
}

/// The steps of `docs/examples/FILE` and a new scratch folder in which the arena is checked
/// out as `arena` (a link to this repository); `None`, the test skipped, unless the tests run
/// the release build that the workflows' `arena/target/release/harness` names.
fn workflow(file: &str) -> Option<(Vec<Step>, TempDir)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let release = root.join("target/release/harness");
    if release.canonicalize().ok() != artifacts().harness.canonicalize().ok() {
        crate::support::skip(
            file,
            "the workflow runs arena/target/release/harness: run the tests with --release",
        );
        return None;
    }
    let yml = std::fs::read_to_string(root.join("docs/examples").join(file)).unwrap();
    let dir = TempDir::new(&format!("ci-{}", file.trim_end_matches(".yml")));
    std::os::unix::fs::symlink(root, dir.join("arena")).unwrap();
    Some((steps(&yml), dir))
}

/// `docs/examples/github-actions-ledger.yml` as written: its password file, its SPRT gate
/// recorded in the ledger and its history page, against a candidate weaker than its
/// baseline (the C example, which plays the first legal move, against greedy). The gate fails
/// (exit 1, FAIL in the job summary), the ledger's history shows the candidate below the
/// baseline it is anchored on, and the Elo agrees with the gate's own report.
#[test]
fn the_ledger_workflow_runs_as_written_and_shows_a_weaker_candidate_below_its_baseline() {
    let a = artifacts();
    let Some((steps, dir)) = workflow("github-actions-ledger.yml") else {
        return;
    };
    for (who, plugin) in [("candidate", &a.first_move), ("baseline", &a.greedy)] {
        let folder = dir.join("plugins").join(who);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::copy(plugin, folder.join("libmyengine.so")).unwrap();
    }
    let sha = repository(&dir.join("candidate"), "2026-11-20T10:00:00+01:00");
    let temp = dir.join("runner-temp");
    std::fs::create_dir_all(&temp).unwrap();
    let ledger = dir.join("ledger.db");
    let secrets = [
        ("LEDGER_URL", s(&ledger)),
        ("LEDGER_PASSWORD", "not-a-real-password"),
    ];
    let mut env: Vec<(String, String)> = vec![
        ("GITHUB_SHA".into(), sha.clone()),
        ("GITHUB_REF_NAME".into(), "main".into()),
        ("RUNNER_TEMP".into(), s(&temp).into()),
        ("GITHUB_ENV".into(), s(&dir.join("github-env")).into()),
        (
            "GITHUB_STEP_SUMMARY".into(),
            s(&dir.join("summary.md")).into(),
        ),
    ];
    let mut codes = Vec::new();
    for name in [
        "PostgreSQL's password file",
        "SPRT, recorded in the ledger",
        "The history page",
    ] {
        let step = steps
            .iter()
            .find(|st| st.name == name)
            .unwrap_or_else(|| panic!("no step `{name}` in the workflow: {steps:#?}"));
        let (code, output) = run_step(step, dir.path(), &env, &secrets);
        codes.push((name, code, output));
        // What a step appends to $GITHUB_ENV is in the environment of the steps after it.
        let added = std::fs::read_to_string(dir.join("github-env")).unwrap_or_default();
        for line in added.lines() {
            if let Some((k, v)) = line.split_once('=') {
                env.push((k.to_string(), v.to_string()));
            }
        }
    }
    assert_eq!(codes[0].1, 0, "{}", codes[0].2);
    assert_eq!(
        codes[1].1, 1,
        "the gate of a weaker candidate fails:\n{}",
        codes[1].2
    );
    assert_eq!(codes[2].1, 0, "{}", codes[2].2);
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(summary.contains("FAIL"), "{summary}");

    let history = Command::new(&a.harness)
        .args([
            "ledger",
            "history",
            "--engine",
            "candidate",
            "--anchor",
            "v1.2.0",
            "--json",
        ])
        .env("HARNESS_LEDGER", &ledger)
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&history.stdout);
    let row: Value = stdout
        .lines()
        .find(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .unwrap_or_else(|| panic!("no history row:\n{stdout}"));
    assert_eq!(row["commits"], serde_json::json!([sha]), "{row:#}");
    let elo = row["elo"].as_f64().unwrap();
    let (low, high) =
        crate::support::first_pairing_elo_interval(&dir.join("out/sprt-gate"), "candidate");
    assert!(elo < 0.0, "{row:#}");
    assert!(
        low <= elo && elo <= high,
        "history {elo:.1} outside the gate's [{low:.1}, {high:.1}]"
    );
    let page = std::fs::read_to_string(dir.join("site/index.html")).unwrap();
    assert!(
        page.contains(&format!("{elo:+.1}")),
        "the page shows the Elo"
    );
}

/// The source of the throwaway engine of the SPRT workflow's test: `pick` chooses the move
/// among `moves` (a bit set) in `position`.
fn rust_engine(pick: &str) -> String {
    format!(
        r#"use othello_sdk::board::{{Move, Square}};
use othello_sdk::{{Engine, Metadata, SearchContext, SearchInfo, SearchOutcome, SearchRequest}};

struct Mine;

impl Engine for Mine {{
    fn metadata() -> Metadata {{
        Metadata {{ name: "mine", version: "1", author: "ci" }}
    }}
    fn new() -> Self {{
        Mine
    }}
    fn search(&mut self, request: &SearchRequest, ctx: &SearchContext) -> SearchOutcome {{
        let position = &request.position;
        let moves = Square::iter(position.legal_moves()).map(Move::at);
        let mv = {pick}.unwrap_or(Move::PASS);
        let info = SearchInfo {{ depth: 1, pv: vec![mv], ..SearchInfo::default() }};
        ctx.report(&info);
        SearchOutcome {{ mv, info }}
    }}
}}

othello_sdk::export_engine!(Mine);
"#
    )
}

/// A throwaway git repository of a Rust engine plugin (`libmyengine.so`) in `dir`: a first
/// commit that plays the move leaving the opponent the fewest replies, then one that plays the
/// first legal move (much weaker); returns the two commit ids, baseline first.
fn engine_repository(dir: &Path, sdk: &Path) -> (String, String) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(["-c", "user.name=ci", "-c", "user.email=ci@example.org"])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    // Its own workspace: the repository is not a member of the arena's.
    let manifest = format!(
        "[package]\nname = \"myengine\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\ncrate-type = [\"cdylib\"]\n\n[dependencies]\nothello-sdk = {{ path = \"{}\" }}\n\n[workspace]\n",
        s(sdk)
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::write(dir.join(".gitignore"), "target/\n").unwrap();
    git(&["init", "-q", "-b", "main"]);
    let mut commits = Vec::new();
    for (pick, message) in [
        (
            "moves.min_by_key(|&m| position.play(m).unwrap().legal_moves().count_ones())",
            "the move leaving the opponent the fewest replies",
        ),
        ("moves.into_iter().next()", "first legal move: faster"),
    ] {
        std::fs::write(dir.join("src/lib.rs"), rust_engine(pick)).unwrap();
        git(&["add", "."]);
        git(&["commit", "-q", "-m", message]);
        commits.push(git(&["rev-parse", "HEAD"]));
    }
    (commits[0].clone(), commits[1].clone())
}

/// `docs/examples/github-actions-sprt.yml` as written: its checkouts emulated by clones of a
/// throwaway engine repository (the pull request's commit and its target branch's), then its
/// build step (both engine plugins built by cargo; the harness's build finds it built) and its
/// SPRT step, against a candidate weaker than its baseline (it plays the first legal move, the
/// baseline the move leaving the opponent the fewest replies). The gate fails: exit 1, FAIL in the summary.
#[test]
fn the_sprt_workflow_runs_as_written_and_fails_a_weaker_candidate() {
    let Some((steps, dir)) = workflow("github-actions-sprt.yml") else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let origin = dir.join("origin");
    let (base, head) = engine_repository(&origin, &root.join("engines/sdk"));
    for (path, commit) in [("candidate", &head), ("baseline", &base)] {
        let out = Command::new("git")
            .args(["clone", "-q", s(&origin), path])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let out = Command::new("git")
            .args(["-C", path, "checkout", "-q", commit])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    }
    let env: Vec<(String, String)> = vec![
        (
            "GITHUB_STEP_SUMMARY".into(),
            s(&dir.join("summary.md")).into(),
        ),
        // The runner's network is not the test's: the engines' dependencies are the arena's,
        // already in cargo's cache.
        ("CARGO_NET_OFFLINE".into(), "true".into()),
    ];
    let mut codes = Vec::new();
    for name in ["Build both engine plugins and the harness", "SPRT"] {
        let step = steps
            .iter()
            .find(|st| st.name == name)
            .unwrap_or_else(|| panic!("no step `{name}` in the workflow: {steps:#?}"));
        codes.push(run_step(step, dir.path(), &env, &[]));
    }
    assert_eq!(codes[0].0, 0, "the build step:\n{}", codes[0].1);
    assert_eq!(
        codes[1].0, 1,
        "the gate of a weaker candidate fails:\n{}",
        codes[1].1
    );
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(summary.contains("FAIL"), "{summary}");
    assert!(summary.contains("H0 accepted"), "{summary}");
}
