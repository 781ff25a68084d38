//! The live screen of `harness run`: the coordinator plays on another thread and sends its
//! events here; this thread draws at most ~30 frames per second, draining every pending event
//! before each frame, and sets the scheduling control on the user's keys.

use super::state::{State, LINGER};
use super::terminal::Term;
use super::view::{draw_live, Overlay};
use crate::show::run_model::GameState;
use harness_core::events::{ControlState, Event, RunControl};
use ratatui::crossterm::event::{
    self, Event as TermEvent, KeyCode, KeyEvent, KeyEventKind, KeyModifiers,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

/// The shortest time between two frames.
const FRAME: Duration = Duration::from_millis(33);
/// Recompute the statistics (standings, SPRT) at most this often: they are the costly part
/// of a frame when games finish many times a second.
const STATS_REFRESH: Duration = Duration::from_millis(500);
/// Redraw at least this often when nothing happens (elapsed time, ETA).
const IDLE_REDRAW: Duration = Duration::from_millis(250);

/// What a key asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Action {
    None,
    Redraw,
    /// Leave the screen (only once the run is over or a quit was chosen and it ended).
    Exit,
}

/// The keys of the live screen. `quitting` is set once the user chose to finish or stop.
pub fn handle_key(
    key: KeyEvent,
    state: &mut State,
    overlay: &mut Overlay,
    control: &RunControl,
    quitting: &mut bool,
) -> Action {
    if key.kind != KeyEventKind::Press {
        return Action::None;
    }
    let ctrl_c = key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c');
    if ctrl_c {
        if state.run.run_finished {
            return Action::Exit;
        }
        control.set(ControlState::Stopping);
        *quitting = true;
        state.run.control = control.get();
        return Action::Redraw;
    }
    if overlay.help {
        overlay.help = false;
        return Action::Redraw;
    }
    if overlay.quit_prompt {
        match key.code {
            KeyCode::Char('f') | KeyCode::Char('F') => {
                control.set(ControlState::Finishing);
                *quitting = true;
                overlay.quit_prompt = false;
            }
            KeyCode::Char('s') | KeyCode::Char('S') => {
                control.set(ControlState::Stopping);
                *quitting = true;
                overlay.quit_prompt = false;
            }
            KeyCode::Esc | KeyCode::Char('c') | KeyCode::Char('n') => overlay.quit_prompt = false,
            _ => return Action::None,
        }
        state.run.control = control.get();
        return Action::Redraw;
    }
    match key.code {
        KeyCode::Char('q') | KeyCode::Esc | KeyCode::Enter if state.run.run_finished => {
            return Action::Exit
        }
        // Any other key on the finished screen: the viewer is there, so it stays.
        _ if state.run.run_finished && !state.stay => state.stay = true,
        KeyCode::Char('q') => overlay.quit_prompt = !*quitting,
        KeyCode::Left | KeyCode::BackTab => state.cycle(-1),
        KeyCode::Right | KeyCode::Tab => state.cycle(1),
        KeyCode::Char(d @ '1'..='9') => state.select(d as usize - '1' as usize),
        KeyCode::Char('f') => state.toggle_follow(),
        KeyCode::Char('p') | KeyCode::Char(' ') => {
            match control.get() {
                ControlState::Running => control.set(ControlState::Paused),
                ControlState::Paused => control.set(ControlState::Running),
                _ => {}
            }
            state.run.control = control.get();
        }
        KeyCode::Char('?') | KeyCode::Char('h') => overlay.help = true,
        _ => return Action::None,
    }
    Action::Redraw
}

