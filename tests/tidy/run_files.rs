//! Run files read by their types: the harness, its core and its ledger read `tournament.json`,
//! `verdict.json`, `clock.json`, the ledger's stored classes and the other run files through
//! serde types (`TournamentRecord`, `Conclusion`, `Conditions`, …), never by string keys of a
//! `serde_json::Value` (`v["outcome"]`), which read a renamed or mistyped key as absent and say
//! nothing. Building a value (`v["read"] = …`) is not reading one; tests are exempt.

use crate::limits::non_test_lines;

/// The folders whose code reads run files.
const READERS: [&str; 3] = ["harness/src", "harness/core/src", "harness/ledger/src"];

/// The string-key reads in `line`: `x["key"]` (and `x["a"]["b"]`) that is not assigned to.
fn string_key_reads(line: &str) -> usize {
    let bytes = line.as_bytes();
    let mut found = 0;
    let mut i = 0;
    while let Some(at) = line[i..].find("[\"").map(|p| p + i) {
        i = at + 2;
        // Indexing follows a name, a call or another index; `== ["name"]` is a slice.
        let indexes = at > 0 && {
            let before = bytes[at - 1];
            before.is_ascii_alphanumeric() || b"_])".contains(&before)
        };
        // A key: a word, closed at once (`s["Threads:".len()..]` slices a string).
        let key = line[at + 2..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .map(|k| at + 2 + k);
        let keyed = key.is_some_and(|k| line[k..].starts_with("\"]"));
        if !indexes || !keyed {
            continue;
        }
        // Past this index and any chained ones: an assignment builds the value.
        let mut end = at;
        while line[end..].starts_with("[\"") {
            match line[end + 2..].find("\"]") {
                Some(close) => end += 2 + close + 2,
                None => break,
            }
        }
        let rest = line[end..].trim_start();
        let assigned = rest.starts_with('=') && !rest.starts_with("==");
        if !assigned {
            found += 1;
        }
        i = end.max(i);
    }
    found
}

/// `file:line: text` of every string-key read in the readers' non-test code.
fn reads() -> Vec<String> {
    non_test_lines(&READERS)
        .into_iter()
        .filter(|(_, _, line)| !line.trim_start().starts_with("//") && string_key_reads(line) > 0)
        .map(|(rel, n, line)| format!("{rel}:{n}: {}", line.trim()))
        .collect()
}

#[test]
fn run_files_are_read_by_their_types() {
    let found = reads();
    assert!(
        found.is_empty(),
        "a run file read by string keys (read it through its serde type):\n{}",
        found.join("\n")
    );
}

/// The check finds the reads it looks for and passes the rest.
#[test]
fn the_run_file_check_finds_what_it_looks_for() {
    for line in [
        r#"verdict["outcome"].as_str()"#,
        r#"let x = &c["openings"]["source"];"#,
        r#"f(v)["key"] == 1"#,
    ] {
        assert_eq!(string_key_reads(line), 1, "{line}");
    }
    for line in [
        r#"v["read"] = serde_json::json!(self.read);"#,
        r#"other["a"]["b"] = 2;"#,
        r#"if edit.path == ["name"] {"#,
        r#"let words = ["a", "b"];"#,
        r#"line["Threads:".len()..].trim()"#,
    ] {
        assert_eq!(string_key_reads(line), 0, "{line}");
    }
}

/// The fields of the run files' types (`harness/core/src/record`, and the ledger's stored
/// classes) that are JSON values: each type may keep one catch-all, `other`, for the keys of
/// a newer version; every other field is a type of its own, so that a changed shape is an
/// error on reading, never a value passed on unread.
fn untyped_fields() -> Vec<String> {
    non_test_lines(&["harness/core/src/record", "harness/ledger/src/entry.rs"])
        .into_iter()
        .filter(|(_, _, line)| {
            let line = line.trim_start();
            line.starts_with("pub ")
                && line.contains(':')
                && names_a_json_value(line)
                && !line.starts_with("pub other: ")
                && !line.starts_with("pub fn ")
        })
        .map(|(rel, n, line)| format!("{rel}:{n}: {}", line.trim()))
        .collect()
}

/// Whether `line` names the type `Value` (not `Values`, not `ValueKind`).
fn names_a_json_value(line: &str) -> bool {
    line.match_indices("Value").any(|(at, _)| {
        let after = line[at + "Value".len()..].chars().next();
        let before = line[..at].chars().next_back();
        !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            && !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

#[test]
fn run_files_hold_no_json_value_but_their_catch_alls() {
    let found = untyped_fields();
    assert!(
        found.is_empty(),
        "a run file's field kept as a JSON value (give it a type; `other` is the one catch-all):\n{}",
        found.join("\n")
    );
}

/// The field check finds JSON values, and passes named types and the catch-all.
#[test]
fn the_field_check_finds_what_it_looks_for() {
    assert!(names_a_json_value("pub adjudication: Option<Value>,"));
    assert!(names_a_json_value("pub params: serde_json::Value,"));
    assert!(!names_a_json_value("pub theta: Values<f64>,"));
    assert!(!names_a_json_value("pub kind: ValueKind,"));
}

/// The planner stays pure: the schedule is a function of the tournament and the opening count,
/// and which folders make up a run is `record::run_folder`'s to read.
#[test]
fn the_planner_reads_no_folder() {
    let found: Vec<String> = non_test_lines(&["harness/core/src/plan/schedule.rs"])
        .into_iter()
        .filter(|(_, _, line)| line.contains("std::fs") || line.contains("read_dir"))
        .map(|(rel, n, line)| format!("{rel}:{n}: {}", line.trim()))
        .collect();
    assert!(
        found.is_empty(),
        "the schedule reads the disk:\n{}",
        found.join("\n")
    );
}
