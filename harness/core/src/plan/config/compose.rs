//! A tournament from the command line: the base file's document (the file given, else
//! `./tournament.toml`, else the embedded default) with the command line's edits applied
//! ([`super::command_line`]), written out as one TOML document and checked by the one validator.
//!
//! The rule for mixing a file and flags: **a flag replaces the file's value of its key; `--engine`
//! replaces the file's `[[engine]]` tables, all of them, and the output folder that is theirs**
//! (`out/<names joined by -vs->` beside the file, unless `--out` names another).
//!
//! The document is written one value per line, and every line remembers where its value came
//! from (a line of the file, or a flag), so an error of the validator names the file's line or
//! the flag and the key. The document is the tournament's definition: `--print-toml` prints it,
//! `tournament.json` keeps it (with the command line), and `merge` rebuilds the tournament from
//! it as from any file.

use super::command_line::{CommandLine, Edits};
use super::error::{line_col, toml_error, ConfigError};
use super::{
    parse, Definition, Tournament, COMMAND_LINE_SOURCE, DEFAULT_TOURNAMENT, EMBEDDED_SOURCE,
};
use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// The file the command line edits.
#[derive(Clone, Debug, PartialEq)]
pub enum Base {
    File(PathBuf),
    /// The compiled-in default tournament.
    Embedded,
}

/// A tournament composed of a file and the command line, and its document.
#[derive(Clone, Debug)]
pub struct Composed {
    pub tournament: Tournament,
    /// The equivalent tournament file (what `--print-toml` prints).
    pub text: String,
}

/// Where a line of the document came from.
#[derive(Clone, Debug, PartialEq)]
enum Origin {
    /// A line and column of the base file (1-based).
    File(usize, usize),
    /// A flag, as written.
    Flag(String),
}

/// A key of the document with its value and origin.
#[derive(Clone, Debug)]
struct Entry {
    key: String,
    node: Node,
    origin: Origin,
}

#[derive(Clone, Debug)]
enum Node {
    /// Any value written on one line (arrays and inline tables that are not expanded).
    Value(toml::Value),
    Table(Vec<Entry>),
    /// An array of tables (`[[engine]]`), each with the origin of its header.
    Tables(Vec<(Origin, Vec<Entry>)>),
}

/// A value of the file as the toml crate reads it, with spans.
enum Spanning {
    Value(toml::Value),
    Table(Vec<(Spanned<String>, Spanned<Spanning>)>),
    Array(Vec<Spanned<Spanning>>),
}

