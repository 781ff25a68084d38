//! The flags shared by `harness run` and `harness tune`: those that make or edit a tournament
//! ([`TournamentFlags`]: a file, or ./tournament.toml, or the embedded default, edited by the
//! command line), and where it is played and shown ([`OutputFlags`]).
//!
//! Mixing a file and flags: a flag replaces the file's value of its key; `--engine` replaces
//! every `[[engine]]` table of the file and the output folder (out/<names joined by -vs->).

use anyhow::Context;
use harness_core::plan::config::{self, Tournament};
use harness_core::plan::schedule::Shard;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct TournamentFlags {
    /// An engine, as the keys of an `[[engine]]` table: `name=NEW,plugin=./libmine.so,Hash=64`
    /// (repeat for each engine). `name`, `plugin`, `time` (a --time SPEC), `time.KEY`,
    /// `memory-limit`, `fail-on`, `bench`, `sandbox`, `sandbox-read`/`sandbox-write` (paths
    /// joined by `:`) and `sandbox-env` (names joined by `:`) are the table's; any other key is
    /// a plugin option.
    /// Replaces every engine of the file. A value in double quotes may hold commas.
    #[arg(long = "engine", value_name = "KEY=VALUE,…")]
    pub engines: Vec<String>,
    /// The format: `match`, `gauntlet` or `round-robin` (replaces the file's).
    #[arg(long, value_name = "FORMAT")]
    format: Option<String>,
    /// Pin each game's engines to cores of their own (Linux), as `affinity = true`.
    #[arg(long)]
    affinity: bool,
    /// Openings: a built-in set (`xot-small`, `xot-large`) or a file, then any `[openings]`
    /// key: `xot-large,order=shuffled,seed=3,start=1`.
    #[arg(long, value_name = "SET|FILE[,KEY=VALUE…]")]
    openings: Option<String>,
    /// A sequential test of the first engine against the second: the `[sprt]` keys,
    /// `elo0=0,elo1=5[,alpha=0.05,beta=0.05,model=…]`.
    #[arg(long, value_name = "KEY=VALUE,…")]
    sprt: Option<String>,
    /// Adjudication by exact solve: `[adjudication]`'s keys, `exact-at-empties` first:
    /// `20[,solver=strong,solve-timeout=60,solver-options.Hash=64]`.
    #[arg(long, value_name = "N[,KEY=VALUE…]", allow_hyphen_values = true)]
    adjudication: Option<String>,
    /// An SPSA tune (for `harness tune`): `[tune]`'s keys, the tuned engine first, and
    /// `params.OPTION.KEY` for `[tune.params]`:
    /// `mm,iterations=2000,params.Depth.start=2,params.Depth.min=1,params.Depth.max=6,params.Depth.c-end=1,params.Depth.r-end=0.05`.
    #[arg(long, value_name = "ENGINE[,KEY=VALUE…]")]
    pub tune: Option<String>,
    /// Print the tournament file equivalent to the file and the command line, and exit.
    #[arg(long)]
    pub print_toml: bool,
    /// Games played at once (overrides the file).
    #[arg(long, value_name = "N")]
    concurrency: Option<usize>,
    /// Game pairs per engine pairing (overrides the file).
    #[arg(long, value_name = "N")]
    pairs: Option<u32>,
    /// Time control (overrides the file): BASE[+INC] seconds (`10+0.1`), `0.5/move`,
    /// `depth=6` or `nodes=100000`, then any `[time]` key: `10+0.1,margin=0.5,nps-reference=…`.
    #[arg(long, value_name = "SPEC[,KEY=VALUE…]")]
    time: Option<String>,
    /// Draw the openings shuffled with this seed (overrides the file's order and seed).
    #[arg(long, value_name = "N")]
    openings_seed: Option<u64>,
    /// Every engine's sandbox (and the adjudication solver's): `strict`, `required` or `off`
    /// (overrides the file's and each `--engine`'s).
    #[arg(long, value_name = "MODE", value_parser = config::SandboxMode::parse)]
    sandbox: Option<config::SandboxMode>,
}

