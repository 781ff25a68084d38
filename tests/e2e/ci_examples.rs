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

/// The variables the job's own `env:` gives its steps on the matrix's `ubuntu-latest` leg,
/// the one leg this machine can run (a workflow whose job has no matrix: none): each
/// `NAME: ${{ matrix.KEY }}` with that leg's KEY.
fn linux_leg(yml: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = yml.lines().collect();
    let Some(at) = lines.iter().position(|l| l.trim() == "- os: ubuntu-latest") else {
        return Vec::new();
    };
    let mut leg = Vec::new();
    for line in lines[at + 1..]
        .iter()
        .take_while(|l| indent(l) > indent(lines[at]))
    {
        if let Some((k, v)) = line.trim().split_once(": ") {
            leg.push((k.to_string(), v.trim().to_string()));
        }
    }
    let mut env = Vec::new();
    let Some(job_env) = lines.iter().position(|l| l.trim_end() == "    env:") else {
        return env;
    };
    for line in lines[job_env + 1..].iter().take_while(|l| indent(l) > 4) {
        let Some((name, value)) = line.trim().split_once(": ") else {
            continue;
        };
        let value = value.split('#').next().unwrap_or("").trim();
        let key = value
            .strip_prefix("${{ matrix.")
            .and_then(|v| v.strip_suffix(" }}"))
            .unwrap_or_else(|| panic!("the job's {name} is not a matrix value: {value}"));
        let (_, value) = leg
            .iter()
            .find(|(k, _)| k == key)
            .unwrap_or_else(|| panic!("the ubuntu-latest leg has no {key}: {leg:?}"));
        env.push((name.to_string(), value.clone()));
    }
    env
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

/// A commit of the file `engine.c` with `text` in the git repository `dir` (made if need
/// be), dated `date`; its commit id.
fn commit(dir: &Path, text: &str, date: &str) -> String {
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
    if !dir.join(".git").exists() {
        git(&["init", "-q"]);
    }
    std::fs::write(dir.join("engine.c"), text).unwrap();
    git(&["add", "."]);
    git(&[
        "-c",
        "user.name=ci",
        "-c",
        "user.email=ci@example.org",
        "commit",
        "-q",
        "-m",
        text,
    ]);
    git(&["rev-parse", "HEAD"])
}

/// One job of a workflow: the steps named `names`, in order, in the workspace `dir`, with the
/// runner's variables `env` and the job's own step summary `summary` and `$GITHUB_ENV` file
/// (what a step appends to it is in the environment of the steps after it); each step's name,
/// exit code and output.
fn job<'a>(
    steps: &[Step],
    names: &[&'a str],
    dir: &Path,
    env: &[(String, String)],
    secrets: &[(&str, &str)],
    summary: &Path,
) -> Vec<(&'a str, i32, String)> {
    let github_env = summary.with_extension("env");
    let mut env = env.to_vec();
    env.push(("GITHUB_STEP_SUMMARY".into(), s(summary).into()));
    env.push(("GITHUB_ENV".into(), s(&github_env).into()));
    let mut codes = Vec::new();
    for name in names {
        let step = steps
            .iter()
            .find(|st| st.name == *name)
            .unwrap_or_else(|| panic!("no step `{name}` in the workflow: {steps:#?}"));
        let (code, output) = run_step(step, dir, &env, secrets);
        codes.push((*name, code, output));
        let added = std::fs::read_to_string(&github_env).unwrap_or_default();
        for line in added.lines() {
            if let Some((k, v)) = line.split_once('=') {
                env.push((k.to_string(), v.to_string()));
            }
        }
    }
    codes
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

/// The job summaries of two pushes, a passing gate then a failing one: the first shows H1
/// accepted, the second FAIL and H0 accepted, and nothing of the first run's report.
fn each_its_own_run(summaries: &[String]) {
    assert!(summaries[0].contains("H1 accepted"), "{}", summaries[0]);
    assert!(!summaries[0].contains("FAIL"), "{}", summaries[0]);
    assert!(summaries[1].contains("FAIL"), "{}", summaries[1]);
    assert!(summaries[1].contains("H0 accepted"), "{}", summaries[1]);
    assert!(!summaries[1].contains("H1 accepted"), "{}", summaries[1]);
}

/// The history rows of the engine `candidate` in `ledger`, anchored on v1.2.0.
fn history_rows(dir: &Path, ledger: &Path) -> Vec<Value> {
    let history = Command::new(&artifacts().harness)
        .args([
            "ledger",
            "history",
            "--engine",
            "candidate",
            "--anchor",
            "v1.2.0",
            "--json",
        ])
        .env("HARNESS_LEDGER", ledger)
        .current_dir(dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&history.stdout);
    stdout
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `docs/examples/github-actions-ledger.yml` as written, on a self-hosted runner whose
/// workspace persists between jobs: two pushes gated in the same workspace, each job running
/// its password file, its SPRT gate recorded in the ledger and its history page, against the
/// same baseline (greedy). The first push's candidate is stronger (minimax, depth 7): its gate
/// passes. The second's is weaker (the C example, which plays the first legal move): its gate
/// fails (exit 1), its job summary shows its own FAIL and nothing of the first run's, and the
/// ledger's history shows it below the baseline it is anchored on, with the Elo of the gate's
/// own report.
#[test]
fn the_ledger_workflow_gates_two_pushes_in_one_workspace_and_shows_each_its_own_run() {
    let a = artifacts();
    let Some((steps, dir)) = workflow("github-actions-ledger.yml") else {
        return;
    };
    let baseline = dir.join("plugins/baseline");
    std::fs::create_dir_all(&baseline).unwrap();
    std::fs::copy(&a.greedy, baseline.join("libmyengine.so")).unwrap();
    let temp = dir.join("runner-temp");
    std::fs::create_dir_all(&temp).unwrap();
    let ledger = dir.join("ledger.db");
    let secrets = [
        ("LEDGER_URL", s(&ledger)),
        ("LEDGER_PASSWORD", "not-a-real-password"),
    ];
    let names = [
        "PostgreSQL's password file",
        "SPRT, recorded in the ledger",
        "The history page",
    ];
    let pushes = [
        (&a.minimax, "/* minimax */", "2026-11-20T10:00:00+01:00", 0),
        (
            &a.first_move,
            "/* first move */",
            "2026-11-21T10:00:00+01:00",
            1,
        ),
    ];
    let mut commits = Vec::new();
    let mut summaries = Vec::new();
    for (n, (plugin, source, date, expected)) in pushes.into_iter().enumerate() {
        let push = n + 1;
        let candidate = dir.join("plugins/candidate");
        std::fs::create_dir_all(&candidate).unwrap();
        std::fs::copy(plugin, candidate.join("libmyengine.so")).unwrap();
        let sha = commit(&dir.join("candidate"), source, date);
        let env: Vec<(String, String)> = vec![
            ("GITHUB_SHA".into(), sha.clone()),
            ("GITHUB_REF_NAME".into(), "main".into()),
            ("RUNNER_TEMP".into(), s(&temp).into()),
        ];
        let summary = dir.join(format!("summary-{push}.md"));
        let codes = job(&steps, &names, dir.path(), &env, &secrets, &summary);
        assert_eq!(codes[0].1, 0, "push {push}: {}", codes[0].2);
        assert_eq!(
            codes[1].1, expected,
            "push {push}: the gate exits {expected}:\n{}",
            codes[1].2
        );
        assert_eq!(codes[2].1, 0, "push {push}: {}", codes[2].2);
        commits.push(sha);
        summaries.push(std::fs::read_to_string(&summary).unwrap_or_default());
    }
    each_its_own_run(&summaries);

    let rows = history_rows(dir.path(), &ledger);
    let elo_of = |sha: &str| {
        let row = rows
            .iter()
            .find(|r| r["commits"] == serde_json::json!([sha]))
            .unwrap_or_else(|| panic!("no history row of {sha}: {rows:#?}"));
        row["elo"].as_f64().unwrap()
    };
    assert!(elo_of(&commits[0]) > 0.0, "{rows:#?}");
    let elo = elo_of(&commits[1]);
    let (low, high) =
        crate::support::first_pairing_elo_interval(&dir.join("out/sprt-gate"), "candidate");
    assert!(elo < 0.0, "{rows:#?}");
    assert!(
        low <= elo && elo <= high,
        "history {elo:.1} outside the second gate's [{low:.1}, {high:.1}]"
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

/// A throwaway git repository of a Rust engine plugin (`libmyengine.so`) in `dir`, three
/// commits: the target branch's, which plays the move leaving the opponent the fewest replies;
/// a first push of the pull request, which takes a corner when it can and otherwise plays as
/// the target branch (stronger); a second push, which plays the first legal move (much
/// weaker). Returns the three commit ids in that order.
fn engine_repository(dir: &Path, sdk: &Path) -> [String; 3] {
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
    let replies = "position.play(m).unwrap().legal_moves().count_ones()";
    let corner = "m.square().unwrap().bit() & 0x8100_0000_0000_0081 == 0";
    let picks = [
        (
            format!("moves.min_by_key(|&m| {replies})"),
            "the move leaving the opponent the fewest replies",
        ),
        (
            format!("moves.min_by_key(|&m| ({corner}, {replies}))"),
            "a corner first",
        ),
        (
            "moves.into_iter().next()".to_string(),
            "first legal move: faster",
        ),
    ];
    picks.map(|(pick, message)| {
        std::fs::write(dir.join("src/lib.rs"), rust_engine(&pick)).unwrap();
        git(&["add", "."]);
        git(&["commit", "-q", "-m", message]);
        git(&["rev-parse", "HEAD"])
    })
}

/// `git` with `args` in `dir`, which must succeed.
fn git_in(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// `docs/examples/github-actions-sprt.yml` as written, twice in one workspace (as a
/// self-hosted runner keeps it): its checkouts emulated by clones of a throwaway engine
/// repository (the pull request's commit and its target branch's), then its build step (both
/// engine plugins built by cargo; the harness's build finds it built) and its SPRT step, for
/// two pushes to the pull request. The first push's candidate is stronger than the target
/// branch's build (it takes corners): the gate passes. The second's is weaker (it plays the
/// first legal move): the gate fails, exit 1, and that job's summary shows FAIL, H0 accepted
/// and nothing of the first run's.
#[test]
fn the_sprt_workflow_gates_two_pushes_in_one_workspace_and_shows_each_its_own_run() {
    let Some((steps, dir)) = workflow("github-actions-sprt.yml") else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let origin = dir.join("origin");
    let [base, stronger, weaker] = engine_repository(&origin, &root.join("engines/sdk"));
    for path in ["candidate", "baseline"] {
        git_in(dir.path(), &["clone", "-q", s(&origin), path]);
    }
    git_in(&dir.join("baseline"), &["checkout", "-q", &base]);
    // The runner's network is not the test's: the engines' dependencies are the arena's,
    // already in cargo's cache.
    let mut env: Vec<(String, String)> = vec![("CARGO_NET_OFFLINE".into(), "true".into())];
    // The Linux leg of the workflow's matrix (its Windows and macOS legs need those systems).
    let yml = std::fs::read_to_string(root.join("docs/examples/github-actions-sprt.yml")).unwrap();
    env.extend(linux_leg(&yml));
    assert!(
        env.iter()
            .any(|(k, v)| k == "PLUGIN" && v == "libmyengine.so"),
        "{env:?}"
    );
    let names = ["Build both engine plugins and the harness", "SPRT"];
    let mut summaries = Vec::new();
    for (push, head, expected) in [(1, &stronger, 0), (2, &weaker, 1)] {
        git_in(&dir.join("candidate"), &["checkout", "-q", head]);
        let summary = dir.join(format!("summary-{push}.md"));
        let codes = job(&steps, &names, dir.path(), &env, &[], &summary);
        assert_eq!(
            codes[0].1, 0,
            "push {push}: the build step:\n{}",
            codes[0].2
        );
        assert_eq!(
            codes[1].1, expected,
            "push {push}: the gate exits {expected}:\n{}",
            codes[1].2
        );
        summaries.push(std::fs::read_to_string(&summary).unwrap_or_default());
    }
    each_its_own_run(&summaries);
}
