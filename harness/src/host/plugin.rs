//! Loading an engine plugin and calling it through the C ABI.
//!
//! This module is the host side of the ABI boundary, where the harness's `unsafe` calls into
//! a plugin live (the other `unsafe` blocks are the worker's own system calls, listed in
//! `docs/architecture.md`, "Where `unsafe` may appear"). A plugin is loaded once per process and never unloaded (the library handle is
//! leaked on purpose: unloading code that may still have threads or thread-local destructors
//! running is a classic source of crashes, and the ABI promises plugins it never happens).
//!
//! Before any other call, [`Plugin::load`] checks the entry symbol, the table's size and its
//! major version, and refuses a mismatched plugin with an error naming the file and both
//! versions.

use othello_abi as abi;
use othello_board::{GameHistory, Position};
use serde::{Deserialize, Serialize};
use std::ffi::{c_char, c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::mpsc::SyncSender;
use std::sync::Arc;

/// Why a plugin could not be used.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{path}: no such file")]
    NotFound { path: PathBuf },
    #[error("{path}: cannot be loaded as a plugin library: {message}")]
    NotALibrary { path: PathBuf, message: String },
    #[error("{path}: no `othello_engine_v1` symbol; not an Othello engine plugin of ABI major version 1 (the harness speaks ABI {host_major}.{host_minor})")]
    NoEntry {
        path: PathBuf,
        host_major: u16,
        host_minor: u16,
    },
    #[error("{path}: othello_engine_v1() returned a null table")]
    NullTable { path: PathBuf },
    #[error("{path}: plugin is built for ABI {plugin_major}.{plugin_minor}, the harness speaks ABI {host_major}.{host_minor}")]
    WrongVersion {
        path: PathBuf,
        plugin_major: u16,
        plugin_minor: u16,
        host_major: u16,
        host_minor: u16,
    },
    #[error("{path}: function table is {size} bytes, smaller than ABI {major}.{minor} requires ({needed})")]
    TableTooSmall {
        path: PathBuf,
        size: u32,
        needed: u32,
        major: u16,
        minor: u16,
    },
    #[error("{path}: the function table has no `{function}`")]
    MissingFunction {
        path: PathBuf,
        function: &'static str,
    },
    #[error("{path}: malformed metadata: {message}")]
    BadMetadata { path: PathBuf, message: String },
}

/// One option as the plugin declares it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OptionInfo {
    pub name: String,
    /// `bool`, `int`, `float`, `enum` or `string`.
    pub kind: String,
    pub default: String,
    pub min: f64,
    pub max: f64,
    pub values: Vec<String>,
    pub help: String,
}

/// A plugin's static metadata.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PluginInfo {
    pub path: PathBuf,
    pub name: String,
    pub version: String,
    pub author: String,
    pub abi_major: u16,
    pub abi_minor: u16,
    pub options: Vec<OptionInfo>,
}

/// A loaded plugin: its static table, valid for the life of the process.
#[derive(Clone, Copy)]
pub struct Plugin {
    api: &'static abi::EngineApi,
}

/// Read a static C string from the plugin.
///
/// # Safety
/// `p` must be null or point to a NUL-terminated string that lives for the process.
unsafe fn static_str(p: *const c_char, what: &str) -> Result<String, String> {
    if p.is_null() {
        return Ok(String::new());
    }
    // SAFETY: as documented above.
    unsafe { CStr::from_ptr(p) }
        .to_str()
        .map(str::to_string)
        .map_err(|_| format!("{what} is not UTF-8"))
}

