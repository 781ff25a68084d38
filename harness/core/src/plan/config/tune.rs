//! The `[tune]` table (`harness tune`): which engine's options SPSA tunes, against whom, for
//! how many iterations, with which gains. Raw as written ([`RawTune`]), checked into a
//! [`TuneConfig`] with errors that name the file, the line and the key; and the match a tune
//! plays ([`Tournament::tune_match`]).
//!
//! What needs the plugin (does it declare each option, of type int or float, with a range that
//! holds the one given here) is checked when the plugin is loaded, before any game
//! (`play::tune`).

use super::error::{line_col, ConfigError};
use super::raw::RawTune;
use super::validate::Validator;
use super::{EngineConfig, Format, Tournament};
use crate::record::tune::{TuneRecord, TunedParamRecord};
use crate::stats::spsa::{self, Schedule};

/// The largest `A` a tune takes: far beyond any useful stability constant (a tenth of the
/// iterations), small enough that its powers stay finite.
const MOST_A: f64 = 1e9;
use toml::Spanned;

/// The keys of one parameter, `{ start, min, max, c-end, r-end }`.
const PARAM_KEYS: [&str; 5] = ["start", "min", "max", "c-end", "r-end"];

/// The name a tune gives the tuned engine playing θ + c·Δ.
pub fn plus_name(engine: &str) -> String {
    format!("{engine}+")
}

/// The name a tune gives the tuned engine playing θ − c·Δ.
pub fn minus_name(engine: &str) -> String {
    format!("{engine}-")
}

/// A checked `[tune]` table.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneConfig {
    /// Index of the tuned `[[engine]]`.
    pub engine: usize,
    /// Index of the opponent `[[engine]]`; `None`: the tuned engine itself (θ+ against θ−).
    pub opponent: Option<usize>,
    pub seed: u64,
    /// Iterations, A, alpha and gamma.
    pub schedule: Schedule,
    /// The options tuned, in file order (`integer` is learnt from the plugin).
    pub params: Vec<spsa::Param>,
    /// The line of each parameter in the file, for the plugin's checks.
    pub lines: Vec<usize>,
}

impl TuneConfig {
    /// What `tournament.json` pins of it (a resumed tune must be the same tune).
    pub fn pin(&self) -> TuneRecord {
        TuneRecord {
            engine: self.engine,
            opponent: self.opponent,
            seed: self.seed,
            iterations: self.schedule.iterations,
            big_a: self.schedule.big_a,
            alpha: self.schedule.alpha,
            gamma: self.schedule.gamma,
            params: self
                .params
                .iter()
                .map(|p| TunedParamRecord {
                    name: p.name.clone(),
                    start: p.start,
                    min: p.min,
                    max: p.max,
                    c_end: p.c_end,
                    r_end: p.r_end,
                    other: Default::default(),
                })
                .collect(),
            other: Default::default(),
        }
    }
}

impl Tournament {
    /// The match a tune plays, one round (an opening, both colours) per iteration: against
    /// itself, engines `[E+, E-]` in a match; against an opponent O, `[O, E+, E-]` in a
    /// gauntlet, so that every round plays O against θ+ and against θ− on the same opening.
    /// `E+` and `E-` are the tuned engine under the names [`plus_name`] and [`minus_name`],
    /// whose tuned options the tune sets before each game. `None` without a `[tune]` table.
    pub fn tune_match(&self) -> Option<Tournament> {
        let tune = self.tune.as_ref()?;
        let tuned = &self.engines[tune.engine];
        let side = |name: String| EngineConfig {
            name,
            ..tuned.clone()
        };
        let (plus, minus) = (side(plus_name(&tuned.name)), side(minus_name(&tuned.name)));
        let (format, engines) = match tune.opponent {
            None => (Format::Match, vec![plus, minus]),
            Some(o) => (Format::Gauntlet, vec![self.engines[o].clone(), plus, minus]),
        };
        Some(Tournament {
            format,
            engines,
            pairs: tune.schedule.iterations as u32,
            sprt: None,
            ..self.clone()
        })
    }
}

/// A number of the table (an integer or a float).
fn number(v: &Spanned<toml::Value>) -> Option<f64> {
    match v.get_ref() {
        toml::Value::Integer(i) => Some(*i as f64),
        toml::Value::Float(f) if f.is_finite() => Some(*f),
        _ => None,
    }
}

