//! The tournament values of `harness run`'s command line, as edits of a tournament file.
//!
//! Each flag names one table of the file and sets its keys; [`super::compose`] applies the
//! edits to the file's document and checks the result with the one validator, so a value obeys
//! the same rules wherever it is written, and an error names the flag and the key.
//!
//! | flag | table | written |
//! | --- | --- | --- |
//! | `--engine KEY=VALUE,…` (repeated) | one `[[engine]]` each | `name`, `plugin`, `time` (a `--time` spec), `time.KEY`, `memory-limit`, `disk-limit`, `log-limit`, `fail-on`, `bench`, `ponder`, `threads`, `sandbox`, `sandbox-read` and `sandbox-write` (paths joined by `:`, `;` on Windows, as in `PATH`), `sandbox-env` (names joined the same way) are the table's; any other key (or `options.KEY`) is a plugin option |
//! | `--format F`, `--pairs N`, `--concurrency N`, `--affinity` | `[tournament]` | |
//! | `--time SPEC[,KEY=VALUE…]` | `[time]` | `10+0.1`, `0.5/move`, `depth=6`, `nodes=100000`, then any `[time]` key (`margin=0.5`, `nps-reference=…`) |
//! | `--openings SET\|FILE[,KEY=VALUE…]`, `--openings-seed N` | `[openings]` | a built-in set's name or a file, then `order`, `seed`, `start` |
//! | `--sprt KEY=VALUE,…` | `[sprt]` | `elo0=0,elo1=5`, any `[sprt]` key |
//! | `--adjudication N[,KEY=VALUE…]` | `[adjudication]` | `exact-at-empties` first (`20`), then `solver`, `solve-timeout`, `solver-options.KEY` |
//! | `--tune ENGINE[,KEY=VALUE…]` | `[tune]` | the tuned engine first (`mm`), then `opponent`, `iterations`, `seed`, `A`, `alpha`, `gamma`, and `params.OPTION.KEY` for each key of `[tune.params]` (`params.Depth.start=2,params.Depth.min=1,…`) |
//!
//! A value may be written in double quotes to hold a comma (`Command="prog -a,b"`). A path
//! (a plugin, an opening file) is relative to the current folder.

use super::error::ConfigError;
use super::{parse_time_spec, PluginRef, TimeControl};
use crate::plan::openings::BUILTIN_NAMES;
use std::path::Path;

/// The tournament values of the command line (all optional).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CommandLine {
    /// Each `--engine` as written.
    pub engines: Vec<String>,
    pub format: Option<String>,
    pub pairs: Option<u32>,
    pub concurrency: Option<usize>,
    pub affinity: bool,
    pub time: Option<String>,
    pub openings: Option<String>,
    pub openings_seed: Option<u64>,
    pub sprt: Option<String>,
    pub adjudication: Option<String>,
    pub tune: Option<String>,
}

/// One edit of the document: set the value at `path` (a table's key, from the root), or
/// remove it; `flag` is the flag as written, for errors.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Edit {
    pub(super) path: Vec<String>,
    /// `None` removes the key.
    pub(super) value: Option<toml::Value>,
    pub(super) flag: String,
}

/// The command line as edits: those of the tables, and the engines that replace the file's.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Edits {
    pub(super) tables: Vec<Edit>,
    /// Each `--engine` as written and its keys (paths inside the `[[engine]]` table).
    pub(super) engines: Option<Vec<(String, Vec<Edit>)>>,
}

/// What a key's value is, so that the flag's text becomes the value the file would hold: a
/// name of digits stays a name, a count becomes a number.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Text,
    Integer,
    Float,
    Bool,
    /// `memory-limit`, `disk-limit`, `log-limit`: bytes or a size with a unit.
    Size,
    /// A plugin option, or a key no table has (the validator names it): a number or a
    /// boolean when the text is exactly that value's spelling, else text.
    Literal,
}

