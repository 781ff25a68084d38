//! How an engine's plugin library is found: a bare name in the plugin folder (by default the
//! harness binary's), or a path resolved against the tournament file's folder.

use std::path::{Path, PathBuf};

/// How an engine's plugin library is found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PluginRef {
    /// A bare name: `lib<name>.so` (per OS) in the plugin folder.
    Name(String),
    /// A library path, already resolved against the tournament file's folder.
    Path(PathBuf),
}

impl PluginRef {
    /// The library file: for a name, `plugin_dir/<DLL_PREFIX><name><DLL_SUFFIX>`; a path as is.
    pub fn resolve(&self, plugin_dir: &Path) -> PathBuf {
        match self {
            PluginRef::Name(name) => plugin_dir.join(format!(
                "{}{name}{}",
                std::env::consts::DLL_PREFIX,
                std::env::consts::DLL_SUFFIX
            )),
            PluginRef::Path(path) => path.clone(),
        }
    }

    /// A plugin as written in a tournament file or on the command line: a path when it has a
    /// folder separator or a library suffix, otherwise a bare name. A relative path is taken
    /// relative to `base_dir`.
    pub fn parse(text: &str, base_dir: &Path) -> PluginRef {
        if PluginRef::is_path(text) {
            PluginRef::Path(base_dir.join(text))
        } else {
            PluginRef::Name(text.to_string())
        }
    }

    /// The library file, with bare names looked up in `plugin_dir` or, without one, in
    /// [`default_plugin_dir`].
    pub fn locate(&self, plugin_dir: Option<&Path>) -> std::io::Result<PathBuf> {
        match (self, plugin_dir) {
            (PluginRef::Path(path), _) => Ok(path.clone()),
            (_, Some(dir)) => Ok(self.resolve(dir)),
            (_, None) => Ok(self.resolve(&default_plugin_dir()?)),
        }
    }

    /// Whether `text` names a path rather than a bare plugin name.
    pub(super) fn is_path(text: &str) -> bool {
        text.contains('/')
            || text.contains('\\')
            || [".so", ".dylib", ".dll"]
                .iter()
                .any(|ext| text.ends_with(ext))
    }
}

/// The folder bare plugin names are looked up in: the folder of the running harness binary
/// (the build output folder). A test binary in `target/<profile>/deps` maps to
/// `target/<profile>`.
pub fn default_plugin_dir() -> std::io::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    if dir.file_name().is_some_and(|n| n == "deps") {
        if let Some(parent) = dir.parent() {
            return Ok(parent.to_path_buf());
        }
    }
    Ok(dir)
}
