//! The header compiles as strict C11 and agrees with the Rust mirror on every size and offset.

use othello_abi::*;
use std::mem::{offset_of, size_of};
use std::path::Path;
use std::process::Command;

/// The environment variable naming a layout program built beforehand for the target by its
/// own C compiler (`.ci/wine-check` builds it with mingw-w64 for the Windows test run under
/// Wine, where no C compiler can be started).
const PREBUILT: &str = "OE_ABI_LAYOUT_PROGRAM";

/// Compile (with `CC`, else `cc`) and run `tests/layout.c`, which prints `name value` lines for
/// sizes and offsets; or run the program `OE_ABI_LAYOUT_PROGRAM` names.
fn c_layout() -> Vec<(String, usize)> {
    let dir = std::env::temp_dir().join(format!("othello-abi-layout-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = match std::env::var_os(PREBUILT) {
        Some(program) => program.into(),
        None => {
            let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("include");
            let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/layout.c");
            let exe = dir.join("layout");
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
            exe
        }
    };
    let out = Command::new(&exe)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    assert!(out.status.success(), "{} failed", exe.display());
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
