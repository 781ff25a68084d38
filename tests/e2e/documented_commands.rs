//! Every command block of `README.md` and `docs/guide/*.md` runs as written, or says why not.
//!
//! A command block is a fenced block marked `sh`, `bash`, `shell` or `console` (in a `console`
//! block the lines starting with `$ ` are the commands and the others their expected output).
//! HTML comments on the lines just above a block direct the test:
//! - `<!-- not run: REASON -->`: the block is counted, not run (it needs a cluster, runs for
//!   hours, needs the reader's own repository or a terminal);
//! - `<!-- exit: N -->`: the exit code it must end with (default 0);
//! - `<!-- output: TEXT -->`: a text its standard output or error must hold (any number).
//!
//! The blocks of one page run in order, each with `bash -eo pipefail` as a reader's shell
//! would stop at the first failure, in one scratch folder per page that holds the repository's
//! `engines/`, `examples/`, `docs/`, `openings/` and `target/` (links to them) and nothing else,
//! with the harness already built: `target/release` first on `PATH`, so both `harness` and
//! `./target/release/harness` are the binary under test. Two pages run at once (the machines
//! that run the tests have two cores, and the examples play timed games). A second test runs
//! them all again in reading order (the README, then the guide's pages as its index lists
//! them) in one folder, where one page's runs meet another's folders. A hand-written
//! extractor rather than `trycmd`: the blocks are shell scripts (pipes, heredocs, variables,
//! several commands whose later ones read what the earlier wrote), which `trycmd`'s one command
//! per case does not run.

use crate::support::{artifacts, run_with_timeout, TempDir};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The longest any one block may take; the examples are chosen to take seconds.
const BLOCK_TIMEOUT: Duration = Duration::from_secs(90);

/// The languages whose blocks are commands.
const COMMAND_LANGUAGES: &[&str] = &["sh", "bash", "shell", "console"];

/// What the comments above a block ask of it.
#[derive(Debug, Default, Clone)]
struct Directives {
    not_run: Option<String>,
    exit: i32,
    output: Vec<String>,
}

/// One command block of a page.
#[derive(Debug, Clone)]
struct Block {
    /// `page:line` of its opening fence.
    place: String,
    script: String,
    directives: Directives,
}

/// The directives of the comment lines `comments` (each `<!-- key: value -->`, several on a
/// line allowed); an unknown key is an error naming `place`.
fn directives(comments: &[&str], place: &str) -> Result<Directives, String> {
    let mut d = Directives::default();
    for line in comments {
        for part in line.split("<!--").skip(1) {
            let body = part
                .split("-->")
                .next()
                .ok_or_else(|| format!("{place}: an unclosed comment"))?
                .trim();
            let (key, value) = body.split_once(':').unwrap_or((body, ""));
            let value = value.trim().to_string();
            match key.trim() {
                "not run" if !value.is_empty() => d.not_run = Some(value),
                "exit" => {
                    d.exit = value
                        .parse()
                        .map_err(|_| format!("{place}: `exit: {value}` is not an exit code"))?
                }
                "output" if !value.is_empty() => d.output.push(value),
                other => {
                    return Err(format!(
                        "{place}: `{other}` is not a directive (not run: REASON, exit: N, output: TEXT)"
                    ))
                }
            }
        }
    }
    Ok(d)
}

