//! Wording: what a person reads is worded, never Rust's debug form. A `{…:?}` in a format
//! string of the views (`harness/src/show`, `harness/src/web`) or of the commands' printed
//! lines (`harness/src/cli`) prints an enum's variant name (`Logistic`) or a string with its
//! quotes and escapes; the views word such values through `show::text` or the type's own
//! name (`as_str`). Tests, assertions and panics are exempt (they speak to developers);
//! [`ALLOWED`] lists any other, each with its reason.

use crate::limits::non_test_lines;

/// The folders whose format strings are read by people.
const VIEWS: [&str; 3] = ["harness/src/show", "harness/src/web", "harness/src/cli"];

/// Debug forms allowed outside tests: (file, a snippet of the line, why). An error that
/// quotes a user's own value as Rust writes it (with quotes and escapes, so that a stray
/// space or control character shows) belongs here.
const ALLOWED: &[(&str, &str, &str)] = &[];

/// Whether `line` has a debug placeholder (`{:?}`, `{name:?}`, `{:#?}`, `{x.y:#?}`) in it.
fn has_debug_placeholder(line: &str) -> bool {
    let bytes = line.as_bytes();
    for (open, _) in line.match_indices('{') {
        // `{{` is a brace written out, not a placeholder.
        if open > 0 && bytes[open - 1] == b'{' {
            continue;
        }
        let mut i = open + 1;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || b"_.".contains(&bytes[i])) {
            i += 1;
        }
        let rest = &line[i..];
        if rest.starts_with(":?}") || rest.starts_with(":#?}") {
            return true;
        }
    }
    false
}

/// Whether `line` speaks to a developer: an assertion, a panic or a comment.
fn for_developers(line: &str) -> bool {
    let code = line.trim_start();
    code.starts_with("//")
        || ["assert", "panic!", "unreachable!", "expect("]
            .iter()
            .any(|m| code.contains(m))
}

/// `file:line: text` of every debug placeholder in the views' non-test code that is not
/// allowed.
fn debug_forms() -> Vec<String> {
    non_test_lines(&VIEWS)
        .into_iter()
        .filter(|(rel, _, line)| {
            let allowed = ALLOWED
                .iter()
                .any(|(f, snippet, _)| f == rel && line.contains(snippet));
            has_debug_placeholder(line) && !for_developers(line) && !allowed
        })
        .map(|(rel, n, line)| format!("{rel}:{n}: {}", line.trim()))
        .collect()
}

#[test]
fn no_debug_form_in_what_the_views_print() {
    let found = debug_forms();
    assert!(
        found.is_empty(),
        "Rust's debug form in printed text (word the value through show::text or its as_str; \
         or list it in tests/tidy/wording.rs's ALLOWED with its reason):\n{}",
        found.join("\n")
    );
}

/// The check finds the placeholders it looks for and passes the rest.
#[test]
fn the_wording_check_finds_what_it_looks_for() {
    for line in [
        r#"format!("SPRT {:?}/{:?}", p.model, p.unit)"#,
        r#"say!("Elo ({unit:?})")"#,
        r#"format!("{x.y:#?}")"#,
    ] {
        assert!(has_debug_placeholder(line), "{line}");
        assert!(!for_developers(line), "{line}");
    }
    for line in [
        r#"format!("SPRT {}/{}", a, b)"#,
        r#"format!("{{:?}} is Rust's debug form")"#,
        r#"format!("{value:+.0} ±{above:.0}")"#,
    ] {
        assert!(!has_debug_placeholder(line), "{line}");
    }
    assert!(for_developers(r#"    assert!(ok, "{c:?}");"#));
}
