//! An engine runs only on its own turn: [`TurnGate`].
//!
//! A turn is the time from a request to the worker (a search, an option, a new game, a probe)
//! to its final reply. Between turns the worker and everything it started are stopped, so an
//! engine whose threads spin, or that goes on searching after it answered, takes no processor
//! time from its opponent and cannot think on the opponent's time. For a move the order is:
//! the engine that answered is stopped as soon as its answer is read, then the other engine is
//! continued, then its clock starts and its request is sent.
//!
//! The stop route, in the order it is looked for:
//! - the cgroup freezer of the worker's own cgroup (a sandboxed worker where cgroups can be
//!   made): v2's `cgroup.freeze`, else v1's `freezer.state`. It holds every task inside,
//!   whatever process group or session a task made. The write itself marks every task and
//!   interrupts those running, so no task runs its own code again until it is thawed;
//! - `SIGSTOP`/`SIGCONT` to the worker's process group (no cgroup: an ordinary user, or the
//!   sandbox off). Inside the sandbox no process may leave the group (`setsid` and
//!   `setpgid` are denied), so the group is everything the engine started; with the sandbox
//!   off a program the engine started in a session of its own is not stopped;
//! - on Windows, every thread of every process in the worker's job object suspended
//!   (`SuspendThread`) and resumed: a process cannot leave its job, so this is everything
//!   the engine started.
//!
//! A stop by the freezer is complete for the engine's own code when the write returns, and
//! the harness does not wait for `cgroup.events` or `freezer.state` to say so (such a wait
//! would cost every move; `docs/sandbox-cost.md` has the figures). A stop by signals is waited for, bounded, until the worker
//! shows as stopped in `/proc` (`TurnGate::wait_for_the_group_stop` says why).
//!
//! A worker is not stopped ([`BetweenTurns::Runs`], with the reason recorded) when its engine
//! has `ponder = true`; when no engine of the run plays under a clock or a move time (under
//! depth and node limits the time an engine gets does not decide its moves, and stopping
//! would slow a fast depth-limited run by a third: `docs/sandbox-cost.md`); and when it has neither a cgroup nor
//! a process group of its own (a harness nested inside another's sandbox keeps its workers
//! in its own group, which it cannot stop without stopping itself).
//!
//! Every path that ends a worker continues it first (`EngineHost::kill` and `shutdown`, and a
//! dropped gate), so a quit is read and a kill does not wait on a frozen task.
//!
//! The CPU time the worker used between its turns is measured for every engine, stopped or
//! not: at the end of each turn and at the start of the next, from `/proc/PID/stat` (the
//! worker's threads and its reaped children, in clock ticks; a process the engine started
//! counts once the worker has reaped it); on Windows from the job object's accounting (every
//! process that ran in the job). Where neither can be read it is not known, and the record
//! says so rather than zero.

use super::sandbox::cgroup::{Freezer, WorkerCgroup};
use super::system::{self, Group};
use std::time::Duration;

/// What a worker does between its turns, as its engine and the run decide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BetweenTurns {
    /// Stopped, by the first route that can.
    Stopped,
    /// Not stopped, for this reason ([`PONDERS`], [`UNTIMED`]).
    Runs(&'static str),
}

/// Why an engine with `ponder = true` runs between its turns.
pub const PONDERS: &str = "ponder = true";
/// Why the engines of a run without a clock or a move time run between their turns.
pub const UNTIMED: &str = "depth and node limits: the time an engine gets decides nothing";

/// The longest the coordinator waits for a stop by signals to show in `/proc`; past it the
/// other engine's turn begins anyway.
const STOP_WAIT: Duration = Duration::from_millis(20);

/// How a worker is stopped between its turns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopRoute {
    Freezer(Freezer),
    /// The system's stop of the worker's group: `SIGSTOP`/`SIGCONT` to its process group (the
    /// worker's pid); on Windows, every thread of its job object suspended.
    Signals(Group),
}

impl StopRoute {
    /// The route as the record and `harness check` name it.
    pub fn name(&self) -> &'static str {
        match self {
            StopRoute::Freezer(f) => f.name(),
            StopRoute::Signals(_) => system::STOP_NAME,
        }
    }
}

/// The worker's `/proc/PID/stat`, kept open: each look is one positional read, which makes
/// the kernel write the line anew. It gives the worker's CPU time and whether it is stopped.
/// (The cgroup's `cpu.stat` would count the processes the engine started too, but reading it
/// flushes the kernel's per-CPU counters, twice a move: `docs/sandbox-cost.md`.)
#[derive(Debug)]
struct ProcStat(Option<std::fs::File>);