impl TournamentFlags {
    /// The tournament: `file` (default: ./tournament.toml, else the embedded default) with
    /// the command line's values. The plugins `--engine` names must exist in `plugin_dir`.
    pub fn tournament(&self, file: Option<&Path>, plugin_dir: &Path) -> anyhow::Result<Tournament> {
        let file = match file {
            Some(f) => Some(f.to_path_buf()),
            None if Path::new("tournament.toml").exists() => Some(PathBuf::from("tournament.toml")),
            None => None,
        };
        if let Some(cl) = self.command_line() {
            let base = file.map_or(config::Base::Embedded, config::Base::File);
            // The command as `tournament.json` pins it, without how it is served (`--serve`,
            // `--token`: an address and a secret) and with any password of a URL (a
            // `--ledger postgres://user:secret@…`) replaced by `***`.
            let mut skip_next = false;
            let command: Vec<String> = std::env::args_os()
                .skip(1)
                .map(|a| a.to_string_lossy().into_owned())
                .filter(|a| {
                    let skip = std::mem::replace(&mut skip_next, a == "--token");
                    !(skip
                        || a == "--token"
                        || a.starts_with("--token=")
                        || a == "--serve"
                        || a.starts_with("--serve="))
                })
                .map(|a| harness_ledger::url::redacted(&a))
                .collect();
            let mut t = config::compose(&base, &cl, &command)?.tournament;
            plugins_exist(&t, &cl, plugin_dir)?;
            let sandbox = config::Overrides {
                sandbox: self.sandbox,
                ..config::Overrides::default()
            };
            sandbox.apply(&mut t).map_err(anyhow::Error::msg)?;
            return Ok(t);
        }
        let mut t = match file {
            Some(f) => config::load(&f)?,
            None => config::embedded_default(),
        };
        self.overrides()
            .apply(&mut t)
            .map_err(anyhow::Error::msg)
            .with_context(|| t.source.clone())?;
        Ok(t)
    }

    /// The tournament values of the command line, when they need the file's document edited
    /// (`--engine`, `--format`, `--affinity`, `--openings`, `--sprt`, `--adjudication`,
    /// `--tune`, `--print-toml`, or a `--time` with keys); `None` when the plain overrides say
    /// it all.
    fn command_line(&self) -> Option<config::CommandLine> {
        let composed = !self.engines.is_empty()
            || self.format.is_some()
            || self.affinity
            || self.openings.is_some()
            || self.sprt.is_some()
            || self.adjudication.is_some()
            || self.tune.is_some()
            || self.print_toml
            || self.time.as_deref().is_some_and(|t| t.contains(','));
        composed.then(|| config::CommandLine {
            engines: self.engines.clone(),
            format: self.format.clone(),
            pairs: self.pairs,
            concurrency: self.concurrency,
            affinity: self.affinity,
            time: self.time.clone(),
            openings: self.openings.clone(),
            openings_seed: self.openings_seed,
            sprt: self.sprt.clone(),
            adjudication: self.adjudication.clone(),
            tune: self.tune.clone(),
        })
    }

    /// Whether `t`'s output folder is a default one, unless `--out` names one: `--engine`
    /// names it after the engines (`out/a-vs-b`), a file without `out` after itself
    /// (`out/<stem>`).
    pub fn out_is_default(&self, t: &Tournament) -> bool {
        !self.engines.is_empty() || !t.definition.sets_out()
    }

    /// The values of the command line that replace the file's.
    fn overrides(&self) -> config::Overrides {
        config::Overrides {
            concurrency: self.concurrency,
            pairs: self.pairs,
            time: self.time.clone(),
            openings_seed: self.openings_seed,
            sandbox: self.sandbox,
        }
    }
}

/// Where bare plugin names are looked up, where the output goes, and how progress is shown.
#[derive(clap::Args)]
pub struct OutputFlags {
    /// Folder where bare plugin names are looked up (default: the harness binary's folder).
    #[arg(long)]
    plugin_dir: Option<PathBuf>,
    /// Output folder, overriding the file's `out`. Without either, the first of the default
    /// `out/a-vs-b`, `out/a-vs-b-2`, … that is free or holds this tournament's games.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print plain progress lines instead of the live terminal UI (the UI opens only when
    /// stdout is a terminal and the `CI` variable is unset).
    #[arg(long)]
    no_tui: bool,
}

impl OutputFlags {
    /// `--plugin-dir`, else the harness binary's folder.
    pub fn plugin_dir(&self) -> anyhow::Result<PathBuf> {
        match &self.plugin_dir {
            Some(d) => Ok(d.clone()),
            None => config::default_plugin_dir().context("cannot find the harness binary's folder"),
        }
    }