impl Validator<'_> {
    /// A number at `key`, checked by `ok` (which says what is allowed).
    fn tune_number(
        &self,
        v: &Spanned<toml::Value>,
        key: &str,
        ok: impl Fn(f64) -> Result<(), String>,
    ) -> Result<f64, ConfigError> {
        let x = number(v).ok_or_else(|| self.invalid(v.span(), key, "must be a number"))?;
        ok(x).map_err(|m| self.invalid(v.span(), key, m))?;
        Ok(x)
    }

    /// The `[tune]` table, against the file's engines.
    pub(super) fn tune(
        &self,
        raw: Spanned<RawTune>,
        engines: &[EngineConfig],
    ) -> Result<TuneConfig, ConfigError> {
        let span = raw.span();
        let raw = raw.into_inner();
        let names = || {
            engines
                .iter()
                .map(|e| format!("`{}`", e.name))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let find = |name: &Spanned<String>, key: &str| {
            engines
                .iter()
                .position(|e| &e.name == name.get_ref())
                .ok_or_else(|| {
                    let message = format!(
                        "no [[engine]] is named `{}` (the engines: {})",
                        name.get_ref(),
                        names()
                    );
                    self.invalid(name.span(), key, message)
                })
        };
        let engine = find(&raw.engine, "tune.engine")?;
        let opponent = match &raw.opponent {
            None => None,
            Some(o) if o.get_ref() == "self" => None,
            Some(o) => {
                let i = find(o, "tune.opponent")?;
                if i == engine {
                    return Err(self.invalid(
                        o.span(),
                        "tune.opponent",
                        "is the tuned engine: write \"self\" for θ+ against θ−",
                    ));
                }
                let tuned = &engines[engine].name;
                if [plus_name(tuned), minus_name(tuned)].contains(o.get_ref()) {
                    return Err(self.invalid(
                        o.span(),
                        "tune.opponent",
                        format!("`{}` is the name the tune gives the tuned engine's θ+ or θ−: rename that engine", o.get_ref()),
                    ));
                }
                Some(i)
            }
        };
        let iterations = self.tune_number(&raw.iterations, "tune.iterations", |x| {
            if x.fract() != 0.0 || x < 1.0 {
                return Err("must be a whole number, at least 1".into());
            }
            // Each iteration is a pair of games (two with an opponent).
            let pairings = if opponent.is_some() { 2 } else { 1 };
            super::rules::pairs(x.min(f64::from(u32::MAX)) as u32, pairings).map(|_| ())
        })? as u64;
        let seed = match &raw.seed {
            None => 0,
            Some(s) => self.tune_number(s, "tune.seed", |x| {
                if x.fract() != 0.0 || x < 0.0 {
                    return Err("must be a whole number, at least 0".into());
                }
                Ok(())
            })? as u64,
        };
        let schedule = self.tune_schedule(&raw, iterations)?;
        let entries = match raw.params {
            Some(p) if !p.get_ref().0.is_empty() => p.into_inner().0,
            Some(p) => {
                return Err(self.invalid(p.span(), "tune.params", "names no option to tune"))
            }
            None => {
                return Err(self.invalid(
                    span,
                    "tune.params",
                    "is missing: give a [tune.params] table, e.g. Depth = { start = 2, min = 1, max = 6, c-end = 1.0, r-end = 0.05 }",
                ))
            }
        };
        let mut params = Vec::with_capacity(entries.len());
        let mut lines = Vec::with_capacity(entries.len());
        for (name, value) in entries {
            lines.push(line_col(self.text, name.span().start).0);
            let span = name.span();
            let param = self.tune_param(name.into_inner(), value)?;
            if let Some(problem) = param.gains_problem(&schedule) {
                return Err(self.invalid(span, "tune.params", problem));
            }
            params.push(param);
        }
        Ok(TuneConfig {
            engine,
            opponent,
            seed,
            schedule,
            params,
            lines,
        })
    }

    /// The gains' schedule: `A` from 0 to [`MOST_A`] (default a tenth of the iterations),
    /// alpha and gamma from 0 to 1 (Spall's conditions; fishtest's 0.602 and 0.101).
    fn tune_schedule(&self, raw: &RawTune, iterations: u64) -> Result<Schedule, ConfigError> {
        let exponent = |v: &Option<Spanned<toml::Value>>, key: &str, default: f64| match v {
            None => Ok(default),
            Some(v) => self.tune_number(v, key, |x| {
                if !(0.0..=1.0).contains(&x) {
                    return Err(
                        "must be from 0 to 1 (fishtest's SPSA uses alpha 0.602, gamma 0.101)"
                            .to_string(),
                    );
                }
                Ok(())
            }),
        };
        Ok(Schedule {
            iterations,
            big_a: match &raw.big_a {
                None => Schedule::default_a(iterations),
                Some(v) => self.tune_number(v, "tune.A", |x| {
                    if !(0.0..=MOST_A).contains(&x) {
                        return Err(format!(
                            "must be from 0 to {MOST_A:e} (fishtest's default is a tenth of the iterations)"
                        ));
                    }
                    Ok(())
                })?,
            },
            alpha: exponent(&raw.alpha, "tune.alpha", spsa::DEFAULT_ALPHA)?,
            gamma: exponent(&raw.gamma, "tune.gamma", spsa::DEFAULT_GAMMA)?,
        })
    }

    /// One `[tune.params]` entry: `{ start, min, max, c-end, r-end }`, all numbers,
    /// min ≤ start ≤ max, min < max, c-end > 0, r-end > 0.
    fn tune_param(
        &self,
        name: String,
        value: Spanned<toml::Value>,
    ) -> Result<spsa::Param, ConfigError> {
        let key = format!("tune.params.{name}");
        let toml::Value::Table(table) = value.get_ref() else {
            return Err(self.invalid(
                value.span(),
                &key,
                "must be a table { start, min, max, c-end, r-end }",
            ));
        };
        let mut got = [0.0; 5];
        for (k, v) in table {
            let Some(i) = PARAM_KEYS.iter().position(|p| p == k) else {
                return Err(self.invalid(
                    value.span(),
                    &format!("{key}.{k}"),
                    format!("unknown key, expected one of {}", PARAM_KEYS.join(", ")),
                ));
            };
            got[i] = match v {
                toml::Value::Integer(n) => *n as f64,
                toml::Value::Float(f) if f.is_finite() => *f,
                _ => {
                    return Err(self.invalid(
                        value.span(),
                        &format!("{key}.{k}"),
                        "must be a number",
                    ))
                }
            };
        }
        if let Some(missing) = PARAM_KEYS.iter().find(|k| !table.contains_key(**k)) {
            return Err(self.invalid(
                value.span(),
                &key,
                format!("lacks `{missing}`: give {{ start, min, max, c-end, r-end }}"),
            ));
        }
        let [start, min, max, c_end, r_end] = got;
        let bad = |k: &str, m: String| Err(self.invalid(value.span(), &format!("{key}.{k}"), m));
        if min >= max {
            return bad("max", format!("must be more than min ({min})"));
        }
        if !(min..=max).contains(&start) {
            return bad("start", format!("must be within min..max ({min}..{max})"));
        }
        if c_end <= 0.0 {
            return bad(
                "c-end",
                "must be more than 0 (the last perturbation)".into(),
            );
        }
        if r_end <= 0.0 {
            return bad(
                "r-end",
                "must be more than 0 (the last learning rate)".into(),
            );
        }
        Ok(spsa::Param {
            name,
            start,
            min,
            max,
            c_end,
            r_end,
            integer: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::config::parse;
    use std::path::Path;

    const HEAD: &str = "[tournament]\nformat = \"match\"\npairs = 1\n[time]\ndepth = 1\n\
                        [openings]\nbuiltin = \"xot-small\"\n[[engine]]\nname = \"mm\"\n\
                        plugin = \"minimax\"\n[[engine]]\nname = \"base\"\nplugin = \"minimax\"\n";

    fn tune(table: &str) -> Result<crate::plan::config::Tournament, String> {
        parse(&format!("{HEAD}{table}"), "t.toml", Path::new("")).map_err(|e| e.to_string())
    }

    #[test]
    fn a_tune_table_and_its_defaults() {
        let t = tune(
            "[tune]\nengine = \"mm\"\niterations = 2000\nseed = 11\n[tune.params]\n\
             Depth = { start = 2, min = 1, max = 6, c-end = 1.0, r-end = 0.05 }\n",
        )
        .unwrap();
        let c = t.tune.as_ref().unwrap();
        assert_eq!((c.engine, c.opponent, c.seed), (0, None, 11));
        assert_eq!(c.schedule.big_a, 200.0);
        assert_eq!((c.schedule.alpha, c.schedule.gamma), (0.602, 0.101));
        assert_eq!(c.params[0].name, "Depth");
        assert_eq!((c.params[0].c_end, c.params[0].r_end), (1.0, 0.05));
        assert_eq!(c.lines, [19]);
        let m = t.tune_match().unwrap();
        let names: Vec<&str> = m.engines.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["mm+", "mm-"]);
        assert_eq!(m.pairs, 2000);
        // Against an opponent: a gauntlet, so both sides meet it on each round's opening.
        let t = tune(
            "[tune]\nengine = \"mm\"\nopponent = \"base\"\niterations = 10\nA = 5\n\
             [tune.params]\nDepth = { start = 2, min = 1, max = 6, c-end = 1, r-end = 0.05 }\n",
        )
        .unwrap();
        let m = t.tune_match().unwrap();
        let names: Vec<&str> = m.engines.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["base", "mm+", "mm-"]);
        assert_eq!(m.pairings(), [(0, 1), (0, 2)]);
        assert_eq!(t.tune.unwrap().schedule.big_a, 5.0);
    }

    #[test]
    fn bad_tune_tables_name_line_and_key() {
        let p =
            "[tune.params]\nDepth = { start = 2, min = 1, max = 6, c-end = 1.0, r-end = 0.05 }\n";
        for (table, line, key, fragment) in [
            (
                "[tune]\nengine = \"x\"\niterations = 1\n",
                15,
                "tune.engine",
                "no [[engine]] is named `x`",
            ),
            (
                "[tune]\nengine = \"mm\"\niterations = 0\n",
                16,
                "tune.iterations",
                "at least 1",
            ),
            (
                "[tune]\nengine = \"mm\"\niterations = -4\n",
                16,
                "tune.iterations",
                "at least 1",
            ),
            (
                "[tune]\nengine = \"mm\"\nopponent = \"mm\"\niterations = 1\n",
                16,
                "tune.opponent",
                "\"self\"",
            ),
            (
                "[tune]\nengine = \"mm\"\niterations = 1\nalpha = -1\n",
                17,
                "tune.alpha",
                "from 0 to 1",
            ),
        ] {
            let e = tune(&format!("{table}{p}")).unwrap_err();
            assert!(e.starts_with(&format!("t.toml:{line}: key `{key}`")), "{e}");
            assert!(e.contains(fragment), "{e}");
        }
        let head = "[tune]\nengine = \"mm\"\niterations = 5\n[tune.params]\n";
        for (param, key, fragment) in [
            (
                "Depth = { start = 2, min = 1, max = 6, c-end = 0, r-end = 0.05 }",
                "c-end",
                "more than 0",
            ),
            (
                "Depth = { start = 2, min = 1, max = 6, c-end = 1, r-end = -1 }",
                "r-end",
                "more than 0",
            ),
            (
                "Depth = { start = 9, min = 1, max = 6, c-end = 1, r-end = 1 }",
                "start",
                "within",
            ),
            (
                "Depth = { start = 2, min = 6, max = 1, c-end = 1, r-end = 1 }",
                "max",
                "more than min",
            ),
            (
                "Depth = { start = 2, min = 1, max = 6, c-end = 1, r-end = 1, x = 1 }",
                "x",
                "unknown key",
            ),
            (
                "Depth = { start = \"2\", min = 1, max = 6, c-end = 1, r-end = 1 }",
                "start",
                "a number",
            ),
        ] {
            let e = tune(&format!("{head}{param}\n")).unwrap_err();
            assert!(
                e.starts_with(&format!("t.toml:18: key `tune.params.Depth.{key}`")),
                "{e}"
            );
            assert!(e.contains(fragment), "{e}");
        }
        let e = tune(&format!(
            "{head}Depth = {{ start = 2, min = 1, max = 6 }}\n"
        ))
        .unwrap_err();
        assert!(e.contains("lacks `c-end`"), "{e}");
        let e = tune("[tune]\nengine = \"mm\"\niterations = 5\n").unwrap_err();
        assert!(e.contains("key `tune.params`: is missing"), "{e}");
    }
}
