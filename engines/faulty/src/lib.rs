//! Faulty: a **test fixture**, not an engine to play with. It plays like a deterministic greedy
//! engine (the first legal move, lowest square index first, among those flipping the most
//! discs) until it strikes: in its `StrikeAt`-th search of each game it commits the fault chosen
//! with the `Fault` option. The end-to-end tests (`tests/e2e/fault_matrix.rs`) use it to check
//! that every kind of engine failure costs the engine its game and nothing else.
//!
//! Options:
//! - `Fault` (enum, default `none`):
//!   - `none`: never fails;
//!   - `segfault`: writes through a pointer into the null page (SIGSEGV);
//!   - `abort`: `std::process::abort()` (SIGABRT);
//!   - `panic`: panics (the SDK turns it into an error status with the message
//!     `faulty: deliberate panic in search N`);
//!   - `exit`: `std::process::exit(0)` in the middle of the search;
//!   - `loop`: spins forever, ignoring the stop flag;
//!   - `sleep`: sleeps past any deadline (twice the move time or the side's clock, plus 2 s;
//!     5 s without a time limit), then answers a legal move;
//!   - `illegal`: answers an occupied square;
//!   - `out-of-range`: answers the move value 99 (no square, no pass);
//!   - `bad-pass`: answers a pass while it has legal moves;
//!   - `info-flood`: sends [`FLOOD_PER_MS`] info reports per millisecond for [`FLOOD_TIME`] or
//!     until stopped, then answers a legal move whose reported node count is the number of
//!     reports sent;
//!   - `stdout-garbage`: prints protocol-looking garbage to stdout and stderr, then answers a
//!     legal move;
//!   - `destroy-hang`: plays normally, but destroying the instance never returns (it says
//!     `faulty: destroy reached; it never returns` on stderr first);
//!   - `allocate`: allocates memory and touches every page of it, without end (only ever run
//!     under a memory limit: it ends when an allocation fails, which aborts the process);
//!   - the hostile faults ([`hostile`]), what the sandbox is for: `write-journal` appends a
//!     line to the file `Target`; `delete-output` removes the folder `Target`; `read-secret`
//!     reads the file `Target` and reports its first 8 bytes as its node count;
//!     `connect` opens a TCP connection to `127.0.0.1:Target`; `kill-parent` sends SIGKILL to
//!     the coordinator (the first process above its worker that is not a supervisor); `exec-shell` runs `/bin/sh -c 'touch Target'`;
//!     `fork-bomb` starts processes until it cannot; `connect-unix` connects to the Unix
//!     socket `Target`; `impersonate` watches the folder `Target` for a coordinator's socket
//!     and speaks on it as a worker; `daemon` starts shell loops (appending to the file
//!     `Target`) in a process group and a session of their own; `prlimit-parent` limits the
//!     coordinator's files to 1 byte; `limit-opponent` limits the coordinator's other workers
//!     to 1 s of CPU at nice 19; `environ` reports the variable `Target` from its environment
//!     and the coordinator's; `root-powers` tries root's powers harmlessly (`sethostname` to
//!     the same name, `reboot` with a wrong magic number, a device node) and reports its
//!     capabilities; `inherited-fd` writes to the descriptors it has open on
//!     the file `Target`; `shm` makes a
//!     System V shared memory segment; `fill-disk` writes `Target` MiB in its current folder;
//!     `allocate-children` starts 4 shells that each hold 80 MiB; `channel-flood` writes
//!     256 MiB of live reports straight to its worker's channel; `namespaces` makes a child
//!     in each new namespace `clone` offers (mount, cgroup, UTS, IPC, user, pid, network),
//!     one at a time; `clone3` makes a child with the raw `clone3` call, then a thread and a
//!     process as the standard library does; `sysv-attach` attaches and removes the System V
//!     shared memory segment whose id is `Target`; `mq-open` makes the POSIX message queue
//!     named `Target`; `outlive-coordinator` clears its worker's parent-death signal and
//!     starts a shell loop in the worker's own process group (appending to the file `Target`).
//!     Each says on stderr what it did or what was refused,
//!     then answers its normal move;
//!   - the unfair faults ([`unfair`]), ways to win without playing better:
//!     `spin-between-turns` starts `Target` threads (8 when it names no number) that spin for
//!     ever, between its turns too; `answer-ahead` writes a move reply straight to its
//!     worker's channel 1 ms after the search, ahead of the next request; `spin-on-turn`
//!     spins `Target` threads (4 when it names no number) for [`unfair::SPIN_ON_TURN`] of its
//!     search, while it declares no `Threads` (one), and says the cores they used;
//!   - the faults of text: `huge-error` panics with a 16 MiB message, `escape-text` with
//!     terminal escape sequences, a line break, HTML and a right-to-left override (each an
//!     error of the search, as `panic`).
//! - `StrikeAt` (int, default 3, 1..=1000): which search of each game strikes (1 = the first);
//!   the count restarts at every `new_game`.
//! - `Target` (string, default empty): the path or port of a hostile fault.
//!
//! `write-journal`, `delete-output`, `read-secret`, `connect`, `environ` (its own
//! environment), `fill-disk` and the faults of text run on every system. On Windows,
//! `kill-parent` ends the worker's parent (the harness) with `TerminateProcess`, `exec-shell`
//! runs `cmd.exe /c type nul > Target`, `fork-bomb` starts `cmd.exe`s, and
//! `outlive-coordinator` and `daemon` start loops through `rundll32.exe` (this library's
//! `faulty_append_forever` entry), `daemon`'s first out of the worker's job
//! (`CREATE_BREAKAWAY_FROM_JOB`). `fork-bomb` stops at the number `Target` names, when it
//! names one. The other hostile faults and `answer-ahead` are Linux code: elsewhere each says
//! on stderr `faulty: <fault>: not on this system …` and answers its normal move.
//!
//! At load, before any entry of the ABI is called, faulty sets [`LOADED_VARIABLE`] in its
//! process's environment: `harness check`, whose sandbox probes run before the plugin loads,
//! must not see it (`sandbox-environment` would fail if they ran after).
//!
//! This crate holds the only `unsafe` of the Rust engines besides the SDK: the deliberate
//! segfault, a thin wrapper around the SDK's `search` entry that rewrites the answered move
//! value for `out-of-range` (the SDK's `Move` cannot hold 99, by design), and the function
//! the loader runs ([`AT_LOAD`]).

