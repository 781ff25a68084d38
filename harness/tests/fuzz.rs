//! Property-based fuzzing of the harness's readers and writers (proptest).
//!
//! Arbitrary input must never panic a reader (an error is fine, and names its file), and the
//! writers' output must read back. The number of cases per property is small by default so the
//! suite stays fast in normal test runs; set `FUZZ_CASES` (e.g.
//! `FUZZ_CASES=200000 cargo test --release -p harness --test fuzz`) for a long run.

use harness::host::protocol::{receive, send, Reply, Request, WireGame, WireInfo, WireLimits};
use harness::host::{OptionInfo, PluginInfo};
use harness_core::plan::config;
use harness_core::plan::openings::parse_openings;
use harness_core::record::ggf::write_game;
use harness_core::record::{GameRecord, OpeningRef, PerColor, PlayedMove, Termination};
use othello_board::playout::{random_move, SplitMix64};
use othello_board::{Color, Move, Position};
use proptest::prelude::*;
use std::io::Cursor;
use std::path::Path;

const TOURNAMENT: &str = include_str!("../../tournament.toml");
const SPRT_GATE: &str = include_str!("../../docs/examples/sprt-gate.toml");
/// Every key and form the schema has that the other seeds lack.
const COMPACT: &str = r#"
[tournament]
format = "round-robin"
pairs = 3
concurrency = 2
[time]
depth = 4
margin = 0.5
stall-timeout = 10.0
[openings]
file = "openings/xot-small.txt"
order = "sequential"
start = 2
[[engine]]
name = "a"
plugin = "greedy"
options = { Depth = 3, Book = true, Eval = 1.5, Name = "x" }
[[engine]]
name = "b"
plugin = "/x/libb.so"
[[engine]]
name = "c"
plugin = "c.dll"
[engine.options]
Hash = 16
"#;
/// The default tournament with every commented-out key switched on and the comments gone, so
/// mutations hit keys (it is invalid as a whole: `base` and `depth` conflict, …).
static UNCOMMENTED: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    TOURNAMENT
        .lines()
        .map(|l| l.trim_start_matches("# ").split(" # ").next().unwrap_or(""))
        .filter(|l| l.contains('=') || l.starts_with('['))
        .collect::<Vec<_>>()
        .join("\n")
});
const XOT: &str = include_str!("../../openings/xot-small.txt");

/// Cases per property: `FUZZ_CASES` if set, else `default`.
fn cases(default: u32) -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Characters that mean something to TOML, transcripts or OBF, mixed with arbitrary ones.
fn text_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => proptest::sample::select(vec![
            '[', ']', '{', '}', '=', '"', '\'', ',', '.', '#', '\n', '\r', ' ', '\t', '0', '1',
            '9', '-', '+', 'e', '_', 'a', 'f', 'h', 'X', 'O', ';', ':', '\\', '\u{0}',
            '\u{feff}',
        ]),
        1 => any::<char>(),
    ]
}

/// One edit of a text: delete, insert or replace a character, or delete, duplicate or swap a
/// line.
#[derive(Clone, Debug)]
enum Edit {
    Delete(usize),
    Insert(usize, char),
    Replace(usize, char),
    DeleteLine(usize),
    DuplicateLine(usize),
    SwapLines(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), text_char()).prop_map(|(i, c)| Edit::Insert(i, c)),
        (any::<usize>(), text_char()).prop_map(|(i, c)| Edit::Replace(i, c)),
        any::<usize>().prop_map(Edit::DeleteLine),
        any::<usize>().prop_map(Edit::DuplicateLine),
        (any::<usize>(), any::<usize>()).prop_map(|(i, j)| Edit::SwapLines(i, j)),
    ]
}

fn mutate(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for e in edits {
        match *e {
            Edit::Delete(i) if !chars.is_empty() => {
                chars.remove(i % chars.len());
            }
            Edit::Insert(i, c) => chars.insert(i % (chars.len() + 1), c),
            Edit::Replace(i, c) if !chars.is_empty() => {
                let n = chars.len();
                chars[i % n] = c;
            }
            Edit::DeleteLine(i) | Edit::DuplicateLine(i) | Edit::SwapLines(i, _) => {
                let s: String = chars.iter().collect();
                let mut lines: Vec<&str> = s.split('\n').collect();
                let n = lines.len();
                match *e {
                    Edit::DeleteLine(_) => {
                        lines.remove(i % n);
                    }
                    Edit::DuplicateLine(_) => lines.insert(i % n, lines[i % n]),
                    Edit::SwapLines(_, j) => lines.swap(i % n, j % n),
                    _ => unreachable!(),
                }
                chars = lines.join("\n").chars().collect();
            }
            _ => {}
        }
    }
    chars.into_iter().collect()
}

