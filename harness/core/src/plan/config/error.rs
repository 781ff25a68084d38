//! [`ConfigError`], and serde's messages in the words of a tournament file rather than of Rust
//! types, with the line, the column and the key they concern.

/// A tournament file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{path}: cannot read the tournament file: {error}")]
    Read { path: String, error: std::io::Error },
    /// TOML syntax, an unknown or missing key, or a value of the wrong type or spelling.
    #[error("{file}:{line}:{column}: {}{message}", key_prefix(.key))]
    Toml {
        file: String,
        line: usize,
        column: usize,
        /// The key whose value is wrong, when the message does not name it already.
        key: Option<String>,
        message: String,
    },
    /// A well-typed value that breaks a rule (a zero count, two time controls, …).
    #[error("{file}:{line}: key `{key}`: {message}")]
    Invalid {
        file: String,
        line: usize,
        key: String,
        message: String,
    },
    /// Tables every tournament file needs, all of those missing at once.
    #[error("{file}: missing {}: every tournament file has [tournament], [time] and [openings] (tournament.toml shows each key)", tables.join(" and "))]
    MissingTables { file: String, tables: Vec<String> },
    /// A value given on the command line that cannot be used: the flag as written, the key.
    #[error("{flag}: key `{key}`: {message}")]
    Flag {
        flag: String,
        key: String,
        message: String,
    },
}

impl ConfigError {
    /// The 1-based line the error points at, if it points into the file.
    pub fn line(&self) -> Option<usize> {
        match self {
            ConfigError::Read { .. }
            | ConfigError::Flag { .. }
            | ConfigError::MissingTables { .. } => None,
            ConfigError::Toml { line, .. } | ConfigError::Invalid { line, .. } => Some(*line),
        }
    }
}

