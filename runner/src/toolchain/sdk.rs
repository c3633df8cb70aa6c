//! The guest SDK, embedded in the binary and written to the cache on first use, so an installed
//! `dixit` needs no source checkout.

use std::path::{Path, PathBuf};

use super::snapshot::{snapshot_bytes, Snapshot, SnapshotError};
use crate::sandbox::ArtifactCache;

/// (relative path, contents) of every guest-SDK file.
pub(crate) const FILES: &[(&str, &str)] = &[
    (
        "python/dixit_runner.py",
        include_str!("../../../guest-sdk/python/dixit_runner.py"),
    ),
    (
        "python/dixit_runtime.py",
        include_str!("../../../guest-sdk/python/dixit_runtime.py"),
    ),
    (
        "python/dixit_bridge.py",
        include_str!("../../../guest-sdk/python/dixit_bridge.py"),
    ),
    (
        "python/wit/world.wit",
        include_str!("../../../guest-sdk/python/wit/world.wit"),
    ),
    (
        "build/reproducible.c",
        include_str!("../../../guest-sdk/build/reproducible.c"),
    ),
    (
        "c/include/dixit.h",
        include_str!("../../../guest-sdk/c/include/dixit.h"),
    ),
    (
        "c/assert/assert.h",
        include_str!("../../../guest-sdk/c/assert/assert.h"),
    ),
    (
        "rust/lib.rs",
        include_str!("../../../guest-sdk/rust/lib.rs"),
    ),
];

/// The guest SDK materialized in the cache.
#[derive(Clone, Debug)]
pub(crate) struct Sdk {
    pub root: PathBuf,
    pub hash: String,
}

impl Sdk {
    /// Writes the SDK's files into the cache (once: the copy is named by its content).
    pub(super) fn materialize(cache: &ArtifactCache) -> Result<Sdk, SnapshotError> {
        let entries = FILES
            .iter()
            .map(|(p, c)| (PathBuf::from(p), c.as_bytes().to_vec()))
            .collect();
        let Snapshot { dir, hash, .. } = snapshot_bytes(cache, entries)?;
        Ok(Sdk { root: dir, hash })
    }

    pub(super) fn path(&self, rel: &str) -> PathBuf {
        self.root.join(Path::new(rel))
    }
}

/// Contents of one embedded SDK file.
pub(crate) fn file(rel: &str) -> &'static str {
    FILES
        .iter()
        .find(|(p, _)| *p == rel)
        .map(|(_, c)| *c)
        .unwrap_or("")
}
