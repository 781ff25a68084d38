//! The coordinator-worker protocol: one JSON object per line, over a Unix domain socket pair.
//! The coordinator reads at most [`MAX_FRAME`] bytes of one line: a longer one is a protocol
//! error, so a worker cannot make the coordinator hold more than that of what it sent.
//!
//! The channel's first line is the supervisor's [`Reply::Supervising`] (which process the
//! worker is); the coordinator answers [`Request::Begin`], and only then does the worker
//! speak. It sends [`Reply::Hello`] (plugin loaded, instance created) or
//! [`Reply::Failed`] (and exits); a sandboxed one sends [`Reply::Confined`] before either.
//! Then each [`Request`] but `Stop` gets exactly one final reply
//! (`Ok`, `Error` or, for `Go`, `Moved`), and `Go` may be preceded by any number of `Info`
//! replies. `Stop` only raises the running search's stop flag; it has no reply of its own.
//! Every line is one complete message; a line that does not parse is a protocol error.

use super::plugin::PluginInfo;
use harness_core::search_terms::{SearchInfo, SearchLimits};
use othello_board::{Color, GameHistory, Move, Position};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Write};
use std::time::Duration;

/// Live or final search information, as the worker forwards it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WireInfo {
    pub depth: i32,
    pub selectivity: i32,
    /// Discs, side to move's view.
    pub score: f64,
    pub nodes: u64,
    pub time_ms: u64,
    /// Raw move values (0..63, 64 pass).
    pub pv: Vec<u8>,
}

impl From<&othello_abi::SearchInfo> for WireInfo {
    fn from(i: &othello_abi::SearchInfo) -> WireInfo {
        let n = (i.pv_length.max(0) as usize).min(othello_abi::MAX_PV);
        WireInfo {
            depth: i.depth,
            selectivity: i.selectivity,
            score: if i.score.is_finite() { i.score } else { 0.0 },
            nodes: i.nodes,
            time_ms: i.time_ms,
            pv: i.pv[..n].to_vec(),
        }
    }
}

impl From<WireInfo> for SearchInfo {
    fn from(w: WireInfo) -> SearchInfo {
        SearchInfo {
            depth: w.depth,
            selectivity: w.selectivity,
            score: w.score,
            nodes: w.nodes,
            time_ms: w.time_ms,
            pv: w
                .pv
                .iter()
                .filter_map(|&v| Move::from_wire(v.into()))
                .collect(),
        }
    }
}

/// The limits of a search, as the ABI's `oe_limits` flags and fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireLimits {
    pub flags: u32,
    pub time_left_ms: [i64; 2],
    pub increment_ms: [i64; 2],
    pub move_time_ms: i64,
    pub depth: i32,
    pub nodes: u64,
}

/// Milliseconds for the ABI, saturating.
fn ms(d: Duration) -> i64 {
    d.as_millis().min(i64::MAX as u128) as i64
}

impl From<&SearchLimits> for WireLimits {
    /// The only place the ABI's `LIMIT_*` flags are chosen.
    fn from(limits: &SearchLimits) -> WireLimits {
        match *limits {
            SearchLimits::Clock { left, increment } => WireLimits {
                flags: othello_abi::LIMIT_CLOCK,
                time_left_ms: left.map(ms),
                increment_ms: increment.map(ms),
                ..WireLimits::default()
            },
            SearchLimits::MoveTime(t) => WireLimits {
                flags: othello_abi::LIMIT_MOVE_TIME,
                move_time_ms: ms(t),
                ..WireLimits::default()
            },
            SearchLimits::Depth(d) => WireLimits {
                flags: othello_abi::LIMIT_DEPTH,
                depth: d.min(i32::MAX as u32) as i32,
                ..WireLimits::default()
            },
            SearchLimits::Nodes(n) => WireLimits {
                flags: othello_abi::LIMIT_NODES,
                nodes: n,
                ..WireLimits::default()
            },
        }
    }
}

impl From<&WireLimits> for othello_abi::Limits {
    /// The ABI struct the worker hands to the plugin: the wire fields as they are.
    fn from(w: &WireLimits) -> othello_abi::Limits {
        othello_abi::Limits {
            struct_size: othello_abi::size_of::<othello_abi::Limits>(),
            flags: w.flags,
            time_left_ms: w.time_left_ms,
            increment_ms: w.increment_ms,
            move_time_ms: w.move_time_ms,
            depth: w.depth,
            reserved: 0,
            nodes: w.nodes,
        }
    }
}