#![deny(unsafe_code)]

/// The variable faulty sets in its environment when its library loads.
pub const LOADED_VARIABLE: &str = "FAULTY_LOADED";

/// Run by the dynamic loader when the library is loaded (an entry of the table of
/// constructors: `.init_array` in ELF, `__mod_init_func` in Mach-O, the C runtime's `.CRT$XCU`
/// in a Windows DLL), as a C plugin's constructor would be: plugin code that runs before the
/// harness asks anything.
#[allow(unsafe_code)]
#[used]
#[cfg_attr(target_os = "linux", link_section = ".init_array")]
#[cfg_attr(target_os = "macos", link_section = "__DATA,__mod_init_func")]
#[cfg_attr(windows, link_section = ".CRT$XCU")]
pub static AT_LOAD: extern "C" fn() = at_load;

extern "C" fn at_load() {
    std::env::set_var(LOADED_VARIABLE, "1");
}

pub mod hostile;
pub mod unfair;

use othello_sdk::board::{Board, Move, Square};
use othello_sdk::{
    Engine, Metadata, OptionSpec, OptionValue, SearchContext, SearchInfo, SearchOutcome,
    SearchRequest,
};
use std::cell::Cell;
use std::io::Write;
use std::time::Duration;

/// Reports per millisecond sent by `info-flood`.
pub const FLOOD_PER_MS: u64 = 2_000;
/// How long `info-flood` floods (unless stopped first).
pub const FLOOD_TIME: Duration = Duration::from_secs(2);
/// The move value answered by `out-of-range`.
pub const OUT_OF_RANGE_MOVE: i32 = 99;