impl Plugin {
    /// Load the plugin at `path`, check its ABI version and read its metadata.
    pub fn load(path: &Path) -> Result<(Plugin, PluginInfo), LoadError> {
        let p = path.to_path_buf();
        if !path.exists() {
            return Err(LoadError::NotFound { path: p });
        }
        // dlopen searches the system's library folders for a name without a slash: a file in
        // the current folder (`libmine.so`, as a tournament file beside it names it) must be
        // given as `./libmine.so` to be that file.
        let file = if path.is_relative() && path.parent() == Some(Path::new("")) {
            Path::new(".").join(path)
        } else {
            path.to_path_buf()
        };
        // SAFETY: loading a library runs its initialisers; loading engine code is the point of
        // a plugin host, and the process is a worker dedicated to this plugin.
        let lib =
            unsafe { libloading::Library::new(&file) }.map_err(|e| LoadError::NotALibrary {
                path: p.clone(),
                // libloading's message is "dlopen failed"; the system's reason is its source.
                message: match std::error::Error::source(&e) {
                    Some(reason) => format!("{e}: {reason}"),
                    None => e.to_string(),
                },
            })?;
        // Never unload: see the module docs.
        let lib: &'static libloading::Library = Box::leak(Box::new(lib));
        // SAFETY: the symbol, if present, has the type the header declares for it.
        let entry: libloading::Symbol<'static, abi::EntryV1> =
            unsafe { lib.get(abi::ENTRY_SYMBOL_V1) }.map_err(|_| LoadError::NoEntry {
                path: p.clone(),
                host_major: abi::ABI_MAJOR,
                host_minor: abi::ABI_MINOR,
            })?;
        // SAFETY: the entry takes no arguments and returns a pointer to a static table.
        let table = unsafe { entry() };
        if table.is_null() {
            return Err(LoadError::NullTable { path: p });
        }
        // Read the fixed header (size and version) before trusting the rest of the struct.
        // SAFETY: every version of the table starts with struct_size, abi_major, abi_minor.
        let (size, major, minor) = unsafe {
            let head = table as *const u32;
            let size = head.read();
            let versions = (table as *const u8).add(4) as *const u16;
            (size, versions.read(), versions.add(1).read())
        };
        if major != abi::ABI_MAJOR {
            return Err(LoadError::WrongVersion {
                path: p,
                plugin_major: major,
                plugin_minor: minor,
                host_major: abi::ABI_MAJOR,
                host_minor: abi::ABI_MINOR,
            });
        }
        // What the claimed version's table holds: 1.0 ends before `search_game`; 1.1 and any
        // later minor version hold at least the whole table this host knows.
        let needed = if minor == 0 {
            abi::ENGINE_API_SIZE_V1_0
        } else {
            abi::size_of::<abi::EngineApi>()
        };
        if size < needed {
            return Err(LoadError::TableTooSmall {
                path: p,
                size,
                needed,
                major,
                minor,
            });
        }
        // Copy the part of the table that the claimed version defines into a whole struct of
        // this host's version; fields the plugin does not have stay zero (`None`). A reference
        // to the plugin's own table would claim bytes a 1.0 plugin never allocated.
        let mut known = abi::EngineApi::zeroed();
        // SAFETY: the plugin's static table has at least `needed` readable bytes (checked
        // above), `needed` is at most the size of `known`, and every field of EngineApi (integers,
        // raw pointers, optional function pointers) is valid for any bit pattern that a C table
        // of the same layout holds, with all-zero meaning null / None.
        unsafe {
            std::ptr::copy_nonoverlapping(
                table as *const u8,
                &mut known as *mut abi::EngineApi as *mut u8,
                needed as usize,
            )
        };
        let api: &'static abi::EngineApi = Box::leak(Box::new(known));
        let functions: [(&'static str, bool); 6] = [
            ("create", api.create.is_some()),
            ("destroy", api.destroy.is_some()),
            ("set_option", api.set_option.is_some()),
            ("new_game", api.new_game.is_some()),
            ("search", api.search.is_some()),
            ("last_error", api.last_error.is_some()),
        ];
        if let Some((function, _)) = functions.iter().find(|(_, present)| !present) {
            return Err(LoadError::MissingFunction { path: p, function });
        }
        let plugin = Plugin { api };
        let info = plugin
            .read_info(path)
            .map_err(|message| LoadError::BadMetadata { path: p, message })?;
        Ok((plugin, info))
    }

    fn read_info(&self, path: &Path) -> Result<PluginInfo, String> {
        let api = self.api;
        // SAFETY: the header says metadata strings are static UTF-8.
        let (name, version, author) = unsafe {
            (
                static_str(api.name, "name")?,
                static_str(api.version, "version")?,
                static_str(api.author, "author")?,
            )
        };
        if name.is_empty() {
            return Err("the engine has no name".to_string());
        }
        let mut options = Vec::new();
        if api.option_count > 0 {
            if api.options.is_null() || api.option_count > 1024 {
                return Err(format!("{} options at {:p}", api.option_count, api.options));
            }
            // SAFETY: the table declares option_count static descriptors at `options`.
            let descs =
                unsafe { std::slice::from_raw_parts(api.options, api.option_count as usize) };
            for d in descs {
                // SAFETY: descriptor strings are static UTF-8 (header).
                let name = unsafe { static_str(d.name, "option name")? };
                let kind = match d.option_type {
                    abi::OPTION_BOOL => "bool",
                    abi::OPTION_INT => "int",
                    abi::OPTION_FLOAT => "float",
                    abi::OPTION_ENUM => "enum",
                    abi::OPTION_STRING => "string",
                    t => return Err(format!("option {name} has unknown type {t}")),
                };
                let mut values = Vec::new();
                if d.option_type == abi::OPTION_ENUM {
                    if d.enum_values.is_null() || d.enum_count > 1024 {
                        return Err(format!("option {name} has no enum values"));
                    }
                    // SAFETY: enum_count static strings at enum_values (header).
                    let list =
                        unsafe { std::slice::from_raw_parts(d.enum_values, d.enum_count as usize) };
                    for &v in list {
                        // SAFETY: as above.
                        values.push(unsafe { static_str(v, "enum value")? });
                    }
                }
                // SAFETY: as above.
                let (default, help) = unsafe {
                    (
                        static_str(d.default_value, "option default")?,
                        static_str(d.help, "option help")?,
                    )
                };
                options.push(OptionInfo {
                    name,
                    kind: kind.to_string(),
                    default,
                    min: d.min,
                    max: d.max,
                    values,
                    help,
                });
            }
        }
        Ok(PluginInfo {
            path: path.to_path_buf(),
            name,
            version,
            author,
            abi_major: api.abi_major,
            abi_minor: api.abi_minor,
            options,
        })
    }

    /// Create an instance whose live search info goes to `info`.
    pub fn instantiate(&self, info: InfoSink) -> Result<Instance, String> {
        let sink = Box::new(info);
        let host = Box::new(abi::Host {
            struct_size: abi::size_of::<abi::Host>(),
            host_data: &*sink as *const InfoSink as *mut c_void,
            info: Some(on_info),
        });
        let create = self.api.create.expect("checked at load");
        // SAFETY: `host` is boxed and lives as long as the instance (it is dropped after
        // destroy, see Instance's Drop).
        let raw = unsafe { create(&*host) };
        if raw.is_null() {
            return Err("the plugin's create() returned null".to_string());
        }
        Ok(Instance {
            api: self.api,
            raw,
            _host: host,
            _sink: sink,
        })
    }
}

/// Where an instance's live reports go: each is tagged with the number of the search running
/// when the engine made it (`current_search`, set by the caller around [`Instance::search`];
/// 0 between searches, when reports are dropped: the ABI allows them only during a search).
/// The queue is bounded ([`INFO_QUEUE`]): a report that finds it full is dropped, so an engine
/// that reports faster than its reports are forwarded cannot grow its worker's memory.
pub struct InfoSink {
    pub reports: SyncSender<(u64, abi::SearchInfo)>,
    pub current_search: Arc<AtomicU64>,
}

/// The most live reports queued between an engine and its worker's forwarder (which forwards
/// only the newest of them).
pub const INFO_QUEUE: usize = 256;

/// The info callback given to every instance: copy the report and queue it, or drop it when the
/// queue is full; never blocks.
unsafe extern "C" fn on_info(host_data: *mut c_void, info: *const abi::SearchInfo) {
    if host_data.is_null() || info.is_null() {
        return;
    }
    // SAFETY: host_data is the InfoSink boxed in `instantiate`, alive while the instance is;
    // `info` is valid during the call (header).
    let (sink, info) = unsafe { (&*(host_data as *const InfoSink), &*info) };
    let search = sink.current_search.load(Ordering::Acquire);
    if search != 0 {
        let _ = sink.reports.try_send((search, *info));
    }
}

/// One engine instance. Calls on it never overlap (`&mut self`), as the ABI requires.
pub struct Instance {
    api: &'static abi::EngineApi,
    raw: *mut abi::Engine,
    _host: Box<abi::Host>,
    _sink: Box<InfoSink>,
}

// SAFETY: the ABI allows an instance to be called from any thread as long as calls on it do not
// overlap; `Instance` only exposes `&mut self` methods, so moving it between threads is sound.
unsafe impl Send for Instance {}

/// What an engine answered to a search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchAnswer {
    /// The raw move value (validated by the caller: it may be out of range).
    pub mv: i32,
    pub info: abi::SearchInfo,
}

