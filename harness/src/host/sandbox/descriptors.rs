//! A worker's file descriptors: its channel to the coordinator, and nothing it inherited.
//!
//! The coordinator hands each worker one end of a socket pair as its standard input
//! ([`take_channel`]): there is no socket path for anyone to connect to, and the coordinator
//! knows that the other end is held by this worker alone. The worker moves the channel to a
//! descriptor that programs it starts do not inherit (close-on-exec) and puts `/dev/null` in
//! its place. Any other descriptor the coordinator itself inherited (a `5>>file` in the shell
//! that started it) is closed before anything else runs ([`close_inherited`]).

use std::os::fd::OwnedFd;

/// Close every descriptor above the standard streams. Called first thing in the worker, when
/// the only descriptors open above 2 are those inherited through `exec`.
pub fn close_inherited() -> Result<(), String> {
    // SAFETY: `close_range` closes descriptors 3 and up. The worker calls it before it has
    // opened anything of its own (the first statement of `worker::run`, before any thread,
    // file or socket exists), so no `OwnedFd`, `File` or other Rust owner refers to any of
    // them: they are only what `exec` left open, and closing them invalidates nothing.
    let closed = unsafe { libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32) };
    if closed == 0 {
        Ok(())
    } else {
        Err(format!(
            "cannot close the inherited descriptors: {}",
            std::io::Error::last_os_error()
        ))
    }
}

/// The channel to the coordinator, which is this process's standard input: moved to a
/// close-on-exec descriptor, with `/dev/null` as the new standard input.
pub fn take_channel() -> Result<std::os::unix::net::UnixStream, String> {
    let stdin = rustix::stdio::stdin();
    let is_socket = rustix::fs::fstat(stdin)
        .map(|s| rustix::fs::FileType::from_raw_mode(s.st_mode) == rustix::fs::FileType::Socket)
        .unwrap_or(false);
    if !is_socket {
        return Err(
            "the worker's standard input is not its channel to the coordinator (a socket): `harness worker` is started by the harness only".to_string(),
        );
    }
    let channel: OwnedFd = rustix::io::fcntl_dupfd_cloexec(stdin, 3)
        .map_err(|e| format!("cannot take the channel from standard input: {e}"))?;
    let null = std::fs::File::open("/dev/null").map_err(|e| format!("/dev/null: {e}"))?;
    rustix::stdio::dup2_stdin(&null).map_err(|e| format!("cannot replace standard input: {e}"))?;
    Ok(std::os::unix::net::UnixStream::from(channel))
}