/// Coordinator to worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Request {
    /// The coordinator has read the supervisor's message: the worker may start (confine
    /// itself, load the plugin and say so). Its first request. With `probe` (`harness check`),
    /// the worker first tries what its sandbox forbids and answers [`Reply::Probed`], before
    /// the plugin loads: no code of the plugin can answer for it.
    Begin {
        #[serde(default)]
        probe: Option<ProbeTargets>,
    },
    SetOption {
        name: String,
        value: String,
    },
    NewGame,
    Go {
        /// Numbers the searches of one worker; its info reports carry it, so a report that
        /// arrives late from an earlier search is recognised and dropped.
        search: u64,
        /// A number the coordinator drew for this request, which the worker's reply carries:
        /// a reply written before the request (by a plugin writing to the channel ahead of
        /// its turn) cannot know it.
        token: u64,
        game: WireGame,
        limits: WireLimits,
    },
    Stop,
    Quit,
}

/// What a worker's sandbox probe tries ([`Request::Begin`]): write the file `write` (outside
/// the scratch folder), connect to `127.0.0.1:port` and to the Unix socket `socket` (a path, as
/// a coordinator's socket would be), and signal the coordinator (signal 0, which only asks
/// whether it could).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeTargets {
    pub write: std::path::PathBuf,
    pub port: u16,
    pub socket: std::path::PathBuf,
}

/// A game on the wire: its start position and the moves since (ABI move values); the worker
/// searches the position at its end.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireGame {
    pub black: u64,
    pub white: u64,
    /// 0 = Black, 1 = White.
    pub side: u32,
    pub moves: Vec<i32>,
}

impl WireGame {
    pub fn from_history(game: &GameHistory) -> WireGame {
        WireGame {
            black: game.start.black(),
            white: game.start.white(),
            side: game.start.side_to_move.index() as u32,
            moves: game.moves.iter().map(|m| m.wire() as i32).collect(),
        }
    }

    /// The game, if the start position is well formed and every value is a move (legality is
    /// checked by replaying it).
    pub fn to_history(&self) -> Result<GameHistory, String> {
        let side = match self.side {
            0 => Color::Black,
            1 => Color::White,
            s => return Err(format!("side {s} is not 0 or 1")),
        };
        let start = Position::from_colors(self.black, self.white, side)
            .ok_or_else(|| "overlapping bitboards".to_string())?;
        let moves = self
            .moves
            .iter()
            .map(|&m| Move::from_wire(m as i64).ok_or_else(|| format!("move value {m}")))
            .collect::<Result<Vec<Move>, String>>()?;
        Ok(GameHistory { start, moves })
    }
}

/// Worker to coordinator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Reply {
    /// The supervisor's one message, the first on the channel, written before the worker may
    /// write anything ([`Request::Begin`]): the worker's process id and process group as the
    /// coordinator sees them, and what was made of its namespaces ([`crate::host::supervisor`]).
    Supervising {
        worker: u32,
        group: Option<u32>,
        #[serde(default)]
        namespaces: Vec<String>,
        #[serde(default)]
        missing: Vec<String>,
    },
    /// A sandboxed worker's first message, sent once it is confined and before the plugin
    /// loads (so before any of the plugin's code could write to the channel): what the kernel
    /// enforced. The coordinator takes the sandbox's report from this message only.
    Confined {
        enforced: Box<super::sandbox::Enforced>,
    },
    Hello {
        plugin: PluginInfo,
    },
    Failed {
        message: String,
    },
    Ok,
    Error {
        message: String,
    },
    /// A live report of search number `search` (see [`Request::Go`]).
    Info {
        search: u64,
        info: WireInfo,
    },
    /// The answer to the `Go` with this `search` number and `token`.
    Moved {
        search: u64,
        token: u64,
        mv: i32,
        info: WireInfo,
    },
    /// The answer to a `Begin` with a probe: for each attempt, `None` when it succeeded, else
    /// the system's refusal.
    Probed(Box<super::sandbox::Probed>),
}

/// Write one message as a line and flush it.
pub fn send<T: Serialize>(out: &mut impl Write, msg: &T) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(msg).map_err(std::io::Error::other)?;
    line.push(b'\n');
    out.write_all(&line)?;
    out.flush()
}

