//! The seccomp filter of a worker: the system calls an engine never needs and a hostile one
//! would use to reach outside its sandbox fail with `EPERM`. Everything else is allowed.
//! Installed with `no_new_privs` (which Landlock also sets), inherited by every thread and
//! program the worker starts afterwards.
//!
//! Denied outright ([`DENIED`]): tracing and other processes' memory; mounts, namespaces,
//! modules, swap, quotas; BPF, performance counters, the kernel keyring, kexec, io_uring (whose
//! requests bypass this filter); the clock, the hostname, the kernel log, process accounting,
//! `reboot`; every System V IPC call (shared memory, semaphores, message queues: they outlive
//! the run, and one made by another process of the same user could be read or removed) and
//! every POSIX message queue call (a queue, too, outlives the run); a new session or process
//! group (it would leave the worker's process group, which is all that holds the engine's
//! processes where no cgroup can be made); `pidfd_open`, `pidfd_getfd`, `kcmp` and
//! `process_madvise`, which reach other processes; and `socket` itself, of every family: the
//! worker's channel is inherited, so nothing it runs needs a new socket, and without one there
//! is nothing to `connect` or `bind` (`socketpair(AF_UNIX)` stays allowed: it reaches nothing
//! but the pair, and a harness run by `external` gives its own workers their channels with it).
//!
//! Denied unless they act on the caller itself ([`on_others`]: a pid or `who` argument of 0,
//! and `which` naming a process, not a group or a user): resource limits (`prlimit64`),
//! priorities, scheduling and CPU affinity, I/O priorities, page migration. A hostile plugin
//! would use them on its opponent's worker or on the coordinator. Real-time scheduling is
//! denied to the caller too, as is making a device node (`mknod` of a character or block
//! device; Landlock's rights cover the scratch folder, this covers every path).
//!
//! New processes and threads ([`new_namespaces`], [`clone3_program`]): `clone` is denied when
//! its flags ask for a new namespace (an ordinary user may make a user namespace, and be root
//! in it), and allowed otherwise (threads, `fork`). `clone3` takes its flags in memory, which
//! a filter cannot read: it is answered `ENOSYS`, as by a kernel that lacks it, and the C
//! library then makes the thread or process with `clone` (with `EPERM` it would fail instead).

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};
use std::collections::BTreeMap;

/// The system calls denied outright.
const DENIED: &[libc::c_long] = &[
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_process_madvise,
    libc::SYS_kcmp,
    libc::SYS_pidfd_open,
    libc::SYS_pidfd_getfd,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_open_tree,
    libc::SYS_move_mount,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_setns,
    libc::SYS_unshare,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_quotactl,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_settimeofday,
    libc::SYS_clock_settime,
    libc::SYS_clock_adjtime,
    libc::SYS_adjtimex,
    libc::SYS_sethostname,
    libc::SYS_setdomainname,
    libc::SYS_syslog,
    libc::SYS_acct,
    libc::SYS_reboot,
    libc::SYS_shmget,
    libc::SYS_shmat,
    libc::SYS_shmdt,
    libc::SYS_shmctl,
    libc::SYS_semget,
    libc::SYS_semop,
    libc::SYS_semtimedop,
    libc::SYS_semctl,
    libc::SYS_msgget,
    libc::SYS_msgsnd,
    libc::SYS_msgrcv,
    libc::SYS_msgctl,
    libc::SYS_mq_open,
    libc::SYS_mq_unlink,
    libc::SYS_mq_timedsend,
    libc::SYS_mq_timedreceive,
    libc::SYS_mq_notify,
    libc::SYS_mq_getsetattr,
    libc::SYS_setsid,
    libc::SYS_setpgid,
    libc::SYS_socket,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_iopl,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_ioperm,
];

/// The system calls allowed on the caller only: each with the index of its process argument
/// (0 is the caller).
const ON_SELF_ONLY: &[(libc::c_long, u8)] = &[
    (libc::SYS_prlimit64, 0),
    (libc::SYS_sched_setaffinity, 0),
    (libc::SYS_sched_setparam, 0),
    (libc::SYS_sched_setattr, 0),
    (libc::SYS_migrate_pages, 0),
    (libc::SYS_move_pages, 0),
];

