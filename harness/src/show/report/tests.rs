use super::*;
use harness_core::record::run_clock::Elapsed;
use harness_core::record::{OpeningRef, PerColor, PlayedMove};
use harness_core::stats::match_stats;
use serde_json::Value;

const SCHEMA: &str = include_str!("../../../../reports/report.schema.json");

fn tournament(text: &str) -> Tournament {
    harness_core::plan::config::parse(text, "test.toml", Path::new(".")).expect("valid tournament")
}

const MATCH_SPRT: &str = r#"
[tournament]
format = "match"
pairs = 10
concurrency = 2

[time]
move-time = 0.1

[openings]
builtin = "xot-small"

[sprt]
elo0 = 0.0
elo1 = 10.0

[[engine]]
name = "cand"
plugin = "heuristic"

[[engine]]
name = "base"
plugin = "minimax"
"#;

const GAUNTLET: &str = r#"
[tournament]
format = "gauntlet"
pairs = 4

[time]
depth = 3

[openings]
builtin = "xot-small"

[[engine]]
name = "A"
plugin = "heuristic"

[[engine]]
name = "B"
plugin = "minimax"

[[engine]]
name = "C"
plugin = "greedy"
"#;

fn record(game: usize, pair: usize, black: &str, white: &str, score: i32) -> GameRecord {
    GameRecord {
        game,
        pair,
        black: black.into(),
        white: white.into(),
        opening: OpeningRef {
            index: pair % 7,
            line: pair % 7 + 1,
            text: format!("f5 d6 c{}", pair % 7),
        },
        start: othello_board::Position::START.to_string(),
        moves: vec![PlayedMove {
            mv: "f5".into(),
            book: true,
            score: None,
            depth: None,
            nodes: None,
            time_ms: None,
        }],
        discs: PerColor {
            black: (32 + score / 2) as u32,
            white: (32 - score / 2) as u32,
        },
        score,
        result: GameRecord::result_text(score).into(),
        termination: Termination::Normal,
        forfeit_by: None,
        reason: String::new(),
        forfeit_position: None,
        time_loss: None,
        time_ms: PerColor {
            black: 1500,
            white: 500,
        },
        time_us: PerColor::default(),
        adjudication: None,
        nodes: PerColor::default(),
        cpu_between_turns_us: None,
        searched: Default::default(),
    }
}

fn forfeit(mut r: GameRecord, by: Color, termination: Termination, reason: &str) -> GameRecord {
    r.score = if by == Color::Black { -64 } else { 64 };
    r.result = GameRecord::result_text(r.score).into();
    r.termination = termination;
    r.forfeit_by = Some(by);
    r.reason = reason.into();
    r
}

/// `a` (the candidate) mostly wins; a time forfeit by the baseline; a lone game at the end; the
/// records out of order.
fn match_records() -> Vec<GameRecord> {
    let scores = [
        (10, -4),
        (6, 2),
        (-8, -12),
        (0, 20),
        (14, -14),
        (22, 6),
        (-2, -10),
    ];
    let mut v = Vec::new();
    for (pair, (s1, s2)) in scores.iter().enumerate() {
        // Game 1: cand Black; game 2: base Black. s1/s2 are cand's disc differences.
        v.push(record(2 * pair, pair, "cand", "base", *s1));
        v.push(record(2 * pair + 1, pair, "base", "cand", -*s2));
    }
    v[5] = forfeit(
        v[5].clone(),
        Color::Black,
        Termination::TimeForfeit,
        "base answered after 0.35 s (budget 0.1 s + margin 0.2 s)",
    );
    v.push(record(14, 7, "cand", "base", 4));
    v.reverse();
    v
}

fn input<'a>(t: &'a Tournament, records: &'a [GameRecord], finished: bool) -> ReportInput<'a> {
    ReportInput {
        tournament: t,
        records,
        elapsed: Some(Elapsed::total(std::time::Duration::from_secs(95))),
        finished,
        analysis: None,
        verdict: None,
        sandbox_enforced: &[],
        test: None,
    }
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-9, "{a} vs {b}");
}

