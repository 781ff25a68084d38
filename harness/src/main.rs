//! `harness`: run Othello engine tournaments. See `harness --help` and [`harness::cli`].

/// jemalloc instead of glibc's malloc: the coordinator's messages and records are built on the
/// runtime's threads and freed on another, which fragments glibc's per-thread arenas (the
/// workspace manifest has the measurement). Plugins keep their own allocator. Other systems
/// keep the system's allocator.
#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() {
    std::process::exit(harness::cli::main());
}