/// The command blocks of the Markdown `text` of `page`, with their directives. A directive
/// comment not followed by a command block is an error (it would silently direct nothing).
fn blocks(page: &str, text: &str) -> Result<Vec<Block>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(language) = lines[i].strip_prefix("```") else {
            i += 1;
            continue;
        };
        let language = language.trim().to_string();
        let fence = i;
        let mut end = fence + 1;
        while end < lines.len() && !lines[end].starts_with("```") {
            end += 1;
        }
        let mut first_comment = fence;
        while first_comment > 0 && lines[first_comment - 1].trim_start().starts_with("<!--") {
            first_comment -= 1;
        }
        let place = format!("{page}:{}", fence + 1);
        if COMMAND_LANGUAGES.contains(&language.as_str()) {
            let body = &lines[fence + 1..end.min(lines.len())];
            let (script, expected) = if language == "console" {
                console(body)
            } else {
                (body.join("\n"), Vec::new())
            };
            let mut d = directives(&lines[first_comment..fence], &place)?;
            d.output.extend(expected);
            found.push(Block {
                place,
                script,
                directives: d,
            });
        } else if first_comment < fence {
            return Err(format!(
                "{place}: a directive above a `{language}` block, which is not a command block"
            ));
        }
        i = end + 1;
    }
    // A directive comment must stand right above a command block's fence.
    for (n, line) in lines.iter().enumerate() {
        let directive = ["<!-- not run", "<!-- exit", "<!-- output"]
            .iter()
            .any(|d| line.contains(d));
        let next = lines[n + 1..]
            .iter()
            .find(|l| !l.trim_start().starts_with("<!--"));
        if directive && !next.is_some_and(|l| l.starts_with("```")) {
            return Err(format!(
                "{page}:{}: a directive with no command block below it",
                n + 1
            ));
        }
    }
    Ok(found)
}

/// A `console` block's commands (lines after `$ `, with their `\` continuations) and its
/// expected output lines.
fn console(body: &[&str]) -> (String, Vec<String>) {
    let mut script = Vec::new();
    let mut expected = Vec::new();
    let mut continued = false;
    for line in body {
        if let Some(command) = line.strip_prefix("$ ") {
            script.push(command.to_string());
            continued = command.ends_with('\\');
        } else if continued {
            script.push(line.to_string());
            continued = line.ends_with('\\');
        } else if !line.trim().is_empty() {
            expected.push(line.trim().to_string());
        }
    }
    (script.join("\n"), expected)
}

/// The Markdown pages whose blocks run: the README and every page of the guide.
fn pages(root: &Path) -> Vec<PathBuf> {
    let mut pages = vec![root.join("README.md")];
    let mut guide: Vec<PathBuf> = std::fs::read_dir(root.join("docs/guide"))
        .expect("docs/guide")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    guide.sort();
    pages.extend(guide);
    pages
}

/// The pages in reading order: the README, the guide's index, then the guide's pages in the
/// order the index first links them, and any page it does not link after them, by name.
fn reading_order(root: &Path) -> Vec<PathBuf> {
    let guide = root.join("docs/guide");
    let index = std::fs::read_to_string(guide.join("README.md")).expect("docs/guide/README.md");
    let mut ordered = vec![root.join("README.md"), guide.join("README.md")];
    for link in index.split("](").skip(1) {
        let target = link.split([')', '#']).next().unwrap_or("");
        let page = guide.join(target);
        if target.ends_with(".md") && !target.contains('/') && !ordered.contains(&page) {
            ordered.push(page);
        }
    }
    for page in pages(root) {
        if !ordered.contains(&page) {
            ordered.push(page);
        }
    }
    ordered.retain(|p| p.is_file());
    ordered
}

/// A scratch folder for one page: links to the repository's folders the documents name.
fn scratch(root: &Path, page: &str) -> TempDir {
    let label = format!("doc-{}", page.replace(['/', '.'], "-"));
    let dir = TempDir::new(&label);
    for folder in ["engines", "examples", "docs", "openings", "target"] {
        std::os::unix::fs::symlink(root.join(folder), dir.join(folder)).unwrap();
    }
    dir
}

/// Run `block` in `dir` with `release` first on `PATH`; a failure's description, if any.
fn run(block: &Block, dir: &Path, release: &Path) -> Option<String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![release.to_path_buf()];
    paths.extend(std::env::split_paths(&path));
    let mut command = Command::new("bash");
    command
        .args(["--noprofile", "--norc", "-eo", "pipefail", "-c"])
        .arg(&block.script)
        .current_dir(dir)
        .env("PATH", std::env::join_paths(paths).unwrap())
        .env_remove("HARNESS_LEDGER")
        .env_remove("HARNESS_WEB_TOKEN");
    let out = run_with_timeout(command, BLOCK_TIMEOUT);
    let code = out.status.code().unwrap_or(-1);
    let text = format!("{}{}", out.stdout, out.stderr);
    let mut wrong = Vec::new();
    if code != block.directives.exit {
        wrong.push(format!(
            "exit code {code}, expected {}",
            block.directives.exit
        ));
    }
    for expected in &block.directives.output {
        if !text.contains(expected.as_str()) {
            wrong.push(format!("no `{expected}` in its output"));
        }
    }
    (!wrong.is_empty()).then(|| {
        format!(
            "{}: {}\n--- the block:\n{}\n--- its output:\n{text}",
            block.place,
            wrong.join("; "),
            block.script
        )
    })
}

