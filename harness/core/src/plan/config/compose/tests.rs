use super::*;

fn cl() -> CommandLine {
    CommandLine {
        engines: vec![
            "name=new,plugin=./libmine.so,Hash=64".into(),
            "name=old,plugin=./old/libmine.so".into(),
        ],
        format: Some("match".into()),
        time: Some("10+0.1".into()),
        pairs: Some(2000),
        sprt: Some("elo0=0,elo1=5".into()),
        openings: Some("xot-large".into()),
        ..CommandLine::default()
    }
}

fn args() -> Vec<String> {
    vec!["run".into(), "--engine".into(), "…".into()]
}

#[test]
fn the_issues_command_is_a_match_with_a_test() {
    let c = compose(&Base::Embedded, &cl(), &args()).unwrap();
    let t = &c.tournament;
    assert_eq!(t.source, COMMAND_LINE_SOURCE);
    assert_eq!(t.definition.source, COMMAND_LINE_SOURCE);
    assert_eq!(t.format, super::super::Format::Match);
    assert_eq!(t.pairs, 2000);
    assert_eq!(t.time.control.to_string(), "10s+0.1s");
    assert_eq!(t.sprt.unwrap().params.elo1, 5.0);
    assert_eq!(
        t.openings.source,
        super::super::OpeningSource::Builtin("xot-large".into())
    );
    let names: Vec<&str> = t.engines.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["new", "old"]);
    assert_eq!(
        t.engines[0].options,
        [("Hash".to_string(), "64".to_string())]
    );
    assert_eq!(t.out, Path::new("out/new-vs-old"));
    // The default's engines are gone; its shuffled order stays (a flag replaces only its key).
    assert!(!c.text.contains("heuristic"), "{}", c.text);
    assert!(c.text.contains("seed = 2024"), "{}", c.text);
    // The document is a tournament file: the definition rebuilds the same tournament.
    let again = t.definition.parse().unwrap();
    assert_eq!(again.engines, t.engines);
    assert_eq!(again.time, t.time);
    assert_eq!(again.sprt, t.sprt);
    assert_eq!(t.definition.command.as_deref(), Some(&args()[..]));
}

/// Every error names the flag and the key, for bad input and for the validator's rules.
#[test]
fn errors_name_the_flag_and_the_key() {
    let cases: Vec<(CommandLine, &str, &str)> = vec![
        (
            CommandLine {
                engines: vec!["name=a,plugin=greedy".into(), "name=a,plugin=minimax".into()],
                ..cl()
            },
            "--engine name=a,plugin=minimax",
            "`name`: duplicate engine name `a` (also on `--engine name=a,plugin=greedy`)",
        ),
        (
            CommandLine {
                engines: vec!["name=a,plugin=greedy,memory-limit=1kB".into(), "name=b,plugin=greedy".into()],
                ..cl()
            },
            "--engine name=a,plugin=greedy,memory-limit=1kB",
            "`memory-limit`: 1000 bytes is too little",
        ),
        (
            CommandLine {
                engines: vec!["name=a,plugin=greedy,time.move-time=-1".into(), "name=b,plugin=greedy".into()],
                ..cl()
            },
            "--engine name=a,plugin=greedy,time.move-time=-1",
            "`move-time`: must not be negative",
        ),
        (
            CommandLine {
                engines: vec!["name=a,plugin=greedy,bench=many".into(), "name=b,plugin=greedy".into()],
                ..cl()
            },
            "--engine name=a,plugin=greedy,bench=many",
            "`bench`: \"many\" is text",
        ),
        (
            CommandLine { sprt: Some("elo0=5,elo1=0".into()), ..cl() },
            "--sprt elo0=5,elo1=0",
            "elo",
        ),
        (
            CommandLine { sprt: Some("elo0=0,elo1=5,zzz=1".into()), ..cl() },
            "--sprt elo0=0,elo1=5,zzz=1",
            "unknown field `zzz`",
        ),
        (
            CommandLine { time: Some("10+0.1,nps-reference=100".into()), ..cl() },
            "--time 10+0.1,nps-reference=100",
            "`nps-reference`: needs `nps-engine`",
        ),
        (
            CommandLine { time: Some("10+0.1,nps-reference=100,nps-engine=zz".into()), ..cl() },
            "--time 10+0.1,nps-reference=100,nps-engine=zz",
            "`nps-engine`: `zz` is not an engine",
        ),
        (
            CommandLine { pairs: Some(0), ..cl() },
            "--pairs 0",
            "`pairs`: must be at least 1",
        ),
        (
            CommandLine { openings: Some("nowhere.txt,start=0".into()), ..cl() },
            "--openings nowhere.txt,start=0",
            "`start`: must be at least 1",
        ),
        (
            CommandLine { format: Some("gauntlet".into()), ..cl() },
            "--sprt elo0=0,elo1=5",
            "`sprt`: a sequential test needs format = \"match\"",
        ),
        (
            CommandLine { engines: vec!["name=a,plugin=greedy".into()], ..cl() },
            "--engine",
            "`format`: format \"match\" (`--format match`) needs exactly 2 engines; --engine was given 1 time(s)",
        ),
    ];
    for (cl, flag, fragment) in cases {
        let e = compose(&Base::Embedded, &cl, &args()).unwrap_err();
        let message = e.to_string();
        assert!(
            matches!(&e, ConfigError::Flag { flag: f, .. } if f == flag),
            "{flag}: {message}"
        );
        assert!(message.starts_with(&format!("{flag}: key ")), "{message}");
        assert!(message.contains(fragment), "`{fragment}` not in: {message}");
    }
}

