//! Where a ledger is: a file (`results.db`, `sqlite://results.db`) or a PostgreSQL server
//! (`postgres://user:secret@host/db`). What is printed of a URL never holds its password.

use std::fmt;
use std::path::PathBuf;

/// A parsed ledger location. Its `Debug` is its `Display`: no password.
#[derive(Clone, PartialEq, Eq)]
pub enum LedgerUrl {
    /// An SQLite file (created when missing).
    Sqlite(PathBuf),
    /// A PostgreSQL connection string, as given.
    Postgres(String),
}

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
            return Ok(LedgerUrl::Postgres(text.to_string()));
        }
        if let Some((scheme, _)) = text.split_once("://") {
            return Err(format!(
                "`{scheme}://`: not a ledger kind (sqlite:// or postgres://, or a plain file path)"
            ));
        }
        Ok(LedgerUrl::Sqlite(PathBuf::from(text)))
    }
}

/// The location with any password replaced by `***`.
impl fmt::Display for LedgerUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LedgerUrl::Sqlite(path) => write!(f, "sqlite://{}", path.display()),
            LedgerUrl::Postgres(url) => f.write_str(&redacted(url)),
        }
    }
}

impl fmt::Debug for LedgerUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LedgerUrl({self})")
    }
}

/// `postgres://user:secret@host/db` as `postgres://user:***@host/db`; a `password=` parameter
/// likewise. Anything else as it is.
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