/// The repository's root and `target/release`, whose harness the documents run; `None` (the
/// test skipped) unless the tests run that build.
fn release_build(test: &str) -> Option<(&'static Path, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let release = root.join("target/release");
    if release.join("harness").canonicalize().ok() != artifacts().harness.canonicalize().ok() {
        crate::support::skip(
            test,
            "the documents run target/release/harness: run the tests with --release",
        );
        return None;
    }
    Some((root, release))
}

/// The blocks to run of each of `pages` (in their order, pages with none left out) and the
/// blocks marked not run. Without a python3 on PATH the Python blocks are left out (CI must
/// not).
fn blocks_of(root: &Path, pages: &[PathBuf]) -> (Vec<(String, Vec<Block>)>, Vec<Block>) {
    let mut work: Vec<(String, Vec<Block>)> = Vec::new();
    let mut not_run = Vec::new();
    for page in pages {
        let name = page.strip_prefix(root).unwrap().display().to_string();
        let text = std::fs::read_to_string(page).unwrap();
        let found = blocks(&name, &text).unwrap_or_else(|e| panic!("{e}"));
        let (skipped, to_run): (Vec<Block>, Vec<Block>) = found
            .into_iter()
            .partition(|b| b.directives.not_run.is_some());
        not_run.extend(skipped);
        if !to_run.is_empty() {
            work.push((name, to_run));
        }
    }
    let has_python = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .any(|dir| dir.join("python3").is_file());
    if !has_python {
        crate::support::skip("the Python blocks", "no python3 on PATH");
        for (_, blocks) in &mut work {
            blocks.retain(|b| !b.script.contains("python3"));
        }
    }
    (work, not_run)
}

/// Run the blocks of one page in order in `dir`, up to the first that fails (the page's later
/// blocks may read what it was to write); each block's time goes to `timings`. The failure,
/// if any.
fn run_page(
    page_blocks: &[Block],
    dir: &Path,
    release: &Path,
    timings: &Mutex<Vec<(String, Duration)>>,
) -> Option<String> {
    for block in page_blocks {
        let started = Instant::now();
        let failure = run(block, dir, release);
        timings
            .lock()
            .unwrap()
            .push((block.place.clone(), started.elapsed()));
        if failure.is_some() {
            return failure;
        }
    }
    None
}

/// The blocks' times, longest first, on standard error.
fn say_timings(timings: Mutex<Vec<(String, Duration)>>) {
    let mut timings = timings.into_inner().unwrap();
    timings.sort_by_key(|t| std::cmp::Reverse(t.1));
    let total: Duration = timings.iter().map(|t| t.1).sum();
    for (place, took) in &timings {
        eprintln!("{place}: {:.1} s", took.as_secs_f64());
    }
    eprintln!("{} blocks in {:.1} s", timings.len(), total.as_secs_f64());
}

#[test]
fn every_command_block_of_the_readme_and_the_guide_runs_or_says_why_not() {
    let Some((root, release)) = release_build("documented commands") else {
        return;
    };
    let (work, not_run) = blocks_of(root, &pages(root));
    let total: usize = work.iter().map(|(_, b)| b.len()).sum();
    let queue = Mutex::new(work);
    let failures = Mutex::new(Vec::new());
    let timings = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let Some((page, page_blocks)) = queue.lock().unwrap().pop() else {
                    break;
                };
                let dir = scratch(root, &page);
                if let Some(f) = run_page(&page_blocks, dir.path(), &release, &timings) {
                    failures.lock().unwrap().push(f);
                }
            });
        }
    });
    say_timings(timings);
    eprintln!(
        "{total} command blocks run, {} marked not run:",
        not_run.len()
    );
    for b in &not_run {
        eprintln!(
            "  {}: {}",
            b.place,
            b.directives.not_run.as_deref().unwrap()
        );
    }
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(total >= 10, "only {total} blocks ran");
}

