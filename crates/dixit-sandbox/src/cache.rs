//! The content-addressed artifact cache: precompiled machine code, keyed by the hash of the
//! WebAssembly bytes plus everything that changes the compiled code (wasmtime version, engine
//! configuration). A second process with the same inputs compiles nothing; it maps the file.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::SandboxError;

/// A directory of files named by the SHA-256 of their inputs.
#[derive(Clone, Debug)]
pub struct ArtifactCache {
    root: PathBuf,
}

impl ArtifactCache {
    /// Opens (creating if needed) a cache rooted at `root`.
    pub fn open(root: impl Into<PathBuf>) -> Result<Self, SandboxError> {
        let root = root.into();
        fs::create_dir_all(&root).map_err(|source| SandboxError::Cache {
            path: root.clone(),
            source,
        })?;
        // Absolute, because build tools run in other working directories.
        let root = fs::canonicalize(&root).map_err(|source| SandboxError::Cache {
            path: root.clone(),
            source,
        })?;
        Ok(ArtifactCache { root })
    }

    /// The default location: `$DIXIT_CACHE`, else `cache/` under [`dixit_home`].
    pub fn default_root() -> PathBuf {
        match std::env::var_os("DIXIT_CACHE") {
            Some(p) => PathBuf::from(p),
            None => dixit_home().join("cache"),
        }
    }

    /// The cache's root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The path of the entry `key` in namespace `kind` (e.g. `cwasm/ab/abcdef….cwasm`).
    pub fn path(&self, kind: &str, key: &str, ext: &str) -> PathBuf {
        let shard = &key[..2.min(key.len())];
        self.root
            .join(kind)
            .join(shard)
            .join(format!("{key}.{ext}"))
    }

    /// Writes `bytes` to `path` atomically (temp file + rename), so a reader never sees half a file
    /// and concurrent writers of the same key are harmless.
    pub fn write_atomic(&self, path: &Path, bytes: &[u8]) -> Result<(), SandboxError> {
        let err = |source| SandboxError::Cache {
            path: path.to_path_buf(),
            source,
        };
        let dir = path.parent().unwrap_or(&self.root);
        fs::create_dir_all(dir).map_err(err)?;
        let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(err)?;
        tmp.write_all(bytes).map_err(err)?;
        tmp.persist(path).map_err(|e| err(e.error))?;
        Ok(())
    }
}

/// Hex SHA-256 of the parts, each length-prefixed so boundaries cannot collide.
pub fn hash_parts<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    hex::encode(h.finalize())
}

/// dixit's per-user directory (toolchains, caches, the local model): `$DIXIT_HOME`, else
/// `$XDG_CACHE_HOME/dixit`, else `~/.cache/dixit`.
pub fn dixit_home() -> PathBuf {
    if let Some(p) = std::env::var_os("DIXIT_HOME") {
        return PathBuf::from(p);
    }
    if let Some(p) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(p).join("dixit");
    }
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    home.join(".cache").join("dixit")
}