fn key_prefix(key: &Option<String>) -> String {
    key.as_ref()
        .map(|k| format!("key `{k}`: "))
        .unwrap_or_default()
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub(super) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = before.matches('\n').count() + 1;
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

/// The key a value at byte `offset` belongs to: the `key =` directly in front of it on its
/// line (also inside an inline table). `None` when the offset is not at a value.
fn key_before(text: &str, offset: usize) -> Option<String> {
    let before = text.get(..offset.min(text.len()))?;
    let line = &before[before.rfind('\n').map_or(0, |i| i + 1)..];
    let eq = line.rfind('=')?;
    if !line[eq + 1..].trim().is_empty() {
        return None;
    }
    let key = line[..eq]
        .rsplit(['{', ','])
        .next()?
        .trim()
        .trim_matches(|c| c == '"' || c == '\'');
    (!key.is_empty() && !key.starts_with('[')).then(|| key.to_string())
}

/// A serde message in the words of a tournament file rather than of Rust types:
/// "invalid value: integer `-3`, expected u32" becomes "`-3` is out of range: expected a whole
/// number from 0 to 4294967295".
fn plain_types(message: &str) -> String {
    // An integer too large for any Rust integer is "invalid type: integer … as i128": out of
    // range; any other integer of the wrong type is a number where something else belongs.
    let mut m = match message.strip_prefix("invalid type: integer ") {
        Some(rest) if rest.contains(" as i128") => {
            format!("invalid value: integer {}", rest.replace(" as i128", ""))
        }
        _ => message.to_string(),
    };
    for (serde, plain) in [
        ("invalid value: integer ", "{} is out of range"),
        ("invalid type: integer ", "{} is a whole number"),
        ("invalid type: floating point ", "{} is a decimal number"),
        ("invalid type: string ", "{} is text"),
        ("invalid type: boolean ", "{} is a true/false value"),
    ] {
        if let Some(rest) = m.strip_prefix(serde) {
            if let Some((value, expected)) = rest.split_once(", expected ") {
                m = format!("{}: expected {expected}", plain.replace("{}", value));
            }
        }
    }
    for (rust, plain) in [
        ("expected u8", "expected a whole number from 0 to 255"),
        ("expected u16", "expected a whole number from 0 to 65535"),
        (
            "expected u32",
            "expected a whole number from 0 to 4294967295",
        ),
        (
            "expected u64",
            "expected a whole number from 0 to 18446744073709551615",
        ),
        (
            "expected usize",
            "expected a whole number from 0 to 18446744073709551615",
        ),
        ("expected i64", "expected a whole number"),
        ("expected f64", "expected a number"),
        ("expected a boolean", "expected true or false"),
    ] {
        if m.ends_with(rust) {
            m = format!("{}{plain}", &m[..m.len() - rust.len()]);
        }
    }
    // The file's tables are `Raw…` structs: "expected struct RawTime".
    if let Some(i) = m.find("expected struct Raw") {
        let example = if m[i..].starts_with("expected struct RawTime") {
            " such as `{ move-time = 0.5 }`"
        } else {
            ""
        };
        m = format!("{}expected a table{example}", &m[..i]);
    }
    m
}

/// Keys whose values start at 1: a range message says so (serde's says "from 0").
const AT_LEAST_ONE: [&str; 5] = ["pairs", "concurrency", "depth", "nodes", "start"];

/// The tables of [`REQUIRED_TABLES`] that `text` lacks, as one error; `None` when it has them
/// all, or is not TOML (the parser then says where it breaks).
pub(super) fn missing_tables(text: &str, source: &str) -> Option<ConfigError> {
    let table: toml::Table = text.parse().ok()?;
    let tables: Vec<String> = REQUIRED_TABLES
        .iter()
        .filter(|name| !table.contains_key(**name))
        .map(|name| format!("[{name}]"))
        .collect();
    (!tables.is_empty()).then(|| ConfigError::MissingTables {
        file: source.to_string(),
        tables,
    })
}

/// The tables a tournament file cannot do without.
const REQUIRED_TABLES: [&str; 3] = ["tournament", "time", "openings"];

/// Keys whose whole numbers have a range of their own, which a message of the wrong type
/// states instead of the type's.
const NARROW_RANGES: [(&str, &str); 1] = [("exact-at-empties", "1 to 30")];

/// A toml/serde error as a [`ConfigError::Toml`] with file, line, column and (when the
/// message does not name it) the key.
pub(super) fn toml_error(text: &str, source: &str, err: &toml::de::Error) -> ConfigError {
    let offset = err.span().map_or(0, |s| s.start);
    let (line, column) = line_col(text, offset);
    let message = plain_types(err.message().trim());
    let names_its_key = message.contains("field `") || message.contains("key");
    let key = if names_its_key {
        None
    } else {
        err.span().and_then(|s| key_before(text, s.start))
    };
    let message = match &key {
        Some(k) if AT_LEAST_ONE.contains(&k.as_str()) => {
            message.replace("a whole number from 0 to", "a whole number from 1 to")
        }
        Some(k) => match NARROW_RANGES.iter().find(|(key, _)| key == k) {
            // The type's range (0 to 4294967295) is not the key's.
            Some((_, range)) => match message.find("a whole number from 0 to") {
                Some(i) => format!("{}a whole number from {range}", &message[..i]),
                None => message,
            },
            None => message,
        },
        None => message,
    };
    ConfigError::Toml {
        file: source.to_string(),
        line,
        column,
        key,
        message,
    }
}

#[cfg(test)]
mod messages {
    use super::plain_types;

    #[test]
    fn serde_type_names_become_words() {
        assert_eq!(
            plain_types("invalid value: integer `-3`, expected u32"),
            "`-3` is out of range: expected a whole number from 0 to 4294967295"
        );
        assert_eq!(
            plain_types("invalid type: floating point `1.5`, expected u64"),
            "`1.5` is a decimal number: expected a whole number from 0 to 18446744073709551615"
        );
        assert_eq!(
            plain_types("invalid type: string \"ten\", expected u32"),
            "\"ten\" is text: expected a whole number from 0 to 4294967295"
        );
        assert_eq!(
            plain_types("invalid type: integer `99999999999999999999` as i128, expected usize"),
            "`99999999999999999999` is out of range: expected a whole number from 0 to 18446744073709551615"
        );
        assert_eq!(plain_types("unknown field `x`"), "unknown field `x`");
        // A type error names what the key takes, never a Rust type (`RawTime`).
        assert_eq!(
            plain_types("invalid type: integer `5`, expected struct RawTime"),
            "`5` is a whole number: expected a table such as `{ move-time = 0.5 }`"
        );
    }
}
