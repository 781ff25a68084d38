//! The rules a value obeys wherever it comes from, the tournament file or the command line:
//! each is written once here, and [`super::validate`] (with the file's line and key) and
//! [`super::overrides`] (with the flag) only word its error.

use super::TimeControl;
use std::time::Duration;

/// The most games a tournament may hold (its schedule is built in memory, 48 bytes a game).
pub const MAX_GAMES: u64 = 5_000_000;

/// The most games at once: each holds two worker processes and their sockets.
pub const MAX_CONCURRENCY: usize = 1024;

/// The longest duration a tournament names (a base, a move time, a margin…): about 115 days.
pub const MAX_SECONDS: f64 = 1e7;

/// The smallest `memory-limit`: a worker's own code, libraries and thread stacks are mapped
/// within it.
pub const MIN_MEMORY_LIMIT: u64 = 64 << 20;

/// Seconds as a duration: finite, not negative, more than zero unless `allow_zero`, at most
/// [`MAX_SECONDS`].
pub fn seconds(secs: f64, allow_zero: bool) -> Result<Duration, String> {
    if !secs.is_finite() {
        return Err("must be a finite number of seconds".into());
    }
    if secs < 0.0 {
        return Err("must not be negative".into());
    }
    if secs == 0.0 && !allow_zero {
        return Err("must be more than 0 seconds".into());
    }
    if secs > MAX_SECONDS {
        return Err(format!("is too large (at most {MAX_SECONDS} seconds)"));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// A `concurrency`: from 1 to [`MAX_CONCURRENCY`].
pub fn concurrency(n: usize) -> Result<usize, String> {
    if n == 0 || n > MAX_CONCURRENCY {
        return Err(format!(
            "must be at least 1 and at most {MAX_CONCURRENCY} (each game runs two worker processes)"
        ));
    }
    Ok(n)
}

/// Game pairs per pairing with `pairings` pairings: at least 1, and no more than a schedule of
/// [`MAX_GAMES`] holds.
pub fn pairs(pairs: u32, pairings: usize) -> Result<u32, String> {
    if pairs == 0 {
        return Err("must be at least 1".into());
    }
    let most = MAX_GAMES / (2 * pairings.max(1) as u64);
    if u64::from(pairs) > most {
        return Err(format!(
            "at most {most} with {pairings} engine pairing(s): a tournament holds at most {MAX_GAMES} games"
        ));
    }
    Ok(pairs)
}

/// A size in a table: bytes (a whole number above 0) or a size with a unit ([`parse_bytes`]);
/// `examples` are shown when it is neither.
fn size(value: &toml::Value, examples: &str) -> Result<u64, String> {
    match value {
        toml::Value::String(size) => parse_bytes(size),
        toml::Value::Integer(bytes) if *bytes > 0 => Ok(*bytes as u64),
        other => Err(format!(
            "`{other}`: give bytes (a whole number above 0) or a size such as {examples}"
        )),
    }
}

/// A `disk-limit`: a [`size`] of at least 1 MiB.
pub fn disk_limit(value: &toml::Value) -> Result<u64, String> {
    let bytes = size(value, "\"256MiB\" or \"4GiB\"")?;
    if bytes < 1 << 20 {
        return Err(format!("{bytes} bytes is too little; at least 1MiB"));
    }
    Ok(bytes)
}

/// A `log-limit`: a [`size`] of at least 64 KiB.
pub fn log_limit(value: &toml::Value) -> Result<u64, String> {
    let bytes = size(value, "\"16MiB\" or \"256MiB\"")?;
    if bytes < 64 << 10 {
        return Err(format!("{bytes} bytes is too little; at least 64KiB"));
    }
    Ok(bytes)
}

/// A `memory-limit`: a [`size`] of at least [`MIN_MEMORY_LIMIT`].
pub fn memory_limit(value: &toml::Value) -> Result<u64, String> {
    let bytes = size(value, "\"512MiB\" or \"2GiB\"")?;
    if bytes < MIN_MEMORY_LIMIT {
        return Err(format!(
            "{bytes} bytes is too little for a worker (its code and thread stacks alone take tens of MiB); at least 64MiB"
        ));
    }
    Ok(bytes)
}

/// A time control as the command line gives it: `10+0.1` or `10` (a clock: seconds per side
/// and per move), `0.5/move`, `depth=6`, `nodes=100000`. Seconds obey [`seconds`].
pub fn parse_time_spec(spec: &str) -> Result<TimeControl, String> {
    let bad = |why: &str| {
        format!(
            "--time `{spec}`: {why}give BASE[+INCREMENT] (seconds), SECONDS/move, depth=N or nodes=N"
        )
    };
    let seconds_of = |text: &str, allow_zero: bool| -> Result<Duration, String> {
        let x: f64 = text.trim().parse().map_err(|_| bad(""))?;
        seconds(x, allow_zero).map_err(|e| bad(&format!("`{}` {e}; ", text.trim())))
    };
    let spec_t = spec.trim();
    let count = |text: &str| -> Result<u64, String> {
        match text.trim().parse::<u64>() {
            Ok(0) => Err(bad("0 ")),
            Ok(n) => Ok(n),
            Err(_) => Err(bad("")),
        }
    };
    if let Some(d) = spec_t.strip_prefix("depth=") {
        let d = u32::try_from(count(d)?).map_err(|_| bad(""))?;
        return Ok(TimeControl::Depth(d));
    }
    if let Some(n) = spec_t.strip_prefix("nodes=") {
        return Ok(TimeControl::Nodes(count(n)?));
    }
    if let Some(t) = spec_t.strip_suffix("/move") {
        return Ok(TimeControl::MoveTime(seconds_of(t, false)?));
    }
    let (base, increment) = spec_t.split_once('+').unwrap_or((spec_t, "0"));
    Ok(TimeControl::Clock {
        base: seconds_of(base, false)?,
        increment: seconds_of(increment, true)?,
    })
}

/// A size in bytes with an optional unit: `B`, decimal `kB`/`KB`, `MB`, `GB`, `TB`, or binary
/// `KiB`, `MiB`, `GiB`, `TiB`; a number without a unit is bytes. `1.5GiB` is allowed.
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = (&text[..split], text[split..].trim());
    let scale: u64 = match unit {
        "" | "B" => 1,
        "kB" | "KB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "TB" => 1_000_000_000_000,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        "TiB" => 1 << 40,
        _ => {
            return Err(format!(
                "`{text}`: unknown unit `{unit}` (B, kB, MB, GB, TB, KiB, MiB, GiB or TiB)"
            ))
        }
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a size such as \"2GiB\" or \"512MiB\""))?;
    let bytes = value * scale as f64;
    if !bytes.is_finite() || bytes < 1.0 || bytes > (1u64 << 60) as f64 {
        return Err(format!("`{text}`: a size from 1 byte to 1 EiB"));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod byte_sizes {
    use super::parse_bytes;

    #[test]
    fn sizes_with_and_without_units() {
        assert_eq!(parse_bytes("2GiB"), Ok(2 << 30));
        assert_eq!(parse_bytes("512 MiB"), Ok(512 << 20));
        assert_eq!(parse_bytes("1.5GB"), Ok(1_500_000_000));
        assert_eq!(parse_bytes("4096"), Ok(4096));
        assert_eq!(parse_bytes("64kB"), Ok(64_000));
        for bad in ["", "GiB", "2 gigs", "-1GiB", "1e400", "0", "2..5MiB"] {
            assert!(parse_bytes(bad).is_err(), "{bad:?} accepted");
        }
    }
}
