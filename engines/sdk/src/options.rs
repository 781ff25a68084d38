//! Option descriptors as Rust values, and the checking of option text against them.

use othello_abi as abi;

/// The kind of an option, with its default and range.
#[derive(Clone, Debug, PartialEq)]
pub enum OptionKind {
    Bool {
        default: bool,
    },
    Int {
        default: i64,
        min: i64,
        max: i64,
    },
    Float {
        default: f64,
        min: f64,
        max: f64,
    },
    Enum {
        default: &'static str,
        values: &'static [&'static str],
    },
    String {
        default: &'static str,
    },
}

/// One option an engine declares.
#[derive(Clone, Debug, PartialEq)]
pub struct OptionSpec {
    pub name: &'static str,
    pub kind: OptionKind,
    pub help: &'static str,
}

/// A checked option value.
#[derive(Clone, Debug, PartialEq)]
pub enum OptionValue {
    Bool(bool),
    Int(i64),
    Float(f64),
    /// One of the declared values, spelled as declared.
    Enum(&'static str),
    String(String),
}

impl OptionValue {
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            OptionValue::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_int(&self) -> Option<i64> {
        match self {
            OptionValue::Int(i) => Some(*i),
            _ => None,
        }
    }

    pub fn as_float(&self) -> Option<f64> {
        match self {
            OptionValue::Float(f) => Some(*f),
            OptionValue::Int(i) => Some(*i as f64),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            OptionValue::Enum(s) => Some(s),
            OptionValue::String(s) => Some(s),
            _ => None,
        }
    }
}

impl OptionSpec {
    pub fn bool(name: &'static str, default: bool, help: &'static str) -> OptionSpec {
        OptionSpec {
            name,
            kind: OptionKind::Bool { default },
            help,
        }
    }

    pub fn int(
        name: &'static str,
        default: i64,
        min: i64,
        max: i64,
        help: &'static str,
    ) -> OptionSpec {
        OptionSpec {
            name,
            kind: OptionKind::Int { default, min, max },
            help,
        }
    }

    pub fn float(
        name: &'static str,
        default: f64,
        min: f64,
        max: f64,
        help: &'static str,
    ) -> OptionSpec {
        OptionSpec {
            name,
            kind: OptionKind::Float { default, min, max },
            help,
        }
    }

    pub fn enumeration(
        name: &'static str,
        default: &'static str,
        values: &'static [&'static str],
        help: &'static str,
    ) -> OptionSpec {
        OptionSpec {
            name,
            kind: OptionKind::Enum { default, values },
            help,
        }
    }

    pub fn string(name: &'static str, default: &'static str, help: &'static str) -> OptionSpec {
        OptionSpec {
            name,
            kind: OptionKind::String { default },
            help,
        }
    }

    /// The ABI type code.
    pub(crate) fn abi_type(&self) -> abi::OptionType {
        match self.kind {
            OptionKind::Bool { .. } => abi::OPTION_BOOL,
            OptionKind::Int { .. } => abi::OPTION_INT,
            OptionKind::Float { .. } => abi::OPTION_FLOAT,
            OptionKind::Enum { .. } => abi::OPTION_ENUM,
            OptionKind::String { .. } => abi::OPTION_STRING,
        }
    }

    /// The default as option text.
    pub fn default_text(&self) -> String {
        match &self.kind {
            OptionKind::Bool { default } => default.to_string(),
            OptionKind::Int { default, .. } => default.to_string(),
            OptionKind::Float { default, .. } => default.to_string(),
            OptionKind::Enum { default, .. } => default.to_string(),
            OptionKind::String { default } => default.to_string(),
        }
    }

    /// The (min, max) range for numeric options; (0, 0) otherwise.
    pub(crate) fn range(&self) -> (f64, f64) {
        match self.kind {
            OptionKind::Int { min, max, .. } => (min as f64, max as f64),
            OptionKind::Float { min, max, .. } => (min, max),
            _ => (0.0, 0.0),
        }
    }

    /// Check option text against this spec. Enum values match case-insensitively.
    pub fn parse(&self, text: &str) -> Result<OptionValue, String> {
        let t = text.trim();
        let name = self.name;
        match &self.kind {
            OptionKind::Bool { .. } => match t.to_ascii_lowercase().as_str() {
                "true" | "1" | "yes" | "on" => Ok(OptionValue::Bool(true)),
                "false" | "0" | "no" | "off" => Ok(OptionValue::Bool(false)),
                _ => Err(format!("option {name}: `{t}` is not true or false")),
            },
            OptionKind::Int { min, max, .. } => {
                let v: i64 = t
                    .parse()
                    .map_err(|_| format!("option {name}: `{t}` is not an integer"))?;
                if v < *min || v > *max {
                    return Err(format!("option {name}: {v} is outside {min}..={max}"));
                }
                Ok(OptionValue::Int(v))
            }
            OptionKind::Float { min, max, .. } => {
                let v: f64 = t
                    .parse()
                    .map_err(|_| format!("option {name}: `{t}` is not a number"))?;
                if !(v >= *min && v <= *max) {
                    return Err(format!("option {name}: {v} is outside {min}..={max}"));
                }
                Ok(OptionValue::Float(v))
            }
            OptionKind::Enum { values, .. } => values
                .iter()
                .find(|v| v.eq_ignore_ascii_case(t))
                .map(|v| OptionValue::Enum(v))
                .ok_or_else(|| format!("option {name}: `{t}` is not one of {}", values.join(", "))),
            OptionKind::String { .. } => Ok(OptionValue::String(text.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_checked_against_kind_and_range() {
        let depth = OptionSpec::int("Depth", 7, 1, 60, "");
        assert_eq!(depth.parse("12"), Ok(OptionValue::Int(12)));
        assert!(depth.parse("0").unwrap_err().contains("outside 1..=60"));
        assert!(depth.parse("x").is_err());
        let prune = OptionSpec::enumeration("Pruning", "alphabeta", &["none", "alphabeta"], "");
        assert_eq!(prune.parse("AlphaBeta"), Ok(OptionValue::Enum("alphabeta")));
        assert!(prune.parse("abc").is_err());
        let b = OptionSpec::bool("Random", false, "");
        assert_eq!(b.parse("TRUE"), Ok(OptionValue::Bool(true)));
        let f = OptionSpec::float("Share", 0.9, 0.0, 1.0, "");
        assert!(f.parse("NaN").is_err());
        assert_eq!(f.parse("0.5"), Ok(OptionValue::Float(0.5)));
    }
}
