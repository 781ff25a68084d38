//! PostgreSQL's password file, so that a team ledger's password need not be in a URL, a
//! script or the environment: `PGPASSFILE`, else `~/.pgpass`, read as libpq reads it.
//!
//! Each line is `host:port:database:user:password`; `*` in one of the first four fields
//! matches anything, `\:` and `\\` stand for `:` and `\`, lines starting with `#` are comments,
//! and the first matching line wins. As libpq does, a file that others can read is ignored
//! (with a warning), and a Unix-socket connection matches the host `localhost`.

use std::path::PathBuf;

/// The password the file gives for this connection, if any.
pub fn lookup(host: &str, port: u16, database: &str, user: &str) -> Option<String> {
    let path = match std::env::var_os("PGPASSFILE") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(std::env::var_os("HOME")?).join(".pgpass"),
    };
    let meta = std::fs::metadata(&path).ok()?;
    if harness_os::files::private_to_owner(&meta) == Some(false) {
        eprintln!(
            "warning: {}: the password file is readable by others (chmod 0600 it); not used",
            path.display()
        );
        return None;
    }
    let text = std::fs::read_to_string(&path).ok()?;
    let port = port.to_string();
    let wanted = [host, port.as_str(), database, user];
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(fields)
        .find(|f| {
            f[..4]
                .iter()
                .zip(wanted)
                .all(|(have, want)| have == "*" || have == want)
        })
        .map(|mut f| f.swap_remove(4))
}

/// The five fields of a line, unescaped; `None` for a line with fewer.
fn fields(line: &str) -> Option<Vec<String>> {
    let mut out = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.last_mut()?.push(chars.next().unwrap_or('\\')),
            ':' if out.len() < 5 => out.push(String::new()),
            c => out.last_mut()?.push(c),
        }
    }
    (out.len() == 5).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::fields;

    #[test]
    fn lines_split_into_five_unescaped_fields() {
        assert_eq!(
            fields("db.local:5432:arena:ci:s3\\:cr\\\\et").unwrap(),
            ["db.local", "5432", "arena", "ci", "s3:cr\\et"]
        );
        // The password keeps its colons after the fourth separator.
        assert_eq!(fields("*:*:*:ci:a:b").unwrap()[4], "a:b");
        assert!(fields("host:5432:db").is_none());
    }
}
