//! Young Brothers Wait (YBWC) for the midgame search and the exact solver: a node's remaining
//! moves are shared with idle threads once its first move has been searched (and, at a
//! null-window node, has not already cut off).
//!
//! The idea: the first move of a well-ordered node either cuts off (then splitting would have
//! wasted work) or establishes the bound the other moves are searched against; after it, the
//! other moves ("young brothers") are independent null-window searches, and can run in
//! parallel with little wasted work.
//!
//! - **Split points.** A solver node with at least [`SPLIT_EMPTIES`] empties, or a midgame
//!   node of depth [`MID_SPLIT_DEPTH`] or more, with at least two moves left, becomes a [`SplitPoint`] when a thread could take its moves: the thread that owns the
//!   node (its master) adds it to the [`HelperPool`]'s offers, every thread that joins (the
//!   master included) takes the next untried move from a shared counter, and a result that
//!   cuts off raises the split point's flag, which makes every other thread there abandon its
//!   move at its next poll. A node is checked before each of its moves after the first, so a
//!   node on a thread's path can still be split when a thread becomes idle later.
//! - **Every thread splits.** A thread searching a move of someone else's split point splits
//!   nodes below it just as the master does; an idle thread joins the open offer with the most
//!   empties (the largest work).
//! - **Helpful masters.** A master whose split point has no move left, while other threads
//!   still search its moves, does not wait idle: it joins split points made below its own
//!   (made by the threads it waits for, whose work it thereby speeds up), and only spins when
//!   there is none. It may only join those: anything else could still be running when its own
//!   split point is done, and the master must return to its node then.
//! - **Idle threads** spin on the pool's offer counter for [`SPIN`] before they sleep on a
//!   condition variable, so that handing over work costs a cache line, not a wake-up.
//!
//! All threads share the transposition table. Only the master thread's node count is checked
//! against a node limit; the other threads' nodes are added up after the search. Threads have
//! no clock of their own: the master's limits stop them through the cutoff flags; a thread that
//! sees the host's stop flag while at someone else's split point marks it stopped, so its
//! master never takes a result with a dropped move for a complete one.
//!
//! [`HelperPool::counting`] makes a pool that counts what its threads do ([`ParallelStats`],
//! `strong-bench solve --threads N --counters`): counted per split point, per move handed out
//! and per wait, never per node.

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

/// Solver nodes with fewer empties are searched by one thread: their subtrees are too small to
/// pay for the hand-over (measured on FFO #20-#39 and #40-#49, see `docs/measurements.md`).
pub const SPLIT_EMPTIES: u32 = 12;
/// Midgame nodes of a lower depth are searched by one thread, for the same reason.
pub const MID_SPLIT_DEPTH: u32 = 4;

/// How long an idle thread watches the offers before it sleeps.
const SPIN: Duration = Duration::from_micros(100);

/// What the threads of one parallel solve did (see [`ParallelStats`] for each field).
#[derive(Default)]
struct Counters {
    offered: AtomicU64,
    taken: AtomicU64,
    joins: AtomicU64,
    master_joins: AtomicU64,
    helper_moves: AtomicU64,
    thrown_nodes: AtomicU64,
    pool_wait_ns: AtomicU64,
    split_wait_ns: AtomicU64,
    lock_waits: AtomicU64,
}

