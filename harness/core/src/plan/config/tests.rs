use super::*;

/// A valid file; tests break one thing at a time. Line numbers matter: see the comments.
const GOOD: &str = r#"[tournament]
format = "round-robin"
pairs = 3
concurrency = 2
out = "results/rr"

[time]
base = 10.0
increment = 0.1
margin = 0.5

[openings]
file = "openings/mine.txt"
order = "shuffled"
seed = 7
start = 5

[[engine]]
name = "alpha"
plugin = "heuristic"
options = { Depth = 7, Pruning = "alphabeta", Ratio = 0.5, Book = true }

[[engine]]
name = "beta"
plugin = "plugins/libbeta.so"

[[engine]]
name = "gamma"
plugin = "greedy"
"#;

fn good() -> Tournament {
    parse(GOOD, "dir/t.toml", Path::new("dir")).unwrap()
}

/// Parse `text` as `bad.toml`, expect an error, check it names the file, `line` and every
/// fragment, and return the message.
fn err(text: &str, line: usize, fragments: &[&str]) -> String {
    let e = parse(text, "bad.toml", Path::new("")).expect_err("should not parse");
    let msg = e.to_string();
    assert_eq!(e.line(), Some(line), "{msg}");
    assert!(msg.starts_with(&format!("bad.toml:{line}:")), "{msg}");
    for f in fragments {
        assert!(msg.contains(f), "`{f}` not in: {msg}");
    }
    msg
}

fn edit(from: &str, to: &str) -> String {
    assert!(GOOD.contains(from), "{from}");
    GOOD.replacen(from, to, 1)
}

