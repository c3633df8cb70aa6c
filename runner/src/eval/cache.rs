//! The evaluation cache: imported corpora and per-problem verdict matrices, stored as JSON in the
//! artifact cache (`eval/` namespace) under a hash of everything that determines them, so
//! re-scoring (other strategies, other MINORITY, another shard layout) never re-executes.
//!
//! * an imported corpus is keyed by the bytes of the corpus files, the import options, the Python
//!   runtime (its `compile()` decides which tests are kept) and the wasmtime version;
//! * a problem's matrix is keyed by the problem's content (solutions, tests, reference, hidden
//!   tests), the limits, the isolation level, the runtime and the wasmtime version (fuel units
//!   are version-specific).
//!
//! An unreadable or corrupt entry is a miss, never an error: it is recomputed and rewritten.

use std::path::PathBuf;

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::error::EvalError;
use crate::sandbox::{ArtifactCache, SandboxError};

/// Bump when the meaning of a cached entry changes (harness behaviour, stored format).
pub(crate) const CACHE_VERSION: &str = "dixit-eval-cache-v1";

/// Where cached corpora and matrices live; `None` disables caching (`--no-cache`).
pub struct EvalCache {
    store: Option<ArtifactCache>,
}

impl EvalCache {
    /// A cache inside `store`.
    pub fn new(store: ArtifactCache) -> Self {
        EvalCache { store: Some(store) }
    }

    /// A cache that remembers nothing.
    pub fn disabled() -> Self {
        EvalCache { store: None }
    }

    fn path(&self, kind: &str, key: &str) -> Option<PathBuf> {
        self.store
            .as_ref()
            .map(|s| s.path("eval", key, &format!("{kind}.json")))
    }

    /// The entry `key` of `kind`, if present and readable.
    pub fn get<T: DeserializeOwned>(&self, kind: &str, key: &str) -> Option<T> {
        let path = self.path(kind, key)?;
        let text = std::fs::read(&path).ok()?;
        match serde_json::from_slice(&text) {
            Ok(v) => Some(v),
            Err(e) => {
                tracing::warn!("ignoring unreadable cache entry {}: {e}", path.display());
                None
            }
        }
    }

    /// Stores `value` as the entry `key` of `kind` (atomically).
    pub fn put<T: Serialize>(&self, kind: &str, key: &str, value: &T) -> Result<(), EvalError> {
        let (Some(store), Some(path)) = (&self.store, self.path(kind, key)) else {
            return Ok(());
        };
        let bytes = serde_json::to_vec(value).map_err(|e| {
            EvalError::io(
                &path,
                std::io::Error::new(std::io::ErrorKind::InvalidData, e),
            )
        })?;
        store.write_atomic(&path, &bytes).map_err(|e| match e {
            SandboxError::Cache { path, source } => EvalError::io(path, source),
            other => EvalError::io(&path, std::io::Error::other(other.to_string())),
        })
    }
}