/// The fault the engine commits when it strikes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    None,
    Segfault,
    Abort,
    Panic,
    Exit,
    Loop,
    Sleep,
    Illegal,
    OutOfRange,
    BadPass,
    InfoFlood,
    StdoutGarbage,
    DestroyHang,
    Allocate,
    WriteJournal,
    DeleteOutput,
    ReadSecret,
    Connect,
    KillParent,
    ExecShell,
    ForkBomb,
    ConnectUnix,
    Impersonate,
    Daemon,
    PrlimitParent,
    LimitOpponent,
    Environ,
    RootPowers,
    InheritedFd,
    Shm,
    HugeError,
    EscapeText,
    FillDisk,
    AllocateChildren,
    ChannelFlood,
    Namespaces,
    Clone3,
    SysvAttach,
    MqOpen,
    SpinBetweenTurns,
    AnswerAhead,
    OutliveCoordinator,
    SpinOnTurn,
}

impl Fault {
    /// Every fault, in the order of [`Fault::NAMES`].
    pub const ALL: [Fault; 43] = [
        Fault::None,
        Fault::Segfault,
        Fault::Abort,
        Fault::Panic,
        Fault::Exit,
        Fault::Loop,
        Fault::Sleep,
        Fault::Illegal,
        Fault::OutOfRange,
        Fault::BadPass,
        Fault::InfoFlood,
        Fault::StdoutGarbage,
        Fault::DestroyHang,
        Fault::Allocate,
        Fault::WriteJournal,
        Fault::DeleteOutput,
        Fault::ReadSecret,
        Fault::Connect,
        Fault::KillParent,
        Fault::ExecShell,
        Fault::ForkBomb,
        Fault::ConnectUnix,
        Fault::Impersonate,
        Fault::Daemon,
        Fault::PrlimitParent,
        Fault::LimitOpponent,
        Fault::Environ,
        Fault::RootPowers,
        Fault::InheritedFd,
        Fault::Shm,
        Fault::HugeError,
        Fault::EscapeText,
        Fault::FillDisk,
        Fault::AllocateChildren,
        Fault::ChannelFlood,
        Fault::Namespaces,
        Fault::Clone3,
        Fault::SysvAttach,
        Fault::MqOpen,
        Fault::SpinBetweenTurns,
        Fault::AnswerAhead,
        Fault::OutliveCoordinator,
        Fault::SpinOnTurn,
    ];

    /// The option values, in the order of [`Fault::ALL`].
    pub const NAMES: [&'static str; 43] = [
        "none",
        "segfault",
        "abort",
        "panic",
        "exit",
        "loop",
        "sleep",
        "illegal",
        "out-of-range",
        "bad-pass",
        "info-flood",
        "stdout-garbage",
        "destroy-hang",
        "allocate",
        "write-journal",
        "delete-output",
        "read-secret",
        "connect",
        "kill-parent",
        "exec-shell",
        "fork-bomb",
        "connect-unix",
        "impersonate",
        "daemon",
        "prlimit-parent",
        "limit-opponent",
        "environ",
        "root-powers",
        "inherited-fd",
        "shm",
        "huge-error",
        "escape-text",
        "fill-disk",
        "allocate-children",
        "channel-flood",
        "namespaces",
        "clone3",
        "sysv-attach",
        "mq-open",
        "spin-between-turns",
        "answer-ahead",
        "outlive-coordinator",
        "spin-on-turn",
    ];

    /// The option value naming this fault.
    pub fn name(self) -> &'static str {
        let i = Fault::ALL
            .iter()
            .position(|&f| f == self)
            .expect("every fault is listed");
        Fault::NAMES[i]
    }

    /// The fault an option value names (case-insensitive).
    pub fn from_name(name: &str) -> Option<Fault> {
        Fault::NAMES
            .iter()
            .position(|n| n.eq_ignore_ascii_case(name))
            .map(|i| Fault::ALL[i])
    }
}

/// The faulty engine.
#[derive(Debug)]
pub struct Faulty {
    fault: Fault,
    strike_at: u32,
    /// Searches since the last new game.
    searches: u32,
    /// The path or port of a hostile fault.
    target: String,
}

