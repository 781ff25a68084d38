//! `git bisect run` driven by the harness (`run --exit-codes bisect`): a throwaway repository
//! of 12 commits of a small C engine, built by `cc` at each step; the 7th commit breaks it (it
//! passes when it has a legal move, an illegal move that forfeits every game). Each step is an
//! SPRT of the commit against a fixed build of the first one: H1 (not weaker than 150 Elo
//! below) is good, H0 is bad. Bisection must name the 7th commit, and every step is in the
//! ledger.

use crate::support::{artifacts, compile_first_move, harness, s, TempDir};
use std::path::Path;
use std::process::Command;

/// `git` in `repo` with a throwaway identity; panics unless it succeeds. Its stdout.
fn git(repo: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=bisect test",
            "-c",
            "user.email=bisect@test.invalid",
        ])
        .args(args)
        .current_dir(repo)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The C example engine with a switch that breaks it, at revision `revision`.
fn engine_source(example: &str, revision: u32, broken: bool) -> String {
    let marker = "    oe_search_info info;\n";
    assert!(
        example.contains(marker),
        "first_move.c changed: update this test"
    );
    let source = example.replacen(
        marker,
        "    if (BROKEN && count > 0) {\n        move = OE_MOVE_PASS;\n    }\n    oe_search_info info;\n",
        1,
    );
    format!(
        "/* revision {revision} */\nstatic const int BROKEN = {};\n{source}",
        i32::from(broken)
    )
}

#[test]
fn git_bisect_run_names_the_commit_that_lost_elo() {
    if Command::new("git").arg("--version").output().is_err() {
        crate::support::skip("git_bisect_run_names_the_commit_that_lost_elo", "no git");
        return;
    }
    let dir = TempDir::new("bisect");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let example = std::fs::read_to_string(root.join("engines/c_example/first_move.c")).unwrap();
    let include = root.join("engines/abi/include");
    let baseline = compile_first_move(&dir.join("."), "baseline", &[]);
    let repo = dir.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    std::fs::write(
        repo.join("build.sh"),
        format!(
            "set -e\ncc -std=c11 -O1 -shared -fPIC -I '{}' engine.c -o libcand.so\n",
            s(&include)
        ),
    )
    .unwrap();
    let mut commits = Vec::new();
    for revision in 1..=12 {
        std::fs::write(
            repo.join("engine.c"),
            engine_source(&example, revision, revision >= 7),
        )
        .unwrap();
        git(&repo, &["add", "-A"]);
        git(
            &repo,
            &["commit", "-q", "-m", &format!("revision {revision}")],
        );
        commits.push(git(&repo, &["rev-parse", "HEAD"]).trim().to_string());
    }
    // One step: build the commit, then an SPRT against the first build, into a folder of
    // its own, recorded in the ledger.
    let step = format!(
        "set -e\nsh build.sh || exit 125\nsha=$(git rev-parse HEAD)\n\
         exec '{harness}' run --engine name=cand,plugin=$PWD/libcand.so \
         --engine name=base,plugin='{baseline}',Skip=1 --format match --time depth=1 \
         --pairs 300 --openings xot-large --openings-seed 3 --sprt elo0=-400,elo1=-150 \
         --no-tui --out '{runs}'/$sha --ledger '{db}' --exit-codes bisect\n",
        harness = s(&artifacts().harness),
        baseline = s(&baseline),
        runs = s(&dir.join("runs")),
        db = s(&dir.join("bisect.db")),
    );
    std::fs::write(dir.join("step.sh"), step).unwrap();
    git(&repo, &["bisect", "start", &commits[11], &commits[0]]);
    let started = std::time::Instant::now();
    let out = Command::new("git")
        .args(["bisect", "run", "sh", s(&dir.join("step.sh"))])
        .current_dir(&repo)
        .output()
        .expect("git bisect run");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        said.contains(&format!("{} is the first bad commit", commits[6])),
        "{said}"
    );
    // Every step is in the ledger, as a finished run with its verdict.
    let steps = std::fs::read_dir(dir.join("runs")).unwrap().count();
    assert!(steps >= 3, "{steps} steps");
    println!(
        "bisect: {steps} SPRT steps in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let listed = harness(
        dir.path(),
        &[
            "ledger",
            "runs",
            "--json",
            "--ledger",
            s(&dir.join("bisect.db")),
        ],
    );
    listed.assert_success();
    let runs: Vec<serde_json::Value> = listed
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(runs.len(), steps, "{}", listed.stdout);
    for r in &runs {
        let outcome = r["verdict"]["outcome"].as_str().unwrap_or("-");
        assert!(["pass", "fail"].contains(&outcome), "{r}");
    }
}