/// Read one message; `Ok(None)` at end of stream.
pub fn receive<T: for<'de> Deserialize<'de>>(
    input: &mut impl BufRead,
) -> std::io::Result<Option<T>> {
    let mut line = String::new();
    if input.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    parse_line(&line).map(Some)
}

/// [`send`] on the coordinator's async socket.
pub async fn send_async<T: Serialize>(
    out: &mut (impl tokio::io::AsyncWrite + Unpin),
    msg: &T,
) -> std::io::Result<()> {
    use tokio::io::AsyncWriteExt;
    let mut line = serde_json::to_vec(msg).map_err(std::io::Error::other)?;
    line.push(b'\n');
    out.write_all(&line).await?;
    out.flush().await
}

/// The most bytes of one message the coordinator reads from a worker.
pub const MAX_FRAME: usize = 1 << 20;

/// [`receive`] on the coordinator's async socket, reading at most [`MAX_FRAME`] bytes: a longer
/// line is an `InvalidData` error, and what is left of it is not read.
pub async fn receive_async<T: for<'de> Deserialize<'de>, R>(
    input: &mut R,
) -> std::io::Result<Option<T>>
where
    R: tokio::io::AsyncBufRead + Unpin,
{
    use tokio::io::{AsyncBufReadExt, AsyncReadExt};
    let mut line = Vec::new();
    let read = input
        .take(MAX_FRAME as u64 + 1)
        .read_until(b'\n', &mut line)
        .await?;
    if read == 0 {
        return Ok(None);
    }
    if line.len() > MAX_FRAME {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("a message longer than {} MiB", MAX_FRAME >> 20),
        ));
    }
    let line = String::from_utf8(line).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "a message that is not UTF-8",
        )
    })?;
    parse_line(&line).map(Some)
}

fn parse_line<T: for<'de> Deserialize<'de>>(line: &str) -> std::io::Result<T> {
    serde_json::from_str(line).map_err(|e| {
        let (shown, _) = crate::host::engine_text::clean(line.trim_end());
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("bad message `{shown}`: {e}"),
        )
    })
}

impl Reply {
    /// The reply with every string the plugin chose made printable and bounded
    /// ([`crate::host::engine_text`]); the number of bytes cut, if any was.
    pub fn cleaned(mut self) -> (Reply, bool) {
        use crate::host::engine_text::clean_in_place as clean;
        let mut cut = false;
        match &mut self {
            Reply::Hello { plugin } => {
                for text in [&mut plugin.name, &mut plugin.version, &mut plugin.author] {
                    cut |= clean(text);
                }
                for option in &mut plugin.options {
                    for text in [&mut option.name, &mut option.kind, &mut option.default] {
                        cut |= clean(text);
                    }
                    cut |= clean(&mut option.help);
                    for value in &mut option.values {
                        cut |= clean(value);
                    }
                }
            }
            Reply::Failed { message } | Reply::Error { message } => cut |= clean(message),
            Reply::Confined { enforced } => {
                for text in &mut enforced.missing {
                    cut |= clean(text);
                }
            }
            Reply::Supervising {
                namespaces,
                missing,
                ..
            } => {
                for text in namespaces.iter_mut().chain(missing) {
                    cut |= clean(text);
                }
            }
            Reply::Ok | Reply::Info { .. } | Reply::Moved { .. } | Reply::Probed(_) => {}
        }
        (self, cut)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_as_single_lines() {
        let msgs = vec![
            Request::SetOption {
                name: "Depth".into(),
                value: "7".into(),
            },
            Request::Go {
                search: 7,
                token: 0x1234_5678_9abc_def0,
                game: WireGame {
                    black: 1,
                    white: 2,
                    side: 1,
                    moves: vec![19, 64],
                },
                limits: WireLimits {
                    flags: 4,
                    depth: 3,
                    ..Default::default()
                },
            },
            Request::Stop,
        ];
        let mut buf = Vec::new();
        for m in &msgs {
            send(&mut buf, m).unwrap();
        }
        assert_eq!(buf.iter().filter(|&&b| b == b'\n').count(), 3);
        let mut input = std::io::Cursor::new(buf);
        for m in &msgs {
            assert_eq!(receive::<Request>(&mut input).unwrap().as_ref(), Some(m));
        }
        assert_eq!(receive::<Request>(&mut input).unwrap(), None);
        let mut garbage = std::io::Cursor::new(b"hello\n".to_vec());
        assert!(receive::<Request>(&mut garbage).is_err());
    }
}