#[test]
fn numbers_match_the_statistics() {
    let t = tournament(MATCH_SPRT);
    let records = match_records();
    let report = build(&input(&t, &records, true));
    let outcomes = harness_core::record::outcomes(&records);
    let m = match_stats(&outcomes, "cand", "base");

    assert_eq!(report.schema_version, 1);
    assert_eq!(report.pairings.len(), 1);
    let p = &report.pairings[0];
    assert_eq!((p.a.as_str(), p.b.as_str()), ("cand", "base"));
    assert_eq!(
        (p.games, p.wins, p.draws, p.losses),
        (m.games, m.wins, m.draws, m.losses)
    );
    assert_eq!(p.games, 15);
    assert_eq!(p.pentanomial, m.pentanomial);
    assert_eq!((p.pairs, p.incomplete_games), (7, 1));
    close(p.score, m.score);
    let (elo, me) = (p.elo.unwrap(), m.elo.unwrap());
    close(elo.value, me.value);
    close(elo.low.unwrap(), me.low);
    close(elo.high.unwrap(), me.high);
    close(
        p.elo_trinomial.unwrap().value,
        m.elo_trinomial.unwrap().value,
    );
    close(p.disc_diff.unwrap().value, m.disc_diff.unwrap().value);
    close(p.los.unwrap(), m.los.unwrap());
    close(p.draw_ratio, m.draw_ratio);
    let pe = m.pentanomial;
    close(
        p.pair_ratio.unwrap(),
        f64::from(pe[3] + pe[4]) / f64::from(pe[0] + pe[1]),
    );
    let sample = harness_core::stats::sprt::Sample::pentanomial(pe.map(u64::from));
    let ne = harness_core::stats::sprt::normalized_elo(
        &sample,
        harness_core::stats::sprt::Unit::Pentanomial,
    )
    .unwrap();
    close(p.normalized_elo.unwrap().value, ne.value);

    // SPRT: the final LLR is the status of the whole match, the trajectory ends there.
    let sp = report.sprt.as_ref().unwrap();
    let status = t.sprt.unwrap().params.status(&m);
    close(sp.llr, status.llr);
    assert_eq!(sp.decision, status.decision);
    assert_eq!((sp.pairs, sp.games), (7, 15));
    assert_eq!(sp.trajectory.len(), 7);
    assert_eq!(
        sp.trajectory.iter().map(|p| p.pairs).collect::<Vec<_>>(),
        (1..=7).collect::<Vec<_>>()
    );
    // The lone game 14 (pair 7) is after the last complete pair: not in the last point.
    let without_lone: Vec<GameRecord> = records.iter().filter(|r| r.pair < 7).cloned().collect();
    let m7 = match_stats(
        &harness_core::record::outcomes(&without_lone),
        "cand",
        "base",
    );
    close(sp.trajectory[6].llr, t.sprt.unwrap().params.status(&m7).llr);
    // The Elo trajectory ends at the pentanomial estimate.
    let elo_traj = elo_trajectory("cand", "base", &records);
    assert_eq!(elo_traj.last().unwrap().elo, me);

    // Openings, forfeits, totals.
    assert_eq!(report.openings.len(), 8);
    let o = &report.openings[0];
    assert_eq!((o.pair, o.games.len()), (0, 2));
    assert_eq!((o.a_points, o.a_discs), (Some(1.0), Some(6)));
    assert_eq!(report.openings[7].a_points, None);
    assert_eq!(report.forfeits.len(), 1);
    let f = &report.forfeits[0];
    assert_eq!(
        (f.engine.as_str(), f.termination, f.count, f.games.clone()),
        ("base", Termination::TimeForfeit, 1, vec![5])
    );
    assert_eq!(report.totals.games, 15);
    assert_eq!(report.totals.forfeits, 1);
    assert_eq!(report.totals.complete_pairs, 7);
    close(report.totals.elapsed_seconds.unwrap(), 95.0);
    close(report.totals.engine_seconds, 30.0);
    assert!(report.ratings.is_none());
    assert_eq!(report.tournament.planned_games, 20);

    // The input order does not matter.
    let mut shuffled = records.clone();
    shuffled.rotate_left(5);
    assert_eq!(build(&input(&t, &shuffled, true)), report);
}

