//! The header compiles as strict C11 and agrees with the Rust mirror on every size and offset.

use othello_abi::*;
use std::mem::{offset_of, size_of};
use std::path::Path;
use std::process::Command;

/// Compile and run a C program that prints `name value` lines for sizes and offsets.
fn c_layout() -> Vec<(String, usize)> {
    let dir = std::env::temp_dir().join(format!("othello-abi-layout-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("include");
    let src = dir.join("layout.c");
    let exe = dir.join("layout");
    std::fs::write(
        &src,
        r#"
#include "othello_engine.h"
#include <stdio.h>
#define S(t) printf(#t " %zu\n", sizeof(t));
#define O(t, f) printf(#t "." #f " %zu\n", offsetof(t, f));
int main(void) {
    S(oe_option_desc) O(oe_option_desc, type) O(oe_option_desc, min) O(oe_option_desc, enum_count) O(oe_option_desc, help)
    S(oe_position) O(oe_position, side_to_move)
    S(oe_limits) O(oe_limits, time_left_ms) O(oe_limits, increment_ms) O(oe_limits, move_time_ms) O(oe_limits, depth) O(oe_limits, nodes)
    S(oe_search_info) O(oe_search_info, score) O(oe_search_info, nodes) O(oe_search_info, time_ms) O(oe_search_info, pv)
    S(oe_search_result) O(oe_search_result, move) O(oe_search_result, info)
    S(oe_host) O(oe_host, host_data) O(oe_host, info)
    S(oe_engine_api) O(oe_engine_api, abi_minor) O(oe_engine_api, name) O(oe_engine_api, option_count) O(oe_engine_api, options)
    O(oe_engine_api, create) O(oe_engine_api, search) O(oe_engine_api, last_error)
    O(oe_engine_api, search_game)
    printf("OE_ENGINE_API_SIZE_V1_0 %zu\n", (size_t)OE_ENGINE_API_SIZE_V1_0);
    S(oe_game) O(oe_game, move_count) O(oe_game, start) O(oe_game, moves)
    S(atomic_uint)
    return 0;
}
"#,
    )
    .unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let status = Command::new(&cc)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I"])
        .arg(&include)
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .status()
        .expect("a C compiler (cc) runs");
    assert!(status.success(), "the header does not compile as C11");
    let out = Command::new(&exe).output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (k, v) = l.rsplit_once(' ').unwrap();
            (k.to_string(), v.parse().unwrap())
        })
        .collect()
}

#[test]
fn rust_mirror_matches_the_c_header() {
    let expected: Vec<(&str, usize)> = vec![
        ("oe_option_desc", size_of::<OptionDesc>()),
        ("oe_option_desc.type", offset_of!(OptionDesc, option_type)),
        ("oe_option_desc.min", offset_of!(OptionDesc, min)),
        (
            "oe_option_desc.enum_count",
            offset_of!(OptionDesc, enum_count),
        ),
        ("oe_option_desc.help", offset_of!(OptionDesc, help)),
        ("oe_position", size_of::<Position>()),
        (
            "oe_position.side_to_move",
            offset_of!(Position, side_to_move),
        ),
        ("oe_limits", size_of::<Limits>()),
        ("oe_limits.time_left_ms", offset_of!(Limits, time_left_ms)),
        ("oe_limits.increment_ms", offset_of!(Limits, increment_ms)),
        ("oe_limits.move_time_ms", offset_of!(Limits, move_time_ms)),
        ("oe_limits.depth", offset_of!(Limits, depth)),
        ("oe_limits.nodes", offset_of!(Limits, nodes)),
        ("oe_search_info", size_of::<SearchInfo>()),
        ("oe_search_info.score", offset_of!(SearchInfo, score)),
        ("oe_search_info.nodes", offset_of!(SearchInfo, nodes)),
        ("oe_search_info.time_ms", offset_of!(SearchInfo, time_ms)),
        ("oe_search_info.pv", offset_of!(SearchInfo, pv)),
        ("oe_search_result", size_of::<SearchResult>()),
        ("oe_search_result.move", offset_of!(SearchResult, mv)),
        ("oe_search_result.info", offset_of!(SearchResult, info)),
        ("oe_host", size_of::<Host>()),
        ("oe_host.host_data", offset_of!(Host, host_data)),
        ("oe_host.info", offset_of!(Host, info)),
        ("oe_engine_api", size_of::<EngineApi>()),
        ("oe_engine_api.abi_minor", offset_of!(EngineApi, abi_minor)),
        ("oe_engine_api.name", offset_of!(EngineApi, name)),
        (
            "oe_engine_api.option_count",
            offset_of!(EngineApi, option_count),
        ),
        ("oe_engine_api.options", offset_of!(EngineApi, options)),
        ("oe_engine_api.create", offset_of!(EngineApi, create)),
        ("oe_engine_api.search", offset_of!(EngineApi, search)),
        (
            "oe_engine_api.last_error",
            offset_of!(EngineApi, last_error),
        ),
        (
            "oe_engine_api.search_game",
            offset_of!(EngineApi, search_game),
        ),
        ("OE_ENGINE_API_SIZE_V1_0", ENGINE_API_SIZE_V1_0 as usize),
        ("oe_game", size_of::<Game>()),
        ("oe_game.move_count", offset_of!(Game, move_count)),
        ("oe_game.start", offset_of!(Game, start)),
        ("oe_game.moves", offset_of!(Game, moves)),
        ("atomic_uint", size_of::<std::sync::atomic::AtomicU32>()),
    ];
    let c = c_layout();
    assert_eq!(c.len(), expected.len(), "C printed {c:?}");
    for ((cname, cval), (rname, rval)) in c.iter().zip(&expected) {
        assert_eq!(cname, rname);
        assert_eq!(cval, rval, "{cname}: C says {cval}, Rust says {rval}");
    }
}
