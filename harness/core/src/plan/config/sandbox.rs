//! An engine's sandbox setting: `sandbox = "strict" | "required" | "off"` (in `[[engine]]`,
//! and in `[tournament]` as the default of every engine and of the adjudication solver), and
//! the data files it may use, `sandbox-read` and `sandbox-write`. What the setting does to a
//! worker is `host::sandbox`'s; here it is only checked and kept.

use std::fmt;
use std::path::{Path, PathBuf};

pub use crate::record::tournament_record::{Sandbox, SandboxMode};

impl SandboxMode {
    pub const NAMES: [&'static str; 3] = ["strict", "required", "off"];

    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::Strict => "strict",
            SandboxMode::Required => "required",
            SandboxMode::Off => "off",
        }
    }

    /// A mode from its name, with the names allowed in the error.
    pub fn parse(text: &str) -> Result<SandboxMode, String> {
        match text {
            "strict" => Ok(SandboxMode::Strict),
            "required" => Ok(SandboxMode::Required),
            "off" => Ok(SandboxMode::Off),
            other => Err(format!(
                "unknown sandbox `{other}`: give \"strict\", \"required\" or \"off\""
            )),
        }
    }
}

impl fmt::Display for SandboxMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The names of a `sandbox-env` list: each a variable name (letters, digits, `_`, not
/// starting with a digit).
pub fn variable_names(names: &[String]) -> Result<Vec<String>, String> {
    names
        .iter()
        .map(|n| {
            let valid = !n.is_empty()
                && !n.starts_with(|c: char| c.is_ascii_digit())
                && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if valid {
                Ok(n.clone())
            } else {
                Err(format!("`{n}` is not an environment variable's name"))
            }
        })
        .collect()
}

/// The option that sets the folder a plugin's program starts in (`external`'s), under which a
/// relative path of its command line is looked for.
pub const WORKING_DIR_OPTION: &str = "WorkingDir";

/// A `WorkingDir` value as the program gets it: a relative folder is taken from `base_dir` (the
/// folder its origin's relative paths are read from); an empty value (the worker's own folder)
/// and an absolute one stay as they are.
pub fn resolved_working_dir(value: &str, base_dir: &Path) -> String {
    if value.is_empty() || Path::new(value).is_absolute() {
        return value.to_string();
    }
    let joined = base_dir.join(value);
    joined
        .canonicalize()
        .or_else(|_| std::path::absolute(&joined))
        .unwrap_or(joined)
        .to_string_lossy()
        .into_owned()
}

/// The advice for `value`, an option's command line (a program and its arguments, as
/// `external`'s `Command`), when it names an existing file of `here` (the folder relative
/// paths of its origin are read from) by a relative path that names nothing under
/// `working_dir`: a sandboxed engine's program starts in the engine's scratch folder (or
/// `working_dir`), where the path leads nowhere. The value splits as the system splits a
/// command line; a first word without a path separator is a program looked up in `PATH`, not
/// a path; one with a separator (`./prog`) is a path like any other.
pub fn relative_command_path(
    value: &str,
    working_dir: Option<&str>,
    here: &Path,
) -> Option<String> {
    let words = harness_os::command_line::words(value)?;
    words.iter().enumerate().find_map(|(i, word)| {
        let relative = !harness_os::command_line::is_rooted(word) && !word.starts_with('-');
        let a_path = i > 0 || harness_os::command_line::names_a_path(word);
        let under_working_dir =
            working_dir.is_some_and(|d| !d.is_empty() && Path::new(d).join(word).exists());
        let file = here.join(word);
        let file = std::path::absolute(&file).unwrap_or(file);
        (relative && a_path && file.is_file() && !under_working_dir).then(|| {
            format!(
                "`{word}` is a path relative to this folder, but a sandboxed engine's program \
                 starts in its own scratch folder, where it names nothing: give its absolute \
                 path ({}), or set {WORKING_DIR_OPTION} to the folder it is relative to",
                file.display()
            )
        })
    })
}

/// The paths of a `sandbox-read` or `sandbox-write` list, resolved against `base_dir`; each
/// must exist (a data file the engine is to use, or the folder it is to write in).
pub fn existing_paths(paths: &[String], base_dir: &Path) -> Result<Vec<PathBuf>, String> {
    paths
        .iter()
        .map(|p| {
            if p.trim().is_empty() {
                return Err("a path must not be empty".to_string());
            }
            let path = base_dir.join(p);
            path.canonicalize()
                .map_err(|e| format!("{}: {e}", path.display()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relative_path_in_a_command_line_is_refused_with_its_absolute_path() {
        let here = std::env::current_dir().unwrap();
        // Cargo runs unit tests in the crate's folder, which holds Cargo.toml.
        let advice = relative_command_path("python3 Cargo.toml", None, &here).unwrap();
        assert!(
            advice.contains(&here.join("Cargo.toml").display().to_string()),
            "{advice}"
        );
        assert!(advice.contains("WorkingDir"), "{advice}");
        assert!(relative_command_path("python3 ./Cargo.toml -q", None, &here).is_some());
        let absolute = format!("python3 {}", here.join("Cargo.toml").display());
        assert_eq!(relative_command_path(&absolute, None, &here), None);
        let folder = here.display().to_string();
        assert_eq!(
            relative_command_path("python3 Cargo.toml", Some(&folder), &here),
            None
        );
        // A program looked up in PATH, a flag, a word that names no file, a single word.
        assert_eq!(relative_command_path("Cargo.toml --x", None, &here), None);
        assert_eq!(
            relative_command_path("prog -Cargo.toml no-file", None, &here),
            None
        );
        assert_eq!(relative_command_path("src", None, &here), None);
        // A program named by a relative path alone gets the same advice.
        assert!(relative_command_path("./Cargo.toml", None, &here).is_some());
        assert_eq!(
            relative_command_path("./no-such-program", None, &here),
            None
        );
    }

    #[test]
    fn a_relative_working_dir_is_taken_from_its_origins_folder() {
        let here = std::env::current_dir().unwrap();
        assert_eq!(
            resolved_working_dir(".", &here),
            here.canonicalize().unwrap().display().to_string()
        );
        assert_eq!(
            resolved_working_dir("src", &here),
            here.join("src")
                .canonicalize()
                .unwrap()
                .display()
                .to_string()
        );
        assert_eq!(resolved_working_dir("", &here), "");
        // An absolute path is kept as written (`/opt/e` is not absolute on Windows: a drive is
        // missing, so the test takes one of the system's own).
        let absolute = std::env::temp_dir().join("e").display().to_string();
        assert_eq!(resolved_working_dir(&absolute, &here), absolute);
        // A folder that does not exist stays a path under the origin (the engine's start says
        // it is missing).
        let base = std::env::temp_dir().canonicalize().unwrap();
        assert_eq!(
            resolved_working_dir("none-such-folder", &base),
            base.join("none-such-folder").display().to_string()
        );
    }

    #[test]
    fn modes_by_name_and_paths_that_exist() {
        for name in SandboxMode::NAMES {
            assert_eq!(SandboxMode::parse(name).unwrap().as_str(), name);
        }
        assert!(SandboxMode::parse("loose")
            .unwrap_err()
            .contains("\"strict\""));
        let here = std::env::current_dir().unwrap();
        assert_eq!(
            existing_paths(&[".".into()], &here).unwrap(),
            vec![here.canonicalize().unwrap()]
        );
        let err = existing_paths(&["no-such-file".into()], &here).unwrap_err();
        assert!(err.contains("no-such-file"), "{err}");
    }
}
