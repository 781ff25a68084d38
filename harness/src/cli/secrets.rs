//! Secrets the commands take (a ledger's password, the browser view's token) come from a file
//! or a variable: a process's command line is readable by every process of the machine
//! (`/proc/PID/cmdline`), engines included. A secret given on the command line is still taken,
//! with a warning that says where else to put it.

use std::path::Path;

/// The variable the browser view's token is read from when neither `--token` nor
/// `--token-file` gives it.
pub const WEB_TOKEN_ENV: &str = "HARNESS_WEB_TOKEN";

/// Warn, on stderr, that `flag` carried `what` on the command line, and say where it belongs.
pub fn warn_of_a_secret_on_the_command_line(flag: &str, what: &str, instead: &str) {
    eprintln!(
        "warning: {flag} puts {what} on the command line, which every process of this machine can read (/proc/PID/cmdline); give it in {instead} instead"
    );
}

/// The browser view's token: `--token` (warned of), else the first line of `--token-file`,
/// else `HARNESS_WEB_TOKEN`, else none.
pub fn web_token(flag: Option<String>, file: Option<&Path>) -> anyhow::Result<Option<String>> {
    if let Some(token) = flag {
        warn_of_a_secret_on_the_command_line(
            "--token",
            "the browser view's token",
            &format!("--token-file FILE or {WEB_TOKEN_ENV}"),
        );
        return Ok(Some(token));
    }
    if let Some(file) = file {
        let text = std::fs::read_to_string(file)
            .map_err(|e| anyhow::anyhow!("--token-file {}: {e}", file.display()))?;
        let token = text.lines().next().unwrap_or_default().trim().to_string();
        anyhow::ensure!(
            !token.is_empty(),
            "--token-file {}: the file's first line is empty",
            file.display()
        );
        return Ok(Some(token));
    }
    Ok(std::env::var(WEB_TOKEN_ENV)
        .ok()
        .filter(|t| !t.trim().is_empty()))
}
