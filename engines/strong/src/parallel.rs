//! Young Brothers Wait (YBWC) for the exact solver: a node's remaining moves are shared with
//! idle helper threads once its first move has been searched (and, at a null-window node,
//! has not already cut off).
//!
//! The idea: the first move of a well-ordered node either cuts off (then splitting would have
//! wasted work) or establishes the bound the other moves are searched against; after it, the
//! other moves ("young brothers") are independent null-window searches, and can run in
//! parallel with little wasted work. A node with at least [`SPLIT_EMPTIES`] empties and at
//! least two moves left becomes a [`SplitPoint`] when a helper is idle: the thread that owns
//! the node (the master) posts it to the [`HelperPool`], every thread that joins (the master
//! included) takes the next untried move from a shared counter, and a result that cuts off
//! raises the split point's flag, which makes every other thread there abandon its move at
//! its next poll. The master leaves the split point when no thread is working on it any more,
//! with the node's best score and move.
//!
//! A master searching one of its split point's moves may split again deeper down when a
//! helper has become idle (a helper that finds no more moves at one split point joins the
//! next). Helpers never split themselves. All threads share the transposition table. Only the
//! master's node count is checked against a node limit; the helpers' nodes are added up after
//! the search. Helpers have no clock of their own: the master's limits stop them through the
//! cutoff flags; a helper that sees the host's stop flag first marks the split point stopped,
//! so the master never takes a result with a dropped move for a complete one.

use crate::kernel::{with_kernel, Kernel};
use crate::ordering::MoveEntry;
use crate::search::Searcher;
use othello_sdk::board::Board;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// Nodes with fewer empties are searched by one thread: their subtrees are too small to pay for
/// the hand-over (measured on FFO #20-#39, see `docs/measurements.md`).
pub const SPLIT_EMPTIES: u32 = 12;

/// What the threads at a split point agree on.
#[derive(Clone, Copy, Debug)]
struct Bounds {
    /// The lower bound the next move is searched against (raised by PV nodes).
    alpha: i32,
    best: i32,
    best_move: u8,
}

/// A node whose remaining moves several threads search.
pub struct SplitPoint {
    board: Board,
    /// The moves not searched before the split, best first: (square, flips).
    moves: Vec<(u32, u64)>,
    next: AtomicUsize,
    beta: i32,
    /// A principal-variation node (window wider than one): moves that beat alpha are
    /// re-searched with the full window.
    pv: bool,
    bounds: Mutex<Bounds>,
    /// Raised by a cutoff (or by the master when it must stop): every thread here stops.
    cutoff: Arc<AtomicBool>,
    /// Threads searching a move of this split point.
    working: AtomicUsize,
    /// A helper had to stop for good (the host's stop flag) and dropped the move it held: the
    /// master must not take the split point's result as complete, and stops too.
    stopped: AtomicBool,
    /// The master's selective-endgame level: every thread here searches with it.
    end_selectivity: Option<usize>,
}

impl SplitPoint {
    fn open(&self) -> bool {
        self.next.load(Ordering::Acquire) < self.moves.len() && !self.cutoff.load(Ordering::Acquire)
    }
}

/// The helper threads' meeting place: at most one split point is offered at a time.
#[derive(Default)]
pub struct HelperPool {
    offered: Mutex<Option<Arc<SplitPoint>>>,
    wake: Condvar,
    idle: AtomicUsize,
    quit: AtomicBool,
}

impl HelperPool {
    pub fn new() -> HelperPool {
        HelperPool::default()
    }

    /// Whether a helper is waiting for work.
    #[inline]
    pub fn has_idle(&self) -> bool {
        self.idle.load(Ordering::Relaxed) > 0
    }

    /// Release the helpers: [`HelperPool::serve`] returns.
    pub fn close(&self) {
        self.quit.store(true, Ordering::Release);
        let _guard = self.offered.lock().expect("pool lock");
        self.wake.notify_all();
    }

    /// A helper thread's life: wait for a split point, work on it, wait again, until closed.
    pub fn serve(&self, s: &mut Searcher) {
        loop {
            let sp = {
                let mut offered = self.offered.lock().expect("pool lock");
                self.idle.fetch_add(1, Ordering::Relaxed);
                loop {
                    if self.quit.load(Ordering::Acquire) {
                        self.idle.fetch_sub(1, Ordering::Relaxed);
                        return;
                    }
                    if let Some(sp) = offered.as_ref().filter(|sp| sp.open()) {
                        // Joined under the lock: the master withdraws the offer under it too,
                        // and then waits for `working` to fall to zero.
                        sp.working.fetch_add(1, Ordering::AcqRel);
                        break sp.clone();
                    }
                    offered = self
                        .wake
                        .wait_timeout(offered, Duration::from_millis(5))
                        .expect("pool lock")
                        .0;
                }
            };
            self.idle.fetch_sub(1, Ordering::Relaxed);
            // Leaves the split point even if the search panics, so the master never waits
            // for a thread that is gone.
            let _leave = Leave(&sp);
            if !s.global_stop {
                s.aborted = false;
                with_kernel!(s.kernel, k => s.work_on(k, &sp));
            }
            if s.global_stop {
                // Stopped for good (before joining, or in the move it held): the split point's
                // result is incomplete; the master learns it and stops too.
                sp.stopped.store(true, Ordering::Release);
                sp.cutoff.store(true, Ordering::Release);
            }
        }
    }
}

