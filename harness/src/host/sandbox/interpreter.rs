//! The installation an engine's program runs from, which its sandbox must let it read.
//!
//! A command such as `python3 /abs/path/engine.py` (the `external` plugin's `Command`) starts
//! an interpreter that loads its standard library, and through a version manager's shim runs
//! the manager itself, from folders that are neither the system's nor named on the command
//! line: `~/.pyenv`, a virtual environment and the Python it was made from, a conda
//! installation. From the program a command's first word finds:
//! - a pyenv shim (a short script that exports `PYENV_ROOT` and runs pyenv): that root, which
//!   holds pyenv and every Python it manages;
//! - a program in the `bin/` folder of a virtual environment (a `pyvenv.cfg` beside `bin/`):
//!   the environment, and the installation its `home` key names;
//! - the file the program leads to once its links are followed, in a `bin/` folder beside a
//!   `lib/` folder: that installation (the folder holding both).
//!
//! Folders of the system, which every sandbox reads already ([`super::SYSTEM_READ`]), are
//! left out, and so is anything above them (`/` from `/bin/python3`). What this module finds
//! is a candidate only: [`super::option_paths`] opens it to the engine when every user may
//! read all that is in it, and says which folder it left closed otherwise.

use std::path::{Path, PathBuf};

/// The most bytes of a program read to see whether it is a shim (a shim is a few lines).
const SHIM_BYTES: u64 = 4096;

/// The installation folders `program` (an existing executable file) runs from, beyond the
/// system's.
pub fn installations(program: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    if let Some(root) = pyenv_root(program) {
        found.push(root);
    }
    if let Some(bin) = program.parent() {
        let environment = bin.parent().filter(|_| bin.ends_with("bin"));
        if let Some(environment) = environment.filter(|e| e.join("pyvenv.cfg").is_file()) {
            found.push(environment.to_path_buf());
            if let Some(home) = venv_home(&environment.join("pyvenv.cfg")) {
                found.extend(prefix_of_bin(&home));
            }
        }
    }
    if let Ok(target) = program.canonicalize() {
        if let Some(prefix) = target.parent().and_then(prefix_of_bin) {
            found.push(prefix);
        }
    }
    let mut unique: Vec<PathBuf> = Vec::new();
    for path in found {
        let Ok(path) = path.canonicalize() else {
            continue;
        };
        if !is_systems(&path) && !unique.contains(&path) {
            unique.push(path);
        }
    }
    unique
}

/// A command line whose program is a version manager's shim, resolved: the program the shim
/// would run for the harness's own environment and folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedShim {
    /// The command's first word as written (`python3`).
    pub word: String,
    /// The version manager (`pyenv`, `asdf`, `mise`).
    pub manager: &'static str,
    /// The program it runs, absolute.
    pub program: PathBuf,
    /// The program's own `--version` line, when it gives one (`Python 3.9.18`).
    pub version: Option<String>,
    /// The command line with `program` for its first word.
    pub command: String,
}

/// `command` (a program and its arguments) with its program resolved when it is a version
/// manager's shim (pyenv, asdf, mise): the manager is asked, in the harness's own environment
/// and current folder, which program the shim runs (`pyenv which python3`), as the user's
/// shell would run it. A worker's environment is the sandbox's short list, without the
/// manager's variables (`PYENV_VERSION`) and in another folder (its `.python-version`), so the
/// shim run there could pick another program. `None` when the program is no shim, or the
/// manager cannot say.
pub fn resolve_shim(command: &str) -> Option<ResolvedShim> {
    let words = shlex::split(command)?;
    let word = words.first()?;
    let shim = super::program_path(word)?;
    let name = shim.file_name()?.to_str()?.to_string();
    let text = shim.to_string_lossy();
    let (manager, mut which) = if let Some(root) = pyenv_root(&shim) {
        let mut which = std::process::Command::new(root.join("libexec/pyenv"));
        which.env("PYENV_ROOT", &root);
        ("pyenv", which)
    } else if text.contains("/.asdf/shims/") {
        ("asdf", std::process::Command::new("asdf"))
    } else if text.contains("/mise/shims/") {
        ("mise", std::process::Command::new("mise"))
    } else {
        return None;
    };
    let out = which
        .args(["which", &name])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let program = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    if !program.is_absolute() || !program.is_file() {
        return None;
    }
    let version = std::process::Command::new(&program)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output()
        .ok()
        .and_then(|o| {
            let text = [o.stdout, o.stderr].concat();
            let line = String::from_utf8_lossy(&text)
                .lines()
                .next()?
                .trim()
                .to_string();
            (!line.is_empty()).then_some(line)
        });
    let mut resolved = words.clone();
    resolved[0] = program.to_string_lossy().into_owned();
    Some(ResolvedShim {
        word: word.clone(),
        manager,
        command: shlex::try_join(resolved.iter().map(String::as_str)).ok()?,
        program,
        version,
    })
}

