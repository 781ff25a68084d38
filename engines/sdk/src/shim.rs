//! The `extern "C"` functions of the ABI, written once for every engine type.
//!
//! This is the plugin side of the ABI boundary and the only place with `unsafe` in a Rust
//! plugin. Every entry catches panics (`catch_unwind`) so that no unwinding crosses into the
//! host; a caught panic becomes `OE_PANIC` with its message in `last_error`.

use crate::{Clock, Engine, Limits, OptionSpec, SearchContext, SearchInfo, SearchRequest};
use othello_abi as abi;
use othello_board::{Color, GameHistory, Move, Position};
use std::ffi::{c_char, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::AtomicU32;
use std::time::{Duration, Instant};

/// The static function table of one engine type, with the C strings it points to.
/// Built once by `export_engine!` and never freed (plugins are never unloaded).
pub struct ApiTable {
    api: abi::EngineApi,
    // Owners of the memory the table points into; never read after construction.
    _strings: Vec<CString>,
    _enum_lists: Vec<Vec<*const c_char>>,
    _descs: Vec<abi::OptionDesc>,
}

// SAFETY: the table is immutable after construction and only holds pointers into its own
// heap allocations (strings, descriptor vectors), which never move or change.
unsafe impl Sync for ApiTable {}
unsafe impl Send for ApiTable {}

impl ApiTable {
    /// The table for engine type `E`.
    pub fn new<E: Engine>() -> ApiTable {
        let meta = E::metadata();
        let specs = E::options();
        let mut strings = Vec::new();
        let mut cstr = |s: &str| -> *const c_char {
            let c = CString::new(s.replace('\0', " ")).expect("NUL removed");
            let p = c.as_ptr();
            strings.push(c);
            p
        };
        let name = cstr(meta.name);
        let version = cstr(meta.version);
        let author = cstr(meta.author);
        let mut enum_lists = Vec::new();
        let mut descs = Vec::new();
        for spec in &specs {
            let (enum_values, enum_count) = match &spec.kind {
                crate::OptionKind::Enum { values, .. } => {
                    let list: Vec<*const c_char> = values.iter().map(|v| cstr(v)).collect();
                    let p = list.as_ptr();
                    enum_lists.push(list);
                    (p, values.len() as u32)
                }
                _ => (std::ptr::null(), 0),
            };
            let (min, max) = spec.range();
            descs.push(abi::OptionDesc {
                name: cstr(spec.name),
                option_type: spec.abi_type(),
                default_value: cstr(&spec.default_text()),
                min,
                max,
                enum_values,
                enum_count,
                help: cstr(spec.help),
            });
        }
        let api = abi::EngineApi {
            struct_size: abi::size_of::<abi::EngineApi>(),
            abi_major: abi::ABI_MAJOR,
            abi_minor: abi::ABI_MINOR,
            name,
            version,
            author,
            option_count: descs.len() as u32,
            options: descs.as_ptr(),
            create: Some(create::<E>),
            destroy: Some(destroy::<E>),
            set_option: Some(set_option::<E>),
            new_game: Some(new_game::<E>),
            search: Some(search::<E>),
            last_error: Some(last_error::<E>),
            search_game: Some(search_game::<E>),
        };
        ApiTable {
            api,
            _strings: strings,
            _enum_lists: enum_lists,
            _descs: descs,
        }
    }

    /// Pointer to the table, valid for the life of the process.
    pub fn api(&'static self) -> *const abi::EngineApi {
        &self.api
    }
}

/// One engine instance as the host sees it (`oe_engine*`).
struct Instance<E> {
    engine: E,
    specs: Vec<OptionSpec>,
    reporter: Option<Reporter>,
    last_error: CString,
}

impl<E> Instance<E> {
    fn fail(&mut self, status: abi::Status, message: String) -> abi::Status {
        self.last_error = CString::new(message.replace('\0', " ")).expect("NUL removed");
        status
    }
}

/// The host's info callback, callable from any thread (the ABI says so).
#[derive(Clone, Copy)]
pub(crate) struct Reporter {
    host_data: *mut c_void,
    callback: unsafe extern "C" fn(*mut c_void, *const abi::SearchInfo),
}

// SAFETY: the header requires the host's info callback to be callable from any thread while a
// search runs, with the host_data it gave; the SDK only calls it during `search`.
unsafe impl Send for Reporter {}
unsafe impl Sync for Reporter {}

impl Reporter {
    pub(crate) fn send(&self, info: &abi::SearchInfo) {
        // SAFETY: see the Send/Sync note: valid callback and data while the search runs; the
        // info pointer is valid for the duration of the call.
        unsafe { (self.callback)(self.host_data, info) }
    }
}

pub(crate) fn to_abi_info(info: &SearchInfo, elapsed: Duration) -> abi::SearchInfo {
    let mut out = abi::SearchInfo {
        depth: info.depth as i32,
        selectivity: info.selectivity as i32,
        score: info.score,
        nodes: info.nodes,
        time_ms: elapsed.as_millis() as u64,
        ..abi::SearchInfo::default()
    };
    let n = info.pv.len().min(abi::MAX_PV);
    for (slot, mv) in out.pv.iter_mut().zip(&info.pv[..n]) {
        *slot = mv.wire() as u8;
    }
    out.pv_length = n as i32;
    out
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic payload".to_string());
    format!("engine panicked: {text}")
}

unsafe extern "C" fn create<E: Engine>(host: *const abi::Host) -> *mut abi::Engine {
    let reporter = if host.is_null() {
        None
    } else {
        // SAFETY: a non-null host points to an oe_host valid until destroy (header).
        let host = unsafe { &*host };
        host.info.map(|callback| Reporter {
            host_data: host.host_data,
            callback,
        })
    };
    match catch_unwind(|| Instance {
        engine: E::new(),
        specs: E::options(),
        reporter,
        last_error: CString::default(),
    }) {
        Ok(instance) => Box::into_raw(Box::new(instance)) as *mut abi::Engine,
        Err(_) => std::ptr::null_mut(),
    }
}

/// The instance behind a handle, or `None` for null.
///
/// # Safety
/// `engine` must be null or a pointer returned by `create::<E>` and not yet destroyed, with no
/// other call on it running (the header's threading rule).
unsafe fn instance<'a, E>(engine: *mut abi::Engine) -> Option<&'a mut Instance<E>> {
    // SAFETY: guaranteed by the caller as documented above.
    unsafe { (engine as *mut Instance<E>).as_mut() }
}

unsafe extern "C" fn destroy<E: Engine>(engine: *mut abi::Engine) {
    if engine.is_null() {
        return;
    }
    // SAFETY: the host passes a pointer from create::<E> exactly once to destroy.
    let boxed = unsafe { Box::from_raw(engine as *mut Instance<E>) };
    let _ = catch_unwind(AssertUnwindSafe(move || drop(boxed)));
}

/// Read a C string argument.
///
/// # Safety
/// `p` must be null or a NUL-terminated string valid for the call.
unsafe fn arg_str<'a>(p: *const c_char) -> Result<&'a str, String> {
    if p.is_null() {
        return Err("null string argument".to_string());
    }
    // SAFETY: as documented above.
    unsafe { CStr::from_ptr(p) }
        .to_str()
        .map_err(|_| "string argument is not UTF-8".to_string())
}

unsafe extern "C" fn set_option<E: Engine>(
    engine: *mut abi::Engine,
    name: *const c_char,
    value: *const c_char,
) -> abi::Status {
    // SAFETY: the host passes a live instance, used by one thread at a time.
    let Some(inst) = (unsafe { instance::<E>(engine) }) else {
        return abi::INVALID_ARGUMENT;
    };
    // SAFETY: strings passed in by the host are valid during the call.
    let (name, value) = match unsafe { (arg_str(name), arg_str(value)) } {
        (Ok(n), Ok(v)) => (n, v),
        (Err(e), _) | (_, Err(e)) => return inst.fail(abi::INVALID_ARGUMENT, e),
    };
    let Some(spec) = inst
        .specs
        .iter()
        .find(|s| s.name.eq_ignore_ascii_case(name))
    else {
        let known: Vec<&str> = inst.specs.iter().map(|s| s.name).collect();
        let msg = format!("unknown option `{name}` (options: {})", known.join(", "));
        return inst.fail(abi::UNKNOWN_OPTION, msg);
    };
    let canonical = spec.name;
    let parsed = match spec.parse(value) {
        Ok(v) => v,
        Err(e) => return inst.fail(abi::INVALID_VALUE, e),
    };
    match catch_unwind(AssertUnwindSafe(|| {
        inst.engine.set_option(canonical, &parsed)
    })) {
        Ok(Ok(())) => abi::OK,
        Ok(Err(e)) => inst.fail(abi::INVALID_VALUE, e),
        Err(p) => inst.fail(abi::PANIC, panic_message(p)),
    }
}

unsafe extern "C" fn new_game<E: Engine>(engine: *mut abi::Engine) -> abi::Status {
    // SAFETY: the host passes a live instance, used by one thread at a time.
    let Some(inst) = (unsafe { instance::<E>(engine) }) else {
        return abi::INVALID_ARGUMENT;
    };
    match catch_unwind(AssertUnwindSafe(|| inst.engine.try_new_game())) {
        Ok(Ok(())) => abi::OK,
        Ok(Err(e)) => inst.fail(abi::ERROR, e),
        Err(p) => inst.fail(abi::PANIC, panic_message(p)),
    }
}

fn duration_ms(ms: i64) -> Duration {
    Duration::from_millis(ms.max(0) as u64)
}

fn to_limits(l: &abi::Limits) -> Limits {
    let has = |flag| l.flags & flag != 0;
    Limits {
        clock: has(abi::LIMIT_CLOCK).then(|| Clock {
            time_left: [
                duration_ms(l.time_left_ms[0]),
                duration_ms(l.time_left_ms[1]),
            ],
            increment: [
                duration_ms(l.increment_ms[0]),
                duration_ms(l.increment_ms[1]),
            ],
        }),
        move_time: has(abi::LIMIT_MOVE_TIME).then(|| duration_ms(l.move_time_ms)),
        depth: has(abi::LIMIT_DEPTH).then_some(l.depth.max(0) as u32),
        nodes: has(abi::LIMIT_NODES).then_some(l.nodes),
    }
}

unsafe extern "C" fn search<E: Engine>(
    engine: *mut abi::Engine,
    position: *const abi::Position,
    limits: *const abi::Limits,
    stop: *const AtomicU32,
    result: *mut abi::SearchResult,
) -> abi::Status {
    let started = Instant::now();
    // SAFETY: the host passes a live instance, used by one thread at a time.
    let Some(inst) = (unsafe { instance::<E>(engine) }) else {
        return abi::INVALID_ARGUMENT;
    };
    if position.is_null() {
        return inst.fail(abi::INVALID_ARGUMENT, "null position".to_string());
    }
    // SAFETY: non-null, valid for the call (header).
    let position = match to_position(unsafe { &*position }) {
        Ok(p) => p,
        Err(e) => return inst.fail(abi::INVALID_ARGUMENT, e),
    };
    // SAFETY: the pointers come from the host as received by this entry.
    unsafe { run_search(inst, started, position, None, limits, stop, result) }
}

/// ABI 1.1: `search` with the game that led to the position.
unsafe extern "C" fn search_game<E: Engine>(
    engine: *mut abi::Engine,
    game: *const abi::Game,
    limits: *const abi::Limits,
    stop: *const AtomicU32,
    result: *mut abi::SearchResult,
) -> abi::Status {
    let started = Instant::now();
    // SAFETY: the host passes a live instance, used by one thread at a time.
    let Some(inst) = (unsafe { instance::<E>(engine) }) else {
        return abi::INVALID_ARGUMENT;
    };
    if game.is_null() {
        return inst.fail(abi::INVALID_ARGUMENT, "null game".to_string());
    }
    // SAFETY: non-null and valid for the call; every version of oe_game starts with its size.
    let size = unsafe { std::ptr::addr_of!((*game).struct_size).read() };
    if (size as usize) < std::mem::size_of::<abi::Game>() {
        return inst.fail(
            abi::INVALID_ARGUMENT,
            format!("game ({size} bytes) smaller than ABI 1.1's"),
        );
    }
    // SAFETY: checked large enough above; valid for the call.
    let game = unsafe { &*game };
    let start = match to_position(&game.start) {
        Ok(p) => p,
        Err(e) => return inst.fail(abi::INVALID_ARGUMENT, format!("game start: {e}")),
    };
    // A game has at most 60 moves and a pass between any two, so 128 bounds a real one.
    if game.move_count > 128 || (game.move_count > 0 && game.moves.is_null()) {
        return inst.fail(
            abi::INVALID_ARGUMENT,
            format!("{} moves at {:?}", game.move_count, game.moves),
        );
    }
    let raw: &[i32] = if game.move_count == 0 {
        &[]
    } else {
        // SAFETY: non-null, `move_count` entries owned by the host and valid during the call.
        unsafe { std::slice::from_raw_parts(game.moves, game.move_count as usize) }
    };
    let mut moves = Vec::with_capacity(raw.len());
    for (i, &m) in raw.iter().enumerate() {
        match Move::from_wire(m as i64) {
            Some(mv) => moves.push(mv),
            None => {
                return inst.fail(
                    abi::INVALID_ARGUMENT,
                    format!("game move {}: value {m} is not a move", i + 1),
                )
            }
        }
    }
    // Replayed with any forced pass the host left out made explicit, so that colours follow
    // from the move list.
    let (moves, position) = match othello_board::replay(start, &moves) {
        Ok(played) => played,
        Err(e) => return inst.fail(abi::INVALID_ARGUMENT, format!("game: {e}")),
    };
    let history = GameHistory { start, moves };
    // SAFETY: the pointers come from the host as received by this entry.
    unsafe { run_search(inst, started, position, Some(history), limits, stop, result) }
}

fn to_position(p: &abi::Position) -> Result<Position, String> {
    let side = match p.side_to_move {
        0 => Color::Black,
        1 => Color::White,
        s => return Err(format!("side_to_move {s} is not 0 or 1")),
    };
    Position::from_colors(p.black, p.white, side).ok_or_else(|| "black and white overlap".into())
}

/// The common part of `search` and `search_game`.
///
/// # Safety
/// `limits`, `stop` and `result` are the host's pointers of the current call: null or valid for
/// its duration.
unsafe fn run_search<E: Engine>(
    inst: &mut Instance<E>,
    started: Instant,
    position: Position,
    game: Option<GameHistory>,
    limits: *const abi::Limits,
    stop: *const AtomicU32,
    result: *mut abi::SearchResult,
) -> abi::Status {
    if limits.is_null() || stop.is_null() || result.is_null() {
        return inst.fail(abi::INVALID_ARGUMENT, "null argument to search".to_string());
    }
    // Both extensible structs start with their size: read it through the raw pointer before
    // forming a reference to a whole struct the host may not have made that large.
    // SAFETY: non-null pointers from the host, valid for the call; every version of these
    // structs starts with a u32 `struct_size`.
    let (limits_size, result_size) = unsafe {
        (
            std::ptr::addr_of!((*limits).struct_size).read(),
            std::ptr::addr_of!((*result).struct_size).read(),
        )
    };
    if (limits_size as usize) < std::mem::size_of::<abi::Limits>()
        || (result_size as usize) < std::mem::size_of::<abi::SearchResult>()
    {
        return inst.fail(
            abi::INVALID_ARGUMENT,
            format!("limits ({limits_size} bytes) or result ({result_size} bytes) smaller than ABI 1.0's"),
        );
    }
    // SAFETY: non-null pointers from the host, valid for the duration of the call, and (checked
    // above) at least as large as the structs of this ABI version.
    let (limits, stop) = unsafe { (&*limits, &*stop) };
    if position.is_game_over() {
        return inst.fail(
            abi::INVALID_ARGUMENT,
            "search on a finished game".to_string(),
        );
    }
    let request = SearchRequest {
        position,
        limits: to_limits(limits),
        game,
    };
    let ctx = SearchContext {
        stop,
        started,
        reporter: inst.reporter,
    };
    let outcome = match catch_unwind(AssertUnwindSafe(|| inst.engine.try_search(&request, &ctx))) {
        Ok(Ok(o)) => o,
        Ok(Err(message)) => return inst.fail(abi::ERROR, message),
        Err(p) => return inst.fail(abi::PANIC, panic_message(p)),
    };
    let mut info = to_abi_info(&outcome.info, started.elapsed());
    // SAFETY: `result` is a host-owned struct valid during the call, at least as large as this
    // version's (checked before the search).
    let out = unsafe { &mut *result };
    info.struct_size = abi::size_of::<abi::SearchInfo>();
    out.mv = outcome.mv.wire() as i32;
    out.info = info;
    abi::OK
}

unsafe extern "C" fn last_error<E: Engine>(engine: *const abi::Engine) -> *const c_char {
    // SAFETY: a live instance; the returned pointer stays valid until the next call on it.
    match unsafe { instance::<E>(engine as *mut abi::Engine) } {
        Some(inst) => inst.last_error.as_ptr(),
        None => c"invalid engine handle".as_ptr(),
    }
}