/// Draw the live screen from the coordinator's `events` (and its plain progress `lines`) until
/// the run is over and the user leaves, or a quit was chosen and the coordinator is done.
pub fn ui_loop(
    term: &mut Term,
    events: &Receiver<Event>,
    lines: &Receiver<String>,
    control: &RunControl,
    coordinator_done: impl Fn() -> bool,
    failed: &AtomicBool,
) -> std::io::Result<()> {
    let mut state = State::new();
    let mut overlay = Overlay::default();
    let mut quitting = false;
    let mut next_frame = Instant::now();
    let mut last_draw: Option<Instant> = None;
    let mut last_stats: Option<Instant> = None;
    let mut dirty = true;
    loop {
        let wait = next_frame.saturating_duration_since(Instant::now());
        if event::poll(wait)? {
            match event::read()? {
                TermEvent::Key(key) => {
                    match handle_key(key, &mut state, &mut overlay, control, &mut quitting) {
                        Action::Exit => return Ok(()),
                        Action::Redraw => dirty = true,
                        Action::None => {}
                    }
                }
                TermEvent::Resize(..) => dirty = true,
                _ => {}
            }
            if Instant::now() < next_frame {
                continue;
            }
        }
        let now = Instant::now();
        // Check first, then drain: once the coordinator is done, every event is in the channel.
        let done = coordinator_done();
        while let Ok(e) = events.try_recv() {
            state.apply(e, now);
            dirty = true;
        }
        while let Ok(line) = lines.try_recv() {
            state.last_line = line;
        }
        state.run.control = control.get();
        if done {
            if quitting || failed.load(Ordering::SeqCst) {
                return Ok(());
            }
            if !state.run.run_finished {
                state.finish(now);
                dirty = true;
            }
            let lingered = state
                .run
                .run_ended
                .is_some_and(|t| now.duration_since(t) >= LINGER);
            if lingered && !state.stay {
                return Ok(());
            }
        }
        let ticking = state.run.live.values().any(GameState::has_clock);
        let idle = last_draw.is_none_or(|t| now.duration_since(t) >= IDLE_REDRAW);
        if dirty || ticking || idle {
            if state.run.run_finished
                || last_stats.is_none_or(|t| now.duration_since(t) >= STATS_REFRESH)
            {
                state.run.refresh();
                last_stats = Some(now);
            }
            term.draw(|f| draw_live(f, &state, overlay, now))?;
            last_draw = Some(now);
            dirty = false;
        }
        next_frame = now + FRAME;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::show::run_model::tests::{run_started, started};

    fn key(c: KeyCode) -> KeyEvent {
        KeyEvent::new(c, KeyModifiers::NONE)
    }

    /// The finished screen leaves on its own (the README's first command ends in a terminal)
    /// unless a key says someone is there.
    #[test]
    fn a_key_on_the_finished_screen_keeps_it() {
        let t0 = Instant::now();
        let mut s = State::new();
        s.apply(run_started(2, None), t0);
        s.finish(t0);
        let (mut o, c, mut q) = (Overlay::default(), RunControl::new(), false);
        assert!(!s.stay);
        assert_eq!(
            handle_key(key(KeyCode::Right), &mut s, &mut o, &c, &mut q),
            Action::Redraw
        );
        assert!(s.stay, "a key other than q keeps the screen");
        assert_eq!(
            handle_key(key(KeyCode::Char('q')), &mut s, &mut o, &c, &mut q),
            Action::Exit
        );
    }

    #[test]
    fn keys_pause_switch_and_quit() {
        let t0 = Instant::now();
        let mut s = State::new();
        s.apply(run_started(8, None), t0);
        s.apply(started(0, [None, None]), t0);
        s.apply(started(1, [None, None]), t0);
        let (mut o, c, mut q) = (Overlay::default(), RunControl::new(), false);
        let press =
            |code, s: &mut State, o: &mut Overlay, q: &mut bool| handle_key(key(code), s, o, &c, q);
        assert_eq!(
            press(KeyCode::Char('p'), &mut s, &mut o, &mut q),
            Action::Redraw
        );
        assert_eq!(s.run.control, ControlState::Paused);
        press(KeyCode::Char('p'), &mut s, &mut o, &mut q);
        assert_eq!(s.run.control, ControlState::Running);
        // Following keeps the first game on screen while it is alive.
        assert_eq!(s.shown, Some(0));
        press(KeyCode::Right, &mut s, &mut o, &mut q);
        assert_eq!(s.shown, Some(1));
        press(KeyCode::Left, &mut s, &mut o, &mut q);
        assert_eq!(s.shown, Some(0));
        press(KeyCode::Char('2'), &mut s, &mut o, &mut q);
        assert_eq!(s.shown, Some(1));
        press(KeyCode::Char('f'), &mut s, &mut o, &mut q);
        assert!(s.following());
        press(KeyCode::Char('?'), &mut s, &mut o, &mut q);
        assert!(o.help);
        press(KeyCode::Char('x'), &mut s, &mut o, &mut q);
        assert!(!o.help);
        press(KeyCode::Char('q'), &mut s, &mut o, &mut q);
        assert!(o.quit_prompt);
        press(KeyCode::Esc, &mut s, &mut o, &mut q);
        assert!(!o.quit_prompt && !q);
        press(KeyCode::Char('q'), &mut s, &mut o, &mut q);
        press(KeyCode::Char('f'), &mut s, &mut o, &mut q);
        assert!(q);
        assert_eq!(s.run.control, ControlState::Finishing);
        // Pausing after a quit is ignored; stopping still overrides finishing.
        press(KeyCode::Char('p'), &mut s, &mut o, &mut q);
        assert_eq!(s.run.control, ControlState::Finishing);
        s.apply(Event::RunFinished, t0);
        assert_eq!(
            press(KeyCode::Char('q'), &mut s, &mut o, &mut q),
            Action::Exit
        );
    }
}
