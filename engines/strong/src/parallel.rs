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

use crate::eval::Evaluator;
use crate::kernel::{with_kernel, Kernel};
use crate::ordering::MoveEntry;
use crate::search::Searcher;
use crate::time::Plan;
use crate::tt::Tt;
use othello_sdk::board::Board;
use othello_sdk::{SearchContext, SearchInfo, SearchOutcome};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, TryLockError};
use std::time::{Duration, Instant};

/// Nodes with fewer empties are searched by one thread: their subtrees are too small to pay for
/// the hand-over (measured on FFO #20-#39, see `docs/measurements.md`).
pub const SPLIT_EMPTIES: u32 = 12;

/// What the threads of one parallel solve did, counted when the pool was made by
/// [`HelperPool::counting`]: per split point, per move handed out and per wait, never per
/// node, so that counting leaves the search as it is.
#[derive(Default)]
struct Counters {
    offered: AtomicU64,
    taken: AtomicU64,
    joins: AtomicU64,
    helper_moves: AtomicU64,
    thrown_nodes: AtomicU64,
    helper_busy_ns: AtomicU64,
    master_wait_ns: AtomicU64,
    lock_waits: AtomicU64,
}

/// The counters of one parallel solve, read after it (`strong-bench solve --counters`).
#[derive(Clone, Copy, Debug, Default)]
pub struct ParallelStats {
    /// Search threads, the master included.
    pub threads: usize,
    /// Wall time of the solve.
    pub wall: Duration,
    /// Split points offered to idle threads.
    pub offered: u64,
    /// Split points of which another thread than the master searched at least one move.
    pub taken: u64,
    /// Times a thread joined a split point it does not own.
    pub joins: u64,
    /// Moves searched by threads at split points they do not own.
    pub helper_moves: u64,
    /// Nodes of the master thread.
    pub master_nodes: u64,
    /// Nodes of the other threads.
    pub helper_nodes: u64,
    /// Nodes of moves whose result no longer counted: abandoned after a cutoff at their split
    /// point, or finished after another thread's move had cut it off.
    pub thrown_nodes: u64,
    /// Time the other threads spent searching, added up.
    pub helper_busy: Duration,
    /// Time the master spent at the end of its split points, waiting for the other threads.
    pub master_wait: Duration,
    /// Lock acquisitions (the pool's, the split points') that found the lock held.
    pub lock_waits: u64,
}

impl ParallelStats {
    /// The counters of two searches added up (the thread count of the first).
    pub fn merged(&self, o: &ParallelStats) -> ParallelStats {
        ParallelStats {
            threads: self.threads,
            wall: self.wall + o.wall,
            offered: self.offered + o.offered,
            taken: self.taken + o.taken,
            joins: self.joins + o.joins,
            helper_moves: self.helper_moves + o.helper_moves,
            master_nodes: self.master_nodes + o.master_nodes,
            helper_nodes: self.helper_nodes + o.helper_nodes,
            thrown_nodes: self.thrown_nodes + o.thrown_nodes,
            helper_busy: self.helper_busy + o.helper_busy,
            master_wait: self.master_wait + o.master_wait,
            lock_waits: self.lock_waits + o.lock_waits,
        }
    }

    /// Share of the other threads' time (wall time each) spent without a move to search.
    pub fn helper_idle_share(&self) -> f64 {
        let helpers = self.threads.saturating_sub(1) as f64;
        let total = self.wall.as_secs_f64() * helpers;
        if total <= 0.0 {
            return 0.0;
        }
        (1.0 - self.helper_busy.as_secs_f64() / total).max(0.0)
    }

    /// Share of the master's wall time spent waiting for other threads at its split points.
    pub fn master_wait_share(&self) -> f64 {
        self.master_wait.as_secs_f64() / self.wall.as_secs_f64().max(1e-9)
    }

    /// Nodes per second of a thread while it searches: the master's over its time not waiting,
    /// the others' over their busy time. Below one thread's rate, the difference is what the
    /// threads cost each other in the shared table, caches and memory.
    pub fn busy_node_rate(&self) -> f64 {
        let busy = (self.wall.saturating_sub(self.master_wait) + self.helper_busy).as_secs_f64();
        (self.master_nodes + self.helper_nodes) as f64 / busy.max(1e-9)
    }
}

