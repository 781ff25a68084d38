//! Strong: an Othello engine in the Edax/Egaroucid family.
//!
//! - [`search`]: the driver: one [`search::Searcher`] per thread, and
//!   [`search::Searcher::think`], iterative deepening with aspiration windows, then the
//!   (selective, then exact) solve, each stage's root starting with a narrow window around
//!   the previous score, reporting every iteration;
//! - [`midgame`]: NegaScout with the transposition table, ETC, stability cutoff, Multi-ProbCut
//!   and shallow-search move ordering;
//! - [`endgame`]: exact solving with null windows, specialised last 1-4 empties solvers,
//!   quasi-parity and fastest-first ordering, stability cutoff, ETC, selective Multi-ProbCut;
//! - [`parallel`]: Young Brothers Wait, the split points of the midgame search and of the exact
//!   solver, and the helper threads;
//! - [`eval`]: the evaluation trait ([`eval::Evaluator`]), the interim hand-written one, and
//!   [`eval::EvalSource`], which names the one a search gets;
//! - [`pattern`]: the trained pattern evaluation, incrementally updated (the default);
//! - [`time`]: from limits and options to a search plan ([`time::Plan`]);
//! - [`tt`]: a lock-free bucketed transposition table sized by the `Hash` option;
//! - [`score`]: score units ([`score::SCALE`] per disc) and bounds; [`mpc`]: the Multi-ProbCut
//!   tables and selectivity levels; [`ordering`]: move lists and best-first selection;
//!   [`stability`]: stable discs and the stability cutoff; [`bits`], [`flips`]: bitboard
//!   helpers; [`kernel`]: the rules crate's move-generation kernel the search runs on
//!   (portable or x86 SIMD, chosen once), and how the search is compiled for it.
//! - [`selfplay_file`]: the self-play game file the training tools write and read (no part of
//!   the search; here so that `train` and `strong-bench` share one reader).
//!
//! Module layering, bottom up: a module imports only from lower layers (its use of its own
//! parts is containment, not an import), but for the one loop named. These lines are read by
//! the `tidy` test (`tests/tidy/main.rs`), which checks every `crate::…` path of the sources
//! against them:
//!
//! ```text
//! layer 0: score mpc ordering bits flips kernel stability tt time selfplay_file
//! layer 1: eval
//! layer 2: pattern
//! layer 3: eval::source
//! layer 4: search
//! layer 5: midgame endgame parallel
//! layer 6: crate
//! layer 7: tests
//! loop: search parallel
//! ```
//!
//! - layer 0, the ground, imports nothing from the crate;
//! - layers 1-3, the evaluations: `eval` (the trait and the hand evaluation), then `pattern`,
//!   then `eval::EvalSource` (`eval/source.rs`), which names either;
//! - layers 4-5, the search: `search` owns `Searcher`, whose methods `midgame`, `endgame` and
//!   `parallel` add (the loop is explained below);
//! - `crate` is this crate root (the plugin), above all; `tests` its unit tests.
//!
//! The one cycle is the search's mutual recursion. `search.rs` owns `Searcher`; `midgame.rs`,
//! `endgame.rs` and `parallel.rs` add its methods, so each imports `search::Searcher`, and the
//! methods call each other through the type: `think` runs the midgame and the solver, the
//! midgame solves exactly where its depth reaches the end of the game, the selective endgame
//! predicts with shallow midgame searches, and the solver hands young brothers to `split`,
//! whose threads run the solver again. As imports this shows only as `search` <-> `parallel`
//! (a `Searcher` holds the `HelperPool` it offers split points to; the pool's `serve` drives
//! a helper's `Searcher`); `midgame` and `endgame` import nothing from each other.
//!
//! The search core is usable without the ABI: build a [`search::Searcher`] (see
//! `src/bin/strong-bench/`).
//!
//! Options: `Hash` (MiB, default 64), `Threads` (1..=64: the midgame search and the solver
//! split their nodes among the threads, Young Brothers Wait ([`parallel`]), through the shared
//! table), `Level` (0 = use the host's limits; L > 0: midgame depth L and exact solve
//! at 2 L empties, like Edax's levels), `Selectivity` (midgame Multi-ProbCut level, 0-4 =
//! t of 1.1-3.3 standard deviations, 5 = off; default 1), `TimeShare` (fraction of the time budget used),
//! `Eval` (`trained`, the default: the pattern evaluation of [`pattern`]; `simple`: the
//! interim hand-written [`eval::HandEval`]) and `EvalFile` (a weight file to use instead of
//! the embedded one; a missing or damaged file is an option error, never a silent fall-back).
#![forbid(unsafe_code)]