/// The root a pyenv shim sends its program to: the value of its `export PYENV_ROOT=` line.
fn pyenv_root(program: &Path) -> Option<PathBuf> {
    use std::io::Read;
    let file = std::fs::File::open(program).ok()?;
    let mut head = String::new();
    file.take(SHIM_BYTES).read_to_string(&mut head).ok()?;
    if !head.starts_with("#!") || !head.contains("pyenv") {
        return None;
    }
    head.lines().find_map(|line| {
        let value = line.trim().strip_prefix("export PYENV_ROOT=")?;
        let value = value.trim_matches(|c| c == '"' || c == '\'');
        (value.starts_with('/')).then(|| PathBuf::from(value))
    })
}

/// The `home` of a virtual environment's `pyvenv.cfg`: the `bin/` folder of the Python it was
/// made from.
fn venv_home(config: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(config).ok()?;
    text.lines().find_map(|line| {
        let (key, value) = line.split_once('=')?;
        (key.trim() == "home").then(|| PathBuf::from(value.trim()))
    })
}

/// The installation holding `bin`: its parent, when `bin` is a folder named `bin` beside a
/// `lib/` folder.
fn prefix_of_bin(bin: &Path) -> Option<PathBuf> {
    if !bin.ends_with("bin") {
        return None;
    }
    let prefix = bin.parent()?;
    prefix.join("lib").is_dir().then(|| prefix.to_path_buf())
}

/// Whether `path` is one of the system's folders, inside one, or above one.
fn is_systems(path: &Path) -> bool {
    super::SYSTEM_READ
        .iter()
        .map(Path::new)
        .any(|system| path.starts_with(system) || system.starts_with(path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{symlink, PermissionsExt};

    fn executable(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// A pyenv root with one Python and a shim, a virtual environment made from that Python,
    /// and a conda-style installation: each program leads to the folders it runs from.
    #[test]
    fn shims_environments_and_installations_lead_to_their_folders() {
        let dir = std::env::temp_dir().join(format!("interpreter-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let root = dir.join("pyenv");
        let python = root.join("versions/3.11.7/bin/python3.11");
        executable(&python, "\x7fELF");
        std::fs::create_dir_all(root.join("versions/3.11.7/lib/python3.11")).unwrap();
        symlink("python3.11", root.join("versions/3.11.7/bin/python3")).unwrap();
        let shim = root.join("shims/python3");
        executable(
            &shim,
            &format!(
                "#!/usr/bin/env bash\nset -e\nexport PYENV_ROOT=\"{}\"\nexec \"{}/libexec/pyenv\" exec \"$program\" \"$@\"\n",
                root.display(),
                root.display()
            ),
        );
        let root = root.canonicalize().unwrap();
        assert_eq!(installations(&shim), vec![root.clone()]);

        let venv = dir.join("venv");
        std::fs::create_dir_all(venv.join("bin")).unwrap();
        std::fs::create_dir_all(venv.join("lib")).unwrap();
        std::fs::write(
            venv.join("pyvenv.cfg"),
            format!(
                "home = {}\ninclude-system-site-packages = false\n",
                root.join("versions/3.11.7/bin").display()
            ),
        )
        .unwrap();
        symlink(
            root.join("versions/3.11.7/bin/python3"),
            venv.join("bin/python3"),
        )
        .unwrap();
        let version = root.join("versions/3.11.7");
        assert_eq!(
            installations(&venv.join("bin/python3")),
            vec![venv.canonicalize().unwrap(), version.clone()]
        );
        assert_eq!(installations(&python), vec![version]);

        let conda = dir.join("miniconda3");
        executable(&conda.join("bin/python3"), "\x7fELF");
        std::fs::create_dir_all(conda.join("lib")).unwrap();
        assert_eq!(
            installations(&conda.join("bin/python3")),
            vec![conda.canonicalize().unwrap()]
        );

        // A program in a `bin/` with no `lib/` beside it (a home folder's own tools) leads to
        // nothing; neither does a program of the system.
        let tool = dir.join("home/bin/tool");
        executable(&tool, "#!/bin/sh\n");
        assert_eq!(installations(&tool), Vec::<PathBuf>::new());
        assert_eq!(installations(Path::new("/bin/sh")), Vec::<PathBuf>::new());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
