//! Shared helpers of the end-to-end tests: the build of the binaries under test (once per test
//! process), temporary folders, running the harness binary with a timeout, tournament files,
//! and checks of the journal files against the rules of Othello.

mod artifacts;
mod check;
mod process;
mod temp;

pub use artifacts::artifacts;
pub use check::{book_moves, check_ggf, check_record, check_schedule, engine_moves, read_games};
pub use process::{harness, workers_of, Output};
pub use temp::TempDir;

use std::path::Path;

/// A path as text for command lines and tournament files (the test paths are UTF-8).
pub fn s(path: &Path) -> &str {
    path.to_str()
        .unwrap_or_else(|| panic!("{} is not UTF-8", path.display()))
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
