//! Empty: the package is its `e2e` integration test binary (see `e2e/main.rs`).
