use super::*;
use crate::show::run_model::tests::{moved, record, run_started, started};
use harness_core::events::{Event, SideClocks};
use othello_board::{Color as Side, Position};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use std::time::Duration;

fn screen(w: u16, h: u16, draw: impl FnOnce(&mut Frame)) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(draw).unwrap();
    let buf = t.backend().buffer().clone();
    let mut out = String::new();
    for y in 0..h {
        let mut line = String::new();
        for x in 0..w {
            line.push_str(buf[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if std::env::var_os("TUI_PRINT").is_some() {
        eprintln!("{out}");
    }
    out
}

const BOTH_CLOCKS: SideClocks = [Some(Duration::from_secs(65)), Some(Duration::from_secs(30))];
const NO_CLOCKS: SideClocks = [None, None];

fn live_state(t0: Instant, c: SideClocks) -> State {
    let mut s = State::new();
    s.apply(run_started(8, None), t0);
    s.apply(started(0, c), t0);
    s.apply(started(1, c), t0);
    s.apply(moved(1, Side::Black, "c3", 2.5), t0);
    s.apply(
        Event::Thinking {
            game: 1,
            color: Side::White,
            info: crate::show::run_model::tests::info(7, -1.25, 2_000_000, 500),
        },
        t0,
    );
    s.apply(
        Event::GameFinished {
            record: Box::new(record(2, "alpha", "beta", 12)),
        },
        t0,
    );
    s.select(1);
    s.run.refresh();
    s
}

fn check_common(text: &str) {
    assert!(text.contains("alpha"), "{text}");
    assert!(text.contains("beta"), "{text}");
    assert!(
        text.contains(BLACK_DISC) && text.contains(WHITE_DISC),
        "{text}"
    );
    assert!(text.contains("Game 2"), "{text}");
    assert!(text.contains("Tournament"), "{text}");
    assert!(text.contains("1/8 games"), "{text}");
    assert!(text.contains("RUNNING"), "{text}");
}

#[test]
fn live_screen_at_80x24() {
    let t0 = Instant::now();
    let s = live_state(t0, BOTH_CLOCKS);
    let text = screen(80, 24, |f| draw_live(f, &s, Overlay::default(), t0));
    check_common(&text);
    // Compact board: coordinates and the rows after f5 d6 c3.
    assert!(text.contains("a  b  c  d  e  f  g  h"), "{text}");
    assert!(text.contains(" 3  ·  · [●] +  ·  +  ·  · "), "{text}");
    assert!(text.contains("Moves 1.f5 2.d6 3.c3 +2.50"), "{text}");
    assert!(text.contains("[●]"), "last move c3 marked:\n{text}");
    assert!(text.contains("1:05.0"), "Black's clock:\n{text}");
    assert!(
        text.contains("30.0s"),
        "White's clock, with its unit:\n{text}"
    );
    assert!(
        text.contains("Game 2 (pair 1), 3 moves played"),
        "numbered as the move list:\n{text}"
    );
    assert!(
        text.contains("g2    beta  5-2  alpha   3 moves"),
        "the games in progress count moves as the game's header:\n{text}"
    );
    assert!(text.contains("(+2.50, depth 5)"), "{text}");
    assert!(text.contains("◀ to move"), "{text}");
    assert!(
        text.contains("depth 7@100% -1.25 2.00M nodes 4.00M nps"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 24);
}

/// An engine with its own time per move plays one with a clock: the clock is shown, the
/// other side's line has none, at both sizes.
#[test]
fn a_clock_is_shown_when_only_one_side_has_one() {
    let t0 = Instant::now();
    let s = live_state(t0, [None, Some(Duration::from_secs(30))]);
    for (w, h) in [(80, 24), (120, 40)] {
        let text = screen(w, h, |f| draw_live(f, &s, Overlay::default(), t0));
        let line = |name: &str| {
            text.lines()
                .find(|l| l.contains(name) && l.contains("discs"))
                .unwrap_or_else(|| panic!("{w}x{h}: no line of {name}:\n{text}"))
                .to_string()
        };
        // Game 2: beta is Black (no clock), alpha White (30 s, to move).
        assert!(line("alpha").contains("30.0s"), "{w}x{h}:\n{text}");
        assert!(!line("beta").contains(".0s"), "{w}x{h}:\n{text}");
    }
}

/// At 80 columns the move line keeps the newest moves and lets the oldest go.
#[test]
fn the_compact_move_line_keeps_the_newest_moves() {
    let t0 = Instant::now();
    let mut s = live_state(t0, NO_CLOCKS);
    for (color, m) in [
        (Side::White, "d3"),
        (Side::Black, "c4"),
        (Side::White, "f4"),
        (Side::Black, "f6"),
        (Side::White, "f3"),
    ] {
        s.apply(moved(1, color, m, 0.5), t0);
    }
    s.run.refresh();
    let text = screen(80, 24, |f| draw_live(f, &s, Overlay::default(), t0));
    let line = text
        .lines()
        .find(|l| l.contains("Moves "))
        .unwrap_or_default();
    assert!(line.contains("8.f3 +0.50"), "the newest move:\n{text}");
    assert!(line.contains("Moves …") && !line.contains("1.f5"), "{line}");
}

/// Paused: the footer offers to resume, and the estimate of the end stops.
#[test]
fn paused_screens_say_resume_and_stop_the_eta() {
    let t0 = Instant::now();
    let mut s = live_state(t0, NO_CLOCKS);
    for (w, h) in [(80, 24), (120, 40)] {
        s.run.control = ControlState::Running;
        let text = screen(w, h, |f| draw_live(f, &s, Overlay::default(), t0));
        assert!(
            text.contains("p pause") && !text.contains("p resume"),
            "{text}"
        );
        assert!(!text.contains("ETA paused"), "{text}");
        s.run.control = ControlState::Paused;
        let text = screen(w, h, |f| draw_live(f, &s, Overlay::default(), t0));
        assert!(
            text.contains("PAUSED") && text.contains("p resume"),
            "{w}x{h}:\n{text}"
        );
        assert!(text.contains("ETA paused"), "{w}x{h}:\n{text}");
    }
}

#[test]
fn live_screen_at_120x40() {
    let t0 = Instant::now();
    let s = live_state(t0, NO_CLOCKS);
    let text = screen(120, 40, |f| draw_live(f, &s, Overlay::default(), t0));
    check_common(&text);
    assert!(text.contains("┌───┬───┬"), "grid board:\n{text}");
    assert!(text.contains("  a   b   c   d   e   f   g   h"), "{text}");
    let eval = text
        .lines()
        .find(|l| l.contains("Eval (discs, Black's view)"))
        .unwrap_or_default();
    // The key is in the title, not over the plot.
    assert!(
        eval.contains("● beta") && eval.contains("○ alpha"),
        "{text}"
    );
    assert!(text.contains("Moves"), "{text}");
    assert!(text.contains("3. ● c3"), "{text}");
    assert!(text.contains("+2.50"), "{text}");
    assert!(text.contains("Search"), "{text}");
    assert!(text.contains("alpha  v beta"), "standings:\n{text}");
    assert!(
        text.contains("g3    alpha - beta  1-0 (+12)"),
        "recent:\n{text}"
    );
}

#[test]
fn overlays_and_sprt_gauge() {
    let t0 = Instant::now();
    let mut s = State::new();
    let p = harness_core::stats::sprt::SprtParams {
        elo0: 0.0,
        elo1: 5.0,
        alpha: 0.05,
        beta: 0.05,
        model: harness_core::stats::sprt::Model::Logistic,
        unit: harness_core::stats::sprt::Unit::Pentanomial,
    };
    s.apply(run_started(8, Some(p)), t0);
    s.apply(Event::Control(ControlState::Paused), t0);
    s.run.refresh();
    let help = Overlay {
        help: true,
        quit_prompt: false,
    };
    let text = screen(80, 24, |f| draw_live(f, &s, help, t0));
    assert!(
        text.contains("Help") && text.contains("pause/resume"),
        "{text}"
    );
    assert!(text.contains("PAUSED"), "{text}");
    let text = screen(80, 24, |f| draw_live(f, &s, Overlay::default(), t0));
    assert!(
        text.contains("SPRT [0, 5] LLR +0.00 (-2.94, +2.94)"),
        "{text}"
    );
    let quit = Overlay {
        help: false,
        quit_prompt: true,
    };
    let text = screen(120, 40, |f| draw_live(f, &s, quit, t0));
    assert!(text.contains("finish the games in flight"), "{text}");
    assert!(text.contains("stop now"), "{text}");
}

#[test]
fn replay_screen_at_both_sizes() {
    let r = record(4, "alpha", "beta", 20);
    let g = GameState::from_record(&r, 3);
    for (w, h) in [(80, 24), (120, 40)] {
        let text = screen(w, h, |f| draw_replay(f, &g, 0, 1, 3));
        assert!(text.contains("Game 5 · 3/3"), "{text}");
        assert!(text.contains("Replay 1/1"), "{text}");
        assert!(
            text.contains("Result 1-0, Black +20 (disc difference), normal"),
            "{text}"
        );
        assert!(text.contains("alpha") && text.contains("beta"), "{text}");
        assert!(text.contains("[●]"), "{text}");
    }
}

#[test]
fn board_reads_without_colour() {
    let lines = board_lines(&Position::START, None, true, false);
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    assert_eq!(text[0], "    a  b  c  d  e  f  g  h");
    assert_eq!(text[4], " 4  ·  ·  +  ○  ●  ·  ·  · ");
    assert_eq!(text[5], " 5  ·  ·  ·  ●  ○  +  ·  · ");
    let big = board_lines(&Position::START, None, false, true);
    assert_eq!(big.len(), 18);
    assert_eq!(big[8].to_string(), " 4 │   │   │   │ ○ │ ● │   │   │   │");
}

/// Openings repeated with too few distinct: the standings say `[no interval]` (never `±inf`)
/// and the warning every view prints.
#[test]
fn repeated_openings_on_the_standings() {
    use crate::show::run_model::Standings;
    use crate::show::standings::Standing;
    use crate::show::tests::games;
    let three = [(0, 10, -4), (1, -8, -8), (2, -2, 0)];
    let six: Vec<_> = three.iter().chain(&three).copied().collect();
    let m = harness_core::stats::match_stats(&games(&six), "A", "B");
    let st = Standings {
        matches: vec![Standing::of(&m)],
        ratings: Vec::new(),
    };
    let text: Vec<String> = tournament::standings_lines(&st, 8)
        .iter()
        .map(ToString::to_string)
        .collect();
    let text = text.join("\n");
    assert!(text.contains("-191 [no interval]"), "{text}");
    assert!(!text.contains("inf"), "{text}");
    assert!(text.contains("warning: openings repeat"), "{text}");
}

#[test]
fn a_title_too_long_for_the_board_drops_words_never_cuts_one() {
    // The compact board has 27 columns inside its frame: `Game 800 · following · finished`
    // does not fit, and was cut to `following · fin`.
    assert_eq!(game_title(800, true, true, 27), " Game 800 · finished ");
    assert_eq!(
        game_title(800, true, true, 38),
        " Game 800 · following · finished "
    );
    assert_eq!(game_title(12345, true, true, 12), " Game 12345 ");
}
