//! `harness`: run Othello engine tournaments. See `harness --help` and [`harness::cli`].

fn main() {
    std::process::exit(harness::cli::main());
}