pub mod bits;
pub mod endgame;
pub mod eval;
pub mod flips;
pub mod kernel;
pub mod midgame;
pub mod mpc;
pub mod ordering;
pub mod parallel;
pub mod pattern;
pub mod score;
pub mod search;
pub mod selfplay_file;
pub mod stability;
pub mod time;
pub mod tt;

#[cfg(test)]
mod tests;

use eval::EvalSource;
use eval::{Evaluator, HandEval};
use othello_sdk::{
    Engine, Metadata, OptionSpec, OptionValue, SearchContext, SearchOutcome, SearchRequest,
};
use search::Searcher;
use std::sync::Arc;
use tt::Tt;

/// The engine instance: options and the transposition table (kept between moves).
pub struct Strong {
    hash_mib: usize,
    threads: usize,
    level: u32,
    selectivity: usize,
    time_share: f64,
    tt: Option<Arc<Tt>>,
    /// The `EvalFile` option ("" = the embedded weights).
    eval_file: String,
    /// The evaluation every search thread starts from; `Err` when the embedded weights failed
    /// their check (a broken build): searches report it.
    eval: Result<EvalSource, String>,
}

impl Strong {
    /// A fresh evaluator for one search thread. A broken embedded evaluation never reaches
    /// here: `try_search` refuses to search with it.
    fn evaluator(&self) -> Box<dyn Evaluator> {
        match &self.eval {
            Ok(source) => source.evaluator(),
            Err(_) => Box::new(HandEval::default()),
        }
    }

    /// The table, (re)allocated if the `Hash` option changed.
    fn table(&mut self) -> Arc<Tt> {
        let bytes = self.hash_mib << 20;
        match &self.tt {
            Some(t) if t.bytes() <= bytes && t.bytes() * 2 > bytes => t.clone(),
            _ => {
                let t = Arc::new(Tt::new(self.hash_mib));
                self.tt = Some(t.clone());
                t
            }
        }
    }

    /// A search with YBWC helpers (see [`parallel`]): the helpers wait in the pool until the
    /// master's midgame search or solver offers them young brothers.
    fn search_in_parallel(
        &self,
        board: othello_sdk::board::Board,
        plan: &time::Plan,
        tt: Arc<Tt>,
        ctx: &SearchContext,
    ) -> SearchOutcome {
        let selectivity = self.selectivity;
        let team = parallel::SearchTeam {
            threads: self.threads,
            tt,
            ctx: Some(ctx),
            counting: false,
        };
        let configure = move |s: &mut Searcher| s.set_selectivity(selectivity);
        let report = &mut |info: &othello_sdk::SearchInfo| ctx.report(info);
        team.think(board, plan, || self.evaluator(), &configure, report)
            .0
    }

    /// Number of search threads.
    pub fn threads(&self) -> usize {
        self.threads
    }
}

impl Engine for Strong {
    fn metadata() -> Metadata {
        Metadata {
            name: "Strong",
            version: env!("CARGO_PKG_VERSION"),
            author: "othello-tournament",
        }
    }

