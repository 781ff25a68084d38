//! A command line as the system's programs read it: the words an option such as `external`'s
//! `Command` holds, and which of them name files.

/// The words of `line`, split as the system splits a program's command line: the POSIX
/// shell's quoting on Unix (`'…'`, `"…"`, `\` escapes; `None` for an unclosed quote), and on
/// Windows the rules of `CommandLineToArgvW`, under which `C:\engines\e.py` keeps its
/// backslashes (any text splits).
pub fn words(line: &str) -> Option<Vec<String>> {
    split(line)
}

#[cfg(unix)]
fn split(line: &str) -> Option<Vec<String>> {
    shlex::split(line)
}

#[cfg(windows)]
fn split(line: &str) -> Option<Vec<String>> {
    Some(winsplit::split(line))
}

/// Whether `word` of a command line names a file by a path (`./prog`, `books/main.book`),
/// rather than a program looked up in `PATH` or a bare value: it holds one of the system's
/// path separators (`/`; on Windows also `\`, and a drive's `:` as in `C:prog.exe`).
pub fn names_a_path(word: &str) -> bool {
    if cfg!(windows) {
        word.contains(['/', '\\', ':'])
    } else {
        word.contains('/')
    }
}

/// Whether `word` is a path from a root (`/x` on Unix; `C:\x`, `C:/x`, `\x` and
/// `\\server\share` on Windows), which does not depend on the folder a program starts in.
pub fn is_rooted(word: &str) -> bool {
    let path = std::path::Path::new(word);
    path.is_absolute() || path.has_root()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_splits_by_the_system_s_rules() {
        if cfg!(windows) {
            let split = words(r#"C:\engines\edax.exe -l "C:\Program Files\eval" x\y"#).unwrap();
            assert_eq!(
                split,
                [
                    r"C:\engines\edax.exe",
                    "-l",
                    r"C:\Program Files\eval",
                    r"x\y"
                ]
            );
            assert!(names_a_path(r"x\y") && names_a_path("C:/e.exe") && !names_a_path("edax"));
            assert!(is_rooted("Z:/tmp/secret") && is_rooted(r"C:\e.exe") && !is_rooted("x/y"));
        } else {
            let split = words(r#"python3 'my engine.py' --depth=3 a\ b"#).unwrap();
            assert_eq!(split, ["python3", "my engine.py", "--depth=3", "a b"]);
            assert_eq!(words("python3 'unclosed"), None);
            assert!(names_a_path("./prog") && !names_a_path("python3"));
            assert!(is_rooted("/tmp/secret") && !is_rooted("tmp/secret"));
        }
    }
}