/// The keys of each table and what they hold.
fn kind_of(table: &str, key: &str) -> Kind {
    use Kind::*;
    match (table, key) {
        ("tournament", "pairs" | "concurrency") => Integer,
        ("tournament", "affinity") => Bool,
        ("tournament", "format" | "out" | "stop-file" | "sandbox") => Text,
        ("time", "base" | "increment" | "move-time" | "margin" | "stall-timeout") => Float,
        ("time", "depth" | "nodes" | "nps-reference") => Integer,
        ("time", "nps-engine") => Text,
        ("openings", "file" | "builtin" | "order") => Text,
        ("openings", "seed" | "start") => Integer,
        ("sprt", "elo0" | "elo1" | "alpha" | "beta") => Float,
        ("sprt", "model" | "unit") => Text,
        ("sprt", "fail-on-crash" | "fail-on-forfeit") => Bool,
        ("adjudication", "exact-at-empties") => Integer,
        ("adjudication", "solver") => Text,
        ("adjudication", "solve-timeout") => Float,
        ("tune", "engine" | "opponent") => Text,
        ("tune", "iterations" | "seed") => Integer,
        ("tune", "A" | "alpha" | "gamma") => Float,
        ("engine", "name" | "plugin" | "fail-on" | "sandbox") => Text,
        ("engine", "bench" | "threads") => Integer,
        ("engine", "ponder") => Bool,
        ("engine", "memory-limit" | "disk-limit" | "log-limit") => Size,
        _ => Literal,
    }
}

/// `text` as the value of a key of kind `kind`. Text that is not of the kind stays text, and
/// the validator says what was expected.
fn value_of(kind: Kind, text: &str) -> toml::Value {
    use toml::Value;
    let literal = || -> Option<Value> {
        if let Ok(i) = text.parse::<i64>() {
            return (i.to_string() == text).then_some(Value::Integer(i));
        }
        if let Ok(b) = text.parse::<bool>() {
            return Some(Value::Boolean(b));
        }
        let f = text.parse::<f64>().ok().filter(|f| f.is_finite())?;
        (Value::Float(f).to_string() == text).then_some(Value::Float(f))
    };
    let parsed = match kind {
        Kind::Text => None,
        // A decimal where a whole number belongs is said to be one, not to be text.
        Kind::Integer | Kind::Size => text.parse::<i64>().ok().map(Value::Integer).or_else(|| {
            text.parse::<f64>()
                .ok()
                .filter(|f| f.is_finite())
                .map(Value::Float)
        }),
        Kind::Float => text
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .map(Value::Float),
        Kind::Bool => text.parse::<bool>().ok().map(Value::Boolean),
        Kind::Literal => literal(),
    };
    parsed.unwrap_or_else(|| Value::String(text.to_string()))
}

/// `KEY=VALUE,KEY=VALUE…` split at the commas outside double quotes; a value in double quotes
/// loses them. Items without `=` are `(None, item)`.
fn items(text: &str) -> Vec<(Option<String>, String)> {
    let mut out = Vec::new();
    let (mut current, mut quoted) = (String::new(), false);
    let push = |out: &mut Vec<(Option<String>, String)>, item: &str| {
        let (key, value) = match item.split_once('=') {
            Some((k, v)) => (Some(k.trim().to_string()), v.trim()),
            None => (None, item.trim()),
        };
        let value = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .unwrap_or(value);
        out.push((key, value.to_string()));
    };
    for c in text.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                current.push(c);
            }
            ',' if !quoted => push(&mut out, &std::mem::take(&mut current)),
            c => current.push(c),
        }
    }
    if !current.trim().is_empty() || out.is_empty() {
        push(&mut out, &current);
    }
    out
}

/// A path given on the command line, for a document whose relative paths are resolved against
/// `base_dir`: as written when that is the current folder, else made absolute.
fn path_for(text: &str, base_dir: &Path) -> String {
    if base_dir.as_os_str().is_empty() || base_dir == Path::new(".") {
        return text.to_string();
    }
    std::path::absolute(text)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| text.to_string())
}

