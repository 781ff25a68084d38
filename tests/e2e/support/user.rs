//! Who runs the harness in a test: the test's own user, and, where that is root (as on CI,
//! where many jobs run as root in containers), an ordinary user (`nobody`, through `setpriv`).

use super::TempDir;
use std::os::unix::fs::PermissionsExt;
use std::process::Command;

/// Who runs the harness.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum User {
    /// The test's own user.
    Invoker,
    /// `nobody`, started from root.
    Nobody,
}

/// The users each test runs as: the test's own, and `nobody` where that is root and `nobody`
/// can reach the binaries and the tests' folders ([`nobody_can_reach`]; where it cannot, the
/// runs as `nobody` are said to be impossible there, [`super::not_possible_here`]).
pub fn users() -> Vec<User> {
    if !super::is_root() {
        return vec![User::Invoker];
    }
    if nobody_can_reach() {
        vec![User::Invoker, User::Nobody]
    } else {
        super::not_possible_here(
            "the runs as nobody",
            "nobody cannot reach the checkout (a private folder above it)",
        );
        vec![User::Invoker]
    }
}

/// Whether `nobody` may run the harness binary and enter the tests' folders: not where the
/// checkout lies in a private folder (a `mktemp -d` of mode 0700), which the tests do not
/// open up. Said once on stderr when not.
pub fn nobody_can_reach() -> bool {
    static REACH: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *REACH.get_or_init(|| {
        let harness = &super::artifacts().harness;
        let folders = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("e2e");
        let _ = std::fs::create_dir_all(&folders);
        let reached = Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .args(["sh", "-c", "test -x \"$0\" && cd \"$1\""])
            .arg(harness)
            .arg(&folders)
            .status()
            .is_ok_and(|s| s.success());
        if !reached {
            eprintln!(
                "NOTE: nobody cannot reach {} or {} (a private folder above them): the tests run as root only",
                harness.display(),
                folders.display()
            );
        }
        reached
    })
}

impl User {
    /// A new test folder `label-…` that this user may write in.
    pub fn dir(self, label: &str) -> TempDir {
        let dir = TempDir::new(&format!("{label}-{self:?}"));
        self.open_to(dir.path());
        dir
    }

    /// Let this user write in (or connect to) `path`.
    pub fn open_to(self, path: &std::path::Path) {
        if self == User::Nobody {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o777)).unwrap();
        }
    }

    /// Make `command` run as this user: the same program, arguments, environment and folder.
    pub fn wrap(self, command: &mut Command) {
        if self == User::Invoker {
            return;
        }
        let mut wrapped = Command::new("setpriv");
        wrapped
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(command.get_program())
            .args(command.get_args());
        for (name, value) in command.get_envs() {
            match value {
                Some(value) => wrapped.env(name, value),
                None => wrapped.env_remove(name),
            };
        }
        if let Some(dir) = command.get_current_dir() {
            wrapped.current_dir(dir);
        }
        *command = wrapped;
    }
}