fn check_config(text: &str) -> Result<(), TestCaseError> {
    match config::parse(text, "t.toml", Path::new(".")) {
        Ok(t) => prop_assert_eq!(t.source, "t.toml"),
        Err(e) => {
            let msg = e.to_string();
            prop_assert!(
                msg.starts_with("t.toml:"),
                "error without the file: {}",
                msg
            );
        }
    }
    Ok(())
}

fn check_openings(text: &str) -> Result<(), TestCaseError> {
    match parse_openings(text, "o.txt") {
        Ok(set) => {
            prop_assert!(!set.openings.is_empty());
            prop_assert_eq!(&set.source, "o.txt");
            for o in &set.openings {
                prop_assert!(!o.position().is_game_over(), "opening {:?}", o.text);
            }
        }
        Err(e) => {
            let msg = e.to_string();
            prop_assert!(msg.starts_with("o.txt:"), "error without the file: {}", msg);
        }
    }
    Ok(())
}

// ---- GGF ------------------------------------------------------------------------------------

/// A random legal game from the start: the opening moves are the first `book` moves, and the
/// game stops after `len` moves (a forfeit) or at its end.
fn random_record(
    seed: u64,
    book: usize,
    len: usize,
    names: (String, String),
    extras: Vec<(Option<f64>, Option<u64>)>,
    termination: Termination,
    score: i32,
) -> GameRecord {
    let mut rng = SplitMix64(seed);
    let mut p = Position::START;
    let mut moves = Vec::new();
    while !p.is_game_over() && moves.len() < len {
        let mv = random_move(&p, &mut rng);
        let (score, time_ms) = extras.get(moves.len()).copied().unwrap_or_default();
        moves.push(PlayedMove {
            mv: mv.to_string(),
            book: moves.len() < book,
            score,
            depth: None,
            nodes: None,
            time_ms,
        });
        p = p.play(mv).expect("random_move is legal");
    }
    let (b, w) = p.disc_counts();
    GameRecord {
        game: 0,
        pair: 0,
        black: names.0,
        white: names.1,
        opening: OpeningRef {
            index: 0,
            line: 1,
            text: String::new(),
        },
        start: Position::START.to_string(),
        moves,
        discs: PerColor { black: b, white: w },
        score,
        result: GameRecord::result_text(score).to_string(),
        termination,
        forfeit_by: None,
        reason: String::new(),
        forfeit_position: None,
        time_loss: None,
        time_ms: PerColor::default(),
        time_us: PerColor::default(),
        adjudication: None,
        nodes: PerColor::default(),
        cpu_between_turns_us: None,
        searched: Default::default(),
    }
}

/// A minimal GGF reader: the `TAG[value]` properties between `(;` and `;)`.
fn ggf_properties(g: &str) -> Result<Vec<(String, String)>, String> {
    let body = g
        .strip_prefix("(;")
        .and_then(|s| s.strip_suffix(";)"))
        .ok_or("not (; … ;)")?;
    let mut props = Vec::new();
    let mut rest = body;
    while !rest.is_empty() {
        let open = rest
            .find('[')
            .ok_or_else(|| format!("no `[` in {rest:?}"))?;
        let tag = &rest[..open];
        if tag.is_empty() || !tag.chars().all(|c| c.is_ascii_uppercase()) {
            return Err(format!("bad tag {tag:?}"));
        }
        let close = rest[open..]
            .find(']')
            .ok_or_else(|| format!("unclosed {tag}"))?
            + open;
        props.push((tag.to_string(), rest[open + 1..close].to_string()));
        rest = &rest[close + 1..];
    }
    Ok(props)
}