/// The keys of a `--time` spec (`10+0.1`, `0.5/move`, `depth=6`, `nodes=N`), made from its
/// parse ([`parse_time_spec`]: the rule the file's values obey). `flag` names the flag in an
/// error.
fn time_spec(spec: &str, flag: &str, key: &str) -> Result<Vec<(String, toml::Value)>, ConfigError> {
    let refused = |message: String| ConfigError::Flag {
        flag: flag.to_string(),
        key: key.to_string(),
        message: message
            .strip_prefix(&format!("--time `{spec}`: "))
            .unwrap_or(&message)
            .to_string(),
    };
    let control = parse_time_spec(spec).map_err(refused)?;
    let seconds = |d: std::time::Duration| toml::Value::Float(d.as_secs_f64());
    Ok(match control {
        TimeControl::Depth(d) => vec![("depth".into(), toml::Value::Integer(d.into()))],
        TimeControl::Nodes(n) => {
            let n = i64::try_from(n).map_err(|_| {
                refused(format!(
                    "nodes={n} is more than a tournament file holds ({})",
                    i64::MAX
                ))
            })?;
            vec![("nodes".into(), toml::Value::Integer(n))]
        }
        TimeControl::MoveTime(t) => vec![("move-time".into(), seconds(t))],
        TimeControl::Clock { base, increment } => vec![
            ("base".into(), seconds(base)),
            ("increment".into(), seconds(increment)),
        ],
    })
}

/// The keys of `[time]` that choose the limit; a spec replaces all of them.
const TIME_LIMITS: [&str; 5] = ["base", "increment", "move-time", "depth", "nodes"];

impl CommandLine {
    /// Whether the command line sets no tournament value.
    pub fn is_empty(&self) -> bool {
        *self == CommandLine::default()
    }

    /// The edits, with paths resolved for a document whose base folder is `base_dir`.
    pub(super) fn edits(&self, base_dir: &Path) -> Result<Edits, ConfigError> {
        let mut tables = Vec::new();
        let mut set = |path: &[&str], value: toml::Value, flag: &str| {
            tables.push(Edit {
                path: path.iter().map(|s| s.to_string()).collect(),
                value: Some(value),
                flag: flag.to_string(),
            });
        };
        if let Some(f) = &self.format {
            set(
                &["tournament", "format"],
                value_of(Kind::Text, f),
                &format!("--format {f}"),
            );
        }
        if let Some(n) = self.pairs {
            set(
                &["tournament", "pairs"],
                (n as i64).into(),
                &format!("--pairs {n}"),
            );
        }
        if let Some(n) = self.concurrency {
            let value = i64::try_from(n).map_or_else(|_| n.to_string().into(), toml::Value::from);
            set(
                &["tournament", "concurrency"],
                value,
                &format!("--concurrency {n}"),
            );
        }
        if self.affinity {
            set(&["tournament", "affinity"], true.into(), "--affinity");
        }
        if let Some(seed) = self.openings_seed {
            let flag = format!("--openings-seed {seed}");
            set(&["openings", "order"], "shuffled".into(), &flag);
            let value =
                i64::try_from(seed).map_or_else(|_| seed.to_string().into(), toml::Value::from);
            set(&["openings", "seed"], value, &flag);
        }
        if let Some(t) = &self.time {
            tables.extend(table_edits("time", "--time", t, base_dir)?);
        }
        if let Some(o) = &self.openings {
            tables.extend(table_edits("openings", "--openings", o, base_dir)?);
        }
        if let Some(s) = &self.sprt {
            tables.extend(table_edits("sprt", "--sprt", s, base_dir)?);
        }
        if let Some(a) = &self.adjudication {
            tables.extend(table_edits("adjudication", "--adjudication", a, base_dir)?);
        }
        if let Some(t) = &self.tune {
            tables.extend(table_edits("tune", "--tune", t, base_dir)?);
        }
        let engines = if self.engines.is_empty() {
            None
        } else {
            let mut engines = Vec::new();
            for text in &self.engines {
                engines.push((format!("--engine {text}"), engine_edits(text, base_dir)?));
            }
            Some(engines)
        };
        Ok(Edits { tables, engines })
    }
}