/// Every `required` key of each object in the schema exists in the value, recursively; with
/// `additionalProperties: false` no other key exists either.
fn check(schema: &Value, node: &Value, value: &Value, path: &str) {
    if let Some(r) = node.get("$ref").and_then(Value::as_str) {
        let name = r.strip_prefix("#/$defs/").expect("local ref");
        check(schema, &schema["$defs"][name], value, path);
    }
    if value.is_null() {
        return;
    }
    if let Some(branches) = node.get("anyOf").and_then(Value::as_array) {
        for b in branches.iter().filter(|b| b.get("$ref").is_some()) {
            check(schema, b, value, path);
        }
    }
    if let Some(required) = node.get("required").and_then(Value::as_array) {
        let obj = value
            .as_object()
            .unwrap_or_else(|| panic!("{path}: not an object"));
        for key in required {
            let key = key.as_str().unwrap();
            assert!(obj.contains_key(key), "{path}: missing required `{key}`");
        }
    }
    if let (Some(props), Some(obj)) = (
        node.get("properties").and_then(Value::as_object),
        value.as_object(),
    ) {
        if node.get("additionalProperties") == Some(&Value::Bool(false)) {
            for key in obj.keys() {
                assert!(
                    props.contains_key(key),
                    "{path}: `{key}` is not in the schema"
                );
            }
        }
        for (key, sub) in props {
            if let Some(v) = obj.get(key) {
                check(schema, sub, v, &format!("{path}.{key}"));
            }
        }
    }
    if let (Some(items), Some(arr)) = (node.get("items"), value.as_array()) {
        for (i, v) in arr.iter().enumerate() {
            check(schema, items, v, &format!("{path}[{i}]"));
        }
    }
    if let Some(values) = node.get("enum").and_then(Value::as_array) {
        assert!(values.contains(value), "{path}: {value} not in {values:?}");
    }
}

fn check_report(report: &Report) -> Value {
    let text = serde_json::to_string_pretty(report).unwrap();
    let value: Value = serde_json::from_str(&text).expect("valid JSON");
    let schema: Value = serde_json::from_str(SCHEMA).expect("the schema is JSON");
    check(&schema, &schema, &value, "report");
    value
}

#[test]
fn json_matches_the_schema() {
    let t = tournament(MATCH_SPRT);
    let records = match_records();
    let value = check_report(&build(&input(&t, &records, true)));
    assert_eq!(value["schema_version"], 1);
    assert_eq!(value["sprt"]["params"]["model"], "logistic");
    assert_eq!(
        value["pairings"][0]["pentanomial"]
            .as_array()
            .unwrap()
            .len(),
        5
    );

    // One complete pair: the disc interval is the whole range a game's discs can take.
    let one: Vec<GameRecord> = records.iter().filter(|r| r.pair == 0).cloned().collect();
    let value = check_report(&build(&input(&t, &one, false)));
    let disc = &value["pairings"][0]["disc_diff"];
    assert!(disc["value"].is_number(), "{disc}");
    assert_eq!(
        (disc["low"].as_f64(), disc["high"].as_f64()),
        (Some(-64.0), Some(64.0))
    );
    assert_eq!(value["finished"], false);

    // No games at all.
    let value = check_report(&build(&input(&t, &[], false)));
    assert!(value["pairings"][0]["elo"].is_null());

    // A gauntlet with ratings and an all-winning engine (no lost pair: pair ratio null).
    let g = tournament(GAUNTLET);
    let records = gauntlet_records();
    let report = build(&input(&g, &records, true));
    assert!(report.sprt.is_none());
    let value = check_report(&report);
    assert_eq!(value["ratings"]["engines"].as_array().unwrap().len(), 3);
    assert_eq!(value["ratings"]["anchor"], "A");
    assert!(value["pairings"][1]["pair_ratio"].is_null());
}

fn gauntlet_records() -> Vec<GameRecord> {
    let mut v = Vec::new();
    let mut game = 0;
    for pair in 0..4 {
        for (opp, s1, s2) in [("B", 6, -2), ("C", 30, 40)] {
            let id = pair * 2 + usize::from(opp == "C");
            v.push(record(game, id, "A", opp, s1 + pair as i32 * 2 - 4));
            v.push(record(game + 1, id, opp, "A", -s2));
            game += 2;
        }
    }
    v[3] = forfeit(
        v[3].clone(),
        Color::Black,
        Termination::Crash,
        "engine C crashed: killed by signal 11 (SIGSEGV)",
    );
    v
}