impl ProcStat {
    /// The line, or `None` when it cannot be read (the worker is gone).
    fn look<T>(&self, read: impl FnOnce(&str) -> Option<T>) -> Option<T> {
        let mut line = [0u8; 1024];
        let n = harness_os::files::read_at(self.0.as_ref()?, &mut line, 0).ok()?;
        read(std::str::from_utf8(&line[..n]).ok()?)
    }

    fn cpu(&self) -> Option<Duration> {
        self.look(proc_cpu)
    }

    /// Whether the worker is stopped (state `T`); a worker that cannot be read counts as
    /// stopped, as there is nothing to wait for.
    fn stopped(&self) -> bool {
        self.look(|line| Some(proc_stopped(line))).unwrap_or(true)
    }
}

/// The user, system and reaped children's times of a `/proc/PID/stat` line, in clock ticks
/// made a duration. The fields after the command (which may hold spaces and parentheses) are
/// counted from its closing parenthesis: utime is the 14th field of the line.
fn proc_cpu(line: &str) -> Option<Duration> {
    let rest = &line[line.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the command: state (3), ppid (4), …, utime (14), stime (15), cutime, cstime.
    let ticks: u64 = fields
        .get(11..15)?
        .iter()
        .map(|f| f.parse::<u64>().ok())
        .sum::<Option<u64>>()?;
    let per_second = system::clock_ticks_per_second().max(1);
    Some(Duration::from_micros(
        ticks.saturating_mul(1_000_000) / per_second,
    ))
}

/// Whether the process whose `/proc/PID/stat` line is `line` is stopped (state `T`, the
/// field after the command's closing parenthesis).
fn proc_stopped(line: &str) -> bool {
    line.rfind(')')
        .and_then(|i| line[i + 1..].split_whitespace().next())
        .is_some_and(|state| state == "T")
}

/// One worker's turns: whether it is stopped now, how, and the CPU it used between turns.
#[derive(Debug)]
pub struct TurnGate {
    /// How the worker is stopped, or why it is not.
    route: Result<StopRoute, &'static str>,
    stat: ProcStat,
    /// The worker's group, whose CPU time is read where `/proc` cannot be (a job object's
    /// accounting on Windows).
    group: Option<Group>,
    stopped: bool,
    /// Whether the worker's CPU time has been read at all.
    measured: bool,
    /// The CPU time read at the end of the last turn (`None`: in a turn, or not readable).
    rested_at: Option<Duration>,
    between_turns: Duration,
}

impl TurnGate {
    /// The gate of the worker `pid`, leader of its process group `group` (where it has one),
    /// held by `cgroup` (where it has one), to be stopped between its turns or not.
    pub fn new(
        pid: Option<u32>,
        group: Option<Group>,
        cgroup: Option<&WorkerCgroup>,
        between_turns: BetweenTurns,
    ) -> TurnGate {
        let freezer = cgroup.and_then(WorkerCgroup::freezer);
        let route = match (between_turns, freezer, group.clone()) {
            (BetweenTurns::Runs(why), _, _) => Err(why),
            (BetweenTurns::Stopped, Some(f), _) => Ok(StopRoute::Freezer(f)),
            (BetweenTurns::Stopped, None, Some(g)) => Ok(StopRoute::Signals(g)),
            (BetweenTurns::Stopped, None, None) => Err(system::NO_STOP_ROUTE),
        };
        let stat = pid.and_then(|p| std::fs::File::open(format!("/proc/{p}/stat")).ok());
        let measured = stat.is_some() || group.as_ref().is_some_and(|g| g.cpu_time().is_some());
        TurnGate {
            route,
            stat: ProcStat(stat),
            group,
            stopped: false,
            measured,
            rested_at: None,
            between_turns: Duration::ZERO,
        }
    }

    /// How the worker is stopped between turns, or why it is not: `cgroup.freeze`,
    /// `freezer.state`, `SIGSTOP`, or `none (REASON)`.
    pub fn describe(&self) -> String {
        match &self.route {
            Ok(route) => route.name().to_string(),
            Err(why) => format!("none ({why})"),
        }
    }

    /// The CPU time the worker used outside its turns so far; `None` where the system gives no
    /// reading of it.
    pub fn between_turns(&self) -> Option<Duration> {
        self.measured.then_some(self.between_turns)
    }

    /// The worker's CPU time so far: `/proc`, else its group's own count.
    fn cpu(&mut self) -> Option<Duration> {
        let read = self.stat.cpu().or_else(|| self.group.as_ref()?.cpu_time());
        self.measured |= read.is_some();
        read
    }

    /// A turn ends: stop the worker, then note the CPU time it used so far.
    pub async fn end_turn(&mut self) {
        if !self.stopped {
            self.stopped = match &self.route {
                Ok(StopRoute::Freezer(f)) => f.set(true).is_ok(),
                Ok(StopRoute::Signals(g)) => {
                    let asked = g.stop();
                    if asked {
                        self.wait_for_the_group_stop().await;
                    }
                    asked
                }
                Err(_) => false,
            };
        }
        self.rested_at = self.cpu();
    }

    /// After a `SIGSTOP` to the group: wait (at most [`STOP_WAIT`]) until the worker shows as
    /// stopped in `/proc`. The thread that takes the signal marks and interrupts the
    /// process's other threads before it stops itself, so from then on none of them runs its
    /// own code; until then, on a loaded machine, they may run for a scheduling delay. The first looks give the
    /// processor away (`sched_yield`) for the worker's thread to take; then one a millisecond.
    async fn wait_for_the_group_stop(&self) {
        for _ in 0..16 {
            if self.stat.stopped() {
                return;
            }
            std::thread::yield_now();
        }
        let until = std::time::Instant::now() + STOP_WAIT;
        while !self.stat.stopped() && std::time::Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }

    /// A turn begins: add the CPU time used since the last turn ended, and continue the
    /// worker. The caller starts the clock after this returns.
    pub fn begin_turn(&mut self) {
        // Read only after a rest: a request of a turn already begun reads nothing.
        if let Some(rested) = self.rested_at.take() {
            if let Some(now) = self.cpu() {
                self.between_turns += now.saturating_sub(rested);
            }
        }
        self.go_on();
    }

    /// Continue the worker if it is stopped (before a quit or a kill, and on every end path).
    pub fn go_on(&mut self) {
        if !std::mem::take(&mut self.stopped) {
            return;
        }
        match &self.route {
            Ok(StopRoute::Freezer(f)) => {
                let _ = f.set(false);
            }
            Ok(StopRoute::Signals(g)) => g.go_on(),
            Err(_) => {}
        }
    }
}

impl Drop for TurnGate {
    /// A dropped gate leaves nothing stopped.
    fn drop(&mut self) {
        self.go_on();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_stat_fields_are_counted_from_the_command_s_end() {
        let line = "4242 (a (b) c) S 1 4242 4242 0 -1 4194304 100 0 0 0 250 50 7 3 20 0 1 0";
        let per_second = rustix::param::clock_ticks_per_second();
        assert_eq!(
            proc_cpu(line),
            Some(Duration::from_micros(310 * 1_000_000 / per_second))
        );
        assert!(!proc_stopped(line));
        assert!(proc_stopped("7 (x) T 1 7 7 0 -1 0 0 0 0 0 0 0 0 0"));
    }

    /// A process stopped by its gate uses no CPU until it goes on, and the stop is reported.
    #[tokio::test]
    async fn a_spinning_process_group_uses_no_cpu_between_turns() {
        use std::os::unix::process::CommandExt;
        let mut child = std::process::Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .process_group(0)
            .spawn()
            .unwrap();
        let pid = child.id();
        let group = Group::of(pid);
        let mut gate = TurnGate::new(Some(pid), group.clone(), None, BetweenTurns::Stopped);
        assert_eq!(gate.describe(), "SIGSTOP");
        std::thread::sleep(Duration::from_millis(50));
        gate.end_turn().await;
        std::thread::sleep(Duration::from_millis(300));
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        assert!(proc_stopped(&stat), "{stat}");
        gate.begin_turn();
        let rested = gate.between_turns().expect("read from /proc");
        assert!(rested <= Duration::from_millis(10), "{rested:?}");
        // Pondering: the same process runs between turns, and that is measured.
        let mut ponder = TurnGate::new(Some(pid), group, None, BetweenTurns::Runs(PONDERS));
        assert_eq!(ponder.describe(), "none (ponder = true)");
        ponder.end_turn().await;
        std::thread::sleep(Duration::from_millis(300));
        ponder.begin_turn();
        let pondered = ponder.between_turns().expect("read from /proc");
        assert!(pondered >= Duration::from_millis(100), "{pondered:?}");
        let _ = child.kill();
        let _ = child.wait();
    }
}