/// The edits of `--time`, `--openings` or `--sprt` (`flag`) on `table`: an item without `=`
/// first (the time spec, the opening set or file), then `KEY=VALUE` items.
fn table_edits(
    table: &str,
    flag: &str,
    text: &str,
    base_dir: &Path,
) -> Result<Vec<Edit>, ConfigError> {
    let written = format!("{flag} {text}");
    let error = |key: &str, message: String| ConfigError::Flag {
        flag: written.clone(),
        key: key.to_string(),
        message,
    };
    let mut edits = Vec::new();
    // Keys inside a table of the table (`solver-options.Hash`).
    let mut nested = Vec::new();
    let mut keys: Vec<String> = Vec::new();
    let mut edit = |key: &str, value: Option<toml::Value>| {
        edits.push(Edit {
            path: vec![table.to_string(), key.to_string()],
            value,
            flag: written.clone(),
        })
    };
    for (i, (key, value)) in items(text).into_iter().enumerate() {
        let key = match (key, table) {
            (Some(k), _) if k.is_empty() => {
                return Err(error(table, format!("`={value}` has no key")))
            }
            (Some(k), _) => k,
            (None, "time") if i == 0 => "time".to_string(),
            (None, "adjudication") if i == 0 => "exact-at-empties".to_string(),
            (None, "tune") if i == 0 => "engine".to_string(),
            (None, "openings") if i == 0 => if BUILTIN_NAMES.contains(&value.as_str()) {
                "builtin"
            } else {
                "file"
            }
            .to_string(),
            (None, _) => {
                return Err(error(
                    table,
                    format!("`{value}` is not KEY=VALUE (keys of the [{table}] table)"),
                ))
            }
        };
        if keys.contains(&key) {
            return Err(error(&key, "is given twice".into()));
        }
        keys.push(key.clone());
        match (table, key.as_str()) {
            ("time", "time") => {
                for limit in TIME_LIMITS {
                    edit(limit, None);
                }
                for (k, v) in time_spec(&value, &written, "time")? {
                    edit(&k, Some(v));
                }
            }
            ("time", k) if TIME_LIMITS.contains(&k) && k != "increment" => {
                // A base keeps the file's increment (`--time base=20`); another limit has none.
                let kept = |l: &str| l == k || (k == "base" && l == "increment");
                for limit in TIME_LIMITS.iter().filter(|l| !kept(l)) {
                    edit(limit, None);
                }
                edit(k, Some(value_of(kind_of(table, k), &value)));
            }
            ("openings", k @ ("file" | "builtin")) => {
                edit("file", None);
                edit("builtin", None);
                let value = if k == "file" {
                    path_for(&value, base_dir)
                } else {
                    value
                };
                edit(k, Some(value.into()));
            }
            ("adjudication", "solver") if PluginRef::is_path(&value) => {
                edit("solver", Some(path_for(&value, base_dir).into()));
            }
            ("adjudication", k) if k.starts_with("solver-options.") => {
                let option = &k["solver-options.".len()..];
                nested.push(Edit {
                    path: vec![table.into(), "solver-options".into(), option.into()],
                    value: Some(value_of(Kind::Literal, &value)),
                    flag: written.clone(),
                });
            }
            ("tune", k) if k.starts_with("params.") => {
                // `params.OPTION.KEY`: a key of the option's inline table in [tune.params].
                let Some((option, param_key)) = k["params.".len()..].rsplit_once('.') else {
                    return Err(error(
                        k,
                        "is not params.OPTION.KEY (KEY: start, min, max, c-end, r-end)".into(),
                    ));
                };
                nested.push(Edit {
                    path: vec![
                        table.into(),
                        "params".into(),
                        option.into(),
                        param_key.into(),
                    ],
                    value: Some(value_of(Kind::Literal, &value)),
                    flag: written.clone(),
                });
            }
            ("openings", "order") if value == "sequential" => {
                // The file's seed belongs to its shuffled order, which this replaces.
                edit("seed", None);
                edit("order", Some(value.into()));
            }
            (_, k) => edit(k, Some(value_of(kind_of(table, k), &value))),
        }
    }
    edits.extend(nested);
    Ok(edits)
}