impl<'de> Deserialize<'de> for Spanning {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Spanning, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Spanning;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a TOML value")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Spanning, E> {
                Ok(Spanning::Value(v.into()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Spanning, E> {
                Ok(Spanning::Value(v.into()))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Spanning, E> {
                i64::try_from(v)
                    .map(|v| Spanning::Value(v.into()))
                    .map_err(|_| E::custom(format!("{v} is out of range")))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Spanning, E> {
                Ok(Spanning::Value(v.into()))
            }
            fn visit_str<E>(self, v: &str) -> Result<Spanning, E> {
                Ok(Spanning::Value(v.into()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Spanning, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Spanning::Array(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Spanning, A::Error> {
                let mut entries: Vec<(Spanned<String>, Spanned<Spanning>)> = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                // The map may come sorted by key; the spans give back the file's order.
                entries.sort_by_key(|(key, _)| key.span().start);
                Ok(Spanning::Table(entries))
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// The file's document as entries with their lines.
fn entries_of(text: &str, table: Vec<(Spanned<String>, Spanned<Spanning>)>) -> Vec<Entry> {
    let origin = |offset: usize| {
        let (line, column) = line_col(text, offset);
        Origin::File(line, column)
    };
    table
        .into_iter()
        .map(|(key, value)| {
            let at = origin(value.span().start);
            let node = match value.into_inner() {
                Spanning::Value(v) => Node::Value(v),
                Spanning::Table(t) => Node::Table(entries_of(text, t)),
                Spanning::Array(items)
                    if items
                        .iter()
                        .all(|i| matches!(i.get_ref(), Spanning::Table(_)))
                        && !items.is_empty() =>
                {
                    Node::Tables(
                        items
                            .into_iter()
                            .map(|item| {
                                let at = origin(item.span().start);
                                match item.into_inner() {
                                    Spanning::Table(t) => (at, entries_of(text, t)),
                                    _ => unreachable!("checked: every item is a table"),
                                }
                            })
                            .collect(),
                    )
                }
                Spanning::Array(items) => Node::Value(toml::Value::Array(
                    items.into_iter().map(|i| plain(i.into_inner())).collect(),
                )),
            };
            Entry {
                key: key.into_inner(),
                node,
                origin: at,
            }
        })
        .collect()
}

/// A value without its spans.
fn plain(s: Spanning) -> toml::Value {
    match s {
        Spanning::Value(v) => v,
        Spanning::Array(items) => {
            toml::Value::Array(items.into_iter().map(|i| plain(i.into_inner())).collect())
        }
        Spanning::Table(t) => toml::Value::Table(
            t.into_iter()
                .map(|(k, v)| (k.into_inner(), plain(v.into_inner())))
                .collect(),
        ),
    }
}

/// Set (or with `None` remove) the value at `path` below `entries`, making the tables on the
/// way; a value set gets `origin`.
fn set(entries: &mut Vec<Entry>, path: &[String], value: Option<toml::Value>, origin: &Origin) {
    let Some((key, rest)) = path.split_first() else {
        return;
    };
    let found = entries.iter().position(|e| &e.key == key);
    if rest.is_empty() {
        match (found, value) {
            (Some(i), None) => {
                entries.remove(i);
            }
            (Some(i), Some(v)) => {
                entries[i].node = Node::Value(v);
                entries[i].origin = origin.clone();
            }
            (None, Some(v)) => entries.push(Entry {
                key: key.clone(),
                node: Node::Value(v),
                origin: origin.clone(),
            }),
            (None, None) => {}
        }
        return;
    }
    let i = match found {
        Some(i) if matches!(entries[i].node, Node::Table(_)) => i,
        Some(_) if value.is_none() => return,
        Some(i) => {
            entries[i] = table_entry(key, origin);
            i
        }
        None if value.is_none() => return,
        None => {
            entries.push(table_entry(key, origin));
            entries.len() - 1
        }
    };
    if let Node::Table(children) = &mut entries[i].node {
        set(children, rest, value, origin);
    }
}

fn table_entry(key: &str, origin: &Origin) -> Entry {
    Entry {
        key: key.to_string(),
        node: Node::Table(Vec::new()),
        origin: origin.clone(),
    }
}

/// A key as the document writes it: bare when it can be, else quoted.
fn key_text(key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if bare {
        key.to_string()
    } else {
        toml::Value::String(key.to_string()).to_string()
    }
}

/// The document being written, with the origin of each line.
#[derive(Default)]
struct Writer {
    text: String,
    origins: Vec<Origin>,
}

impl Writer {
    fn line(&mut self, line: String, origin: &Origin) {
        self.text.push_str(&line);
        self.text.push('\n');
        self.origins.push(origin.clone());
    }

    /// A table's values, one per line, nested tables as dotted keys after `prefix`.
    fn body(&mut self, prefix: &str, entries: &[Entry]) {
        for e in entries {
            let key = format!("{prefix}{}", key_text(&e.key));
            match &e.node {
                Node::Value(v) => self.line(format!("{key} = {v}"), &e.origin),
                Node::Table(t) if t.is_empty() => self.line(format!("{key} = {{}}"), &e.origin),
                Node::Table(t) => self.body(&format!("{key}."), t),
                Node::Tables(list) => {
                    let values: Vec<toml::Value> = list
                        .iter()
                        .map(|(_, t)| toml::Value::Table(table_value(t)))
                        .collect();
                    self.line(format!("{key} = {}", toml::Value::Array(values)), &e.origin)
                }
            }
        }
    }

    /// The whole document: values of the root, then each table and array of tables.
    fn document(&mut self, root: &[Entry]) {
        let (values, tables): (Vec<&Entry>, Vec<&Entry>) =
            root.iter().partition(|e| matches!(e.node, Node::Value(_)));
        let values: Vec<Entry> = values.into_iter().cloned().collect();
        self.body("", &values);
        for e in tables {
            match &e.node {
                Node::Table(t) => {
                    self.line(format!("[{}]", key_text(&e.key)), &e.origin);
                    self.body("", t);
                }
                Node::Tables(list) => {
                    for (origin, t) in list {
                        self.line(format!("[[{}]]", key_text(&e.key)), origin);
                        self.body("", t);
                    }
                }
                Node::Value(_) => unreachable!("values were written first"),
            }
        }
    }
}

fn table_value(entries: &[Entry]) -> toml::map::Map<String, toml::Value> {
    entries
        .iter()
        .map(|e| {
            let v = match &e.node {
                Node::Value(v) => v.clone(),
                Node::Table(t) => toml::Value::Table(table_value(t)),
                Node::Tables(list) => toml::Value::Array(
                    list.iter()
                        .map(|(_, t)| toml::Value::Table(table_value(t)))
                        .collect(),
                ),
            };
            (e.key.clone(), v)
        })
        .collect()
}

/// An engine name as part of a folder name.
fn folder_part(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The tournament of `base` edited by the command line `cl` (`command`: the arguments, kept in
/// the definition). Errors name the file and line of a value from the file, the flag and key
/// of a value from the command line.
pub fn compose(base: &Base, cl: &CommandLine, command: &[String]) -> Result<Composed, ConfigError> {
    let (text, source, base_dir) = match base {
        Base::File(path) => (
            std::fs::read_to_string(path).map_err(|error| ConfigError::Read {
                path: path.display().to_string(),
                error,
            })?,
            path.display().to_string(),
            path.parent().unwrap_or(Path::new("")).to_path_buf(),
        ),
        Base::Embedded => (
            DEFAULT_TOURNAMENT.to_string(),
            EMBEDDED_SOURCE.to_string(),
            PathBuf::new(),
        ),
    };
    let table: Spanned<Spanning> =
        toml::from_str(&text).map_err(|e| toml_error(&text, &source, &e))?;
    let mut root = match table.into_inner() {
        Spanning::Table(t) => entries_of(&text, t),
        _ => Vec::new(),
    };
    apply(&mut root, cl.edits(&base_dir)?)?;
    let mut w = Writer::default();
    w.document(&root);
    let mut t = parse(&w.text, &source, &base_dir).map_err(|e| locate(e, &w, &source))?;
    // Without a file the tournament is the command line's, not the embedded default's (whose
    // name stays in the errors above, which point at its lines).
    let source = match base {
        Base::File(_) => source,
        Base::Embedded => COMMAND_LINE_SOURCE.to_string(),
    };
    t.source = source.clone();
    t.definition = Definition {
        source: source.clone(),
        base_dir,
        text: w.text.clone(),
        overrides: Default::default(),
        command: Some(command.to_vec()),
    };
    Ok(Composed {
        tournament: t,
        text: w.text,
    })
}

/// The edits applied to the document: values of the tables, then the engines (and their
/// output folder, unless the command line named one).
fn apply(root: &mut Vec<Entry>, edits: Edits) -> Result<(), ConfigError> {
    for edit in edits.tables {
        set(root, &edit.path, edit.value, &Origin::Flag(edit.flag));
    }
    let Some(engines) = edits.engines else {
        return Ok(());
    };
    root.retain(|e| e.key != "engine");
    let count = engines.len();
    let mut names = Vec::new();
    let mut tables = Vec::new();
    for (flag, keys) in engines {
        let origin = Origin::Flag(flag);
        let mut table = Vec::new();
        for edit in keys {
            if edit.path == ["name"] {
                if let Some(toml::Value::String(n)) = &edit.value {
                    names.push(folder_part(n));
                }
            }
            set(&mut table, &edit.path, edit.value, &origin);
        }
        tables.push((origin, table));
    }
    let first = tables[0].0.clone();
    root.push(Entry {
        key: "engine".into(),
        node: Node::Tables(tables),
        origin: first.clone(),
    });
    let out = format!("out/{}", names.join("-vs-"));
    set(
        root,
        &["tournament".into(), "out".into()],
        Some(out.into()),
        &first,
    );
    engine_count(root, count)
}

/// The number of `--engine` flags against the format the document names (the file's or
/// `--format`): checked here so that the error names the flags, not the file's line.
fn engine_count(root: &[Entry], count: usize) -> Result<(), ConfigError> {
    // A tune plays its own match (θ+ against θ−), whatever the format: one engine is enough.
    if root.iter().any(|e| e.key == "tune") {
        return Ok(());
    }
    let format = root
        .iter()
        .find(|e| e.key == "tournament")
        .and_then(|e| match &e.node {
            Node::Table(t) => t.iter().find(|e| e.key == "format"),
            _ => None,
        });
    let Some(Entry {
        node: Node::Value(toml::Value::String(format)),
        origin,
        ..
    }) = format
    else {
        return Ok(());
    };
    let needs = match format.as_str() {
        "match" if count != 2 => "exactly 2",
        "gauntlet" | "round-robin" if count < 2 => "at least 2",
        _ => return Ok(()),
    };
    let whose = match origin {
        Origin::File(line, _) => format!("line {line} of the file"),
        Origin::Flag(flag) => format!("`{flag}`"),
    };
    Err(ConfigError::Flag {
        flag: "--engine".into(),
        key: "format".into(),
        message: format!(
            "format \"{format}\" ({whose}) needs {needs} engines; --engine was given {count} time(s) (--engine replaces every [[engine]] table of the file; --format chooses another format)"
        ),
    })
}

/// An error of the validator on the written document, as one about the file or the flag its
/// line came from. A mention of another line (`also on line 12`) is translated too.
fn locate(e: ConfigError, w: &Writer, source: &str) -> ConfigError {
    let origin = |line: usize| w.origins.get(line.wrapping_sub(1)).cloned();
    let relined = |message: String| -> String {
        let mut out = String::new();
        let mut rest = message.as_str();
        while let Some(i) = rest.find("line ") {
            let digits: String = rest[i + 5..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            out.push_str(&rest[..i]);
            match digits.parse().ok().and_then(origin) {
                Some(Origin::File(l, _)) => out.push_str(&format!("line {l}")),
                Some(Origin::Flag(f)) => out.push_str(&format!("`{f}`")),
                None => out.push_str(&rest[i..i + 5 + digits.len()]),
            }
            rest = &rest[i + 5 + digits.len()..];
        }
        out + rest
    };
    // The key written on a line of the document (`key = …`, or a `[table]` header).
    let key_on = |line: usize| -> String {
        let text = w.text.lines().nth(line.wrapping_sub(1)).unwrap_or("");
        text.split(" = ")
            .next()
            .unwrap_or("")
            .trim_matches(['[', ']'])
            .rsplit('.')
            .next()
            .unwrap_or("")
            .to_string()
    };
    match e {
        ConfigError::Invalid {
            line, key, message, ..
        } => match origin(line) {
            Some(Origin::File(l, _)) => ConfigError::Invalid {
                file: source.to_string(),
                line: l,
                key,
                message: relined(message),
            },
            Some(Origin::Flag(flag)) => ConfigError::Flag {
                flag,
                key,
                message: relined(message),
            },
            None => ConfigError::Invalid {
                file: source.to_string(),
                line,
                key,
                message,
            },
        },
        ConfigError::Toml {
            line,
            column,
            key,
            message,
            ..
        } => match origin(line) {
            // The column of the value in the file (the document's differs).
            Some(Origin::File(l, c)) => ConfigError::Toml {
                file: source.to_string(),
                line: l,
                column: c,
                key,
                message,
            },
            Some(Origin::Flag(flag)) => ConfigError::Flag {
                flag,
                key: key.unwrap_or_else(|| key_on(line)),
                message,
            },
            None => ConfigError::Toml {
                file: source.to_string(),
                line,
                column,
                key,
                message,
            },
        },
        other => other,
    }
}

#[cfg(test)]
mod tests;