/// The greedy choice: the lowest square among the legal moves flipping the most discs, with
/// the number of discs it flips; `None` without a legal move.
pub fn greedy_move(board: &Board) -> Option<(Square, u32)> {
    let mut best: Option<(Square, u32)> = None;
    for sq in Square::iter(board.moves()) {
        let n = board.flips(sq.index()).count_ones();
        if best.is_none_or(|(_, b)| n > b) {
            best = Some((sq, n));
        }
    }
    best
}

thread_local! {
    /// A move value for the search wrapper to answer instead of the engine's move (set by
    /// `out-of-range` on the thread running the search, taken by the wrapper on return).
    static OVERRIDE_MOVE: Cell<Option<i32>> = const { Cell::new(None) };
}

impl Faulty {
    /// The normal answer: the greedy move (or the pass when there is no legal move).
    fn answer(request: &SearchRequest, nodes: u64) -> SearchOutcome {
        let board = request.position.board;
        let (mv, score) = match greedy_move(&board) {
            Some((sq, flips)) => (Move::at(sq), board.disc_difference() + 2 * flips as i32 + 1),
            None => (Move::PASS, board.disc_difference()),
        };
        SearchOutcome {
            mv,
            info: SearchInfo {
                depth: 1,
                selectivity: 100,
                score: score as f64,
                nodes,
                pv: vec![mv],
            },
        }
    }

    /// How long `sleep` sleeps: past the coordinator's deadline for this search.
    fn oversleep(request: &SearchRequest) -> Duration {
        let side = request.position.side_to_move;
        let limit = match (request.limits.move_time, request.limits.clock) {
            (Some(t), _) => Some(t),
            (None, Some(c)) => Some(c.time_left[side.index()]),
            (None, None) => None,
        };
        limit.map_or(Duration::from_secs(5), |t| 2 * t + Duration::from_secs(2))
    }

    fn flood(request: &SearchRequest, ctx: &SearchContext) -> SearchOutcome {
        let mut info = Faulty::answer(request, 0).info;
        let mut sent: u64 = 0;
        while ctx.elapsed() < FLOOD_TIME && !ctx.stopped() {
            // Keep FLOOD_PER_MS reports per elapsed millisecond, one millisecond ahead.
            let due = (ctx.elapsed().as_micros() as u64 * FLOOD_PER_MS) / 1000 + FLOOD_PER_MS;
            while sent < due {
                sent += 1;
                info.nodes = sent;
                ctx.report(&info);
            }
            std::thread::yield_now();
        }
        Faulty::answer(request, sent)
    }

    fn print_garbage(search: u32) {
        let lines = [
            concat!(
                r#"{"type":"moved","mv":0,"info":{"depth":1,"selectivity":100,"score":64.0,"#,
                r#""nodes":1,"time_ms":0,"pv":[0]}}"#
            )
            .to_string(),
            r#"{"type":"error","message":"faulty: garbage on a standard stream"}"#.to_string(),
            concat!(
                r#"{"type":"info","info":{"depth":99,"selectivity":0,"score":0.0,"nodes":0,"#,
                r#""time_ms":0,"pv":[]}}"#
            )
            .to_string(),
            format!("info depth 1 score 0 pv a1 (search {search})"),
            "bestmove a1".to_string(),
            "{\"type\":\"moved\",\"mv\":".to_string(),
        ];
        let mut out = std::io::stdout().lock();
        let mut err = std::io::stderr().lock();
        for line in &lines {
            let _ = writeln!(out, "{line}");
            let _ = writeln!(err, "{line}");
        }
        // A torn line and some bytes that are not UTF-8, without a newline at the end.
        let _ = out.write_all(b"{\"type\":\"ok\"\xff\xfe\x00");
        let _ = err.write_all(b"{\"type\":\"ok\"\xff\xfe\x00");
        let _ = out.flush();
        let _ = err.flush();
    }
}

impl Engine for Faulty {
    fn metadata() -> Metadata {
        Metadata {
            name: "Faulty",
            version: env!("CARGO_PKG_VERSION"),
            author: "othello-tournament test fixtures",
        }
    }