/// `tournament.toml` claims every key is in it (set or commented): each table's keys, as
/// serde lists them for an unknown one, must appear there as `key =` (it once lacked
/// `stop-file`, `fail-on` and the `[sprt]` fail keys).
#[test]
fn the_default_tournament_mentions_every_key() {
    let probes = [
        ("[tournament]\nzzz = 1\n", "tournament"),
        ("[tournament]\nformat = \"match\"\npairs = 1\n[time]\nzzz = 1\n", "time"),
        ("[tournament]\nformat = \"match\"\npairs = 1\n[time]\ndepth = 1\n[openings]\nzzz = 1\n", "openings"),
        ("[tournament]\nformat = \"match\"\npairs = 1\n[time]\ndepth = 1\n[openings]\nbuiltin = \"xot-small\"\n[[engine]]\nzzz = 1\n", "engine"),
        ("[tournament]\nformat = \"match\"\npairs = 1\n[time]\ndepth = 1\n[openings]\nbuiltin = \"xot-small\"\n[sprt]\nzzz = 1\n", "sprt"),
        ("[tournament]\nformat = \"match\"\npairs = 1\n[time]\ndepth = 1\n[openings]\nbuiltin = \"xot-small\"\n[adjudication]\nzzz = 1\n", "adjudication"),
        ("[tournament]\nformat = \"match\"\npairs = 1\n[time]\ndepth = 1\n[openings]\nbuiltin = \"xot-small\"\n[tune]\nzzz = 1\n", "tune"),
    ];
    let mut missing = Vec::new();
    for (text, table) in probes {
        let message = parse(text, "probe.toml", Path::new(""))
            .unwrap_err()
            .to_string();
        let listed = message
            .split_once("expected one of ")
            .unwrap_or_else(|| panic!("{table}: {message}"))
            .1;
        for key in listed.split(", ").map(|k| k.trim_matches('`')) {
            let mentioned = DEFAULT_TOURNAMENT.lines().any(|l| {
                let l = l.trim_start_matches(['#', ' ']);
                l.starts_with(&format!("{key} =")) || l.contains(&format!("{{ {key} ="))
            });
            if !mentioned {
                missing.push(format!("{table}.{key}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "tournament.toml does not mention {missing:?}"
    );
}

/// A seed without a shuffle is an error, never ignored.
#[test]
fn a_seed_needs_a_shuffle() {
    err(
        &edit("order = \"shuffled\"\n", ""),
        14,
        &["key `seed`", "order = \"shuffled\""],
    );
    err(
        &edit("order = \"shuffled\"", "order = \"sequential\""),
        15,
        &["key `seed`"],
    );
}

/// An engine declares its threads with `threads`, else its `Threads` option, else 1; `threads`
/// is from 1 to 1024.
#[test]
fn an_engine_declares_its_threads() {
    let t = parse(GOOD, "t.toml", Path::new("")).unwrap();
    assert!(t.engines.iter().all(|e| e.declared_threads() == 1));
    let keyed = edit(
        "plugin = \"plugins/libbeta.so\"\n",
        "plugin = \"plugins/libbeta.so\"\nthreads = 4\n",
    );
    let t = parse(&keyed, "t.toml", Path::new("")).unwrap();
    assert_eq!(t.engines[1].threads, Some(4));
    assert_eq!(t.engines[1].declared_threads(), 4);
    err(
        &keyed.replace("threads = 4", "threads = 0"),
        26,
        &["key `threads`", "from 1 to 1024"],
    );
    let option = [("Threads".to_string(), "8".to_string())];
    assert_eq!(super::declared_threads(None, &option), 8);
    assert_eq!(super::declared_threads(Some(2), &option), 2);
}

/// `memory-limit` takes bytes as a number or a size as a string; a range that starts at one
/// says so (`pairs = -3` is refused with "from 1").
#[test]
fn memory_limits_in_bytes_and_ranges_that_start_at_one() {
    let bytes = edit(
        "plugin = \"plugins/libbeta.so\"\n",
        "plugin = \"plugins/libbeta.so\"\nmemory-limit = 2147483648\n",
    );
    let t = parse(&bytes, "t.toml", Path::new("")).unwrap();
    assert_eq!(t.engines[1].memory_limit, Some(2 << 30));
    err(
        &bytes.replace("2147483648", "-5"),
        26,
        &["key `memory-limit`", "give bytes"],
    );
    err(
        &edit("pairs = 3", "pairs = -3"),
        3,
        &["from 1 to 4294967295"],
    );
    err(
        &edit("concurrency = 2", "concurrency = -1"),
        4,
        &["from 1 to"],
    );
}

#[test]
fn an_engine_may_have_its_own_time_rules() {
    let t = parse(
        &edit(
            "plugin = \"plugins/libbeta.so\"\n",
            "plugin = \"plugins/libbeta.so\"\ntime = { move-time = 3.0, stall-timeout = 9 }\nmemory-limit = \"1GiB\"\n",
        ),
        "t.toml",
        Path::new(""),
    )
    .unwrap();
    let shared = TimeRules {
        control: TimeControl::Clock {
            base: Duration::from_secs(10),
            increment: Duration::from_millis(100),
        },
        margin: Duration::from_millis(500),
        stall_timeout: Duration::from_secs(60),
    };
    assert_eq!(t.time_rules(0), shared);
    // Its own control and stall timeout; the margin it left out is the tournament's.
    assert_eq!(
        t.time_rules(1),
        TimeRules {
            control: TimeControl::MoveTime(Duration::from_secs(3)),
            margin: Duration::from_millis(500),
            stall_timeout: Duration::from_secs(9),
        }
    );
    assert_eq!(t.engines[1].memory_limit, Some(1 << 30));
    assert_eq!(
        t.time_description(),
        "alpha 10s+0.1s, beta 3s/move, gamma 10s+0.1s"
    );
    assert_eq!(good().time_description(), "10s+0.1s");
    // The same rules as the [time] table: exactly one limit.
    err(
        &edit(
            "plugin = \"plugins/libbeta.so\"\n",
            "plugin = \"plugins/libbeta.so\"\ntime = { depth = 3, nodes = 10 }\n",
        ),
        26,
        &["key `nodes`", "conflicts with `depth`"],
    );
    err(
        &edit(
            "plugin = \"plugins/libbeta.so\"\n",
            "plugin = \"plugins/libbeta.so\"\nmemory-limit = \"12MiB\"\n",
        ),
        26,
        &["key `memory-limit`", "at least 64MiB"],
    );
}

#[test]
fn good_file_parses() {
    let t = good();
    assert_eq!(t.source, "dir/t.toml");
    assert_eq!(t.format, Format::RoundRobin);
    assert_eq!(t.pairs, 3);
    assert_eq!(t.concurrency, 2);
    assert_eq!(t.out, Path::new("dir/results/rr"));
    assert_eq!(
        t.time.control,
        TimeControl::Clock {
            base: Duration::from_secs(10),
            increment: Duration::from_millis(100)
        }
    );
    assert_eq!(t.time.control.to_string(), "10s+0.1s");
    assert_eq!(t.time.margin, Duration::from_millis(500));
    assert_eq!(t.time.stall_timeout, Duration::from_secs(60));
    assert_eq!(
        t.openings,
        OpeningsConfig {
            source: OpeningSource::File(PathBuf::from("dir/openings/mine.txt")),
            order: OpeningOrder::Shuffled { seed: 7 },
            start: 5,
        }
    );
    let names: Vec<_> = t.engines.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["alpha", "beta", "gamma"]);
    assert_eq!(t.engines[0].plugin, PluginRef::Name("heuristic".into()));
    assert_eq!(
        t.engines[1].plugin,
        PluginRef::Path(PathBuf::from("dir/plugins/libbeta.so"))
    );
    let options: Vec<(&str, &str)> = t.engines[0]
        .options
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        options,
        [
            ("Depth", "7"),
            ("Pruning", "alphabeta"),
            ("Ratio", "0.5"),
            ("Book", "true")
        ]
    );
    assert!(t.engines[2].options.is_empty());
    assert_eq!(t.pairings(), [(0, 1), (0, 2), (1, 2)]);
    assert_eq!(t.game_count(), 18);
}

#[test]
fn defaults() {
    let text = r#"
[tournament]
format = "match"
pairs = 1
[time]
depth = 4
[openings]
builtin = "xot-large"
[[engine]]
name = "a"
plugin = "a"
[[engine]]
name = "a2"
plugin = "a"
"#;
    let t = parse(text, "some/where/quick.toml", Path::new("some/where")).unwrap();
    assert!(t.concurrency >= 1);
    assert_eq!(t.out, Path::new("some/where/out/quick"));
    assert_eq!(t.time.control, TimeControl::Depth(4));
    assert_eq!(t.time.margin, Duration::from_millis(200));
    assert_eq!(t.time.stall_timeout, Duration::from_secs(60));
    assert_eq!(
        t.openings.source,
        OpeningSource::Builtin("xot-large".into())
    );
    assert_eq!(t.openings.order, OpeningOrder::Sequential);
    assert_eq!(t.openings.start, 1);
    assert_eq!(t.pairings(), [(0, 1)]);
    let shuffled = text.replace(
        "builtin = \"xot-large\"",
        "builtin = \"xot-large\"\norder = \"shuffled\"",
    );
    let t = parse(&shuffled, "q.toml", Path::new("")).unwrap();
    assert_eq!(t.openings.order, OpeningOrder::Shuffled { seed: 0 });
    let t = parse(
        &text.replace("depth = 4", "nodes = 5000"),
        "q",
        Path::new(""),
    )
    .unwrap();
    assert_eq!(t.time.control, TimeControl::Nodes(5000));
    let t = parse(
        &text.replace("depth = 4", "move-time = 1"),
        "q",
        Path::new(""),
    )
    .unwrap();
    assert_eq!(
        t.time.control,
        TimeControl::MoveTime(Duration::from_secs(1))
    );
    let t = parse(&text.replace("depth = 4", "base = 3"), "q", Path::new("")).unwrap();
    assert_eq!(
        t.time.control,
        TimeControl::Clock {
            base: Duration::from_secs(3),
            increment: Duration::ZERO
        }
    );
}

#[test]
fn gauntlet_pairings() {
    let t = parse(&edit("round-robin", "gauntlet"), "g.toml", Path::new("")).unwrap();
    assert_eq!(t.pairings(), [(0, 1), (0, 2)]);
}

#[test]
fn repo_file_and_embedded_default_parse() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tournament.toml");
    let t = load(&path).unwrap();
    assert_eq!(t.format, Format::Gauntlet);
    assert_eq!(
        t.openings.source,
        OpeningSource::Builtin("xot-small".into())
    );
    assert!(matches!(t.openings.order, OpeningOrder::Shuffled { .. }));
    let names: Vec<_> = t.engines.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["strong", "heuristic", "minimax", "greedy"]);
    assert!(matches!(t.time.control, TimeControl::Clock { .. }));
    assert!(t.out.ends_with("out/default"));

    let d = embedded_default();
    assert_eq!(d.source, EMBEDDED_SOURCE);
    assert_eq!(d.engines, t.engines);
    assert_eq!(d.openings, t.openings);
    assert_eq!(d.time, t.time);
    assert!(d.openings.load().unwrap().len() == 3_623);
}

