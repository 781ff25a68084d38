//! A real PostgreSQL server for a test, from Debian's packages (`postgresql`, which `.ci/run`
//! installs): a new cluster in the test's folder, listening on a free loopback port only, with
//! password authentication, stopped (and its files left to the folder) when dropped. As root
//! it runs as the `postgres` user the package makes, since the server refuses root; that user
//! may not be able to enter the test's folder (a checkout inside a private `mktemp -d`), so
//! as root the cluster lives in a folder of its own under the system's temporary folder,
//! named in the test's folder (`pg-location`), and removed when the test passes.

use super::TempDir;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The superuser's password of every test server.
pub const PASSWORD: &str = "s3cret-ledger-pw";

pub struct PostgresServer {
    bin: PathBuf,
    data: PathBuf,
    pub port: u16,
    /// The cluster's own folder outside the test's, as root (see the module docs).
    outside: Option<PathBuf>,
}

impl PostgresServer {
    /// A new server in `dir/pg`, started; `None` (after [`super::skip`]) where PostgreSQL's
    /// programs are not installed.
    pub fn start(test: &str, dir: &TempDir) -> Option<PostgresServer> {
        let Some(bin) = server_programs() else {
            super::skip(
                test,
                "PostgreSQL's server programs (Debian's postgresql) are not installed",
            );
            return None;
        };
        let outside = super::is_root().then(|| cluster_folder(dir));
        let data = outside.clone().unwrap_or_else(|| dir.join("pg"));
        std::fs::create_dir_all(&data).unwrap();
        let pwfile = data.join("password");
        std::fs::write(&pwfile, PASSWORD).unwrap();
        if super::is_root() {
            let chown = Command::new("chown")
                .args(["-R", "postgres", &s(&data), &s(&pwfile)])
                .status();
            assert!(chown.is_ok_and(|s| s.success()), "chown to postgres");
        }
        let initdb = bin.join("initdb");
        let out = as_server_user(&[
            &s(&initdb),
            "-D",
            &s(&data.join("data")),
            "-U",
            "postgres",
            "--auth=scram-sha-256",
            "--pwfile",
            &s(&pwfile),
            "--no-sync",
        ]);
        assert!(out.status.success(), "initdb: {}", text(&out));
        let server = PostgresServer {
            bin,
            data: data.join("data"),
            port: free_port(),
            outside,
        };
        server.resume();
        Some(server)
    }

    /// The URL of database `db` as the superuser, with the password.
    pub fn url(&self, db: &str) -> String {
        format!(
            "postgres://postgres:{PASSWORD}@127.0.0.1:{}/{db}",
            self.port
        )
    }

    /// Run `sql` in database `db` with psql; its output.
    pub fn psql(&self, db: &str, sql: &str) -> String {
        let out = Command::new("psql")
            .args([
                "-X",
                "-q",
                "-t",
                "-A",
                "-v",
                "ON_ERROR_STOP=1",
                "-d",
                &self.url(db),
            ])
            .args(["-c", sql])
            .output()
            .expect("psql runs");
        assert!(out.status.success(), "psql {sql}: {}", text(&out));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Start the server (again), waiting until it takes connections.
    pub fn resume(&self) {
        let options = format!(
            "-p {} -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c fsync=off",
            self.port
        );
        let log = self.data.with_file_name("log");
        let out = as_server_user(&[
            &s(&self.bin.join("pg_ctl")),
            "-D",
            &s(&self.data),
            "-o",
            &options,
            "-l",
            &s(&log),
            "-w",
            "start",
        ]);
        assert!(
            out.status.success(),
            "pg_ctl start: {}\n{}",
            text(&out),
            std::fs::read_to_string(&log).unwrap_or_default()
        );
    }

    /// Stop the server at once, as a crash or a lost network would (`-m immediate`).
    pub fn stop(&self) {
        let _ = as_server_user(&[
            &s(&self.bin.join("pg_ctl")),
            "-D",
            &s(&self.data),
            "-m",
            "immediate",
            "-w",
            "stop",
        ]);
    }
}

impl Drop for PostgresServer {
    fn drop(&mut self) {
        self.stop();
        if let Some(folder) = &self.outside {
            if !std::thread::panicking() {
                let _ = std::fs::remove_dir_all(folder);
            }
        }
    }
}

/// As root: a new folder for the cluster under the system's temporary folder, which the
/// `postgres` user can reach, named in `dir/pg-location`.
fn cluster_folder(dir: &TempDir) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let folder = std::env::temp_dir().join(format!("e2e-postgres-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).unwrap();
    dir.write("pg-location", &folder.display().to_string());
    folder
}

/// The folder of `initdb` and `pg_ctl`: on the `PATH`, else Debian's newest
/// `/usr/lib/postgresql/N/bin`.
fn server_programs() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p).find(|d| d.join("initdb").is_file() && d.join("pg_ctl").is_file())
    });
    on_path.or_else(|| {
        let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
            .ok()?
            .filter_map(|e| Some(e.ok()?.path().join("bin")))
            .filter(|b| b.join("initdb").is_file())
            .collect();
        versions.sort();
        versions.pop()
    })
}

/// Run `args` as the `postgres` user when this is root (`runuser`), else as this user.
fn as_server_user(args: &[&str]) -> std::process::Output {
    let mut cmd = if super::is_root() {
        let mut c = Command::new("runuser");
        // The server user may not enter the test's working folder.
        c.args(["-u", "postgres", "--"]).args(args).current_dir("/");
        c
    } else {
        let mut c = Command::new(args[0]);
        c.args(&args[1..]);
        c
    };
    cmd.output().expect("the command starts")
}

/// A loopback port nobody listens on now.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

fn s(path: &Path) -> String {
    path.display().to_string()
}

fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
