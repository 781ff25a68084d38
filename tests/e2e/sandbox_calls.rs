//! The system calls the sandbox's filter refuses a plugin beyond files, sockets and other
//! processes, against `faulty`'s hostile faults as in `sandbox_contained`: new namespaces,
//! `clone3` (answered "not implemented", so that threads and processes still start through
//! `clone`), another program's System V shared memory, POSIX message queues. Each runs under
//! the default sandbox, where the harm must not happen and every game is played, and with
//! `sandbox = "off"`, where it must show, as the test's own user and, where that is root, as
//! `nobody`.

use crate::support::user::{users, User};
use crate::support::{message_queue_exists, not_possible_here, remove_message_queue};
use std::process::Command;

/// The namespaces `faulty`'s `namespaces` fault asks `clone` for, by the names it reports.
const NAMESPACES: [&str; 7] = [
    "CLONE_NEWNS",
    "CLONE_NEWCGROUP",
    "CLONE_NEWUTS",
    "CLONE_NEWIPC",
    "CLONE_NEWUSER",
    "CLONE_NEWPID",
    "CLONE_NEWNET",
];

/// Whether `user` may make a user namespace where no sandbox stands in the way (`unshare -U`):
/// the kernel may refuse it to an ordinary user (`kernel.unprivileged_userns_clone = 0`,
/// `user.max_user_namespaces = 0`).
fn may_make_a_user_namespace(user: User) -> bool {
    let mut command = Command::new("unshare");
    command.args(["-U", "true"]);
    user.wrap(&mut command);
    command.status().is_ok_and(|s| s.success())
}

/// No plugin makes a new namespace: `clone` with each namespace flag is refused, the user
/// namespace too (which an ordinary user may make, and be root in). With the sandbox off, root
/// makes every one, and an ordinary user a user namespace where the kernel lets it.
#[test]
fn no_plugin_makes_a_namespace() {
    for user in users() {
        let dir = user.dir("calls-namespaces");
        let run = user.hostile(&dir, ("namespaces", "", "strict"), |_| {});
        run.assert_every_game_played();
        for name in NAMESPACES {
            run.assert_log_says("namespaces", &[name, "refused", "not permitted"]);
        }

        let made: &[&str] = match user {
            User::Invoker if crate::support::is_root() => &NAMESPACES,
            _ if may_make_a_user_namespace(user) => &["CLONE_NEWUSER"],
            _ => {
                not_possible_here(
                    "no_plugin_makes_a_namespace, the sandbox off",
                    &format!("the kernel makes no namespace for {user:?}"),
                );
                continue;
            }
        };
        let dir = user.dir("calls-namespaces-off");
        let run = user.hostile(&dir, ("namespaces", "", "off"), |_| {});
        for name in made {
            run.assert_log_says("namespaces", &[name, "made one"]);
        }
    }
}

/// `clone3`, whose flags (in memory) the filter cannot read, is answered "not implemented",
/// and the standard library still starts a thread and a process (the C library falls back to
/// `clone`). With the sandbox off, `clone3` makes its child.
#[test]
fn clone3_is_not_implemented_and_threads_and_processes_still_start() {
    for user in users() {
        let dir = user.dir("calls-clone3");
        user.hostile(&dir, ("clone3", "", "strict"), |_| {})
            .assert_every_game_played()
            .assert_log_says("clone3", &["refused", "Function not implemented"])
            .assert_log_says("clone3", &["a thread started"])
            .assert_log_says("clone3", &["a process started"]);

        let dir = user.dir("calls-clone3-off");
        user.hostile(&dir, ("clone3", "", "off"), |_| {})
            .assert_log_says("clone3", &["made a process"]);
    }
}

/// A new System V shared memory segment of `user` (made with `ipcmk` as that user, so that a
/// plugin run as `user` would own it): its id.
fn shared_memory_of(user: User) -> i32 {
    let mut command = Command::new("ipcmk");
    command.args(["-M", "4096"]);
    user.wrap(&mut command);
    let out = command.output().expect("ipcmk runs");
    let text = String::from_utf8_lossy(&out.stdout);
    text.trim()
        .strip_prefix("Shared memory id: ")
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("ipcmk said: {text}{}", String::from_utf8_lossy(&out.stderr)))
}

/// Whether the System V shared memory segment `id` exists (`/proc/sysvipc/shm`).
fn segment_exists(id: i32) -> bool {
    let table = std::fs::read_to_string("/proc/sysvipc/shm").unwrap();
    let id = id.to_string();
    table
        .lines()
        .skip(1)
        .any(|l| l.split_whitespace().nth(1) == Some(id.as_str()))
}

/// Remove the System V shared memory segment `id`, where it exists.
fn remove_segment(id: i32) {
    if segment_exists(id) {
        let _ = Command::new("ipcrm").args(["-m", &id.to_string()]).status();
    }
}

/// Another program's System V shared memory segment, of the same user, can be neither
/// attached nor removed from the sandbox. With the sandbox off, the plugin attaches and removes
/// it.
#[test]
fn no_plugin_reaches_another_programs_shared_memory() {
    for user in users() {
        let id = shared_memory_of(user);
        let dir = user.dir("calls-sysv-attach");
        let run = user.hostile(&dir, ("sysv-attach", &id.to_string(), "strict"), |_| {});
        let present = segment_exists(id);
        remove_segment(id);
        run.assert_every_game_played()
            .assert_log_says("sysv-attach", &["cannot attach", "not permitted"])
            .assert_log_says("sysv-attach", &["cannot remove", "not permitted"]);
        assert!(present, "{user:?}: segment {id} is gone:\n{}", run.log);

        let id = shared_memory_of(user);
        let dir = user.dir("calls-sysv-attach-off");
        let run = user.hostile(&dir, ("sysv-attach", &id.to_string(), "off"), |_| {});
        let present = segment_exists(id);
        remove_segment(id);
        run.assert_log_says("sysv-attach", &["attached segment"])
            .assert_log_says("sysv-attach", &["removed segment"]);
        assert!(!present, "{user:?}: segment {id} is still there");
    }
}

/// No POSIX message queue, which outlives every process, is made from the sandbox. With the
/// sandbox off, the queue is made (then removed by the test).
#[test]
fn no_message_queue_outlives_the_run() {
    for user in users() {
        for mode in ["strict", "off"] {
            let name = format!("/harness-test-{}-{user:?}-{mode}", std::process::id());
            remove_message_queue(&name);
            let dir = user.dir(&format!("calls-mq-open-{mode}"));
            let run = user.hostile(&dir, ("mq-open", &name, mode), |_| {});
            let made = message_queue_exists(&name);
            remove_message_queue(&name);
            if mode == "strict" {
                run.assert_every_game_played()
                    .assert_log_says("mq-open", &["cannot make queue", "not permitted"]);
                assert!(!made, "{user:?}: the queue {name} was made:\n{}", run.log);
            } else {
                run.assert_log_says("mq-open", &["made queue"]);
                assert!(made, "{user:?}: no queue {name} without the sandbox");
            }
        }
    }
}
