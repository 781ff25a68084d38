//! The `#[repr(C)]` mirror of `include/othello_engine.h`, ABI version 1.1.
//!
//! The header is normative: its comments give the ownership, lifetime and threading rules of
//! every call. This crate only restates the types for Rust, with the same names minus the `oe_`
//! prefix. A test compiles the header as C11 and compares every size and field offset, so the
//! two cannot drift apart silently.
//!
//! This crate holds no code that runs; `unsafe` use of these types lives in the SDK (plugin side)
//! and in the harness's loader (host side).

use std::ffi::{c_char, c_void};
use std::sync::atomic::AtomicU32;

pub const ABI_MAJOR: u16 = 1;
pub const ABI_MINOR: u16 = 1;

/// Name of the exported entry symbol, NUL-terminated for `dlsym`.
pub const ENTRY_SYMBOL_V1: &[u8] = b"othello_engine_v1\0";

pub const MOVE_PASS: i32 = 64;
pub const MAX_PV: usize = 64;

pub type Status = i32;
pub const OK: Status = 0;
pub const ERROR: Status = 1;
pub const INVALID_ARGUMENT: Status = 2;
pub const UNKNOWN_OPTION: Status = 3;
pub const INVALID_VALUE: Status = 4;
pub const PANIC: Status = 5;

pub type OptionType = u32;
pub const OPTION_BOOL: OptionType = 0;
pub const OPTION_INT: OptionType = 1;
pub const OPTION_FLOAT: OptionType = 2;
pub const OPTION_ENUM: OptionType = 3;
pub const OPTION_STRING: OptionType = 4;

pub const LIMIT_CLOCK: u32 = 1;
pub const LIMIT_MOVE_TIME: u32 = 2;
pub const LIMIT_DEPTH: u32 = 4;
pub const LIMIT_NODES: u32 = 8;

/// `oe_option_desc`
#[repr(C)]
#[derive(Debug)]
pub struct OptionDesc {
    pub name: *const c_char,
    pub option_type: OptionType,
    pub default_value: *const c_char,
    pub min: f64,
    pub max: f64,
    pub enum_values: *const *const c_char,
    pub enum_count: u32,
    pub help: *const c_char,
}

/// `oe_position`
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Position {
    pub black: u64,
    pub white: u64,
    /// 0 = Black, 1 = White.
    pub side_to_move: u32,
    pub reserved: u32,
}

/// `oe_limits`
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub struct_size: u32,
    pub flags: u32,
    pub time_left_ms: [i64; 2],
    pub increment_ms: [i64; 2],
    pub move_time_ms: i64,
    pub depth: i32,
    pub reserved: i32,
    pub nodes: u64,
}

/// `oe_search_info`
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchInfo {
    pub struct_size: u32,
    pub depth: i32,
    pub selectivity: i32,
    pub pv_length: i32,
    pub score: f64,
    pub nodes: u64,
    pub time_ms: u64,
    pub pv: [u8; MAX_PV],
}

impl Default for SearchInfo {
    fn default() -> Self {
        SearchInfo {
            struct_size: std::mem::size_of::<SearchInfo>() as u32,
            depth: 0,
            selectivity: 100,
            pv_length: 0,
            score: 0.0,
            nodes: 0,
            time_ms: 0,
            pv: [0; MAX_PV],
        }
    }
}

/// `oe_search_result`
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchResult {
    pub struct_size: u32,
    pub mv: i32,
    pub info: SearchInfo,
}

impl Default for SearchResult {
    fn default() -> Self {
        SearchResult {
            struct_size: std::mem::size_of::<SearchResult>() as u32,
            mv: -1,
            info: SearchInfo::default(),
        }
    }
}

/// `oe_host`
#[repr(C)]
#[derive(Debug)]
pub struct Host {
    pub struct_size: u32,
    pub host_data: *mut c_void,
    pub info: Option<unsafe extern "C" fn(host_data: *mut c_void, info: *const SearchInfo)>,
}

/// `oe_engine`: opaque.
#[repr(C)]
pub struct Engine {
    _private: [u8; 0],
}

/// `oe_engine_api`
#[repr(C)]
#[derive(Debug)]
pub struct EngineApi {
    pub struct_size: u32,
    pub abi_major: u16,
    pub abi_minor: u16,
    pub name: *const c_char,
    pub version: *const c_char,
    pub author: *const c_char,
    pub option_count: u32,
    pub options: *const OptionDesc,
    pub create: Option<unsafe extern "C" fn(host: *const Host) -> *mut Engine>,
    pub destroy: Option<unsafe extern "C" fn(engine: *mut Engine)>,
    pub set_option: Option<
        unsafe extern "C" fn(
            engine: *mut Engine,
            name: *const c_char,
            value: *const c_char,
        ) -> Status,
    >,
    pub new_game: Option<unsafe extern "C" fn(engine: *mut Engine) -> Status>,
    pub search: Option<
        unsafe extern "C" fn(
            engine: *mut Engine,
            position: *const Position,
            limits: *const Limits,
            stop: *const AtomicU32,
            result: *mut SearchResult,
        ) -> Status,
    >,
    pub last_error: Option<unsafe extern "C" fn(engine: *const Engine) -> *const c_char>,
    // ---- ABI 1.1 ----
    pub search_game: Option<
        unsafe extern "C" fn(
            engine: *mut Engine,
            game: *const Game,
            limits: *const Limits,
            stop: *const AtomicU32,
            result: *mut SearchResult,
        ) -> Status,
    >,
}

impl EngineApi {
    /// A table with every field zero: no strings, no options, every function `None`. The host
    /// copies the prefix a plugin's version defines over it.
    pub const fn zeroed() -> EngineApi {
        EngineApi {
            struct_size: 0,
            abi_major: 0,
            abi_minor: 0,
            name: std::ptr::null(),
            version: std::ptr::null(),
            author: std::ptr::null(),
            option_count: 0,
            options: std::ptr::null(),
            create: None,
            destroy: None,
            set_option: None,
            new_game: None,
            search: None,
            last_error: None,
            search_game: None,
        }
    }
}

/// `OE_ENGINE_API_SIZE_V1_0`: the table size a plugin built against the 1.0 header declares.
pub const ENGINE_API_SIZE_V1_0: u32 = std::mem::offset_of!(EngineApi, search_game) as u32;

/// `oe_game` (ABI 1.1): a start position and the moves played since.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Game {
    pub struct_size: u32,
    pub move_count: u32,
    pub start: Position,
    pub moves: *const i32,
}

/// The type of the `othello_engine_v1` symbol.
pub type EntryV1 = unsafe extern "C" fn() -> *const EngineApi;

// SAFETY: the table and the descriptors are static, immutable data made by the plugin; the
// pointers they hold point to static strings. Sharing them between threads is what the ABI
// allows (header: "Static: valid for the life of the process").
unsafe impl Sync for EngineApi {}
unsafe impl Send for EngineApi {}
unsafe impl Sync for OptionDesc {}
unsafe impl Send for OptionDesc {}

/// Size of a struct as a `struct_size` field value.
pub const fn size_of<T>() -> u32 {
    std::mem::size_of::<T>() as u32
}
