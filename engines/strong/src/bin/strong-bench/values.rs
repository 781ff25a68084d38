//! `values D FILE.obf`: each position's value (discs, side to move's view) by a midgame search
//! of depth D, one `<move> <value>` line per position (to compare evaluations and search
//! depths against exact scores).

use crate::read_obf;
use std::path::Path;
use std::sync::Arc;
use strong::eval::Evaluator;
use strong::search::Searcher;
use strong::time::Plan;
use strong::tt::Tt;

/// `values D FILE.obf`: each position's value (discs, side to move's view) by a midgame search
/// of depth D with no time limit, one line per position.
pub fn values(depth: u32, file: &Path, hash: usize, make_eval: &dyn Fn() -> Box<dyn Evaluator>) {
    strong::stability::init();
    let tt = Arc::new(Tt::new(hash));
    for obf in read_obf(file) {
        tt.clear();
        let mut s = Searcher::new(tt.clone(), make_eval(), None);
        let out = s.think(obf.position.board, &Plan::depth(depth), &mut |_| {});
        println!("{} {:+.2}", out.mv, out.info.score);
    }
}