#[test]
fn read_errors_name_the_path() {
    let e = load(Path::new("/nonexistent/t.toml")).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("/nonexistent/t.toml: cannot read"),
        "{e}"
    );
    assert_eq!(e.line(), None);
}

#[test]
fn plugin_resolution() {
    let dir = Path::new("/build/out");
    let name = PluginRef::Name("greedy".into()).resolve(dir);
    let expected = format!(
        "{}greedy{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    assert_eq!(name, dir.join(expected));
    let path = PluginRef::Path(PathBuf::from("x/libq.so"));
    assert_eq!(path.resolve(dir), Path::new("x/libq.so"));
    assert!(PluginRef::is_path("engine.dll"));
    assert!(PluginRef::is_path("./engine"));
    assert!(!PluginRef::is_path("engine"));
    assert!(default_plugin_dir().unwrap().is_dir());
}

#[test]
fn command_line_plugin_names_and_paths() {
    let dir = Path::new("/plugins");
    let p = PluginRef::parse("strong", Path::new(""))
        .locate(Some(dir))
        .unwrap();
    assert!(p.starts_with(dir) && p.to_string_lossy().contains("strong"));
    for path in ["./libx.so", "x.dll", "a\\b"] {
        assert_eq!(
            PluginRef::parse(path, Path::new(""))
                .locate(Some(dir))
                .unwrap(),
            PathBuf::from(path)
        );
    }
}

#[test]
fn toml_syntax_error() {
    err(&edit("pairs = 3", "pairs = = 3"), 3, &[]);
    err(&edit("[time]", "[time"), 7, &[]);
}

#[test]
fn unknown_keys() {
    err(
        &edit("pairs = 3", "pair = 3"),
        3,
        &["bad.toml:3:1:", "unknown field `pair`"],
    );
    err(
        &edit("margin = 0.5", "margn = 0.5"),
        10,
        &["unknown field `margn`"],
    );
    err(&edit("seed = 7", "sead = 7"), 15, &["unknown field `sead`"]);
    err(
        &edit("name = \"beta\"", "nam = \"beta\""),
        24,
        &["unknown field `nam`"],
    );
    err(
        &format!("{GOOD}\n[extra]\nx = 1\n"),
        31,
        &["unknown field `extra`"],
    );
}

#[test]
fn missing_keys() {
    err(&edit("pairs = 3\n", ""), 1, &["missing field `pairs`"]);
    err(
        &edit("plugin = \"greedy\"\n", ""),
        27,
        &["missing field `plugin`"],
    );
}

#[test]
fn time_specs_of_the_command_line() {
    let secs = Duration::from_secs_f64;
    assert_eq!(
        parse_time_spec("10+0.1"),
        Ok(TimeControl::Clock {
            base: secs(10.0),
            increment: secs(0.1)
        })
    );
    assert_eq!(
        parse_time_spec("60"),
        Ok(TimeControl::Clock {
            base: secs(60.0),
            increment: Duration::ZERO
        })
    );
    assert_eq!(
        parse_time_spec("0.5/move"),
        Ok(TimeControl::MoveTime(secs(0.5)))
    );
    assert_eq!(parse_time_spec("depth=6"), Ok(TimeControl::Depth(6)));
    assert_eq!(parse_time_spec("nodes=1000"), Ok(TimeControl::Nodes(1000)));
    for bad in [
        "", "fast", "0", "-1+1", "depth=0", "nodes=x", "1+-2", "inf", "NaN/move",
    ] {
        assert!(parse_time_spec(bad).is_err(), "{bad}");
    }
}

/// A schedule too large to hold (`pairs = 4000000000`) is an error before anything is
/// allocated, never an aborted process.
#[test]
fn a_schedule_too_large_is_refused() {
    err(
        &edit("pairs = 3", "pairs = 4000000000"),
        3,
        &[
            "key `pairs`",
            "at most 833333 with 3 engine pairing(s)",
            "5000000 games",
        ],
    );
    err(&edit("pairs = 3", "pairs = 833334"), 3, &["key `pairs`"]);
    assert!(parse(
        &edit("pairs = 3", "pairs = 833333"),
        "t.toml",
        Path::new(".")
    )
    .is_ok());
}

#[test]
fn wrong_types() {
    err(
        &edit("pairs = 3", "pairs = \"3\""),
        3,
        &["key `pairs`", "\"3\" is text: expected a whole number"],
    );
    err(&edit("pairs = 3", "pairs = -1"), 3, &["key `pairs`"]);
    err(&edit("base = 10.0", "base = \"10s\""), 8, &["key `base`"]);
    err(
        &edit("concurrency = 2", "concurrency = 1.5"),
        4,
        &["key `concurrency`"],
    );
    err(
        &edit("Depth = 7", "Depth = [7]"),
        21,
        &["key `options.Depth`", "array"],
    );
    err(&edit("name = \"alpha\"", "name = 1"), 19, &["key `name`"]);
}

#[test]
fn unknown_format_and_order() {
    err(
        &edit("round-robin", "swiss"),
        2,
        &["key `format`", "unknown variant `swiss`", "round-robin"],
    );
    err(
        &edit("\"shuffled\"", "\"random\""),
        14,
        &["key `order`", "unknown variant `random`"],
    );
}

#[test]
fn zero_counts() {
    let m = err(&edit("pairs = 3", "pairs = 0"), 3, &["key `pairs`"]);
    assert_eq!(m, "bad.toml:3: key `pairs`: must be at least 1");
    err(
        &edit("concurrency = 2", "concurrency = 0"),
        4,
        &["key `concurrency`", "at least 1"],
    );
    err(
        &edit("start = 5", "start = 0"),
        16,
        &["key `start`", "at least 1"],
    );
    err(
        &edit("out = \"results/rr\"", "out = \"\""),
        5,
        &["key `out`", "empty"],
    );
}

#[test]
fn time_section_errors() {
    err(
        &edit("base = 10.0\nincrement = 0.1\n", ""),
        7,
        &["key `time`", "needs one of"],
    );
    err(
        &edit("increment = 0.1", "increment = 0.1\ndepth = 3"),
        10,
        &["key `depth`", "conflicts with `base` on line 8"],
    );
    err(
        &edit("base = 10.0", "move-time = 1.0"),
        9,
        &["key `increment`", "only allowed with `base`"],
    );
    err(
        &edit("base = 10.0", "base = -1.0"),
        8,
        &["key `base`", "negative"],
    );
    err(
        &edit("base = 10.0", "base = 0"),
        8,
        &["key `base`", "more than 0"],
    );
    err(
        &edit("base = 10.0", "base = nan"),
        8,
        &["key `base`", "finite"],
    );
    err(
        &edit("increment = 0.1", "increment = -0.1"),
        9,
        &["key `increment`", "negative"],
    );
    err(
        &edit("margin = 0.5", "margin = -0.5"),
        10,
        &["key `margin`", "negative"],
    );
    err(
        &edit("margin = 0.5", "stall-timeout = 0"),
        10,
        &["key `stall-timeout`"],
    );
    let depth = edit("base = 10.0\nincrement = 0.1", "depth = 0");
    err(&depth, 8, &["key `depth`", "at least 1"]);
    let nodes = edit("base = 10.0\nincrement = 0.1", "nodes = 0");
    err(&nodes, 8, &["key `nodes`", "at least 1"]);
}

#[test]
fn openings_errors() {
    let both = edit(
        "order = \"shuffled\"",
        "builtin = \"xot-small\"\norder = \"shuffled\"",
    );
    err(&both, 14, &["key `builtin`", "not both"]);
    let neither = edit("file = \"openings/mine.txt\"\n", "");
    err(&neither, 12, &["key `openings`", "xot-small"]);
    let unknown = edit("file = \"openings/mine.txt\"", "builtin = \"xot-huge\"");
    err(
        &unknown,
        13,
        &["key `builtin`", "`xot-huge`", "xot-small, xot-large"],
    );
}

#[test]
fn engine_count_errors() {
    let none = GOOD[..GOOD.find("[[engine]]").unwrap()].to_string();
    err(&none, 2, &["key `engine`", "at least 2", "found 0"]);
    let one = GOOD[..GOOD.find("\n[[engine]]\nname = \"beta\"").unwrap()].to_string();
    err(
        &one,
        2,
        &["key `engine`", "round-robin needs at least 2", "found 1"],
    );
    let gauntlet_one = one.replace("round-robin", "gauntlet");
    err(
        &gauntlet_one,
        2,
        &["a gauntlet needs at least 2", "found 1"],
    );
    err(
        &edit("round-robin", "match"),
        27,
        &["key `engine`", "a match needs exactly 2", "found 3"],
    );
    err(
        &one.replace("round-robin", "match"),
        2,
        &["exactly 2", "found 1"],
    );
}

#[test]
fn engine_name_errors() {
    let dup = edit("name = \"gamma\"", "name = \"alpha\"");
    err(
        &dup,
        28,
        &["key `name`", "duplicate engine name `alpha`", "line 19"],
    );
    err(
        &edit("name = \"beta\"", "name = \" \""),
        24,
        &["key `name`", "empty"],
    );
    err(
        &edit("plugin = \"greedy\"", "plugin = \"\""),
        29,
        &["key `plugin`", "empty"],
    );
    let table = edit("Book = true", "Book = { x = 1 }");
    err(&table, 21, &["key `options.Book`", "table"]);
}

/// `[adjudication]`: its defaults, its path resolution, and an error naming the line of each
/// bad value.
#[test]
fn adjudication_is_checked_and_defaulted() {
    let t = parse(
        &format!("{GOOD}\n[adjudication]\nexact-at-empties = 20\n"),
        "dir/t.toml",
        Path::new("dir"),
    )
    .unwrap();
    let a = t.adjudication.expect("a table");
    assert_eq!(a.exact_at_empties, 20);
    assert_eq!(a.solver, PluginRef::Name(DEFAULT_SOLVER.into()));
    assert_eq!(a.solve_timeout, Duration::from_secs(60));
    let t = parse(
        &format!("{GOOD}\n[adjudication]\nexact-at-empties = 1\nsolver = \"plugins/libx.so\"\nsolver-options = {{ Hash = 8 }}\nsolve-timeout = 2.5\n"),
        "dir/t.toml",
        Path::new("dir"),
    )
    .unwrap();
    let a = t.adjudication.unwrap();
    assert_eq!(a.solver, PluginRef::Path("dir/plugins/libx.so".into()));
    assert_eq!(a.solver_options, [("Hash".to_string(), "8".to_string())]);
    assert_eq!(a.solve_timeout, Duration::from_millis(2500));
    let line = GOOD.lines().count() + 3;
    err(
        &format!("{GOOD}\n[adjudication]\nexact-at-empties = 31\n"),
        line,
        &["exact-at-empties", "1 to 30"],
    );
    err(
        &format!("{GOOD}\n[adjudication]\nexact-at-empties = 0\n"),
        line,
        &["exact-at-empties", "1 to 30"],
    );
    err(
        &format!("{GOOD}\n[adjudication]\nexact-at-empties = 20\nsolve-timeout = -1\n"),
        line + 1,
        &["solve-timeout"],
    );
    err(
        &format!("{GOOD}\n[adjudication]\nexact-at-empties = 20\nsolver = \" \"\n"),
        line + 1,
        &["solver", "must not be empty"],
    );
}

/// A definition sets the output folder only with `[tournament] out`: without it the folder is
/// the default `out/<stem>`, which `harness run` may number.
#[test]
fn a_definition_sets_out_only_with_the_key() {
    let t = good();
    assert!(t.definition.sets_out());
    let without = parse(
        &edit("out = \"results/rr\"\n", ""),
        "t.toml",
        Path::new("/d"),
    )
    .unwrap();
    assert_eq!(without.out, Path::new("/d/out/t"));
    assert!(!without.definition.sets_out());
    // A commented-out key is no folder.
    let commented = parse(
        &edit("out = \"results/rr\"\n", "# out = \"x\"\n"),
        "t.toml",
        Path::new("/d"),
    )
    .unwrap();
    assert!(!commented.definition.sets_out());
}