/// The counters of one parallel solve, read after it (`strong-bench solve --counters`).
#[derive(Clone, Copy, Debug, Default)]
pub struct ParallelStats {
    /// Search threads, the master included.
    pub threads: usize,
    /// Wall time of the solve.
    pub wall: Duration,
    /// Split points offered.
    pub offered: u64,
    /// Split points of which a thread other than their master searched at least one move.
    pub taken: u64,
    /// Times a thread joined a split point it does not own.
    pub joins: u64,
    /// Of those, joins by a master waiting at the end of its own split point.
    pub master_joins: u64,
    /// Moves searched by threads at split points they do not own.
    pub helper_moves: u64,
    /// Nodes of the thread that runs the search (the root's master).
    pub master_nodes: u64,
    /// Nodes of the other threads.
    pub helper_nodes: u64,
    /// Nodes of moves whose result no longer counted: abandoned after a cutoff at their split
    /// point, or finished after another thread's move had cut it off.
    pub thrown_nodes: u64,
    /// Time threads spent in the pool without a split point to join, added up.
    pub pool_wait: Duration,
    /// Time masters spent at the end of their split points with nothing to help, added up.
    pub split_wait: Duration,
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
            master_joins: self.master_joins + o.master_joins,
            helper_moves: self.helper_moves + o.helper_moves,
            master_nodes: self.master_nodes + o.master_nodes,
            helper_nodes: self.helper_nodes + o.helper_nodes,
            thrown_nodes: self.thrown_nodes + o.thrown_nodes,
            pool_wait: self.pool_wait + o.pool_wait,
            split_wait: self.split_wait + o.split_wait,
            lock_waits: self.lock_waits + o.lock_waits,
        }
    }

    /// Thread time of the solve: wall time times threads.
    fn thread_time(&self) -> f64 {
        self.wall.as_secs_f64() * self.threads as f64
    }

    /// Share of the helper threads' time (wall time each) spent in the pool without work.
    pub fn helper_idle_share(&self) -> f64 {
        let total = self.wall.as_secs_f64() * self.threads.saturating_sub(1) as f64;
        self.pool_wait.as_secs_f64() / total.max(1e-9)
    }

    /// Share of all threads' time spent by masters waiting with nothing to help.
    pub fn split_wait_share(&self) -> f64 {
        self.split_wait.as_secs_f64() / self.thread_time().max(1e-9)
    }

    /// Nodes per second of a thread while it searches (thread time less both kinds of
    /// waiting). Below one thread's rate, the difference is what the threads cost each other
    /// in the shared table, caches and memory bandwidth.
    pub fn busy_node_rate(&self) -> f64 {
        let waits = (self.pool_wait + self.split_wait).as_secs_f64();
        let busy = self.thread_time() - waits;
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
    cutoff: AtomicBool,
    /// Threads searching a move of this split point, the master included until its last move.
    working: AtomicUsize,
    /// A thread had to stop for good (the host's stop flag) and dropped the move it held: the
    /// master must not take the split point's result as complete, and stops too.
    stopped: AtomicBool,
    /// The node's midgame depth, or `None` for a solver node.
    depth: Option<u32>,
    /// The master's selectivity (midgame Multi-ProbCut, selective-endgame level): every thread
    /// here searches with it.
    mpc: Option<f64>,
    end_selectivity: Option<usize>,
    /// Moves searched here by threads other than the master.
    helper_moves: AtomicUsize,
    /// The split point the master was searching a move of when it made this one (the nearest
    /// enclosing one), if any.
    parent: Option<Arc<SplitPoint>>,
    /// The master has no move left here and waits for the other threads: it helps at split
    /// points below this one, so threads working here split for it.
    master_waiting: AtomicBool,
}

impl SplitPoint {
    fn open(&self) -> bool {
        self.next.load(Ordering::Acquire) < self.moves.len() && !self.cut_off()
    }

    /// Whether a cutoff (or a stop) ended the work here.
    #[inline]
    pub(crate) fn cut_off(&self) -> bool {
        self.cutoff.load(Ordering::Acquire)
    }

    /// Whether `ancestor` encloses this split point.
    fn descends_from(&self, ancestor: &SplitPoint) -> bool {
        let mut p = self.parent.as_deref();
        while let Some(sp) = p {
            if std::ptr::eq(sp, ancestor) {
                return true;
            }
            p = sp.parent.as_deref();
        }
        false
    }
}

/// The threads' meeting place: the split points on offer, and the idle threads.
#[derive(Default)]
pub struct HelperPool {
    offered: Mutex<Vec<Arc<SplitPoint>>>,
    /// Raised at every offer: idle threads watch it.
    offers: AtomicU64,
    wake: Condvar,
    /// Threads asleep on `wake` (changed under the `offered` lock).
    sleeping: AtomicUsize,
    /// Threads in the pool without work.
    idle: AtomicUsize,
    /// Masters waiting at the end of a split point (see [`SplitPoint::master_waiting`]).
    waiting_masters: AtomicUsize,
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

