//! What the external program needs of a Unix system: the command split with the shell's
//! quoting rules (no shell runs), an executable file known by its mode, and the program's end
//! by signals.

use std::path::Path;

/// The words of `command` by the shell's quoting rules, or `None` when its quotes do not
/// balance.
pub fn split(command: &str) -> Option<Vec<String>> {
    shlex::split(command)
}

/// Whether `program` names a file by its path (else it is looked up on `PATH`).
pub fn is_a_path(program: &str) -> bool {
    program.contains('/')
}

/// Whether `path` is a file this system would run: one with an execute bit.
pub fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Ask the program `pid` (not yet reaped, so its pid is still its own) to end: SIGTERM.
pub fn ask_to_end(pid: u32) {
    signal(pid, rustix::process::Signal::TERM);
}

/// End the program `pid` (not yet reaped) at once: SIGKILL. What it started is in the
/// worker's process group, which the harness kills with the worker.
pub fn kill(pid: u32) {
    signal(pid, rustix::process::Signal::KILL);
}

fn signal(pid: u32, signal: rustix::process::Signal) {
    if let Some(pid) = rustix::process::Pid::from_raw(pid as i32) {
        let _ = rustix::process::kill_process(pid, signal);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unix_command_is_split_as_the_shell_would() {
        let words = split(r#"./edax -l 'a b' "c\"d" e\ f"#).unwrap();
        assert_eq!(words, ["./edax", "-l", "a b", "c\"d", "e f"]);
        assert_eq!(split("edax 'unclosed"), None);
        assert!(is_a_path("./edax") && !is_a_path("edax"));
    }

    #[test]
    fn a_program_is_known_by_its_execute_bit() {
        use std::os::unix::fs::PermissionsExt;
        assert!(is_executable(&std::env::current_exe().unwrap()));
        let file = std::env::temp_dir().join(format!("external-{}", std::process::id()));
        std::fs::write(&file, "#!/bin/sh\n").unwrap();
        assert!(!is_executable(&file));
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(is_executable(&file));
        std::fs::remove_file(&file).unwrap();
    }
}