fn check_ggf(r: &GameRecord) -> Result<(), TestCaseError> {
    let g = write_game(r);
    prop_assert!(g.starts_with("(;GM[Othello]"), "{}", g);
    prop_assert!(g.ends_with(";)"), "{}", g);
    prop_assert!(!g.contains('\n'), "{:?}", g);
    let props = ggf_properties(&g).map_err(|e| TestCaseError::fail(format!("{e}: {g}")))?;
    let get = |tag: &str| {
        props
            .iter()
            .find(|(t, _)| t == tag)
            .map(|(_, v)| v.as_str())
    };
    prop_assert_eq!(get("GM"), Some("Othello"));
    let black = r.black.replace(['[', ']'], "_").replace('\n', " ");
    prop_assert_eq!(get("PB"), Some(black.as_str()));
    // The start position.
    let bo = get("BO").ok_or_else(|| TestCaseError::fail("no BO"))?;
    let bo = bo
        .strip_prefix("8 ")
        .ok_or_else(|| TestCaseError::fail("BO without 8"))?;
    let start: Position = bo
        .parse()
        .map_err(|e| TestCaseError::fail(format!("BO {bo:?}: {e}")))?;
    prop_assert_eq!(Some(start), r.start_position());
    // The moves replay, with the right colour tags, and are the record's moves.
    let mut pos = start;
    let mut read = Vec::new();
    for (tag, value) in props.iter().filter(|(t, _)| t == "B" || t == "W") {
        let want = if pos.side_to_move == Color::Black {
            "B"
        } else {
            "W"
        };
        prop_assert_eq!(tag.as_str(), want);
        let mut parts = value.split('/');
        let mv: Move = parts
            .next()
            .unwrap_or("")
            .parse()
            .map_err(|e| TestCaseError::fail(format!("move {value:?}: {e}")))?;
        for number in parts.filter(|p| !p.is_empty()) {
            prop_assert!(number.parse::<f64>().is_ok(), "eval/time {:?}", number);
        }
        pos = pos
            .play(mv)
            .map_err(|e| TestCaseError::fail(format!("{e}")))?;
        read.push(mv);
    }
    prop_assert_eq!(Some(read), r.parsed_moves());
    Ok(())
}

fn termination() -> impl Strategy<Value = Termination> {
    proptest::sample::select(vec![
        Termination::Normal,
        Termination::TimeForfeit,
        Termination::Crash,
        Termination::Stalled,
        Termination::IllegalMove,
        Termination::EngineError,
    ])
}

fn name() -> impl Strategy<Value = String> {
    prop_oneof!["[a-z0-9 ()\\[\\];/\\n]{0,12}", any::<String>(),]
}

fn score() -> impl Strategy<Value = f64> {
    prop_oneof![4 => -64.0..64.0f64, 1 => any::<f64>()]
}

// ---- Protocol -------------------------------------------------------------------------------

fn wire_limits() -> impl Strategy<Value = WireLimits> {
    (
        any::<u32>(),
        any::<[i64; 2]>(),
        any::<[i64; 2]>(),
        any::<i64>(),
        any::<i32>(),
        any::<u64>(),
    )
        .prop_map(
            |(flags, time_left_ms, increment_ms, move_time_ms, depth, nodes)| WireLimits {
                flags,
                time_left_ms,
                increment_ms,
                move_time_ms,
                depth,
                nodes,
            },
        )
}

fn request() -> impl Strategy<Value = Request> {
    prop_oneof![
        (any::<String>(), any::<String>())
            .prop_map(|(name, value)| Request::SetOption { name, value }),
        Just(Request::NewGame),
        (
            any::<u64>(),
            any::<u64>(),
            any::<u64>(),
            any::<u32>(),
            proptest::collection::vec(any::<i32>(), 0..70),
            wire_limits()
        )
            .prop_map(|(search, black, white, side, moves, limits)| Request::Go {
                search,
                token: search.rotate_left(17) ^ black,
                game: WireGame {
                    black,
                    white,
                    side,
                    moves,
                },
                limits,
            }),
        Just(Request::Stop),
        Just(Request::Quit),
    ]
}

/// Finite floats: the protocol carries only finite scores (`WireInfo::from` maps the others
/// to 0, and JSON has no NaN).
fn finite() -> impl Strategy<Value = f64> {
    prop_oneof![
        -64.0..64.0f64,
        any::<f64>().prop_map(|f| if f.is_finite() { f } else { 1.0 })
    ]
}