    /// A clock started when counting.
    #[inline]
    fn clock(&self) -> Option<Instant> {
        self.counters.as_ref().map(|_| Instant::now())
    }

    /// A lock of the pool or of one of its split points, counting waits when counting.
    fn lock<'m, T>(&self, m: &'m Mutex<T>) -> MutexGuard<'m, T> {
        match &self.counters {
            Some(c) => lock_counting(m, &c.lock_waits),
            None => m.lock().expect("parallel search lock"),
        }
    }

    /// Whether a thread working in `splits` (its split points, innermost last) should offer
    /// its node: a thread is idle in the pool, or the master of one of those split points
    /// waits for work below it.
    #[inline]
    fn wants_work(&self, splits: &[Arc<SplitPoint>]) -> bool {
        self.idle.load(Ordering::Relaxed) > 0
            || (self.waiting_masters.load(Ordering::Relaxed) > 0
                && splits
                    .iter()
                    .any(|sp| sp.master_waiting.load(Ordering::Relaxed)))
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
            master_joins: get(&c.master_joins),
            helper_moves: get(&c.helper_moves),
            master_nodes,
            helper_nodes,
            thrown_nodes: get(&c.thrown_nodes),
            pool_wait: Duration::from_nanos(get(&c.pool_wait_ns)),
            split_wait: Duration::from_nanos(get(&c.split_wait_ns)),
            lock_waits: get(&c.lock_waits),
        })
    }

    /// Release the threads: [`HelperPool::serve`] returns.
    pub fn close(&self) {
        self.quit.store(true, Ordering::Release);
        let _guard = self.lock(&self.offered);
        self.wake.notify_all();
    }

    /// Offer `sp`, waking the sleeping threads.
    fn offer(&self, sp: &Arc<SplitPoint>) {
        let mut offered = self.lock(&self.offered);
        offered.push(sp.clone());
        self.offers.fetch_add(1, Ordering::Release);
        if self.sleeping.load(Ordering::Relaxed) > 0 {
            self.wake.notify_all();
        }
        drop(offered);
        self.count(|c| &c.offered, 1);
    }

    /// Take `sp` off the offers.
    fn withdraw(&self, sp: &Arc<SplitPoint>) {
        self.lock(&self.offered).retain(|o| !Arc::ptr_eq(o, sp));
    }

    /// Join the open offer with the most empties among those `eligible` accepts. Joined under
    /// the pool's lock: a master withdraws its offer under it too, and then waits for
    /// `working` to fall to zero, so it never misses a thread that joined.
    fn join(
        &self,
        offered: &[Arc<SplitPoint>],
        eligible: impl Fn(&SplitPoint) -> bool,
    ) -> Option<Arc<SplitPoint>> {
        let sp = offered
            .iter()
            .filter(|sp| sp.open() && eligible(sp))
            .max_by_key(|sp| sp.board.empties())?;
        sp.working.fetch_add(1, Ordering::AcqRel);
        self.count(|c| &c.joins, 1);
        Some(sp.clone())
    }

    /// Join an offer `eligible` accepts, if the offers changed since `seen` (updated).
    fn join_if_new(
        &self,
        seen: &mut u64,
        eligible: impl Fn(&SplitPoint) -> bool,
    ) -> Option<Arc<SplitPoint>> {
        let now = self.offers.load(Ordering::Acquire);
        if now == *seen {
            return None;
        }
        *seen = now;
        let offered = self.lock(&self.offered);
        self.join(&offered, eligible)
    }

    /// An idle thread's wait for a split point: spinning on the offers for [`SPIN`], then
    /// asleep, woken by an offer or every 5 ms to look again; `None` once the pool is closed.
    fn wait_for_work(&self) -> Option<Arc<SplitPoint>> {
        let clock = self.clock();
        self.idle.fetch_add(1, Ordering::Relaxed);
        let mut seen = u64::MAX;
        let found = 'wait: loop {
            let spin_from = Instant::now();
            while spin_from.elapsed() < SPIN {
                if self.quit.load(Ordering::Acquire) {
                    break 'wait None;
                }
                if let Some(sp) = self.join_if_new(&mut seen, |_| true) {
                    break 'wait Some(sp);
                }
                for _ in 0..64 {
                    std::hint::spin_loop();
                }
            }
            let mut offered = self.lock(&self.offered);
            if self.quit.load(Ordering::Acquire) {
                break None;
            }
            if let Some(sp) = self.join(&offered, |_| true) {
                break Some(sp);
            }
            seen = self.offers.load(Ordering::Acquire);
            self.sleeping.fetch_add(1, Ordering::Relaxed);
            offered = self
                .wake
                .wait_timeout(offered, Duration::from_millis(5))
                .expect("pool lock")
                .0;
            self.sleeping.fetch_sub(1, Ordering::Relaxed);
            if let Some(sp) = self.join(&offered, |_| true) {
                break Some(sp);
            }
        };
        self.idle.fetch_sub(1, Ordering::Relaxed);
        if let Some(t) = clock {
            self.count(|c| &c.pool_wait_ns, t.elapsed().as_nanos() as u64);
        }
        found
    }

    /// A helper thread's life: wait for a split point, work on it, wait again, until closed.
    pub fn serve<'p>(&'p self, s: &mut Searcher<'p>) {
        s.pool = Some(self);
        while let Some(sp) = self.wait_for_work() {
            self.help(s, &sp);
        }
    }

    /// Search moves of `sp`, which `s` joined but does not own, and leave it.
    fn help(&self, s: &mut Searcher, sp: &Arc<SplitPoint>) {
        // Leaves the split point even if the search panics, so the master never waits for a
        // thread that is gone.
        let _leave = Leave(sp);
        let was_aborted = s.aborted;
        if !s.global_stop {
            s.aborted = false;
            with_kernel!(s.kernel, k => s.work_on(k, self, sp, false));
        }
        if s.global_stop {
            // Stopped for good (before joining, or in the move it held): the split point's
            // result is incomplete; the master learns it and stops too.
            sp.stopped.store(true, Ordering::Release);
            sp.cutoff.store(true, Ordering::Release);
        } else {
            s.aborted = was_aborted || s.aborted;
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
    /// Search the moves `list[from..]` of `b` (a midgame node of depth `depth`, or a solver
    /// node when `None`) together with other threads, if one would take them and the node is
    /// large enough; `None` when not split (the caller goes on alone). On return the node's
    /// best score and move so far are merged with the split point's; after a global stop
    /// `self.aborted` is set as usual.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    pub(crate) fn split<K: Kernel>(
        &mut self,
        k: K,
        b: &Board,
        list: &mut [MoveEntry],
        from: usize,
        depth: Option<u32>,
        alpha: i32,
        beta: i32,
        best: i32,
        best_move: u8,
    ) -> Option<(i32, u8)> {
        let pool = self.pool?;
        let large = match depth {
            Some(d) => d >= MID_SPLIT_DEPTH,
            None => b.empties() >= SPLIT_EMPTIES,
        };
        if list.len() < from + 2 || !large || !pool.wants_work(&self.splits) {
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
            cutoff: AtomicBool::new(false),
            working: AtomicUsize::new(1), // the master
            stopped: AtomicBool::new(false),
            depth,
            mpc: self.mpc,
            end_selectivity: self.end_selectivity,
            helper_moves: AtomicUsize::new(0),
            parent: self.splits.last().cloned(),
            master_waiting: AtomicBool::new(false),
        });
        pool.offer(&sp);
        self.work_on(k, pool, &sp, true);
        if self.aborted {
            // A global stop, or a cutoff above: release the other threads at once.
            sp.cutoff.store(true, Ordering::Release);
        }
        pool.withdraw(&sp);
        sp.working.fetch_sub(1, Ordering::AcqRel);
        self.wait_helping(pool, &sp);
        if sp.helper_moves.load(Ordering::Relaxed) > 0 {
            pool.count(|c| &c.taken, 1);
        }
        if sp.stopped.load(Ordering::Acquire) {
            // A thread dropped a move: the result is incomplete, and the search is stopping.
            self.global_stop = true;
            self.aborted = true;
        }
        let r = *pool.lock(&sp.bounds);
        Some((r.best, r.best_move))
    }

    /// The end of the master's work at `sp`: until no other thread works there, join the
    /// split points they offer below it (see the module docs), or spin.
    fn wait_helping(&mut self, pool: &HelperPool, sp: &Arc<SplitPoint>) {
        if sp.working.load(Ordering::Acquire) == 0 {
            return;
        }
        sp.master_waiting.store(true, Ordering::Relaxed);
        pool.waiting_masters.fetch_add(1, Ordering::Relaxed);
        let mut seen = u64::MAX;
        let mut spins = 0u32;
        let mut waited = Duration::ZERO;
        let mut clock = pool.clock();
        while sp.working.load(Ordering::Acquire) > 0 {
            let below = if self.aborted {
                None
            } else {
                pool.join_if_new(&mut seen, |o| o.descends_from(sp))
            };
            if let Some(below) = below {
                if let Some(t) = clock {
                    waited += t.elapsed();
                }
                pool.count(|c| &c.master_joins, 1);
                pool.help(self, &below);
                if self.global_stop {
                    sp.cutoff.store(true, Ordering::Release);
                }
                clock = pool.clock();
            } else {
                // Keep the master's limits: the others have no clock of their own.
                spins += 1;
                if spins.is_multiple_of(1024) && !self.global_stop {
                    self.poll();
                    if self.global_stop {
                        sp.cutoff.store(true, Ordering::Release);
                    }
                }
                std::hint::spin_loop();
            }
        }
        if let Some(t) = clock {
            waited += t.elapsed();
        }
        pool.waiting_masters.fetch_sub(1, Ordering::Relaxed);
        sp.master_waiting.store(false, Ordering::Relaxed);
        pool.count(|c| &c.split_wait_ns, waited.as_nanos() as u64);
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
        let Some(depth) = sp.depth else {
            let v = -self.end_nws_k(k, child, -alpha - 1);
            if self.aborted || !(sp.pv && v > alpha && v < sp.beta) {
                return v;
            }
            // `v` is only a lower bound: even when another thread has raised alpha above it
            // meanwhile, the move may still beat the new alpha, so it is re-searched against
            // the current one.
            let a = pool.lock(&sp.bounds).alpha.max(alpha);
            return -self.end_pvs_k(k, child, -sp.beta, -a);
        };
        // The midgame keeps the evaluator on its path (a thread new to the node computes it
        // there once).
        self.eval.on_play(&sp.board, x, f);
        let mut v = -self.mid_search_k(k, child, depth - 1, -alpha - 1, -alpha);
        if !self.aborted && sp.pv && v > alpha && v < sp.beta {
            let a = pool.lock(&sp.bounds).alpha.max(alpha);
            v = -self.mid_search_k(k, child, depth - 1, -sp.beta, -a);
        }
        self.eval.on_undo(&sp.board, x, f);
        v
    }

    /// Take moves of `sp` until none is left or the split point is cut off; `master` says
    /// whether this thread owns it.
    pub(crate) fn work_on<K: Kernel>(
        &mut self,
        k: K,
        pool: &HelperPool,
        sp: &Arc<SplitPoint>,
        master: bool,
    ) {
        self.splits.push(sp.clone());
        let mpc = std::mem::replace(&mut self.mpc, sp.mpc);
        let end_selectivity = std::mem::replace(&mut self.end_selectivity, sp.end_selectivity);
        while !sp.cut_off() {
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
            if self.aborted || sp.cut_off() {
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
        self.mpc = mpc;
        self.end_selectivity = end_selectivity;
        self.splits.pop();
        // A cutoff here ends only this split point's work; a global stop, or a cutoff of an
        // enclosing split point, keeps the search unwinding.
        self.aborted = self.global_stop || self.splits.iter().any(|sp| sp.cut_off());
    }
}

/// A search by several threads of one position with YBWC: the master runs
/// [`Searcher::think`] with the pool, the other threads serve it. `configure` is applied to
/// every thread's searcher before it starts (selectivity, kernel).
pub struct SearchTeam<'a> {
    /// Threads, the master included (at least 1).
    pub threads: usize,
    pub tt: Arc<Tt>,
    pub ctx: Option<&'a SearchContext<'a>>,
    /// Count what the threads do ([`ParallelStats`]).
    pub counting: bool,
}

impl<'a> SearchTeam<'a> {
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