/// Over a file: the file's values keep their lines in errors; `--engine` replaces its engines
/// and their folder; other flags replace one key each.
#[test]
fn over_a_file_lines_stay_the_files() {
    let dir = std::env::temp_dir().join(format!("compose-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("t.toml");
    let text = "# settings\n[tournament]\nformat = \"round-robin\"\npairs = 4\n\n[time]\nmove-time = 0.5\nmargin = 0.3\n\n[openings]\nbuiltin = \"xot-small\"\n\n[[engine]]\nname = \"x\"\nplugin = \"greedy\"\n[[engine]]\nname = \"y\"\nplugin = \"greedy\"\n";
    std::fs::write(&file, text).unwrap();
    let base = Base::File(file.clone());
    let only_pairs = CommandLine {
        pairs: Some(9),
        ..CommandLine::default()
    };
    let t = compose(&base, &only_pairs, &args()).unwrap().tournament;
    assert_eq!((t.pairs, t.engines.len()), (9, 2));
    assert_eq!(t.out, dir.join("out/t"));
    let engines = CommandLine {
        engines: vec![
            "name=a,plugin=greedy".into(),
            "name=b,plugin=greedy".into(),
            "name=c,plugin=greedy".into(),
        ],
        time: Some("depth=3".into()),
        ..CommandLine::default()
    };
    let c = compose(&base, &engines, &args()).unwrap();
    let names: Vec<&str> = c
        .tournament
        .engines
        .iter()
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(names, ["a", "b", "c"]);
    assert_eq!(c.tournament.out, dir.join("out/a-vs-b-vs-c"));
    assert_eq!(c.tournament.time.control.to_string(), "depth 3");
    // The file's margin stays: a spec replaces the limit only.
    assert_eq!(c.tournament.time.margin.as_millis(), 300);
    std::fs::write(&file, text.replace("margin = 0.3", "margin = -1")).unwrap();
    let e = compose(&base, &engines, &args()).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("{}:8: key `margin`", file.display())),
        "{e}"
    );
    std::fs::write(&file, text.replace("pairs = 4", "pairs = \"four\"")).unwrap();
    let e = compose(&base, &engines, &args()).unwrap_err().to_string();
    assert!(e.starts_with(&format!("{}:4:", file.display())), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--adjudication N[,KEY=VALUE…]` reaches every key of `[adjudication]`, a path solver
/// relative to the current folder; its errors name the flag.
#[test]
fn adjudication_from_the_command_line() {
    let c = compose(
        &Base::Embedded,
        &CommandLine {
            adjudication: Some(
                "20,solver=./libsolver.so,solve-timeout=5,solver-options.Hash=8".into(),
            ),
            ..cl()
        },
        &args(),
    )
    .unwrap();
    let a = c.tournament.adjudication.expect("[adjudication]");
    assert_eq!(a.exact_at_empties, 20);
    assert_eq!(a.solve_timeout, std::time::Duration::from_secs(5));
    assert_eq!(a.solver_options, [("Hash".to_string(), "8".to_string())]);
    assert!(
        matches!(&a.solver, super::super::PluginRef::Path(p) if p.ends_with("libsolver.so")),
        "{:?}",
        a.solver
    );
    let e = compose(
        &Base::Embedded,
        &CommandLine {
            adjudication: Some("44".into()),
            ..cl()
        },
        &args(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("--adjudication 44: key `exact-at-empties`"),
        "{e}"
    );
}