/// The flags of `clone` that ask for a new namespace: mount, cgroup, UTS, IPC, user, pid,
/// network. (`CLONE_NEWTIME`, 0x80, is not among them: in `clone`'s flags that bit belongs to
/// the child's exit signal, and only `clone3` and `unshare` can ask for a time namespace.)
const NAMESPACE_FLAGS: [u64; 7] = [
    0x0002_0000,
    0x0200_0000,
    0x0400_0000,
    0x0800_0000,
    0x1000_0000,
    0x2000_0000,
    0x4000_0000,
];

/// `SCHED_FIFO`, `SCHED_RR`, `SCHED_DEADLINE`: the real-time policies.
const REAL_TIME: [u64; 3] = [1, 2, 6];
/// What `sched_setscheduler`'s policy argument holds besides the policy.
const SCHED_RESET_ON_FORK: u64 = 0x4000_0000;
/// The file type bits of a mode, and the device types among them.
const S_IFMT: u64 = 0o170_000;
const DEVICES: [u64; 2] = [0o020_000, 0o060_000];

fn condition(
    arg: u8,
    op: SeccompCmpOp,
    value: u64,
) -> Result<SeccompCondition, seccompiler::Error> {
    Ok(SeccompCondition::new(
        arg,
        SeccompCmpArgLen::Dword,
        op,
        value,
    )?)
}

/// A rule that matches (denies) when argument `arg` is not `value`.
fn unless(arg: u8, value: u64) -> Result<SeccompRule, seccompiler::Error> {
    Ok(SeccompRule::new(vec![condition(
        arg,
        SeccompCmpOp::Ne,
        value,
    )?])?)
}

/// The rules of the calls that act on other processes unless told 0 (see the module docs).
fn on_others() -> Result<Vec<(i64, Vec<SeccompRule>)>, seccompiler::Error> {
    let mut rules: Vec<(i64, Vec<SeccompRule>)> = ON_SELF_ONLY
        .iter()
        .map(|&(call, arg)| Ok((call, vec![unless(arg, 0)?])))
        .collect::<Result<_, seccompiler::Error>>()?;
    // setpriority(which, who, prio): PRIO_PROCESS (0) of the caller (0) only.
    rules.push((libc::SYS_setpriority, vec![unless(0, 0)?, unless(1, 0)?]));
    // ioprio_set(which, who, prio): IOPRIO_WHO_PROCESS (1) of the caller (0) only.
    rules.push((libc::SYS_ioprio_set, vec![unless(0, 1)?, unless(1, 0)?]));
    // sched_setscheduler(pid, policy, param): the caller only, and no real-time policy.
    let mut scheduler = vec![unless(0, 0)?];
    for policy in REAL_TIME {
        let op = SeccompCmpOp::MaskedEq(!SCHED_RESET_ON_FORK & 0xffff_ffff);
        scheduler.push(SeccompRule::new(vec![condition(1, op, policy)?])?);
    }
    rules.push((libc::SYS_sched_setscheduler, scheduler));
    // mknodat(dirfd, path, mode, dev) (and mknod(path, mode, dev)): no device node.
    let devices = |mode_arg: u8| -> Result<Vec<SeccompRule>, seccompiler::Error> {
        DEVICES
            .iter()
            .map(|&kind| {
                let op = SeccompCmpOp::MaskedEq(S_IFMT);
                Ok(SeccompRule::new(vec![condition(mode_arg, op, kind)?])?)
            })
            .collect()
    };
    rules.push((libc::SYS_mknodat, devices(2)?));
    #[cfg(target_arch = "x86_64")]
    rules.push((libc::SYS_mknod, devices(1)?));
    // socketpair(family, …): AF_UNIX only.
    rules.push((libc::SYS_socketpair, vec![unless(0, libc::AF_UNIX as u64)?]));
    Ok(rules)
}

/// The rules of `clone` (its flags are argument 0 on x86_64 and aarch64): one per namespace
/// flag, each matching (denying) when that bit is set.
fn new_namespaces() -> Result<(i64, Vec<SeccompRule>), seccompiler::Error> {
    let rules = NAMESPACE_FLAGS
        .iter()
        .map(|&flag| {
            let op = SeccompCmpOp::MaskedEq(flag);
            Ok(SeccompRule::new(vec![condition(0, op, flag)?])?)
        })
        .collect::<Result<_, seccompiler::Error>>()?;
    Ok((libc::SYS_clone, rules))
}