/// A thread's presence at a split point, ended when dropped.
struct Leave<'a>(&'a SplitPoint);

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        self.0.working.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Closes the pool when dropped: the helpers return even if the master's search panics, so the
/// thread scope that runs them can end.
pub struct CloseOnDrop<'a>(pub &'a HelperPool);

impl Drop for CloseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.close();
    }
}

impl Searcher<'_> {
    /// Search the moves `list[from..]` of `b` together with the idle helpers, if there is one
    /// and the node is large enough; `None` when not split (the caller goes on alone). On
    /// return the node's best score and move so far are merged with the split point's; after
    /// a global stop `self.aborted` is set as usual.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn split<K: Kernel>(
        &mut self,
        k: K,
        b: &Board,
        list: &mut [MoveEntry],
        from: usize,
        alpha: i32,
        beta: i32,
        best: i32,
        best_move: u8,
    ) -> Option<(i32, u8)> {
        let pool = self.pool?;
        if list.len() < from + 2 || b.empties() < SPLIT_EMPTIES || !pool.has_idle() {
            return None;
        }
        list[from..].sort_by_key(|e| -e.key);
        let sp = Arc::new(SplitPoint {
            board: *b,
            moves: list[from..].iter().map(|e| (e.sq, e.flips)).collect(),
            next: AtomicUsize::new(0),
            beta,
            pv: beta - alpha > 1,
            bounds: Mutex::new(Bounds {
                alpha,
                best,
                best_move,
            }),
            cutoff: Arc::new(AtomicBool::new(false)),
            working: AtomicUsize::new(1), // the master
            stopped: AtomicBool::new(false),
            end_selectivity: self.end_selectivity,
        });
        // A split inside one of this master's split points replaces the offer for its
        // duration; the enclosing split point is offered again afterwards (it may still have
        // moves for a helper that becomes idle).
        let enclosing = {
            let mut offered = pool.offered.lock().expect("pool lock");
            let enclosing = offered.replace(sp.clone());
            pool.wake.notify_all();
            enclosing
        };
        self.work_on(k, &sp);
        {
            let mut offered = pool.offered.lock().expect("pool lock");
            *offered = enclosing;
            pool.wake.notify_all();
        }
        if self.aborted {
            // A global stop: release the helpers at once.
            sp.cutoff.store(true, Ordering::Release);
        }
        sp.working.fetch_sub(1, Ordering::AcqRel);
        while sp.working.load(Ordering::Acquire) > 0 {
            std::thread::yield_now();
        }
        if sp.stopped.load(Ordering::Acquire) {
            // A helper dropped a move: the result is incomplete, and the search is stopping.
            self.global_stop = true;
            self.aborted = true;
        }
        let r = *sp.bounds.lock().expect("split lock");
        Some((r.best, r.best_move))
    }

    /// Take moves of `sp` until none is left or the split point is cut off.
    pub(crate) fn work_on<K: Kernel>(&mut self, k: K, sp: &SplitPoint) {
        self.cutoffs.push(sp.cutoff.clone());
        self.end_selectivity = sp.end_selectivity;
        while !sp.cutoff.load(Ordering::Acquire) {
            let i = sp.next.fetch_add(1, Ordering::AcqRel);
            let Some(&(x, f)) = sp.moves.get(i) else {
                break;
            };
            let child = sp.board.play_with_flips(x, f);
            let alpha = sp.bounds.lock().expect("split lock").alpha;
            let mut v = -self.end_nws_k(k, child, -alpha - 1);
            if self.aborted {
                break;
            }
            if sp.pv && v > alpha && v < sp.beta {
                // `v` is only a lower bound: even when another thread has raised alpha above
                // it meanwhile, the move may still beat the new alpha, so it is re-searched
                // against the current one.
                let a = sp.bounds.lock().expect("split lock").alpha.max(alpha);
                v = -self.end_pvs_k(k, child, -sp.beta, -a);
                if self.aborted {
                    break;
                }
            }
            let mut r = sp.bounds.lock().expect("split lock");
            if v > r.best {
                r.best = v;
                r.best_move = x as u8;
                if v > r.alpha {
                    r.alpha = v;
                    if v >= sp.beta {
                        sp.cutoff.store(true, Ordering::Release);
                        break;
                    }
                }
            }
        }
        self.cutoffs.pop();
        // A cutoff here ends only this split point's work; a global stop, or a cutoff of an
        // enclosing split point, keeps the search unwinding.
        self.aborted = self.global_stop || self.cutoffs.iter().any(|c| c.load(Ordering::Acquire));
    }
}
