//! Dying with the parent: a process asks for a signal when its parent ends (the supervisor,
//! whose parent is the coordinator; the worker, whose parent is the supervisor or its
//! namespaces' init; that init, whose parent is the supervisor). What each does on the signal
//! is its own (kill its group, end everything it started).
//!
//! Linux sends the signal itself (`PR_SET_PDEATHSIG`). macOS has no such request, but its
//! kqueue tells a waiter when a process exits (`EVFILT_PROC` with `NOTE_EXIT`): a thread waits
//! there for the parent's exit and sends the signal to its own process. A plugin in the same
//! process could end that thread (it shares the process's memory), where on Linux the request
//! is the kernel's; the supervisor, outside the plugin's reach, keeps its own watch either way.

use rustix::process::Signal;

/// Receive `signal` when the parent ends, from now on. The caller checks afterwards that the
/// parent it meant is still its parent (it may have ended before the request).
#[cfg(target_os = "linux")]
pub fn signal_on_parent_death(signal: Signal) -> std::io::Result<()> {
    rustix::process::set_parent_process_death_signal(Some(signal))?;
    Ok(())
}

/// Receive `signal` when the parent ends, from now on. The caller checks afterwards that the
/// parent it meant is still its parent (it may have ended before the request).
#[cfg(target_os = "macos")]
pub fn signal_on_parent_death(signal: Signal) -> std::io::Result<()> {
    use rustix::event::kqueue::{kevent, kqueue, Event, EventFilter, EventFlags, ProcessEvents};
    let raise = move || {
        let _ = rustix::process::kill_process(rustix::process::getpid(), signal);
    };
    let Some(parent) = rustix::process::getppid() else {
        raise();
        return Ok(());
    };
    let exit_of_parent = move || {
        Event::new(
            EventFilter::Proc {
                pid: parent,
                flags: ProcessEvents::EXIT,
            },
            EventFlags::ADD | EventFlags::ONESHOT,
            std::ptr::null_mut(),
        )
    };
    let queue = kqueue()?;
    let mut none: [Event; 0] = [];
    // SAFETY: `kevent` requires the descriptors that the events name to stay open while the
    // queue lives; this event names a process, not a descriptor.
    match unsafe { kevent(&queue, &[exit_of_parent()], &mut none, None) } {
        Ok(_) => {}
        // The parent is already gone.
        Err(rustix::io::Errno::SRCH) => {
            raise();
            return Ok(());
        }
        Err(e) => return Err(e.into()),
    }
    std::thread::Builder::new()
        .name("parent-death".into())
        .spawn(move || {
            let mut seen = [exit_of_parent()];
            loop {
                // SAFETY: as above; the queue holds only the parent's exit.
                match unsafe { kevent(&queue, &[], &mut seen, None) } {
                    Ok(0) | Err(rustix::io::Errno::INTR) => {}
                    Ok(_) => break raise(),
                    Err(_) => break,
                }
            }
        })?;
    Ok(())
}

/// No way to be told of the parent's end on this system: refused, with the reason.
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
pub fn signal_on_parent_death(_signal: Signal) -> std::io::Result<()> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "this system cannot tell a process of its parent's end",
    ))
}