    fn options() -> Vec<OptionSpec> {
        vec![
            OptionSpec::enumeration(
                "Fault",
                "none",
                &Fault::NAMES,
                "the fault committed in the StrikeAt-th search of each game",
            ),
            OptionSpec::int(
                "StrikeAt",
                3,
                1,
                1000,
                "which search of each game strikes (1 = the first)",
            ),
            OptionSpec::string("Target", "", "the path or port of a hostile fault"),
        ]
    }

    fn new() -> Self {
        Faulty {
            fault: Fault::None,
            strike_at: 3,
            searches: 0,
            target: String::new(),
        }
    }

    fn set_option(&mut self, name: &str, value: &OptionValue) -> Result<(), String> {
        match (name, value) {
            ("Fault", OptionValue::Enum(f)) => {
                self.fault = Fault::from_name(f).ok_or_else(|| format!("unknown fault {f}"))?
            }
            ("StrikeAt", OptionValue::Int(n)) => {
                self.strike_at = u32::try_from(*n).map_err(|e| e.to_string())?
            }
            ("Target", OptionValue::String(t)) => self.target = t.clone(),
            _ => return Err(format!("option {name}: unexpected value {value:?}")),
        }
        Ok(())
    }

    fn new_game(&mut self) {
        self.searches = 0;
    }

    fn search(&mut self, request: &SearchRequest, ctx: &SearchContext) -> SearchOutcome {
        self.searches += 1;
        if self.searches != self.strike_at {
            let outcome =
                Faulty::answer(request, request.position.board.moves().count_ones() as u64);
            ctx.report(&outcome.info);
            return outcome;
        }
        match self.fault {
            Fault::None | Fault::DestroyHang => {}
            Fault::Segfault => segfault(),
            Fault::Abort => std::process::abort(),
            Fault::Panic => panic!("faulty: deliberate panic in search {}", self.searches),
            Fault::Exit => std::process::exit(0),
            Fault::Loop => loop {
                std::hint::spin_loop();
            },
            Fault::Sleep => std::thread::sleep(Faulty::oversleep(request)),
            Fault::Illegal => {
                let board = request.position.board;
                let occupied = Square::iter(board.player | board.opponent)
                    .next()
                    .expect("a position has discs");
                let mut outcome = Faulty::answer(request, 1);
                outcome.mv = Move::at(occupied);
                return outcome;
            }
            Fault::OutOfRange => OVERRIDE_MOVE.with(|m| m.set(Some(OUT_OF_RANGE_MOVE))),
            Fault::BadPass => {
                let mut outcome = Faulty::answer(request, 1);
                outcome.mv = Move::PASS;
                return outcome;
            }
            Fault::InfoFlood => return Faulty::flood(request, ctx),
            Fault::StdoutGarbage => Faulty::print_garbage(self.searches),
            Fault::Allocate => allocate_without_end(),
            Fault::SpinBetweenTurns => unfair::spin_between_turns(&self.target),
            Fault::SpinOnTurn => unfair::spin_on_turn(&self.target),
            hostile_fault => {
                if let Some(nodes) = hostile::strike(hostile_fault, &self.target) {
                    return Faulty::answer(request, nodes);
                }
            }
        }
        Faulty::answer(request, 1)
    }
}

/// Allocate 16 MiB blocks, write to every page of each (so they are really used, not only
/// reserved), and keep them all, until an allocation fails.
fn allocate_without_end() -> ! {
    const BLOCK: usize = 16 << 20;
    let mut kept: Vec<Vec<u8>> = Vec::new();
    loop {
        let mut block = vec![0u8; BLOCK];
        for page in block.chunks_mut(4096) {
            page[0] = 1;
        }
        kept.push(block);
        std::hint::black_box(&kept);
    }
}

impl Drop for Faulty {
    fn drop(&mut self) {
        if self.fault == Fault::DestroyHang {
            eprintln!("faulty: destroy reached; it never returns");
            loop {
                std::thread::sleep(Duration::from_secs(3600));
            }
        }
    }
}

/// The deliberate system calls of the hostile faults that have no safe wrapper.
#[cfg(target_os = "linux")]
mod deliberate {
    #![allow(unsafe_code)]

