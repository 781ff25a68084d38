//! What the external program needs of Windows: the command split by the rules Windows
//! programs read their command line with (`CommandLineToArgvW`'s: `C:\engines\e.exe` keeps
//! its backslashes), an executable file known by its extension, and the program's end.

use std::path::Path;

/// The words of `command` by Windows' rules (which accept any text: an unclosed quote runs
/// to the end).
pub fn split(command: &str) -> Option<Vec<String>> {
    Some(winsplit::split(command))
}

/// Whether `program` names a file by its path (else it is looked up on `PATH`).
pub fn is_a_path(program: &str) -> bool {
    program.contains(['/', '\\', ':'])
}

/// Whether `path` is a file Windows would start: a file whose extension is one of `PATHEXT`'s
/// (`.exe`, `.com`, …), or that file with `.exe` added, as `CreateProcess` does for a name
/// without an extension.
pub fn is_executable(path: &Path) -> bool {
    let runnable = |p: &Path| {
        p.is_file()
            && p.extension().is_some_and(|e| {
                let e = e.to_string_lossy().to_ascii_lowercase();
                executable_extensions().contains(&e)
            })
    };
    runnable(path) || (path.extension().is_none() && runnable(&path.with_extension("exe")))
}

/// The extensions of programs, lower case without the dot, from `PATHEXT` (Windows' default
/// list when it is not set).
fn executable_extensions() -> Vec<String> {
    let list = std::env::var("PATHEXT").unwrap_or_else(|_| ".COM;.EXE;.BAT;.CMD".into());
    list.split(';')
        .map(|e| e.trim_start_matches('.').to_ascii_lowercase())
        .filter(|e| !e.is_empty())
        .collect()
}

/// Windows has no polite signal for a console program without a console of its own: the
/// program was already asked to `quit` on its input, so this does nothing and [`kill`]
/// follows.
pub fn ask_to_end(_pid: u32) {}

/// End the program `pid` and every process it started, at once (`taskkill /F /T`, which
/// walks the processes' parent links).
pub fn kill(pid: u32) {
    let _ = std::process::Command::new("taskkill")
        .args(["/F", "/T", "/PID", &pid.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_windows_command_keeps_its_backslashes() {
        let words = split(r#"C:\engines\edax.exe -l "C:\Program Files\eval" x\y"#).unwrap();
        assert_eq!(
            words,
            [
                r"C:\engines\edax.exe",
                "-l",
                r"C:\Program Files\eval",
                r"x\y"
            ]
        );
        assert!(is_a_path(&words[0]) && is_a_path("bin/e.exe") && !is_a_path("edax"));
    }

    #[test]
    fn a_program_is_known_by_its_extension() {
        let me = std::env::current_exe().unwrap();
        assert!(is_executable(&me));
        // Named without `.exe`, as CreateProcess would find it.
        assert!(is_executable(&me.with_extension("")));
        let text = std::env::temp_dir().join(format!("external-{}.txt", std::process::id()));
        std::fs::write(&text, "not a program").unwrap();
        assert!(!is_executable(&text));
        std::fs::remove_file(&text).unwrap();
    }
}
