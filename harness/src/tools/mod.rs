//! One plugin outside a tournament, hosted in a worker exactly as in a game.
//!
//! - [`solve`]: `harness solve`, exact solves of OBF test positions;
//! - [`frontend`]: `harness nboard` and `harness gtp`, a plugin served to a GUI.

pub mod frontend;
pub mod solve;
