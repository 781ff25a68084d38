//! Entering and leaving the full-screen terminal: raw mode and the alternate screen, restored
//! on every way out (normal return, error, panic).

use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::cursor::{Hide, Show};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::Terminal;
use std::io::{stdout, Stdout};
use std::sync::Once;

pub type Term = Terminal<CrosstermBackend<Stdout>>;

/// Leave the alternate screen and raw mode, show the cursor. Safe to call more than once.
pub fn restore() {
    let _ = disable_raw_mode();
    let _ = execute!(stdout(), LeaveAlternateScreen, Show);
}

/// Install (once per process) a panic hook that restores the terminal, then calls the
/// previous hook, so that the panic message is readable on the normal screen.
fn install_panic_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}

/// The terminal in full-screen mode; restored when dropped.
pub struct Screen {
    pub terminal: Term,
}

impl Screen {
    pub fn enter() -> std::io::Result<Screen> {
        install_panic_hook();
        enable_raw_mode()?;
        let entered = execute!(stdout(), EnterAlternateScreen, Hide)
            .and_then(|()| Terminal::new(CrosstermBackend::new(stdout())));
        match entered {
            Ok(terminal) => Ok(Screen { terminal }),
            Err(e) => {
                restore();
                Err(e)
            }
        }
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        restore();
    }
}