    /// Whether the run's output folder is a default one: no `--out`, and `flags` name none
    /// ([`TournamentFlags::out_is_default`]).
    pub fn out_is_default(&self, flags: &TournamentFlags, t: &Tournament) -> bool {
        self.out.is_none() && flags.out_is_default(t)
    }

    /// Whether the live view opens: never with `--no-tui`, in CI or when stdout is piped.
    pub fn live_view(&self) -> bool {
        !self.no_tui && std::io::stdout().is_terminal() && std::env::var_os("CI").is_none()
    }

    /// Where the tournament goes: the output folder, the stop file, and the shard
    /// (`--shard I/N|auto|auto/N`), whose folder `shard-I-of-N` goes inside the output folder.
    pub fn place(
        &self,
        t: &mut Tournament,
        stop_file: &Option<PathBuf>,
        shard: &Option<String>,
    ) -> anyhow::Result<()> {
        if let Some(out) = &self.out {
            t.out = out.clone();
        }
        if let Some(stop_file) = stop_file {
            t.stop_file = Some(stop_file.clone());
        }
        if let Some(spec) = shard {
            let shard =
                Shard::parse(spec, |name| std::env::var(name).ok()).map_err(anyhow::Error::msg)?;
            t.out = t.out.join(shard.folder_name());
            t.shard = Some(shard);
        }
        Ok(())
    }
}

/// Where a run plays when neither `--out` nor its file names the output folder: the first of
/// the default `out/a-vs-b`, `out/a-vs-b-2`, `out/a-vs-b-3`, … that holds this tournament's
/// games (a run resumes them) or none, so that two tournaments never share a default folder.
/// `unnumbered` says why the run may not take a numbered folder (a shard: the N jobs of its
/// run must agree on one; a tune), which it then needs `--out` for. Returns what the run's
/// header says of the folder after its name, empty for the default folder when it is free.
pub fn default_folder(
    t: &mut Tournament,
    plugin_dir: &Path,
    unnumbered: Option<&str>,
) -> anyhow::Result<String> {
    use crate::play::resume::{self, Held};
    let openings = t.openings.load()?;
    let tournament_json = resume::tournament_text(t, &openings, plugin_dir);
    // A shard's folder is one inside the tournament's.
    let shard_folder = t.shard.map(|s| s.folder_name());
    let base = match shard_folder {
        Some(_) => harness_core::record::run_folder::RunFolder::at(&t.out)
            .run_dir()
            .to_path_buf(),
        None => t.out.clone(),
    };
    for n in 1.. {
        let folder = if n == 1 {
            base.clone()
        } else {
            let mut name = base.file_name().unwrap_or_default().to_os_string();
            name.push(format!("-{n}"));
            base.with_file_name(name)
        };
        let held = resume::folder_holds(&folder, &tournament_json, t.shard.is_some());
        if held == Held::Another {
            if let Some(why) = unnumbered {
                anyhow::bail!(
                    "{}: the default output folder holds games of another tournament, and {why}: give --out (or `out` in the tournament file)",
                    base.display()
                );
            }
            continue;
        }
        t.out = match &shard_folder {
            Some(shard) => folder.join(shard),
            None => folder.clone(),
        };
        return Ok(match (n, held) {
            (1, Held::Nothing) => String::new(),
            (1, _) => " (the default folder, holding games of this tournament: resumed)".into(),
            (_, Held::Nothing) => format!(
                " (the default {} holds games of another tournament)",
                base.display()
            ),
            _ => format!(
                " (the default {} holds games of another tournament; this one holds this tournament's: resumed)",
                base.display()
            ),
        });
    }
    unreachable!("a folder number is free before the numbers run out")
}

/// The plugin files of the engines the command line named exist: a missing one is an error
/// naming its `--engine` and the key, before anything is written.
fn plugins_exist(
    t: &Tournament,
    cl: &config::CommandLine,
    plugin_dir: &Path,
) -> anyhow::Result<()> {
    for (engine, flag) in t.engines.iter().zip(&cl.engines) {
        let file = engine.plugin.resolve(plugin_dir);
        if !file.is_file() {
            return Err(config::ConfigError::Flag {
                flag: format!("--engine {flag}"),
                key: "plugin".into(),
                message: format!("no plugin file {}", file.display()),
            }
            .into());
        }
    }
    Ok(())
}