#[test]
fn markdown_has_the_headline() {
    let t = tournament(MATCH_SPRT);
    let records = match_records();
    let report = build(&input(&t, &records, true));
    let md = markdown(&report);
    let first = md.lines().find(|l| l.starts_with("**")).unwrap();
    // Seven pairs on [0, 10] Elo decide nothing: the statistics' own LLR, far inside the bounds
    // ln(β/(1−α)) and ln((1−β)/α) of α = β = 0.05.
    let m = match_stats(&harness_core::record::outcomes(&records), "cand", "base");
    let llr = t.sprt.unwrap().params.status(&m).llr;
    assert!(llr.abs() < 2.9, "the fixture decides: LLR {llr}");
    assert_eq!(
        first,
        format!("**No decision**: cand vs base stopped after 7 pairs (LLR {llr:.2}, bounds [-2.94, 2.94])")
    );
    let running = markdown(&build(&input(&t, &records, false)));
    assert!(
        running.contains(&format!(
            "**Running**: cand vs base, LLR {llr:.2} within [-2.94, 2.94] after 7 pairs"
        )),
        "{running}"
    );
    assert!(md.contains("| cand | base | 15 |"));
    // Journal game 5 (0-based, as report.json keeps it) is game 6 for a person.
    assert!(md.contains("base: 1 × `time_forfeit` (games 6)"));

    // A decided test reads as a decision.
    let mut decided = report.clone();
    let set = |r: &mut Report, llr: f64, decision: Decision| {
        let s = r.sprt.as_mut().unwrap();
        (s.llr, s.decision) = (llr, decision);
    };
    set(&mut decided, 2.97, Decision::AcceptH1);
    assert!(markdown(&decided)
        .contains("**H1 accepted**: cand is stronger than base (LLR 2.97 ≥ 2.94)"));
    set(&mut decided, -3.0, Decision::AcceptH0);
    assert!(markdown(&decided).contains("**H0 accepted**: cand is not stronger than base"));

    // Without a test: the Elo of the first pairing, or the leader of the joint rating.
    let g = tournament(GAUNTLET);
    let md = markdown(&build(&input(&g, &gauntlet_records(), true)));
    assert!(md.contains("**A** tops the joint rating, "), "{md}");
    assert!(md.contains("C: 1 × `crash`"));
}

#[test]
fn html_is_self_contained_with_charts() {
    let t = tournament(MATCH_SPRT);
    let records = match_records();
    let report = build(&input(&t, &records, true));
    let page = html(&report, &records).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.ends_with("</html>\n"));
    // LLR, Elo and histogram.
    assert_eq!(page.matches("<svg").count(), 3);
    assert!(page.contains("SPRT log-likelihood ratio"));
    assert!(page.contains("time_forfeit"));
    assert_no_external_references(&page);

    let g = tournament(GAUNTLET);
    let records = gauntlet_records();
    let page = html(&build(&input(&g, &records, true)), &records).unwrap();
    assert_eq!(page.matches("<svg").count(), 4);
    assert!(page.contains("Joint rating"));
    assert_no_external_references(&page);

    // Nothing played yet: placeholders, still valid.
    let page = html(&build(&input(&g, &[], false)), &[]).unwrap();
    assert!(page.contains("No complete pair yet"));
}

fn assert_no_external_references(page: &str) {
    let mut rest = page;
    while let Some(i) = rest.find("http") {
        let tail = &rest[i..];
        assert!(
            tail.starts_with("http://www.w3.org/2000/svg")
                || tail.starts_with("http://www.w3.org/1999/xlink"),
            "external reference: {}",
            &tail[..tail.len().min(60)]
        );
        rest = &rest[i + 4..];
    }
    for attr in ["src=", "<link", "@import", "url("] {
        assert!(!page.contains(attr), "{attr}");
    }
}

#[test]
fn escapes_names_in_html() {
    let t = tournament(&MATCH_SPRT.replace("\"cand\"", "\"<b>&x</b>\""));
    let records: Vec<GameRecord> = match_records()
        .into_iter()
        .map(|mut r| {
            for n in [&mut r.black, &mut r.white] {
                if n == "cand" {
                    *n = "<b>&x</b>".into();
                }
            }
            r
        })
        .collect();
    let page = html(&build(&input(&t, &records, true)), &records).unwrap();
    assert!(!page.contains("<b>&x</b>"));
    assert!(page.contains("&lt;b&gt;&amp;x&lt;/b&gt;"));
}