/// The README and the guide's pages in reading order ([`reading_order`]), all in one folder,
/// one block at a time: a reader who follows them in one shell, where a page's commands meet
/// what the pages before left (the default output folders `out/a-vs-b` of two pages with the
/// same engine names, for one). A page that fails stops there; the next page goes on. Its
/// cost is the sum of every block's time, about as much again as the test above takes on two
/// cores (the blocks printed with their times say it).
#[test]
fn the_readme_and_the_guide_run_in_reading_order_in_one_folder() {
    let Some((root, release)) = release_build("documented commands in one folder") else {
        return;
    };
    let (work, _) = blocks_of(root, &reading_order(root));
    let dir = scratch(root, "reading-order");
    let timings = Mutex::new(Vec::new());
    let failures: Vec<String> = work
        .iter()
        .filter_map(|(_, page_blocks)| run_page(page_blocks, dir.path(), &release, &timings))
        .collect();
    say_timings(timings);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_extractor_reads_directives_and_refuses_stray_ones() {
    let page = "intro\n\n<!-- exit: 3 --> <!-- output: done -->\n```sh\nharness run\n```\n\n<!-- not run: needs a cluster -->\n```sh\nsbatch x\n```\n\n```toml\n[a]\n```\n\n```console\n$ harness sprt \\\n  --wdl 1,2,3\nH0 accepted\n```\n";
    let found = blocks("p.md", page).unwrap();
    assert_eq!(found.len(), 3, "{found:#?}");
    assert_eq!(found[0].directives.exit, 3);
    assert_eq!(found[0].directives.output, vec!["done".to_string()]);
    assert_eq!(found[0].place, "p.md:4");
    assert_eq!(
        found[1].directives.not_run.as_deref(),
        Some("needs a cluster")
    );
    assert_eq!(found[2].script, "harness sprt \\\n  --wdl 1,2,3");
    assert_eq!(found[2].directives.output, vec!["H0 accepted".to_string()]);
    let stray = blocks("p.md", "<!-- not run: why -->\n\ntext\n```sh\nx\n```\n").unwrap_err();
    assert!(stray.contains("p.md:1"), "{stray}");
    let unknown = blocks("p.md", "<!-- skip -->\n```sh\nx\n```\n").unwrap_err();
    assert!(unknown.contains("`skip` is not a directive"), "{unknown}");
    let reasonless = blocks("p.md", "<!-- not run: -->\n```sh\nx\n```\n").unwrap_err();
    assert!(reasonless.contains("not run"), "{reasonless}");
}

/// The relative links of `text` (a page at `page`, a path under `root`) that lead to no file,
/// or to a heading its page does not have (`page.md#anchor`, GitHub's anchors: lower case,
/// spaces to hyphens, punctuation dropped).
fn broken_links(root: &Path, page: &Path, text: &str) -> Vec<String> {
    let anchor = |heading: &str| -> String {
        heading
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
            .map(|c| if c == ' ' { '-' } else { c })
            .collect()
    };
    let mut broken = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        let Some(end) = rest.find(')') else { break };
        let link = &rest[..end];
        if link.contains("://") || link.starts_with("mailto:") {
            continue;
        }
        let (file, fragment) = link.split_once('#').unwrap_or((link, ""));
        let target = if file.is_empty() {
            page.to_path_buf()
        } else {
            page.parent().unwrap().join(file)
        };
        let shown = format!("{}: {link}", page.strip_prefix(root).unwrap().display());
        if !target.exists() {
            broken.push(format!("{shown} (no such file)"));
        } else if !fragment.is_empty() {
            let headings = std::fs::read_to_string(&target).unwrap_or_default();
            let found = headings
                .lines()
                .filter(|l| l.starts_with('#'))
                .any(|l| anchor(l.trim_start_matches('#')) == fragment);
            if !found {
                broken.push(format!("{shown} (no such heading)"));
            }
        }
    }
    broken
}

#[test]
fn every_relative_link_of_the_readme_and_the_guide_leads_somewhere() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut broken = Vec::new();
    for page in pages(root) {
        let text = std::fs::read_to_string(&page).unwrap();
        broken.extend(broken_links(root, &page, &text));
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}
