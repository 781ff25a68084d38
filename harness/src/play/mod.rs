//! Playing a tournament: the coordinator ([`tournament`]) hands scheduled games ([`game`]) to
//! engine workers ([`pool`]) under each game's [`clock`], once the [`preflight`] has seen every
//! engine answer a move; its [`results`] append every finished
//! game to the journal, count it and decide what may start next; [`resume`] keeps an output folder to one tournament and lets
//! an interrupted run continue; [`affinity`] pins each game's workers to cores of their own when
//! asked; [`adjudication`] ends a game by an exact solve (`[adjudication]`);
//! [`tune`] plays SPSA's θ ± c·Δ on that loop and updates θ (`harness tune`). A run's life, from
//! its checks to its verdict, is the [`conductor`]'s, which the commands drive.

mod adjudication;
pub mod affinity;
pub mod clock;
pub mod conductor;
pub mod game;
pub mod pool;
pub mod preflight;
mod results;
pub mod resume;
pub mod tournament;
pub mod tune;