impl Instance {
    fn last_error(&self) -> String {
        let f = self.api.last_error.expect("checked at load");
        // SAFETY: a live instance; the string is valid until the next call on it, and we copy it
        // at once.
        let p = unsafe { f(self.raw) };
        // SAFETY: as above; null is handled.
        unsafe { static_str(p, "last_error") }.unwrap_or_else(|e| e)
    }

    fn check(&self, status: abi::Status, call: &str) -> Result<(), String> {
        if status == abi::OK {
            return Ok(());
        }
        let code = match status {
            abi::INVALID_ARGUMENT => "invalid argument",
            abi::UNKNOWN_OPTION => "unknown option",
            abi::INVALID_VALUE => "invalid value",
            abi::PANIC => "engine panic",
            _ => "error",
        };
        Err(format!(
            "{call} failed ({code}, status {status}): {}",
            self.last_error()
        ))
    }

    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        let n = CString::new(name).map_err(|_| "option name contains NUL".to_string())?;
        let v = CString::new(value).map_err(|_| "option value contains NUL".to_string())?;
        let f = self.api.set_option.expect("checked at load");
        // SAFETY: live instance, strings valid during the call.
        let status = unsafe { f(self.raw, n.as_ptr(), v.as_ptr()) };
        self.check(status, &format!("set_option {name}={value}"))
    }

    pub fn new_game(&mut self) -> Result<(), String> {
        let f = self.api.new_game.expect("checked at load");
        // SAFETY: live instance.
        let status = unsafe { f(self.raw) };
        self.check(status, "new_game")
    }

    /// Search `game`'s current position: through `search_game` (ABI 1.1) when the plugin has
    /// it, otherwise through `search` with the position alone.
    pub fn search(
        &mut self,
        game: &GameHistory,
        limits: &abi::Limits,
        stop: &AtomicU32,
    ) -> Result<SearchAnswer, String> {
        let wire = |p: &Position| abi::Position {
            black: p.black(),
            white: p.white(),
            side_to_move: p.side_to_move.index() as u32,
            reserved: 0,
        };
        let mut result = abi::SearchResult::default();
        let status = match self.api.search_game {
            Some(f) => {
                let moves: Vec<i32> = game.moves.iter().map(|m| m.wire() as i32).collect();
                let g = abi::Game {
                    struct_size: abi::size_of::<abi::Game>(),
                    move_count: moves.len() as u32,
                    start: wire(&game.start),
                    moves: moves.as_ptr(),
                };
                // SAFETY: live instance; all pointers are to locals (the move vector included)
                // valid during the call.
                unsafe { f(self.raw, &g, limits, stop, &mut result) }
            }
            None => {
                let position = game.position().map_err(|e| format!("bad game: {e}"))?;
                let f = self.api.search.expect("checked at load");
                // SAFETY: live instance; all pointers are to locals valid during the call.
                unsafe { f(self.raw, &wire(&position), limits, stop, &mut result) }
            }
        };
        self.check(status, "search")?;
        Ok(SearchAnswer {
            mv: result.mv,
            info: result.info,
        })
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        let f = self.api.destroy.expect("checked at load");
        // SAFETY: the instance is live and destroyed exactly once, here.
        unsafe { f(self.raw) };
    }
}