    /// `reboot` with a wrong magic number: "Invalid argument" where the caller may reboot,
    /// "Operation not permitted" where it may not. It never reboots.
    pub fn reboot_with_a_wrong_magic() -> String {
        // SAFETY: a plain system call with integer arguments; the magic numbers are wrong, so
        // the kernel checks the permission and returns an error without doing anything.
        let r = unsafe { libc::syscall(libc::SYS_reboot, 0, 0, 0, 0) };
        if r == 0 {
            "accepted".to_string()
        } else {
            std::io::Error::last_os_error().to_string()
        }
    }

    /// `write(2)` to the raw descriptor `fd`, which this process may or may not have open.
    pub fn write_to_descriptor(fd: i32, bytes: &[u8]) -> std::io::Result<()> {
        // SAFETY: `bytes` is a valid buffer of its length; a descriptor that is not open makes
        // the call fail with EBADF, and no Rust object owns the descriptor written to (the
        // fault writes to a number given from outside, on purpose).
        let r = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if r < 0 {
            Err(std::io::Error::last_os_error())
        } else {
            Ok(())
        }
    }

    /// The error of a call that returned -1, or `Ok` of what it returned.
    fn checked(r: libc::c_long) -> std::io::Result<libc::c_long> {
        if r == -1 {
            Err(std::io::Error::last_os_error())
        } else {
            Ok(r)
        }
    }

    /// The end of a raw `clone` or `clone3` that returned `r`: the child (0) exits at once,
    /// the parent reaps it.
    fn reap(r: libc::c_long) -> std::io::Result<()> {
        if checked(r)? == 0 {
            // SAFETY: the child of a raw clone, on a copy of its parent's stack as after
            // `fork`: it calls nothing but `_exit`, which is async-signal-safe.
            unsafe { libc::_exit(0) };
        }
        // SAFETY: `r` is this process's own child; no status is asked for.
        unsafe { libc::waitpid(r as libc::pid_t, std::ptr::null_mut(), 0) };
        Ok(())
    }

    /// A child made by `clone` with `flags` (and `SIGCHLD`), as `fork` makes one; it exits at
    /// once.
    pub fn clone_a_child(flags: u64) -> std::io::Result<()> {
        let flags = flags | libc::SIGCHLD as u64;
        // SAFETY: no stack given (0): the child runs on a copy of this thread's stack and
        // `reap` ends it at once; the other arguments are unused without their flags.
        reap(unsafe { libc::syscall(libc::SYS_clone, flags, 0, 0, 0, 0) })
    }

    /// A child made by the raw `clone3` call (the 64-byte `clone_args` of its first version,
    /// every field 0 but the exit signal); it exits at once.
    pub fn clone3_a_child() -> std::io::Result<()> {
        let mut args = [0u64; 8];
        args[4] = libc::SIGCHLD as u64;
        // SAFETY: `args` is a valid `clone_args` of the size given, with no stack: the child
        // runs on a copy of this thread's stack and `reap` ends it at once.
        reap(unsafe { libc::syscall(libc::SYS_clone3, args.as_ptr(), 64usize) })
    }

    /// Attach the System V shared memory segment `id` anywhere, then detach it.
    pub fn attach_shared_memory(id: i32) -> std::io::Result<()> {
        // SAFETY: the kernel chooses the address (null asked for); nothing of ours is there.
        let at = unsafe { libc::shmat(id, std::ptr::null(), 0) };
        if at as isize == -1 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: `at` is the address the segment was just attached at, and nothing holds a
        // reference into it.
        checked(unsafe { libc::shmdt(at) }.into()).map(drop)
    }

