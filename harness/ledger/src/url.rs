//! Where a ledger is: a file (`results.db`, `sqlite://results.db`) or a PostgreSQL server
//! (`postgres://user:secret@host/db`). A location is parsed once, here: its kind, the
//! PostgreSQL connection settings, and the form that is printed, which never holds a password.

use std::fmt;
use std::path::PathBuf;

/// A parsed ledger location. Its `Debug` is its `Display`: no password.
#[derive(Clone, PartialEq, Eq)]
pub enum LedgerUrl {
    /// An SQLite file (created when missing).
    Sqlite(PathBuf),
    /// A PostgreSQL database.
    Postgres(PostgresUrl),
}

/// A PostgreSQL location: the connection settings its URL gives (what libpq would default is
/// added when connecting) and the URL as printed, its password replaced by `***`.
#[derive(Clone)]
pub struct PostgresUrl {
    settings: Box<postgres::Config>,
    shown: String,
}

impl PostgresUrl {
    /// The settings the URL gives, nothing defaulted.
    pub fn settings(&self) -> &postgres::Config {
        &self.settings
    }

    /// Whether the URL itself holds a password (better kept in a password file).
    pub fn has_password(&self) -> bool {
        self.settings.get_password().is_some()
    }
}

/// Two locations are one when they print the same and hold the same password.
impl PartialEq for PostgresUrl {
    fn eq(&self, other: &PostgresUrl) -> bool {
        self.shown == other.shown && self.settings.get_password() == other.settings.get_password()
    }
}

impl Eq for PostgresUrl {}

impl LedgerUrl {
    /// Parse `text`: `sqlite://PATH`, `postgres://…` or `postgresql://…`, else a file path.
    pub fn parse(text: &str) -> Result<LedgerUrl, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err(
                "an empty ledger location: give a file path, sqlite://PATH or postgres://…".into(),
            );
        }
        if let Some(path) = text.strip_prefix("sqlite://") {
            if path.is_empty() {
                return Err(format!("`{text}`: no file after sqlite://"));
            }
            return Ok(LedgerUrl::Sqlite(PathBuf::from(path)));
        }
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            let shown = redacted(text);
            let settings = text
                .parse()
                .map(Box::new)
                .map_err(|e| format!("`{shown}`: not a PostgreSQL URL ({e})"))?;
            return Ok(LedgerUrl::Postgres(PostgresUrl { settings, shown }));
        }
        if let Some((scheme, _)) = text.split_once("://") {
            return Err(format!(
                "`{scheme}://`: not a ledger kind (sqlite:// or postgres://, or a plain file path)"
            ));
        }
        Ok(LedgerUrl::Sqlite(PathBuf::from(text)))
    }

    /// Whether the location itself holds a password.
    pub fn has_password(&self) -> bool {
        matches!(self, LedgerUrl::Postgres(url) if url.has_password())
    }
}

/// The location with any password replaced by `***`.
impl fmt::Display for LedgerUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LedgerUrl::Sqlite(path) => write!(f, "sqlite://{}", path.display()),
            LedgerUrl::Postgres(url) => f.write_str(&url.shown),
        }
    }
}

impl fmt::Display for PostgresUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.shown)
    }
}

impl fmt::Debug for LedgerUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LedgerUrl({self})")
    }
}

/// A command-line argument, or a URL, with the password of any PostgreSQL URL in it
/// (`postgres://user:secret@host/db`, a `password=` parameter) replaced by `***`; anything
/// else as it is. What [`LedgerUrl`] prints, and what `tournament.json` keeps of a command.
pub fn redacted(url: &str) -> String {
    let mut out = url.to_string();
    if let Some((scheme, rest)) = url.split_once("://") {
        let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
        let authority = &rest[..authority_end];
        if let Some((credentials, host)) = authority.rsplit_once('@') {
            if let Some((user, _)) = credentials.split_once(':') {
                out = format!("{scheme}://{user}:***@{host}{}", &rest[authority_end..]);
            }
        }
    }
    if let Some(i) = out.find("password=") {
        let end = out[i..].find('&').map_or(out.len(), |j| i + j);
        out.replace_range(i..end, "password=***");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_parse_and_print_without_secrets() {
        assert_eq!(
            LedgerUrl::parse("runs.db").unwrap(),
            LedgerUrl::Sqlite("runs.db".into())
        );
        assert_eq!(
            LedgerUrl::parse("sqlite:///var/ledger.db").unwrap(),
            LedgerUrl::Sqlite("/var/ledger.db".into())
        );
        let pg =
            LedgerUrl::parse("postgres://ci:hunter2@db.local:5432/arena?sslmode=disable").unwrap();
        assert_eq!(
            pg.to_string(),
            "postgres://ci:***@db.local:5432/arena?sslmode=disable"
        );
        assert!(!format!("{pg:?}").contains("hunter2"), "{pg:?}");
        assert!(pg.has_password());
        let LedgerUrl::Postgres(parsed) = &pg else {
            panic!("{pg:?}")
        };
        assert_eq!(parsed.settings().get_dbname(), Some("arena"));
        assert_eq!(parsed.settings().get_ports(), [5432]);
        let in_a_parameter = LedgerUrl::parse("postgresql://ci@h/db?password=x").unwrap();
        assert!(in_a_parameter.has_password());
        assert_eq!(
            in_a_parameter.to_string(),
            "postgresql://ci@h/db?password=***"
        );
        assert!(!LedgerUrl::parse("postgres://ci@h/db")
            .unwrap()
            .has_password());
        // A URL the PostgreSQL client cannot read is refused when parsed, without its password.
        let bad = LedgerUrl::parse("postgres://ci:hunter2@h:notaport/db").unwrap_err();
        assert!(bad.contains("not a PostgreSQL URL"), "{bad}");
        assert!(!bad.contains("hunter2"), "{bad}");
        assert_eq!(
            redacted("postgresql://ci@h/db?password=x&sslmode=off"),
            "postgresql://ci@h/db?password=***&sslmode=off"
        );
        assert!(LedgerUrl::parse("mysql://x")
            .unwrap_err()
            .contains("not a ledger kind"));
        assert!(LedgerUrl::parse(" ").is_err());
        assert!(LedgerUrl::parse("sqlite://").is_err());
    }
}