/// The keys of one `--engine`: those of the `[[engine]]` table, the rest plugin options.
fn engine_edits(text: &str, base_dir: &Path) -> Result<Vec<Edit>, ConfigError> {
    let written = format!("--engine {text}");
    let error = |key: &str, message: String| ConfigError::Flag {
        flag: written.clone(),
        key: key.to_string(),
        message,
    };
    let mut edits: Vec<Edit> = Vec::new();
    let mut edit = |path: Vec<String>, value: toml::Value| {
        edits.push(Edit {
            path,
            value: Some(value),
            flag: written.clone(),
        })
    };
    let mut seen: Vec<String> = Vec::new();
    for (key, value) in items(text) {
        let Some(key) = key.filter(|k| !k.is_empty()) else {
            return Err(error(
                "engine",
                format!("`{value}` is not KEY=VALUE: give name=NAME,plugin=PLUGIN[,OPTION=VALUE…]"),
            ));
        };
        if seen.contains(&key) {
            return Err(error(&key, "is given twice".into()));
        }
        seen.push(key.clone());
        match key.as_str() {
            "plugin" => {
                let plugin = if PluginRef::is_path(&value) {
                    path_for(&value, base_dir)
                } else {
                    value
                };
                edit(vec!["plugin".into()], plugin.into());
            }
            "sandbox-read" | "sandbox-write" => {
                // Separated as the system separates `PATH` (`:`; `;` on Windows, where `:`
                // follows a drive letter); relative to the current folder.
                let list =
                    split_like_path(&value).map(|p| toml::Value::from(path_for(&p, base_dir)));
                edit(vec![key.clone()], toml::Value::Array(list.collect()));
            }
            "sandbox-env" => {
                let list = split_like_path(&value).map(toml::Value::from);
                edit(vec![key.clone()], toml::Value::Array(list.collect()));
            }
            "name" | "fail-on" | "bench" | "memory-limit" | "disk-limit" | "log-limit"
            | "sandbox" | "ponder" | "threads" => {
                edit(vec![key.clone()], value_of(kind_of("engine", &key), &value));
            }
            // The folder an external program starts in is a path of the command line's, as
            // `plugin` is: relative to the current folder.
            k if k == super::sandbox::WORKING_DIR_OPTION
                || k.strip_prefix("options.") == Some(super::sandbox::WORKING_DIR_OPTION) =>
            {
                let folder = if value.is_empty() {
                    value
                } else {
                    path_for(&value, base_dir)
                };
                edit(
                    vec!["options".into(), super::sandbox::WORKING_DIR_OPTION.into()],
                    folder.into(),
                );
            }
            "time" => {
                for (k, v) in time_spec(&value, &written, "time")? {
                    edit(vec!["time".into(), k], v);
                }
            }
            _ => match key.split_once('.') {
                Some(("time", k)) => edit(
                    vec!["time".into(), k.to_string()],
                    value_of(kind_of("time", k), &value),
                ),
                Some(("options", k)) => edit(
                    vec!["options".into(), k.to_string()],
                    value_of(Kind::Literal, &value),
                ),
                Some(("build", k)) => edit(
                    vec!["build".into(), k.to_string()],
                    value_of(Kind::Text, &value),
                ),
                _ => edit(
                    vec!["options".into(), key.clone()],
                    value_of(Kind::Literal, &value),
                ),
            },
        }
    }
    for required in ["name", "plugin"] {
        if !seen.iter().any(|k| k == required) {
            return Err(error(
                required,
                "is missing: give name=NAME,plugin=PLUGIN[,KEY=VALUE…]".into(),
            ));
        }
    }
    Ok(edits)
}

