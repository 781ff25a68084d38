//! A worker's file descriptors: its channel to the coordinator, and nothing it inherited.
//!
//! The coordinator hands each worker one end of a socket pair as its standard input
//! ([`take_channel`]): there is no socket path for anyone to connect to, and the coordinator
//! knows that the other end is held by this worker alone. The worker moves the channel to a
//! descriptor that programs it starts do not inherit (close-on-exec) and puts `/dev/null` in
//! its place. Any other descriptor the coordinator itself inherited (a `5>>file` in the shell
//! that started it) is closed before anything else runs ([`close_inherited`]).

use crate::host::worker_description::CHANNEL_ON_STANDARD_INPUT;
use std::os::fd::OwnedFd;

/// Close every descriptor above the standard streams. Called first thing in the worker, when
/// the only descriptors open above 2 are those inherited through `exec`. With `close_range`
/// (Linux 5.9 and later) in one call; on an older kernel or another system, each descriptor
/// `/proc/self/fd` lists, else each below the soft `RLIMIT_NOFILE`.
pub fn close_inherited() -> Result<(), String> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `close_range` closes descriptors 3 and up. The worker calls it before it
        // has opened anything of its own (the first statement of `worker::run`, before any
        // thread, file or socket exists), so no `OwnedFd`, `File` or other Rust owner refers
        // to any of them: they are only what `exec` left open, and closing them invalidates
        // nothing.
        let closed = unsafe { libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32) };
        if closed == 0 {
            return Ok(());
        }
        let error = std::io::Error::last_os_error();
        if error.raw_os_error() != Some(libc::ENOSYS) {
            return Err(format!("cannot close the inherited descriptors: {error}"));
        }
    }
    let open = match listed_descriptors() {
        Some(listed) => listed,
        None => {
            let soft = rustix::process::getrlimit(rustix::process::Resource::Nofile)
                .current
                .unwrap_or(1024)
                .min(1 << 20);
            (3..soft as i32).collect()
        }
    };
    for fd in open {
        // SAFETY: as for `close_range` above: every descriptor above 2 is one `exec` left
        // open, owned by nothing in this process; the directory `listed_descriptors` read
        // is closed before this loop, so closing its number (now free) only fails with EBADF.
        unsafe { libc::close(fd) };
    }
    Ok(())
}

/// The descriptors above the standard streams that `/proc/self/fd` lists (that of the
/// listing itself included, closed by the time this returns); `None` without `/proc`.
fn listed_descriptors() -> Option<Vec<i32>> {
    let listed: Vec<i32> = std::fs::read_dir("/proc/self/fd")
        .ok()?
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .filter(|fd| *fd > 2)
        .collect();
    Some(listed)
}

/// The channel to the coordinator, on descriptor `channel`, which here must be this process's
/// standard input: moved to a close-on-exec descriptor, with `/dev/null` as the new standard
/// input.
pub fn take_channel(channel: i32) -> Result<std::os::unix::net::UnixStream, String> {
    if channel != CHANNEL_ON_STANDARD_INPUT {
        return Err(format!(
            "the channel must be on standard input here, not on descriptor {channel}"
        ));
    }
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

#[cfg(test)]
mod tests {
    /// The listing an old kernel's worker closes by holds a file this process opened, and not
    /// the standard streams.
    #[test]
    fn the_fallback_lists_what_is_open_above_the_standard_streams() {
        use std::os::fd::AsRawFd;
        let file = std::fs::File::open("/proc/self/status").unwrap();
        let listed = super::listed_descriptors().expect("/proc is mounted here");
        assert!(listed.contains(&file.as_raw_fd()), "{listed:?}");
        assert!(listed.iter().all(|fd| *fd > 2), "{listed:?}");
    }
}