/// `rules` as a BPF program for this machine's architecture: the calls they match fail with
/// `errno`, every other call is allowed.
fn compile(
    rules: BTreeMap<i64, Vec<SeccompRule>>,
    errno: i32,
) -> Result<BpfProgram, seccompiler::Error> {
    let arch = std::env::consts::ARCH.try_into().map_err(|_| {
        seccompiler::Error::Backend(seccompiler::BackendError::InvalidTargetArch(
            std::env::consts::ARCH.to_string(),
        ))
    })?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno as u32),
        arch,
    )?;
    filter.try_into().map_err(seccompiler::Error::Backend)
}

/// The filter of the calls refused with `EPERM`.
fn program() -> Result<BpfProgram, seccompiler::Error> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> =
        DENIED.iter().map(|&call| (call, Vec::new())).collect();
    rules.extend(on_others()?);
    rules.extend([new_namespaces()?]);
    compile(rules, libc::EPERM)
}

/// The filter that answers `clone3` with `ENOSYS`: a second filter, since one filter has one
/// action for what it matches. The kernel runs both on every call and takes the stronger
/// answer; `clone3` is allowed by the first, so this one's `ENOSYS` is what its caller sees.
fn clone3_program() -> Result<BpfProgram, seccompiler::Error> {
    compile(
        BTreeMap::from([(libc::SYS_clone3, Vec::new())]),
        libc::ENOSYS,
    )
}

/// Whether this process runs under a seccomp filter (a harness started by `external` inside
/// a sandboxed worker), from `/proc/self/status`: its workers then stay in its process group,
/// since it may not make new ones.
pub fn inside_a_filter() -> bool {
    // A process's filter never goes away: read once.
    static INSIDE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *INSIDE.get_or_init(|| {
        std::fs::read_to_string("/proc/self/status").is_ok_and(|status| {
            status
                .lines()
                .any(|l| l.strip_prefix("Seccomp:").is_some_and(|m| m.trim() != "0"))
        })
    })
}

