//! The seccomp filter of a worker: the system calls an engine never needs and a hostile one
//! would use to reach outside its sandbox fail with `EPERM`: tracing and reading other
//! processes' memory, mounts, BPF, performance counters, the kernel keyring, kexec, io_uring
//! (whose requests bypass this filter), and sockets of any family but `AF_UNIX`. Everything
//! else is allowed. Installed with `no_new_privs` (which Landlock also sets), inherited by
//! every thread and program the worker starts afterwards.

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
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_open_tree,
    libc::SYS_move_mount,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
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
];

/// The filter as a BPF program for this machine's architecture.
fn program() -> Result<BpfProgram, seccompiler::Error> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> =
        DENIED.iter().map(|&call| (call, Vec::new())).collect();
    let family_not_unix = || -> Result<SeccompRule, seccompiler::Error> {
        let condition = SeccompCondition::new(
            0,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Ne,
            libc::AF_UNIX as u64,
        )?;
        Ok(SeccompRule::new(vec![condition])?)
    };
    rules.insert(libc::SYS_socket, vec![family_not_unix()?]);
    rules.insert(libc::SYS_socketpair, vec![family_not_unix()?]);
    let arch = std::env::consts::ARCH.try_into().map_err(|_| {
        seccompiler::Error::Backend(seccompiler::BackendError::InvalidTargetArch(
            std::env::consts::ARCH.to_string(),
        ))
    })?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )?;
    filter.try_into().map_err(seccompiler::Error::Backend)
}

/// Install the filter on the calling thread (with `no_new_privs`).
pub fn install() -> Result<(), String> {
    rustix::thread::set_no_new_privs(true)
        .map_err(|e| format!("seccomp: cannot set no_new_privs: {e}"))?;
    let program = program().map_err(|e| format!("seccomp: {e}"))?;
    seccompiler::apply_filter(&program).map_err(|e| format!("seccomp: {e}"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_filter_compiles_for_this_machine() {
        let program = super::program().expect("a filter");
        assert!(program.len() > super::DENIED.len());
    }
}