    /// Remove the System V shared memory segment `id`.
    pub fn remove_shared_memory(id: i32) -> std::io::Result<()> {
        // SAFETY: `IPC_RMID` reads no buffer (null).
        let r = unsafe { libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut()) };
        checked(r.into()).map(drop)
    }

    /// Make the POSIX message queue `name` (read and write for its owner), and close it.
    pub fn make_message_queue(name: &str) -> std::io::Result<()> {
        let name = std::ffi::CString::new(name)?;
        let flags = libc::O_CREAT | libc::O_RDWR;
        // SAFETY: `name` is a valid C string; the mode and a null attributes pointer are the
        // two arguments `O_CREAT` asks for.
        let queue = unsafe {
            libc::mq_open(
                name.as_ptr(),
                flags,
                0o600 as libc::c_uint,
                std::ptr::null::<libc::mq_attr>(),
            )
        };
        checked(queue.into())?;
        // SAFETY: `queue` is the descriptor just opened, owned by nothing else.
        unsafe { libc::mq_close(queue) };
        Ok(())
    }

    /// A new private System V shared memory segment of `bytes`; its id.
    pub fn make_shared_memory(bytes: usize) -> std::io::Result<i32> {
        // SAFETY: `shmget` takes integers only and maps nothing into this process.
        let id = unsafe { libc::shmget(libc::IPC_PRIVATE, bytes, libc::IPC_CREAT | 0o600) };
        if id < 0 {
            Err(std::io::Error::last_os_error())
        } else {
            Ok(id)
        }
    }
}

#[cfg(target_os = "linux")]
use deliberate::{
    attach_shared_memory, clone3_a_child, clone_a_child, make_message_queue, make_shared_memory,
    reboot_with_a_wrong_magic, remove_shared_memory, write_to_descriptor,
};

/// Die of SIGSEGV.
#[allow(unsafe_code)]
fn segfault() -> ! {
    // An address in the never-mapped null page; not null itself, so that the standard library's
    // debug precondition check (which would abort instead) does not fire, and hidden behind
    // black_box so that the compiler cannot reason about the store.
    let p = std::hint::black_box(16usize) as *mut u8;
    // SAFETY: none, on purpose. This is the deliberate fault of `Fault::Segfault` in a test
    // fixture: the volatile store to an unmapped address kills the process with SIGSEGV.
    unsafe { p.write_volatile(1) };
    // Not reached; if the page were somehow mapped, fail loudly anyway.
    std::process::abort()
}

/// The plugin entry point: the SDK's table with `search` wrapped (see [`entry`]).
mod entry {
    #![allow(unsafe_code)]

    use super::{Faulty, OVERRIDE_MOVE};
    use othello_sdk::abi;
    use othello_sdk::ApiTable;
    use std::sync::atomic::AtomicU32;
    use std::sync::OnceLock;

    static TABLE: OnceLock<ApiTable> = OnceLock::new();
    static WRAPPED: OnceLock<abi::EngineApi> = OnceLock::new();