/// Install the filters on the calling thread (with `no_new_privs`).
pub fn install() -> Result<(), String> {
    rustix::thread::set_no_new_privs(true)
        .map_err(|e| format!("seccomp: cannot set no_new_privs: {e}"))?;
    for program in [program(), clone3_program()] {
        let program = program.map_err(|e| format!("seccomp: {e}"))?;
        seccompiler::apply_filter(&program).map_err(|e| format!("seccomp: {e}"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use rustix::io::Errno;
    use rustix::process::{Pid, Resource};
    use std::collections::BTreeMap;

    /// Tells this test binary, run again by
    /// [`every_denied_call_is_refused_with_eperm_where_the_kernel_would_answer_otherwise`], to
    /// make the denied calls and print what they return: `filtered` installs the filter first,
    /// `open` does not.
    const PROBE: &str = "HARNESS_SECCOMP_PROBE";

    /// The arguments a denied call is made with: -1 in every place, which each of them refuses
    /// (EINVAL, EFAULT, EBADF, ESRCH, ENOSYS) before it acts, root or not; the System V `…get`
    /// calls get flags 0 instead (without `IPC_CREAT` they create nothing), and `setsid`, which
    /// takes none, succeeds in the probe's own process.
    fn harmless_arguments(call: libc::c_long) -> [libc::c_long; 6] {
        match call {
            libc::SYS_shmget | libc::SYS_semget | libc::SYS_msgget => [-1, 0, 0, 0, 0, 0],
            _ => [-1; 6],
        }
    }

    /// Each denied call made once: its number and its errno (0 where it succeeded).
    fn make_the_denied_calls() -> BTreeMap<libc::c_long, i32> {
        super::DENIED
            .iter()
            .map(|&call| {
                let [a, b, c, d, e, f] = harmless_arguments(call);
                // SAFETY: every argument is invalid for the call it goes to (see
                // `harmless_arguments`), so the kernel reads and writes no memory of ours.
                let r = unsafe { libc::syscall(call, a, b, c, d, e, f) };
                let errno = if r == -1 {
                    std::io::Error::last_os_error().raw_os_error().unwrap()
                } else {
                    0
                };
                (call, errno)
            })
            .collect()
    }

    /// This test binary again, running only this test as a probe (`filtered` or `open`): each
    /// denied call's number and errno, from the `denied call NUMBER: ERRNO` lines it prints.
    fn probe(mode: &str) -> BTreeMap<libc::c_long, i32> {
        let module = module_path!().split_once("::").unwrap().1;
        let test = format!(
            "{module}::every_denied_call_is_refused_with_eperm_where_the_kernel_would_answer_otherwise"
        );
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([test.as_str(), "--exact", "--nocapture", "--test-threads=1"])
            .env(PROBE, mode)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "the {mode} probe failed:\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let calls: BTreeMap<libc::c_long, i32> = stdout
            .lines()
            .filter_map(|l| {
                let (call, errno) = l.strip_prefix("denied call ")?.split_once(": ")?;
                Some((call.parse().ok()?, errno.parse().ok()?))
            })
            .collect();
        assert_eq!(calls.len(), super::DENIED.len(), "{stdout}");
        calls
    }

    /// Whether this process is root with `CAP_SYS_ADMIN` and no filter of its own: the kernel
    /// then refuses none of the denied calls with EPERM itself.
    fn full_root() -> bool {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
                .map(str::trim)
        };
        const CAP_SYS_ADMIN: u32 = 21;
        rustix::process::geteuid().is_root()
            && field("Seccomp") == Some("0")
            && field("CapEff")
                .and_then(|caps| u64::from_str_radix(caps, 16).ok())
                .is_some_and(|caps| caps & 1 << CAP_SYS_ADMIN != 0)
    }

    /// Every call of [`super::DENIED`] (each in turn, so an entry added is tried too), made
    /// in a process under the filter, fails with EPERM. The same calls made in a process without
    /// it show the EPERM to be the filter's: run as root with `CAP_SYS_ADMIN` and no filter of
    /// its own, the kernel answers each of them otherwise; for another user, whom the kernel
    /// may refuse with EPERM itself, that part prints what it saw and asserts nothing.
    #[test]
    fn every_denied_call_is_refused_with_eperm_where_the_kernel_would_answer_otherwise() {
        if let Ok(mode) = std::env::var(PROBE) {
            if mode == "filtered" {
                super::install().expect("the filter installs");
            }
            for (call, errno) in make_the_denied_calls() {
                println!("\ndenied call {call}: {errno}");
            }
            return;
        }
        let filtered = probe("filtered");
        let through: Vec<_> = filtered
            .iter()
            .filter(|&(_, &errno)| errno != libc::EPERM)
            .collect();
        assert!(
            through.is_empty(),
            "denied calls not refused with EPERM (number, errno): {through:?}"
        );
        let open = probe("open");
        let kernels_eperm: Vec<_> = open
            .iter()
            .filter(|&(_, &errno)| errno == libc::EPERM)
            .collect();
        if full_root() {
            assert!(
                kernels_eperm.is_empty(),
                "without the filter these calls fail with EPERM too, so the test cannot tell \
                 the filter's refusal (number, errno): {kernels_eperm:?}"
            );
        } else {
            println!(
                "without the filter, for a user who may not make them, these calls fail with \
                 EPERM too (number, errno): {kernels_eperm:?}"
            );
        }
    }

    /// What a `clone` or `clone3` that returned `r` did: the errno where it failed, 0 where it
    /// made a child (which exits at once, and is reaped here).
    fn child(r: libc::c_long) -> i32 {
        match r {
            // SAFETY: the child of a raw clone, on a copy of this thread's stack as after
            // `fork`: it calls nothing but `_exit`, which is async-signal-safe.
            0 => unsafe { libc::_exit(0) },
            -1 => std::io::Error::last_os_error().raw_os_error().unwrap(),
            pid => {
                // SAFETY: `pid` is this thread's own child; no status is asked for.
                unsafe { libc::waitpid(pid as libc::pid_t, std::ptr::null_mut(), 0) };
                0
            }
        }
    }

    /// Under the filter, on a thread of its own: `clone` with each namespace flag is refused
    /// with EPERM, and `clone3` answered ENOSYS; a thread and a process still start (the C
    /// library falls back to `clone` on ENOSYS, and would not on EPERM). Without the filter,
    /// as root with `CAP_SYS_ADMIN` ([`full_root`]), the same `clone`s make their children.
    #[test]
    fn new_namespaces_are_refused_and_threads_and_processes_still_start() {
        let clone_with = |flags: u64| {
            let flags = flags | libc::SIGCHLD as u64;
            // SAFETY: no stack given (0): the child runs on a copy of this thread's stack and
            // [`child`] ends it at once; the other arguments are unused without their flags.
            child(unsafe { libc::syscall(libc::SYS_clone, flags, 0, 0, 0, 0) })
        };
        let outcome = std::thread::spawn(move || {
            super::install().expect("the filter installs");
            for flag in super::NAMESPACE_FLAGS {
                assert_eq!(clone_with(flag), libc::EPERM, "clone with {flag:#x}");
            }
            // struct clone_args of its first version (64 bytes): every field 0 but the exit
            // signal.
            let mut args = [0u64; 8];
            args[4] = libc::SIGCHLD as u64;
            // SAFETY: `args` is a valid clone_args of the size given, with no stack: a child,
            // if one is made, runs on a copy of this thread's stack and [`child`] ends it.
            let r = unsafe { libc::syscall(libc::SYS_clone3, args.as_ptr(), 64usize) };
            assert_eq!(child(r), libc::ENOSYS, "clone3");
            std::thread::spawn(|| ()).join().expect("a thread starts");
            let status = std::process::Command::new("true").status();
            assert!(status.expect("a process starts").success());
        })
        .join();
        assert!(outcome.is_ok(), "see the panic above");
        if full_root() {
            for flag in super::NAMESPACE_FLAGS {
                assert_eq!(
                    clone_with(flag),
                    0,
                    "clone with {flag:#x}, without the filter"
                );
            }
        }
    }

    /// What the filter does, on a thread of its own (a filter binds the thread that installs
    /// it, and what it starts): what acts on the caller goes through, what reaches further is
    /// refused with EPERM.
    #[test]
    fn the_filter_refuses_what_reaches_other_processes_and_allows_the_callers_own() {
        let dir = std::env::temp_dir().join(format!("seccomp-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let folder = dir.clone();
        let outcome = std::thread::spawn(move || {
            super::install().expect("the filter installs");
            let parent = Pid::from_raw(std::process::id() as i32).unwrap();
            let denied = |what: &str, r: Result<(), Errno>| {
                assert_eq!(r, Err(Errno::PERM), "{what} went through");
            };
            let tcp = std::net::TcpListener::bind("127.0.0.1:0").map(drop);
            assert_eq!(tcp.unwrap_err().raw_os_error(), Some(libc::EPERM));
            let unix = std::os::unix::net::UnixListener::bind(folder.join("s")).map(drop);
            assert_eq!(unix.unwrap_err().raw_os_error(), Some(libc::EPERM));
            std::os::unix::net::UnixStream::pair().expect("a socket pair is allowed");
            let own = rustix::process::getrlimit(Resource::Fsize);
            rustix::process::setrlimit(Resource::Fsize, own).expect("its own limit");
            let others = rustix::process::prlimit(Some(parent), Resource::Fsize, own).map(drop);
            denied("prlimit on another process", others);
            let nice = rustix::process::getpriority_process(None).unwrap();
            rustix::process::setpriority_process(None, nice).expect("its own priority");
            denied(
                "setpriority on another process",
                rustix::process::setpriority_process(Some(parent), nice),
            );
            let cpus = rustix::thread::sched_getaffinity(None).unwrap();
            rustix::thread::sched_setaffinity(None, &cpus).expect("its own affinity");
            denied(
                "sched_setaffinity on another process",
                rustix::thread::sched_setaffinity(Some(parent), &cpus),
            );
            let node = |kind, name: &str| {
                rustix::fs::mknodat(
                    rustix::fs::CWD,
                    folder.join(name),
                    kind,
                    rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
                    rustix::fs::makedev(1, 3),
                )
            };
            node(rustix::fs::FileType::Fifo, "fifo").expect("a FIFO is no device");
            denied(
                "a character device",
                node(rustix::fs::FileType::CharacterDevice, "char"),
            );
            denied("a new session", rustix::process::setsid().map(drop));
            let name = rustix::system::uname().nodename().to_bytes().to_vec();
            denied("sethostname", rustix::system::sethostname(&name));
        })
        .join();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(outcome.is_ok(), "see the panic above");
    }
}
