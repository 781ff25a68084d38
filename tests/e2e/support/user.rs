//! Who runs the harness in a test: the test's own user, and, where that is root (as on CI,
//! where many jobs run as root in containers), an ordinary user (`nobody`, through `setpriv`),
//! who runs the copies of the binaries in the staging folder under `/tmp` and has its test
//! folders there (`super::staging`): a checkout in a private folder is out of its reach.

use super::artifacts::Artifacts;
use super::TempDir;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
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
/// can run the staged binaries in their folder ([`nobody_can_reach`]; where it cannot, the runs
/// as `nobody` are impossible here, [`super::not_possible_here`], which fails under CI).
pub fn users() -> Vec<User> {
    match unprivileged() {
        Some(User::Nobody) => vec![User::Invoker, User::Nobody],
        _ => vec![User::Invoker],
    }
}

/// The user to whom what root may do anyway shows (a file root may write regardless of its
/// mode): the test's own user where that is not root, else `nobody` where it can run
/// ([`nobody_can_reach`]); `None` (said by [`super::not_possible_here`], which fails under
/// CI) where it cannot.
pub fn unprivileged() -> Option<User> {
    if !super::is_root() {
        Some(User::Invoker)
    } else if nobody_can_reach() {
        Some(User::Nobody)
    } else {
        super::not_possible_here(
            "the runs as nobody",
            "nobody cannot run the staged harness or enter its folders (super::staging)",
        );
        None
    }
}

/// Whether `nobody` may run the staged harness binary and enter the staged test folders
/// (`super::staging`, under `/tmp`, whatever lies above the checkout): a `/tmp` that `nobody`
/// cannot enter, or mounted `noexec`, rules it out. Asked once per test process.
pub fn nobody_can_reach() -> bool {
    static REACH: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *REACH.get_or_init(|| {
        let staging = super::staging::staging();
        let harness = &staging.artifacts.harness;
        let folders = staging.folders();
        // As `nobody`: run the harness (which loads nothing but itself), then enter the folder.
        let reached = Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .args(["sh", "-c", "\"$0\" --version >/dev/null && cd \"$1\""])
            .arg(harness)
            .arg(&folders)
            .status()
            .is_ok_and(|s| s.success());
        if !reached {
            eprintln!(
                "NOTE: nobody cannot run {} in {}: the tests run as root only",
                harness.display(),
                folders.display()
            );
        }
        reached
    })
}

impl User {
    /// A new test folder `label-…` that this user may write in: `nobody`'s in the staging
    /// folder (`super::staging`), which it can reach wherever the checkout lies.
    pub fn dir(self, label: &str) -> TempDir {
        let dir = self.readable_dir(label);
        self.open_to(dir.path());
        dir
    }

    /// A new test folder `label-…` that this user may enter and read, and not write unless it
    /// is its own (the test's own user's is): `nobody`'s in the staging folder.
    pub fn readable_dir(self, label: &str) -> TempDir {
        let label = format!("{label}-{self:?}");
        match self {
            User::Invoker => TempDir::new(&label),
            User::Nobody => TempDir::new_in(&super::staging::staging().folders(), &label),
        }
    }

    /// The binaries under test as this user runs them: `nobody`'s are the staged copies
    /// (`super::staging`), the same bytes in a folder it can reach.
    pub fn artifacts(self) -> &'static Artifacts {
        match self {
            User::Invoker => super::artifacts(),
            User::Nobody => &super::staging::staging().artifacts,
        }
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
        if Path::new(command.get_program()).file_name() == Some("harness".as_ref()) {
            super::staging::count_run();
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
