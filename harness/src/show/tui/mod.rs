//! The terminal UI: a live view of a running tournament (`harness run` on a terminal) and the
//! replay of finished games (`harness replay`).
//!
//! It only reads: the model (`state`) is built from the coordinator's event stream and the
//! journal's records, the drawing (`view`) reads the model, and the only thing sent back is
//! the scheduling control (pause, resume, finish, stop). The terminal is restored on every
//! way out, panics included (`terminal`). A tune's parameters are kept in `tune`.

pub mod live;
pub mod replay;
pub mod state;
pub mod terminal;
pub mod tune;
pub mod view;
