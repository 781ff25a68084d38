//! ABI 1.1 through the SDK's real function table: `search_game` hands the engine the game, and
//! `search` (the 1.0 entry) hands it the position alone. The calls are made as a host makes
//! them, through the table's function pointers.

use othello_sdk::abi;
use othello_sdk::board::{GameHistory, Move, Position};
use othello_sdk::{Engine, Metadata, SearchContext, SearchInfo, SearchOutcome, SearchRequest};
use std::sync::atomic::AtomicU32;

/// Plays the lowest legal square and reports, as its node count, how many moves of history it
/// was given (u64::MAX for none).
struct Probe;

impl Engine for Probe {
    fn metadata() -> Metadata {
        Metadata {
            name: "Probe",
            version: "0",
            author: "tests",
        }
    }
    fn new() -> Self {
        Probe
    }
    fn search(&mut self, request: &SearchRequest, _ctx: &SearchContext) -> SearchOutcome {
        if let Some(game) = &request.game {
            assert_eq!(game.position().unwrap(), request.position);
        }
        let moves = request.position.legal_moves();
        let mv = if moves == 0 {
            Move::PASS
        } else {
            Move::from_wire(moves.trailing_zeros() as i64).unwrap()
        };
        SearchOutcome {
            mv,
            info: SearchInfo {
                nodes: request
                    .game
                    .as_ref()
                    .map_or(u64::MAX, |g| g.moves.len() as u64),
                ..SearchInfo::default()
            },
        }
    }
}

othello_sdk::export_engine!(Probe);

fn wire(p: &Position) -> abi::Position {
    abi::Position {
        black: p.black(),
        white: p.white(),
        side_to_move: p.side_to_move.index() as u32,
        reserved: 0,
    }
}

#[test]
fn search_game_passes_the_game_and_search_the_position() {
    let table = othello_engine_v1();
    // SAFETY: the table is static and valid (made by export_engine!).
    let api = unsafe { &*table };
    assert_eq!((api.abi_major, api.abi_minor), (1, 1));
    assert_eq!(
        api.struct_size as usize,
        std::mem::size_of::<abi::EngineApi>()
    );
    // SAFETY: a null host is allowed (no info callback).
    let engine = unsafe { (api.create.unwrap())(std::ptr::null()) };
    assert!(!engine.is_null());
    let limits = abi::Limits {
        struct_size: abi::size_of::<abi::Limits>(),
        ..abi::Limits::default()
    };
    let stop = AtomicU32::new(0);

    let history = GameHistory {
        start: Position::START,
        moves: ["f5", "d6", "c3"]
            .iter()
            .map(|m| m.parse().unwrap())
            .collect(),
    };
    let moves: Vec<i32> = history.moves.iter().map(|m| m.wire() as i32).collect();
    let game = abi::Game {
        struct_size: abi::size_of::<abi::Game>(),
        move_count: moves.len() as u32,
        start: wire(&history.start),
        moves: moves.as_ptr(),
    };
    let mut result = abi::SearchResult::default();
    // SAFETY: live engine, pointers to locals valid during the call.
    let status = unsafe { (api.search_game.unwrap())(engine, &game, &limits, &stop, &mut result) };
    assert_eq!(status, abi::OK);
    assert_eq!(result.info.nodes, 3, "the engine saw the three moves");
    let position = history.position().unwrap();
    assert!(position.is_legal(Move::from_wire(result.mv as i64).unwrap()));

    let mut result = abi::SearchResult::default();
    // SAFETY: as above.
    let status =
        unsafe { (api.search.unwrap())(engine, &wire(&position), &limits, &stop, &mut result) };
    assert_eq!(status, abi::OK);
    assert_eq!(result.info.nodes, u64::MAX, "no game through search");

    // A game whose moves do not replay is refused before the engine sees it.
    let bad: Vec<i32> = vec![0]; // a1 is not legal from the start
    let game = abi::Game {
        move_count: 1,
        moves: bad.as_ptr(),
        ..game
    };
    // SAFETY: as above.
    let status = unsafe { (api.search_game.unwrap())(engine, &game, &limits, &stop, &mut result) };
    assert_eq!(status, abi::INVALID_ARGUMENT);
    // SAFETY: live engine, destroyed once.
    unsafe { (api.destroy.unwrap())(engine) };
}