fn wire_info() -> impl Strategy<Value = WireInfo> {
    (
        any::<i32>(),
        any::<i32>(),
        finite(),
        any::<u64>(),
        any::<u64>(),
        prop::collection::vec(any::<u8>(), 0..8),
    )
        .prop_map(|(depth, selectivity, score, nodes, time_ms, pv)| WireInfo {
            depth,
            selectivity,
            score,
            nodes,
            time_ms,
            pv,
        })
}

fn reply() -> impl Strategy<Value = Reply> {
    prop_oneof![
        (any::<String>(), any::<String>(), finite(), finite()).prop_map(
            |(name, text, min, max)| {
                Reply::Hello {
                    plugin: PluginInfo {
                        path: name.clone().into(),
                        name: name.clone(),
                        version: text.clone(),
                        author: text.clone(),
                        abi_major: 1,
                        abi_minor: 0,
                        options: vec![OptionInfo {
                            name,
                            kind: "int".into(),
                            default: text.clone(),
                            min,
                            max,
                            values: vec![text.clone()],
                            help: text,
                        }],
                    },
                }
            }
        ),
        any::<String>().prop_map(|message| Reply::Failed { message }),
        Just(Reply::Ok),
        any::<String>().prop_map(|message| Reply::Error { message }),
        (any::<u64>(), wire_info()).prop_map(|(search, info)| Reply::Info { search, info }),
        (any::<u64>(), any::<u64>(), any::<i32>(), wire_info()).prop_map(
            |(search, token, mv, info)| Reply::Moved {
                search,
                token,
                mv,
                info
            }
        ),
    ]
}

/// Bytes that look like protocol lines: JSON fragments, tags and field names.
fn json_like() -> impl Strategy<Value = Vec<u8>> {
    let token = proptest::sample::select(vec![
        "{",
        "}",
        "[",
        "]",
        ":",
        ",",
        "\"",
        "\n",
        " ",
        "\"type\"",
        "\"go\"",
        "\"set_option\"",
        "\"new_game\"",
        "\"stop\"",
        "\"quit\"",
        "\"hello\"",
        "\"moved\"",
        "\"info\"",
        "\"ok\"",
        "\"error\"",
        "\"failed\"",
        "\"name\"",
        "\"value\"",
        "\"black\"",
        "\"white\"",
        "\"side\"",
        "\"limits\"",
        "\"flags\"",
        "\"mv\"",
        "\"pv\"",
        "\"score\"",
        "\"message\"",
        "0",
        "-1",
        "1e999",
        "18446744073709551616",
        "1.5",
        "null",
        "true",
        "\"\\u0000\"",
        "\"\\ud800\"",
        "\u{fffd}",
        "\u{ff}",
    ]);
    prop_oneof![
        prop::collection::vec(token.clone(), 0..40).prop_map(|t| t.concat().into_bytes()),
        (
            prop::collection::vec(token, 0..40),
            any::<usize>(),
            any::<u8>()
        )
            .prop_map(|(t, at, byte)| {
                let mut b = t.concat().into_bytes();
                let at = at % (b.len() + 1);
                b.insert(at, byte);
                b
            }),
    ]
}