    fn options() -> Vec<OptionSpec> {
        vec![
            OptionSpec::int("Hash", 64, 1, 4096, "transposition table size in MiB"),
            OptionSpec::int(
                "Threads",
                1,
                1,
                64,
                "search threads (Young Brothers Wait in the midgame and the solver; shared table)",
            ),
            OptionSpec::int(
                "Level",
                0,
                0,
                60,
                "0 = play to the host's limits; L > 0: midgame depth L, exact solve at 2L empties",
            ),
            OptionSpec::int(
                "Selectivity",
                search::DEFAULT_SELECTIVITY as i64,
                0,
                5,
                "midgame Multi-ProbCut: 0-4 = cut at 1.1/1.5/2.0/2.6/3.3 sigma (73-99%), 5 = off",
            ),
            OptionSpec::enumeration(
                "Eval",
                "trained",
                &["trained", "simple"],
                "evaluation: trained patterns, or the interim hand-written one",
            ),
            OptionSpec::string(
                "EvalFile",
                "",
                "pattern weight file to use instead of the embedded one (Eval=trained)",
            ),
            OptionSpec::float(
                "TimeShare",
                0.9,
                0.1,
                1.0,
                "fraction of the per-move time budget the engine uses",
            ),
        ]
    }

    fn new() -> Self {
        stability::init();
        Strong {
            hash_mib: 64,
            threads: 1,
            level: 0,
            selectivity: search::DEFAULT_SELECTIVITY,
            time_share: 0.9,
            tt: None,
            eval: EvalSource::trained(""),
            eval_file: String::new(),
        }
    }

    fn set_option(&mut self, name: &str, value: &OptionValue) -> Result<(), String> {
        match (name, value) {
            ("Hash", OptionValue::Int(v)) => self.hash_mib = *v as usize,
            ("Threads", OptionValue::Int(v)) => self.threads = *v as usize,
            ("Level", OptionValue::Int(v)) => self.level = *v as u32,
            ("Selectivity", OptionValue::Int(v)) => self.selectivity = *v as usize,
            ("TimeShare", OptionValue::Float(v)) => self.time_share = *v,
            ("Eval", OptionValue::Enum(v)) if *v == "simple" => self.eval = Ok(EvalSource::Simple),
            ("Eval", OptionValue::Enum(_)) => self.eval = Ok(EvalSource::trained(&self.eval_file)?),
            ("EvalFile", OptionValue::String(v)) => {
                // Checked now even under Eval=simple; kept only when it loads.
                let trained = EvalSource::trained(v)?;
                self.eval_file = v.clone();
                if !matches!(self.eval, Ok(EvalSource::Simple)) {
                    self.eval = Ok(trained);
                }
            }
            _ => return Err(format!("option {name}: unexpected value {value:?}")),
        }
        Ok(())
    }

    fn new_game(&mut self) {
        // Allocate (or resize) the table here rather than in the first search's time.
        let fresh = self.tt.is_none();
        let t = self.table();
        if !fresh {
            t.clear();
        }
    }

    fn try_search(
        &mut self,
        request: &SearchRequest,
        ctx: &SearchContext,
    ) -> Result<SearchOutcome, String> {
        if let Err(why) = &self.eval {
            return Err(why.clone());
        }
        Ok(self.search(request, ctx))
    }

    fn search(&mut self, request: &SearchRequest, ctx: &SearchContext) -> SearchOutcome {
        let position = request.position;
        let plan = time::plan(
            &request.limits,
            position.side_to_move,
            position.empties(),
            self.level,
            self.time_share,
        );
        let tt = self.table();
        let board = position.board;
        if self.threads <= 1 || board.moves() == 0 {
            let mut s = Searcher::new(tt, self.evaluator(), Some(ctx));
            s.set_selectivity(self.selectivity);
            return s.think(board, &plan, &mut |info| ctx.report(info));
        }
        self.search_in_parallel(board, &plan, tt, ctx)
    }
}

othello_sdk::export_engine!(Strong);