/// `lock`, counting the acquisitions that had to wait.
fn lock_counting<'m, T>(m: &'m Mutex<T>, waits: &AtomicU64) -> MutexGuard<'m, T> {
    match m.try_lock() {
        Ok(g) => g,
        Err(TryLockError::WouldBlock) => {
            waits.fetch_add(1, Ordering::Relaxed);
            m.lock().expect("parallel search lock")
        }
        Err(TryLockError::Poisoned(_)) => panic!("parallel search lock poisoned"),
    }
}

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
    /// Moves searched here by threads other than the master.
    helper_moves: AtomicUsize,
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
    /// `Some` when the pool counts what its threads do.
    counters: Option<Counters>,
}

impl HelperPool {
    pub fn new() -> HelperPool {
        HelperPool::default()
    }

    /// A pool that counts what its threads do ([`HelperPool::stats`]).
    pub fn counting() -> HelperPool {
        HelperPool {
            counters: Some(Counters::default()),
            ..HelperPool::default()
        }
    }

    #[inline]
    fn count(&self, counter: impl FnOnce(&Counters) -> &AtomicU64, n: u64) {
        if let Some(c) = &self.counters {
            counter(c).fetch_add(n, Ordering::Relaxed);
        }
    }

    /// A lock of the pool or of one of its split points, counting waits when counting.
    fn lock<'m, T>(&self, m: &'m Mutex<T>) -> MutexGuard<'m, T> {
        match &self.counters {
            Some(c) => lock_counting(m, &c.lock_waits),
            None => m.lock().expect("parallel search lock"),
        }
    }

    /// The counters so far, with the figures the caller knows (threads, wall time, nodes);
    /// `None` when the pool does not count.
    pub fn stats(
        &self,
        threads: usize,
        wall: Duration,
        master_nodes: u64,
        helper_nodes: u64,
    ) -> Option<ParallelStats> {
        let c = self.counters.as_ref()?;
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        Some(ParallelStats {
            threads,
            wall,
            offered: get(&c.offered),
            taken: get(&c.taken),
            joins: get(&c.joins),
            helper_moves: get(&c.helper_moves),
            master_nodes,
            helper_nodes,
            thrown_nodes: get(&c.thrown_nodes),
            helper_busy: Duration::from_nanos(get(&c.helper_busy_ns)),
            master_wait: Duration::from_nanos(get(&c.master_wait_ns)),
            lock_waits: get(&c.lock_waits),
        })
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
                let mut offered = self.lock(&self.offered);
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
                self.count(|c| &c.joins, 1);
                let busy = self.counters.as_ref().map(|_| Instant::now());
                with_kernel!(s.kernel, k => s.work_on(k, self, &sp, false));
                if let Some(t) = busy {
                    self.count(|c| &c.helper_busy_ns, t.elapsed().as_nanos() as u64);
                }
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
            helper_moves: AtomicUsize::new(0),
        });
        pool.count(|c| &c.offered, 1);
        // A split inside one of this master's split points replaces the offer for its
        // duration; the enclosing split point is offered again afterwards (it may still have
        // moves for a helper that becomes idle).
        let enclosing = {
            let mut offered = pool.lock(&pool.offered);
            let enclosing = offered.replace(sp.clone());
            pool.wake.notify_all();
            enclosing
        };
        self.work_on(k, pool, &sp, true);
        {
            let mut offered = pool.lock(&pool.offered);
            *offered = enclosing;
            pool.wake.notify_all();
        }
        if self.aborted {
            // A global stop: release the helpers at once.
            sp.cutoff.store(true, Ordering::Release);
        }
        sp.working.fetch_sub(1, Ordering::AcqRel);
        let waiting = pool.counters.as_ref().map(|_| Instant::now());
        while sp.working.load(Ordering::Acquire) > 0 {
            std::thread::yield_now();
        }
        if let Some(t) = waiting {
            pool.count(|c| &c.master_wait_ns, t.elapsed().as_nanos() as u64);
        }
        if sp.helper_moves.load(Ordering::Relaxed) > 0 {
            pool.count(|c| &c.taken, 1);
        }
        if sp.stopped.load(Ordering::Acquire) {
            // A helper dropped a move: the result is incomplete, and the search is stopping.
            self.global_stop = true;
            self.aborted = true;
        }
        let r = *pool.lock(&sp.bounds);
        Some((r.best, r.best_move))
    }

    /// One young brother `x` (flipping `f`) of `sp`: a null-window search against the split
    /// point's alpha, re-searched with the window up to beta at a PV node when it beats it.
    /// The score is meaningless when the search was aborted.
    #[inline]
    fn search_brother<K: Kernel>(
        &mut self,
        k: K,
        pool: &HelperPool,
        sp: &SplitPoint,
        x: u32,
        f: u64,
    ) -> i32 {
        let child = sp.board.play_with_flips(x, f);
        let alpha = pool.lock(&sp.bounds).alpha;
        let v = -self.end_nws_k(k, child, -alpha - 1);
        if self.aborted || !(sp.pv && v > alpha && v < sp.beta) {
            return v;
        }
        // `v` is only a lower bound: even when another thread has raised alpha above it
        // meanwhile, the move may still beat the new alpha, so it is re-searched against the
        // current one.
        let a = pool.lock(&sp.bounds).alpha.max(alpha);
        -self.end_pvs_k(k, child, -sp.beta, -a)
    }

    /// Take moves of `sp` until none is left or the split point is cut off; `master` says
    /// whether this thread owns it.
    pub(crate) fn work_on<K: Kernel>(
        &mut self,
        k: K,
        pool: &HelperPool,
        sp: &SplitPoint,
        master: bool,
    ) {
        self.cutoffs.push(sp.cutoff.clone());
        self.end_selectivity = sp.end_selectivity;
        while !sp.cutoff.load(Ordering::Acquire) {
            let i = sp.next.fetch_add(1, Ordering::AcqRel);
            let Some(&(x, f)) = sp.moves.get(i) else {
                break;
            };
            if !master {
                sp.helper_moves.fetch_add(1, Ordering::Relaxed);
                pool.count(|c| &c.helper_moves, 1);
            }
            let before = self.nodes;
            let v = self.search_brother(k, pool, sp, x, f);
            if self.aborted || sp.cutoff.load(Ordering::Acquire) {
                // Abandoned, or finished after another move cut the split point off.
                pool.count(|c| &c.thrown_nodes, self.nodes - before);
                break;
            }
            let mut r = pool.lock(&sp.bounds);
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

/// A search by several threads of one position with YBWC: the master runs
/// [`Searcher::think`] with the pool, the other threads serve it. `configure` is applied to
/// every thread's searcher before it starts (selectivity, kernel).
pub struct SolveTeam<'a> {
    /// Threads, the master included (at least 1).
    pub threads: usize,
    pub tt: Arc<Tt>,
    pub ctx: Option<&'a SearchContext<'a>>,
    /// Count what the threads do ([`ParallelStats`]).
    pub counting: bool,
}

impl<'a> SolveTeam<'a> {
    /// Search `board` under `plan`; the outcome's nodes are all threads' nodes. The stats are
    /// `Some` when counting.
    pub fn think(
        &self,
        board: Board,
        plan: &Plan,
        mut evaluator: impl FnMut() -> Box<dyn Evaluator>,
        configure: &(dyn Fn(&mut Searcher) + Sync),
        report: &mut dyn FnMut(&SearchInfo),
    ) -> (SearchOutcome, Option<ParallelStats>) {
        let pool = if self.counting {
            HelperPool::counting()
        } else {
            HelperPool::new()
        };
        let started = Instant::now();
        std::thread::scope(|scope| {
            let helpers: Vec<_> = (1..self.threads.max(1))
                .map(|_| {
                    let (tt, pool, ctx) = (self.tt.clone(), &pool, self.ctx);
                    let eval = evaluator();
                    scope.spawn(move || {
                        let mut s = Searcher::new(tt, eval, ctx);
                        configure(&mut s);
                        pool.serve(&mut s);
                        s.nodes
                    })
                })
                .collect();
            let closer = CloseOnDrop(&pool);
            let mut s = Searcher::new(self.tt.clone(), evaluator(), self.ctx);
            configure(&mut s);
            s.pool = Some(&pool);
            let mut out = s.think(board, plan, report);
            let wall = started.elapsed();
            drop(closer);
            let helper_nodes: u64 = helpers.into_iter().map(|h| h.join().unwrap_or(0)).sum();
            out.info.nodes += helper_nodes;
            let stats = pool.stats(self.threads, wall, s.nodes, helper_nodes);
            (out, stats)
        })
    }
}