/// Read messages until the end, an error, or a bound: never panics.
fn drain<T: for<'de> serde::Deserialize<'de>>(bytes: &[u8]) {
    let mut input = Cursor::new(bytes);
    for _ in 0..=bytes.len() {
        match receive::<T>(&mut input) {
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => break,
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(5000)))]

    #[test]
    fn config_from_arbitrary_text(text in any::<String>()) {
        check_config(&text)?;
    }

    #[test]
    fn config_from_toml_like_text(text in prop::collection::vec(text_char(), 0..200)) {
        check_config(&text.into_iter().collect::<String>())?;
    }

    #[test]
    fn config_from_mutated_tournament(edits in prop::collection::vec(edit(), 0..8)) {
        if edits.is_empty() {
            prop_assert!(config::parse(TOURNAMENT, "t.toml", Path::new(".")).is_ok());
        }
        check_config(&mutate(TOURNAMENT, &edits))?;
    }

    #[test]
    fn config_from_mutated_examples(
        seed in proptest::sample::select(vec![SPRT_GATE, COMPACT, &UNCOMMENTED]),
        edits in prop::collection::vec(edit(), 0..6),
    ) {
        check_config(&mutate(seed, &edits))?;
    }

    #[test]
    fn memory_limits_from_size_like_text(text in "[ 0-9.eE+-]{0,12}(B|kB|KB|MB|GB|TB|KiB|MiB|GiB|TiB|gib|[a-zA-Z]{0,3})?") {
        if let Ok(bytes) = config::parse_bytes(&text) {
            prop_assert!(bytes >= 1, "{} parsed as {}", text, bytes);
        }
        let quoted = text.replace(['\\', '"'], "");
        let file = TOURNAMENT.replacen(
            "options = { Hash = 32 }\n",
            &format!("options = {{ Hash = 32 }}\nmemory-limit = \"{quoted}\"\n"),
            1,
        );
        match config::parse(&file, "t.toml", Path::new(".")) {
            Ok(t) => prop_assert!(t.engines[0].memory_limit.is_some_and(|b| b >= 64 << 20)),
            Err(e) => prop_assert!(e.to_string().starts_with("t.toml:"), "{}", e),
        }
    }

    #[test]
    fn engine_time_tables_from_random_keys(
        entries in prop::collection::vec(
            (
                proptest::sample::select(vec![
                    "base", "increment", "move-time", "depth", "nodes", "margin",
                    "stall-timeout", "bogus",
                ]),
                proptest::sample::select(vec![
                    "0", "1", "-1", "0.5", "1e9", "1e400", "\"3\"", "true", "4294967296",
                    "18446744073709551616", "nan", "inf",
                ]),
            ),
            0..5,
        )
    ) {
        let table = entries
            .iter()
            .map(|(k, v)| format!("{k} = {v}"))
            .collect::<Vec<_>>()
            .join(", ");
        let file = TOURNAMENT.replacen(
            "options = { Hash = 32 }\n",
            &format!("options = {{ Hash = 32 }}\ntime = {{ {table} }}\n"),
            1,
        );
        check_config(&file)?;
        if let Ok(t) = config::parse(&file, "t.toml", Path::new(".")) {
            let own = t.engines[0].time.expect("an engine time table that parsed");
            prop_assert_eq!(t.time_rules(0), own);
            prop_assert!(t.time_description().starts_with("strong "));
        }
    }

    #[test]
    fn openings_from_arbitrary_text(text in any::<String>()) {
        check_openings(&text)?;
    }

    #[test]
    fn openings_from_mutated_xot_lines(
        picks in prop::collection::vec(any::<prop::sample::Index>(), 1..6),
        edits in prop::collection::vec(edit(), 0..6),
    ) {
        let lines: Vec<&str> = XOT.lines().collect();
        let text: String = picks.iter().map(|i| format!("{}\n", i.get(&lines))).collect();
        check_openings(&mutate(&text, &edits))?;
    }

    #[test]
    fn openings_from_move_like_text(text in "([a-hA-H][1-8]|[pP][aA]|[ #\\n]|[XO\\-;:+0-9]){0,70}") {
        check_openings(&text)?;
    }

    #[test]
    fn ggf_of_random_games(
        seed in any::<u64>(),
        book in 0usize..10,
        len in prop_oneof![Just(usize::MAX), 0usize..70],
        names in (name(), name()),
        extras in prop::collection::vec((prop::option::of(score()), prop::option::of(any::<u64>())), 0..70),
        termination in termination(),
        score in any::<i32>(),
    ) {
        let r = random_record(seed, book, len, names, extras, termination, score);
        check_ggf(&r)?;
    }

    #[test]
    fn receive_request_from_arbitrary_bytes(bytes in any::<Vec<u8>>()) {
        drain::<Request>(&bytes);
    }

    #[test]
    fn receive_reply_from_arbitrary_bytes(bytes in any::<Vec<u8>>()) {
        drain::<Reply>(&bytes);
    }

    #[test]
    fn receive_from_json_like_bytes(bytes in json_like()) {
        drain::<Request>(&bytes);
        drain::<Reply>(&bytes);
    }

    #[test]
    fn requests_round_trip(msgs in prop::collection::vec(request(), 1..5)) {
        let mut buf = Vec::new();
        for m in &msgs {
            send(&mut buf, m).expect("writing to a Vec");
        }
        prop_assert_eq!(buf.iter().filter(|&&b| b == b'\n').count(), msgs.len());
        let mut input = Cursor::new(buf);
        for m in &msgs {
            let got = receive::<Request>(&mut input).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(got.as_ref(), Some(m));
        }
        prop_assert!(receive::<Request>(&mut input).expect("end").is_none());
    }

    #[test]
    fn replies_round_trip(msgs in prop::collection::vec(reply(), 1..4)) {
        let mut buf = Vec::new();
        for m in &msgs {
            send(&mut buf, m).expect("writing to a Vec");
        }
        prop_assert_eq!(buf.iter().filter(|&&b| b == b'\n').count(), msgs.len());
        let mut input = Cursor::new(buf);
        for m in &msgs {
            let got = receive::<Reply>(&mut input)
                .map_err(|e| TestCaseError::fail(e.to_string()))?
                .ok_or_else(|| TestCaseError::fail("missing reply"))?;
            // Floats only to the last bits: see `reply_floats_round_trip_exactly`.
            prop_assert!(same_reply(&got, m), "sent {:?}, received {:?}", m, got);
        }
        prop_assert!(receive::<Reply>(&mut input).expect("end").is_none());
    }
}

