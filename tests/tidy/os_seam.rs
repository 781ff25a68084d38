//! The seam for the operating system (`docs/architecture.md`): what differs between systems is
//! decided in `harness/os` (for the lower crates) and in the program's `host` stage (for
//! processes), and where the program chooses its allocator (`harness/src/main.rs`). A
//! `cfg(unix)`, `cfg(windows)`, `cfg(target_os = …)` or `cfg(target_family = …)` anywhere
//! else in the harness's crates would put a system's answer beside the code that asks.

/// Where a system's answer may be chosen.
const SEAM: [&str; 3] = ["harness/os/", "harness/src/host/", "harness/src/main.rs"];

/// The harness's crates.
const CRATES: [&str; 4] = [
    "harness/src",
    "harness/core/src",
    "harness/ledger/src",
    "harness/os/src",
];

/// Whether `line` chooses code by the operating system.
fn chooses_a_system(line: &str) -> bool {
    let code = line.split("//").next().unwrap_or_default();
    (code.contains("cfg(") || code.contains("cfg!("))
        && ["unix", "windows", "target_os", "target_family"]
            .iter()
            .any(|system| code.contains(system))
}

#[test]
fn systems_are_chosen_only_in_the_seam() {
    let root = crate::workspace();
    let mut found = Vec::new();
    for folder in CRATES {
        for file in crate::rust_files(&root.join(folder)) {
            let rel = crate::relative(&root, &file);
            if SEAM.iter().any(|seam| rel.starts_with(seam)) {
                continue;
            }
            let text = std::fs::read_to_string(&file).expect("a source file");
            for (n, line) in text.lines().enumerate() {
                if chooses_a_system(line) {
                    found.push(format!("{rel}:{}: {}", n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "code chosen by the operating system outside the seam (harness/os, the host stage):\n{}",
        found.join("\n")
    );
}

/// The check finds what it looks for, and passes the rest.
#[test]
fn the_seam_check_finds_what_it_looks_for() {
    for line in [
        "#[cfg(unix)]",
        "#[cfg(all(unix, not(target_os = \"linux\")))]",
        "if cfg!(windows) {",
        "#[cfg(target_family = \"wasm\")]",
    ] {
        assert!(chooses_a_system(line), "{line}");
    }
    for line in [
        "#[cfg(test)]",
        "#[cfg(target_arch = \"x86_64\")]",
        "// cfg(unix) in a comment",
        "let unix = true;",
    ] {
        assert!(!chooses_a_system(line), "{line}");
    }
}