    fn inner() -> &'static abi::EngineApi {
        let table = TABLE.get_or_init(ApiTable::new::<Faulty>);
        // SAFETY: `api` points into the static table, valid for the life of the process.
        unsafe { &*table.api() }
    }

    /// The SDK's `search`, then the move value of `out-of-range` written over the answer.
    unsafe extern "C" fn search(
        engine: *mut abi::Engine,
        position: *const abi::Position,
        limits: *const abi::Limits,
        stop: *const AtomicU32,
        result: *mut abi::SearchResult,
    ) -> abi::Status {
        OVERRIDE_MOVE.with(|m| m.set(None));
        let Some(f) = inner().search else {
            return abi::ERROR;
        };
        // SAFETY: the host's arguments are passed on unchanged to the SDK's entry, which
        // requires exactly what the host guarantees for this one.
        let status = unsafe { f(engine, position, limits, stop, result) };
        // SAFETY: `result` is the host's result struct of this call.
        unsafe { override_move(status, result) }
    }

    /// Put the move chosen by `out-of-range` into the SDK's answer.
    ///
    /// # Safety
    /// `result` is null or the host's live result struct of the current call.
    unsafe fn override_move(status: abi::Status, result: *mut abi::SearchResult) -> abi::Status {
        if let Some(mv) = OVERRIDE_MOVE.with(|m| m.take()) {
            if status == abi::OK && !result.is_null() {
                // SAFETY: non-null (checked), the host's live result struct for this call; the
                // SDK has just filled it.
                unsafe { (*result).mv = mv };
            }
        }
        status
    }

    /// The same wrapper around the SDK's ABI 1.1 `search_game`.
    unsafe extern "C" fn search_game(
        engine: *mut abi::Engine,
        game: *const abi::Game,
        limits: *const abi::Limits,
        stop: *const AtomicU32,
        result: *mut abi::SearchResult,
    ) -> abi::Status {
        OVERRIDE_MOVE.with(|m| m.set(None));
        let Some(f) = inner().search_game else {
            return abi::ERROR;
        };
        // SAFETY: as in `search`: the host's arguments go to the SDK's entry unchanged.
        let status = unsafe { f(engine, game, limits, stop, result) };
        // SAFETY: `result` is the host's result struct of this call.
        unsafe { override_move(status, result) }
    }

    /// The plugin entry point of ABI major version 1.
    #[no_mangle]
    pub extern "C" fn othello_engine_v1() -> *const abi::EngineApi {
        let built = std::panic::catch_unwind(|| {
            let api = inner();
            WRAPPED.get_or_init(|| abi::EngineApi {
                struct_size: api.struct_size,
                abi_major: api.abi_major,
                abi_minor: api.abi_minor,
                name: api.name,
                version: api.version,
                author: api.author,
                option_count: api.option_count,
                options: api.options,
                create: api.create,
                destroy: api.destroy,
                set_option: api.set_option,
                new_game: api.new_game,
                search: Some(search),
                last_error: api.last_error,
                search_game: Some(search_game),
            }) as *const abi::EngineApi
        });
        built.unwrap_or(std::ptr::null())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello_sdk::board::Position;
    use othello_sdk::Limits;
    use std::sync::atomic::AtomicU32;

    fn run(engine: &mut Faulty, position: Position) -> SearchOutcome {
        let stop = AtomicU32::new(0);
        let ctx = SearchContext::detached(&stop);
        let request = SearchRequest {
            position,
            limits: Limits::default(),
            game: None,
        };
        engine.search(&request, &ctx)
    }

    #[test]
    fn fault_names_round_trip() {
        for f in Fault::ALL {
            assert_eq!(Fault::from_name(f.name()), Some(f));
        }
        assert_eq!(Fault::from_name("Out-Of-Range"), Some(Fault::OutOfRange));
        assert_eq!(Fault::from_name("nope"), None);
    }

    #[test]
    fn strikes_in_the_chosen_search_of_each_game() {
        let mut e = Faulty::new();
        e.set_option("Fault", &OptionValue::Enum("bad-pass"))
            .unwrap();
        e.set_option("StrikeAt", &OptionValue::Int(2)).unwrap();
        for _ in 0..2 {
            e.new_game();
            let first = run(&mut e, Position::START);
            assert_eq!(first.mv, "d3".parse().unwrap());
            assert_eq!(run(&mut e, Position::START).mv, Move::PASS);
            assert_ne!(run(&mut e, Position::START).mv, Move::PASS);
        }
    }

    /// In positions away from the start (where `d4` would do), Black and White to move in
    /// turn, the striking search answers the lowest occupied square: never a legal move, never
    /// a pass.
    #[test]
    fn illegal_answers_an_occupied_square() {
        let mut e = Faulty::new();
        e.set_option("Fault", &OptionValue::Enum("illegal"))
            .unwrap();
        e.set_option("StrikeAt", &OptionValue::Int(1)).unwrap();
        let mut pos = Position::START;
        for mv in ["f5", "f6", "e6", "f4", "e3", "c5"] {
            pos = pos.play(mv.parse().unwrap()).unwrap();
            e.new_game();
            let out = run(&mut e, pos);
            let square = out.mv.square().expect("a square, not a pass");
            assert!(
                pos.color_at(square).is_some(),
                "{} is empty in {pos}",
                out.mv
            );
            assert!(!pos.is_legal(out.mv), "{} is legal in {pos}", out.mv);
            let lowest = (pos.black() | pos.white()).trailing_zeros();
            assert_eq!(square.index(), lowest, "{pos}");
        }
    }
}