/// The non-empty parts of `value`, separated as the system separates `PATH`.
fn split_like_path(value: &str) -> impl Iterator<Item = String> + '_ {
    std::env::split_paths(value)
        .map(|p| p.to_string_lossy().into_owned())
        .filter(|p| !p.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_list_is_split_as_the_system_splits_path() {
        // Paths of the system's own form: on Windows they hold a drive's colon.
        let dirs = [
            std::env::temp_dir().join("a"),
            std::env::temp_dir().join("b c"),
        ];
        let joined = std::env::join_paths(&dirs).unwrap();
        let parts: Vec<String> = split_like_path(joined.to_str().unwrap()).collect();
        assert_eq!(parts, dirs.map(|d| d.display().to_string()));
    }

    #[test]
    fn items_split_at_commas_outside_quotes() {
        assert_eq!(
            items(r#"name=a,Command="x -l 1,2",plugin=p"#),
            vec![
                (Some("name".into()), "a".into()),
                (Some("Command".into()), "x -l 1,2".into()),
                (Some("plugin".into()), "p".into()),
            ]
        );
        assert_eq!(items("xot-large,seed=3")[0], (None, "xot-large".into()));
    }

    #[test]
    fn values_keep_their_spelling() {
        use toml::Value;
        assert_eq!(value_of(Kind::Text, "5"), Value::String("5".into()));
        assert_eq!(value_of(Kind::Integer, "5"), Value::Integer(5));
        assert_eq!(
            value_of(Kind::Integer, "five"),
            Value::String("five".into())
        );
        assert_eq!(value_of(Kind::Float, "0"), Value::Float(0.0));
        assert_eq!(value_of(Kind::Literal, "64"), Value::Integer(64));
        assert_eq!(value_of(Kind::Literal, "0.5"), Value::Float(0.5));
        // An option's text reaches the engine as written: `0.50` is not `0.5`.
        assert_eq!(
            value_of(Kind::Literal, "0.50"),
            Value::String("0.50".into())
        );
        assert_eq!(value_of(Kind::Literal, "007"), Value::String("007".into()));
        assert_eq!(value_of(Kind::Literal, "true"), Value::Boolean(true));
        assert_eq!(value_of(Kind::Size, "2GiB"), Value::String("2GiB".into()));
    }

    #[test]
    fn engine_keys_are_the_tables_and_the_rest_options() {
        let e = engine_edits(
            "name=new,plugin=./libmine.so,Hash=64,time=0.5/move,time.margin=30,memory-limit=2GiB,bench=123,options.name=x",
            Path::new(""),
        )
        .unwrap();
        let paths: Vec<String> = e.iter().map(|e| e.path.join(".")).collect();
        assert_eq!(
            paths,
            [
                "name",
                "plugin",
                "options.Hash",
                "time.move-time",
                "time.margin",
                "memory-limit",
                "bench",
                "options.name"
            ]
        );
        for (text, key) in [
            ("name=a", "plugin"),
            ("plugin=x", "name"),
            ("name=a,plugin=x,name=b", "name"),
            ("name=a,plugin=x,time=fast", "time"),
            ("name=a,plugin=x,Hash", "engine"),
        ] {
            match engine_edits(text, Path::new("")) {
                Err(ConfigError::Flag { flag, key: k, .. }) => {
                    assert_eq!(flag, format!("--engine {text}"));
                    assert_eq!(k, key, "{text}");
                }
                other => panic!("{text}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_time_spec_replaces_every_limit() {
        let e = table_edits("time", "--time", "10+0.1,margin=0.5", Path::new("")).unwrap();
        let set: Vec<(String, Option<toml::Value>)> = e
            .into_iter()
            .map(|e| (e.path[1].clone(), e.value))
            .collect();
        assert_eq!(set.iter().filter(|(_, v)| v.is_none()).count(), 5);
        assert!(set.contains(&("base".into(), Some(toml::Value::Float(10.0)))));
        assert!(set.contains(&("increment".into(), Some(toml::Value::Float(0.1)))));
        assert!(set.contains(&("margin".into(), Some(toml::Value::Float(0.5)))));
        let o = table_edits("openings", "--openings", "xot-large,seed=3", Path::new("")).unwrap();
        assert!(o
            .iter()
            .any(|e| e.path[1] == "builtin" && e.value == Some("xot-large".into())));
        // `depth=6` is a spec and a key: either way the clock's keys go.
        let d = table_edits("time", "--time", "depth=6", Path::new("")).unwrap();
        let removed = d.iter().filter(|e| e.value.is_none()).count();
        assert_eq!(removed, 4, "{d:?}");
        assert!(d
            .iter()
            .any(|e| e.path[1] == "depth" && e.value == Some(toml::Value::Integer(6))));
        // Each spec's keys are the values its parse gave, spaces and all.
        let m = table_edits("time", "--time", " 0.25/move ", Path::new("")).unwrap();
        assert!(m
            .iter()
            .any(|e| e.path[1] == "move-time" && e.value == Some(toml::Value::Float(0.25))));
        let n = table_edits("time", "--time", "nodes=5000", Path::new("")).unwrap();
        assert!(n
            .iter()
            .any(|e| e.path[1] == "nodes" && e.value == Some(toml::Value::Integer(5000))));
        // A sequential order drops the file's seed (a later `seed=` is still an error).
        let o = table_edits(
            "openings",
            "--openings",
            "xot-large,order=sequential",
            Path::new(""),
        );
        assert!(o
            .unwrap()
            .iter()
            .any(|e| e.path[1] == "seed" && e.value.is_none()));
        let bad = table_edits("sprt", "--sprt", "elo0=0,5", Path::new("")).unwrap_err();
        assert!(
            bad.to_string().starts_with("--sprt elo0=0,5: key `sprt`:"),
            "{bad}"
        );
    }
}
