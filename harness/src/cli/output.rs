//! Standard output of every command, when its reader may leave: `harness merge … | head -1`.
//!
//! A closed pipe is not an error of the command. Printing stops and the command goes on: a
//! run keeps playing, a merge still writes its journal and reports, and the exit code is the
//! command's own. (Rust ignores SIGPIPE, so a plain `println!` would panic on the first write
//! after the reader left.)

use std::sync::atomic::{AtomicBool, Ordering};

/// Whether standard output went away.
static STDOUT_GONE: AtomicBool = AtomicBool::new(false);

/// Write to standard output unless it went away; a failed write marks it gone.
pub fn write_stdout(text: std::fmt::Arguments, newline: bool) {
    use std::io::Write;
    if STDOUT_GONE.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    let written = out
        .write_fmt(text)
        .and_then(|()| {
            if newline {
                out.write_all(b"\n")
            } else {
                Ok(())
            }
        })
        .and_then(|()| out.flush());
    if written.is_err() {
        STDOUT_GONE.store(true, Ordering::Relaxed);
    }
}

/// `println!` that survives a closed pipe.
macro_rules! say {
    ($($arg:tt)*) => { $crate::cli::output::write_stdout(format_args!($($arg)*), true) };
}

/// `print!` that survives a closed pipe.
macro_rules! say_raw {
    ($($arg:tt)*) => { $crate::cli::output::write_stdout(format_args!($($arg)*), false) };
}

pub(crate) use {say, say_raw};

/// Standard output as a writer for the stages that print through one (`harness solve`): each
/// write goes out at once (a long run shows its progress line by line) unless standard output
/// went away, which is not an error.
pub struct Stdout;

impl std::io::Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        write_stdout(format_args!("{}", String::from_utf8_lossy(buf)), false);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