/// The files are replaced, never rewritten in place: a reader that opened the reports of the
/// running tournament keeps reading them whole while the finished ones are written (a file
/// rewritten in place would show it the new text, or a truncated one), the path then reads the
/// new reports in full, and no temporary file is left.
#[test]
fn writes_three_files_atomically() {
    let dir = std::env::temp_dir().join(format!("report-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let t = tournament(MATCH_SPRT);
    let records = match_records();
    let texts = |finished: bool| {
        let report = build(&input(&t, &records, finished));
        [
            serde_json::to_string_pretty(&report).unwrap() + "\n",
            markdown(&report),
            html(&report, &records).unwrap(),
        ]
    };
    let files = [JSON_FILE, MARKDOWN_FILE, HTML_FILE];
    let read = |f: &mut std::fs::File| {
        use std::io::{Read, Seek};
        let mut text = String::new();
        f.rewind().unwrap();
        f.read_to_string(&mut text).unwrap();
        text
    };
    write_reports(&dir, &input(&t, &records, false)).unwrap();
    let mut readers: Vec<std::fs::File> = files
        .iter()
        .map(|f| std::fs::File::open(dir.join(f)).unwrap())
        .collect();
    let running = texts(false);
    for ((reader, text), name) in readers.iter_mut().zip(&running).zip(files) {
        assert!(read(reader) == *text, "{name} of the running tournament");
    }
    write_reports(&dir, &input(&t, &records, true)).unwrap();
    let finished = texts(true);
    for (i, name) in files.iter().enumerate() {
        assert_ne!(
            running[i], finished[i],
            "{name}: the test needs two versions"
        );
        assert!(
            read(&mut readers[i]) == running[i],
            "{name}: rewritten under an open reader"
        );
        let now = std::fs::read_to_string(dir.join(name)).unwrap();
        assert!(now == finished[i], "{name}: not the finished report");
    }
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, vec!["report.html", "report.json", "report.md"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Renders a report from a real run:
/// `REPORT_TOML=run.toml REPORT_JOURNAL=out/games.jsonl REPORT_OUT=/tmp/report cargo test -p
/// harness --lib render_real_report -- --ignored`.
#[test]
#[ignore]
fn render_real_report() {
    let var = |k: &str| std::env::var(k).unwrap_or_else(|_| panic!("set {k}"));
    let toml_path = std::path::PathBuf::from(var("REPORT_TOML"));
    let t = harness_core::plan::config::load(&toml_path).unwrap();
    let records =
        harness_core::record::journal::read_journal(Path::new(&var("REPORT_JOURNAL"))).unwrap();
    let out = std::path::PathBuf::from(var("REPORT_OUT"));
    write_reports(
        &out,
        &ReportInput {
            tournament: &t,
            records: &records,
            elapsed: Some(Elapsed::total(std::time::Duration::from_secs(300))),
            finished: true,
            analysis: None,
            verdict: None,
            sandbox_enforced: &[],
            test: None,
        },
    )
    .unwrap();
    check_report(&build(&input(&t, &records, true)));
}

/// A pseudo-random match of `pairs` pairs where `a` scores a little more often.
fn synthetic(pairs: usize, a: &str, b: &str, first_game: usize, seed: u64) -> Vec<GameRecord> {
    let mut state = seed;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) % 129) as i32 - 64
    };
    let mut v = Vec::new();
    for pair in 0..pairs {
        for k in 0..2 {
            // a's disc difference, biased towards a, rounded to an even number.
            let d = ((next() + next()) / 2 + 6).clamp(-64, 64) / 2 * 2;
            let game = first_game + 2 * pair + k;
            if k == 0 {
                v.push(record(game, pair, a, b, d));
            } else {
                v.push(record(game, pair, b, a, -d));
            }
        }
    }
    v
}

/// Renders reports from synthetic data: `REPORT_OUT=/tmp/x cargo test -p harness --lib
/// render_synthetic_reports -- --ignored` writes `match/` (with a test) and `gauntlet/`.
#[test]
#[ignore]
fn render_synthetic_reports() {
    let out = std::path::PathBuf::from(std::env::var("REPORT_OUT").expect("set REPORT_OUT"));
    let t = tournament(&MATCH_SPRT.replace("pairs = 10", "pairs = 300"));
    let records = synthetic(180, "cand", "base", 0, 7);
    write_reports(&out.join("match"), &input(&t, &records, false)).unwrap();
    let g = tournament(&GAUNTLET.replace("pairs = 4", "pairs = 60"));
    let mut records = synthetic(60, "A", "B", 0, 3);
    records.extend(synthetic(60, "A", "C", 120, 11));
    records[7] = forfeit(
        records[7].clone(),
        Color::White,
        Termination::TimeForfeit,
        "engine A answered after 1.35 s (budget 1 s + margin 0.2 s)",
    );
    write_reports(&out.join("gauntlet"), &input(&g, &records, true)).unwrap();
}
