//! A worker's channel on Windows: the anonymous pipes of its standard input (requests) and
//! standard output (replies), which the coordinator made when it started the worker (no named
//! object another process could open first). Windows hands a new process only the handles
//! marked inheritable (its standard streams), so there is nothing else to close.

use crate::host::worker_description::CHANNEL_ON_STANDARD_INPUT;
use std::io::{Read, Write};
use std::os::windows::io::AsHandle;

/// Nothing to close: a Windows process inherits only the handles its parent marked
/// inheritable, which the coordinator does for the worker's standard streams alone.
pub fn close_inherited() -> Result<(), String> {
    Ok(())
}

/// The worker's two pipes to the coordinator, read and written as one stream.
pub struct StdioChannel {
    requests: std::fs::File,
    replies: std::fs::File,
}

impl StdioChannel {
    /// A second handle on both pipes (the reader's, beside the writer's).
    pub fn try_clone(&self) -> std::io::Result<StdioChannel> {
        Ok(StdioChannel {
            requests: self.requests.try_clone()?,
            replies: self.replies.try_clone()?,
        })
    }
}

impl Read for StdioChannel {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.requests.read(buf)
    }
}

impl Write for StdioChannel {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.replies.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.replies.flush()
    }
}

/// The channel to the coordinator: standard input and output (`channel` must name standard
/// input, as on Unix), held by handles of its own; from then on the process's standard output
/// is its standard error, which a plugin's prints reach.
pub fn take_channel(channel: i32) -> Result<StdioChannel, String> {
    if channel != CHANNEL_ON_STANDARD_INPUT {
        return Err(format!(
            "the channel must be on standard input here, not on descriptor {channel}"
        ));
    }
    let handle = |h: std::os::windows::io::BorrowedHandle<'_>, what: &str| {
        h.try_clone_to_owned()
            .map(std::fs::File::from)
            .map_err(|e| format!("cannot take the channel from standard {what}: {e}"))
    };
    let channel = StdioChannel {
        requests: handle(std::io::stdin().as_handle(), "input")?,
        replies: handle(std::io::stdout().as_handle(), "output")?,
    };
    crate::host::system::standard_output_to_standard_error().map_err(|e| {
        format!("cannot move standard output off the channel to standard error: {e}")
    })?;
    Ok(channel)
}