/// Equal up to a few ulps (subnormals included).
fn close(a: f64, b: f64) -> bool {
    a == b
        || (a.is_sign_negative() == b.is_sign_negative() && a.to_bits().abs_diff(b.to_bits()) <= 4)
}

fn same_info(a: &WireInfo, b: &WireInfo) -> bool {
    close(a.score, b.score)
        && WireInfo {
            score: 0.0,
            ..a.clone()
        } == WireInfo {
            score: 0.0,
            ..b.clone()
        }
}

fn same_reply(a: &Reply, b: &Reply) -> bool {
    match (a, b) {
        (Reply::Info { search: s, info: x }, Reply::Info { search: t, info: y }) => {
            s == t && same_info(x, y)
        }
        (
            Reply::Moved {
                search: s,
                token: k,
                mv: m,
                info: x,
            },
            Reply::Moved {
                search: t,
                token: l,
                mv: n,
                info: y,
            },
        ) => (s, k, m) == (t, l, n) && same_info(x, y),
        (Reply::Hello { plugin: x }, Reply::Hello { plugin: y }) => {
            let strip = |p: &PluginInfo| PluginInfo {
                options: p
                    .options
                    .iter()
                    .map(|o| OptionInfo {
                        min: 0.0,
                        max: 0.0,
                        ..o.clone()
                    })
                    .collect(),
                ..p.clone()
            };
            strip(x) == strip(y)
                && x.options.len() == y.options.len()
                && x.options
                    .iter()
                    .zip(&y.options)
                    .all(|(o, p)| close(o.min, p.min) && close(o.max, p.max))
        }
        _ => a == b,
    }
}

/// Regression (found by `replies_round_trip`): a float sent by `send` came back one ulp off from
/// `receive`, because `serde_json` parses floats inexactly without its `float_roundtrip`
/// feature (now on for the workspace). Engine scores must reach the journal exactly.
#[test]
fn reply_floats_round_trip_exactly() {
    for score in [
        -18.896683766253346,
        -3.598589456756224e-203,
        -1.45693739947798e-309,
    ] {
        let m = Reply::Info {
            search: 1,
            info: WireInfo {
                score,
                ..WireInfo::default()
            },
        };
        let mut buf = Vec::new();
        send(&mut buf, &m).unwrap();
        let got = receive::<Reply>(&mut Cursor::new(buf)).unwrap();
        assert_eq!(got, Some(m));
    }
}

#[test]
fn config_seeds_are_valid() {
    for seed in [TOURNAMENT, SPRT_GATE, COMPACT] {
        if let Err(e) = config::parse(seed, "t.toml", Path::new(".")) {
            panic!("{e}\n{seed}");
        }
    }
}

/// Regression (found by reading `ggf::escape`): engine names can hold any character
/// (`name = "a\rb"` is a valid tournament file) and `\r` was kept, so a GGF record could be
/// broken in two by a tool that splits lines on CR.
#[test]
fn ggf_names_with_carriage_returns_stay_on_one_line() {
    let r = random_record(
        1,
        0,
        10,
        ("a\rb".into(), "c\r\nd".into()),
        Vec::new(),
        Termination::Normal,
        0,
    );
    let g = write_game(&r);
    assert!(!g.contains(['\r', '\n']), "{g:?}");
}
