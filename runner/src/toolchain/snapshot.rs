//! Content-addressed snapshots of solutions and tests. A run sees a private, read-only copy, so a
//! solution cannot read other tests beside its test, and files cannot change between reruns.
//! Sizes are checked before anything is read (a sparse 1 GiB file costs nothing to refuse), and
//! every copied file carries the same fixed modification time, so what a guest can learn from
//! `stat` does not depend on when the copy was made.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use super::files::{read_beneath, read_capped, FileError};
use crate::sandbox::ArtifactCache;

/// Snapshot size bounds: a solution is source code, not a dataset.
const MAX_FILES: usize = 2_000;
const MAX_BYTES: u64 = 64 << 20;
/// The largest test file.
pub(super) const MAX_TEST_BYTES: u64 = 4 << 20;
/// The modification (and access) time of every snapshot file: 2026-01-01T00:00:00Z, where the
/// guests' virtual clock starts.
const FIXED_MTIME_S: u64 = 1_767_225_600;

/// Why files could not be snapshotted: too many or too large, refused, or this machine failing
/// to read or write them.
#[derive(Clone, Debug, thiserror::Error)]
pub enum SnapshotError {
    /// A file or folder that could not be read, listed or written.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The I/O error.
        error: Arc<std::io::Error>,
    },
    /// A folder holding more than `MAX_FILES` files.
    #[error("{}: more than {MAX_FILES} files", dir.display())]
    TooManyFiles {
        /// The folder.
        dir: PathBuf,
    },
    /// A folder whose files add up to more than `MAX_BYTES`.
    #[error("{}: more than {} MiB of files", dir.display(), MAX_BYTES >> 20)]
    TooManyBytes {
        /// The folder.
        dir: PathBuf,
    },
    /// A file of a folder that was refused (see `files.rs`).
    #[error("{}: {error}", dir.display())]
    Refused {
        /// The folder.
        dir: PathBuf,
        /// Why its file was refused.
        error: FileError,
    },
    /// A single file that was refused (see `files.rs`).
    #[error(transparent)]
    File(FileError),
}

impl SnapshotError {
    /// The closure that turns an I/O error on `path` into a [`SnapshotError::Io`].
    fn io(path: &Path) -> impl FnOnce(std::io::Error) -> SnapshotError + '_ {
        move |e| SnapshotError::Io {
            path: path.to_path_buf(),
            error: Arc::new(e),
        }
    }
}

/// A private read-only copy of some files, named by the hash of their paths and contents.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// The directory holding the copy.
    pub dir: PathBuf,
    /// Hash of the relative paths and contents.
    pub hash: String,
    /// Relative paths of the files, sorted.
    pub files: Vec<PathBuf>,
}

/// Copies the regular files under `src` (hidden entries and symlinks skipped: a symlink could
/// point outside) into the cache. The sizes of all files are summed from their metadata before
/// any is read, and each is read beneath `src` with no symlink on the way.
pub(super) fn snapshot_dir(cache: &ArtifactCache, src: &Path) -> Result<Snapshot, SnapshotError> {
    let mut files = Vec::new();
    collect(src, Path::new(""), &mut files)?;
    files.sort();
    let mut total = 0u64;
    for rel in &files {
        let p = src.join(rel);
        let len = fs::symlink_metadata(&p)
            .map_err(SnapshotError::io(&p))?
            .len();
        total = total.saturating_add(len);
        if total > MAX_BYTES {
            return Err(SnapshotError::TooManyBytes {
                dir: src.to_path_buf(),
            });
        }
    }
    let mut entries = Vec::with_capacity(files.len());
    let mut left = MAX_BYTES;
    for rel in &files {
        let bytes = read_beneath(src, rel, left).map_err(|error| SnapshotError::Refused {
            dir: src.to_path_buf(),
            error,
        })?;
        left -= bytes.len() as u64;
        entries.push((rel.clone(), bytes));
    }
    materialize(cache, entries)
}

/// Snapshots one file as `name` in a directory of its own; at most [`MAX_TEST_BYTES`], checked
/// before reading.
pub(super) fn snapshot_file(
    cache: &ArtifactCache,
    src: &Path,
    name: &str,
) -> Result<Snapshot, SnapshotError> {
    let bytes = read_capped(src, MAX_TEST_BYTES).map_err(SnapshotError::File)?;
    materialize(cache, vec![(PathBuf::from(name), bytes)])
}

/// Snapshots in-memory files (used when a test or solution is given as text).
pub(super) fn snapshot_bytes(
    cache: &ArtifactCache,
    entries: Vec<(PathBuf, Vec<u8>)>,
) -> Result<Snapshot, SnapshotError> {
    materialize(cache, entries)
}

fn collect(root: &Path, rel: &Path, out: &mut Vec<PathBuf>) -> Result<(), SnapshotError> {
    let dir = root.join(rel);
    let rd = fs::read_dir(&dir).map_err(SnapshotError::io(&dir))?;
    for entry in rd {
        let entry = entry.map_err(SnapshotError::io(&dir))?;
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') || name == "__pycache__" {
            continue;
        }
        let ft = entry
            .file_type()
            .map_err(SnapshotError::io(&entry.path()))?;
        let child = rel.join(&name);
        if ft.is_dir() {
            collect(root, &child, out)?;
        } else if ft.is_file() {
            out.push(child);
            if out.len() > MAX_FILES {
                return Err(SnapshotError::TooManyFiles {
                    dir: root.to_path_buf(),
                });
            }
        }
    }
    Ok(())
}

fn materialize(
    cache: &ArtifactCache,
    entries: Vec<(PathBuf, Vec<u8>)>,
) -> Result<Snapshot, SnapshotError> {
    let parts: Vec<Vec<u8>> = std::iter::once(b"snapshot-v2".to_vec())
        .chain(
            entries
                .iter()
                .flat_map(|(p, b)| [p.to_string_lossy().as_bytes().to_vec(), b.clone()]),
        )
        .collect();
    let hash = crate::sandbox::hash_parts(parts.iter().map(|v| v.as_slice()));
    let dir = cache.path("snap", &hash, "d");
    let files: Vec<PathBuf> = entries.iter().map(|(p, _)| p.clone()).collect();
    if !dir.is_dir() {
        let parent = dir.parent().unwrap_or(cache.root());
        fs::create_dir_all(parent).map_err(SnapshotError::io(parent))?;
        let tmp = tempfile::tempdir_in(parent).map_err(SnapshotError::io(parent))?;
        for (rel, bytes) in &entries {
            let p = tmp.path().join(rel);
            if let Some(d) = p.parent() {
                fs::create_dir_all(d).map_err(SnapshotError::io(d))?;
            }
            fs::write(&p, bytes).map_err(SnapshotError::io(&p))?;
            fix_times(&p)?;
        }
        // Directories last, deepest first: adding an entry changes a directory's time.
        let mut dirs: Vec<PathBuf> = entries
            .iter()
            .flat_map(|(rel, _)| rel.ancestors().skip(1).map(Path::to_path_buf))
            .collect();
        dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
        dirs.dedup();
        for d in dirs {
            fix_times(&tmp.path().join(d))?;
        }
        let tmp = tmp.keep();
        if fs::rename(&tmp, &dir).is_err() {
            // Another process made the same snapshot first: same content, keep theirs.
            let _ = fs::remove_dir_all(&tmp);
        }
    }
    Ok(Snapshot { dir, hash, files })
}

/// Sets a file's (or directory's) access and modification times to [`FIXED_MTIME_S`].
fn fix_times(p: &Path) -> Result<(), SnapshotError> {
    let t = SystemTime::UNIX_EPOCH + Duration::from_secs(FIXED_MTIME_S);
    fs::File::open(p)
        .and_then(|f| f.set_times(fs::FileTimes::new().set_accessed(t).set_modified(t)))
        .map_err(SnapshotError::io(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_regular_files_only_and_names_them_by_content() {
        let root = tempfile::tempdir().unwrap();
        let cache = ArtifactCache::open(root.path()).unwrap();
        let src = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret"), "s").unwrap();
        fs::write(src.path().join("solution.py"), "x = 1\n").unwrap();
        fs::create_dir(src.path().join("pkg")).unwrap();
        fs::write(src.path().join("pkg/mod.py"), "y = 2\n").unwrap();
        fs::write(src.path().join(".hidden"), "h").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), src.path().join("link")).unwrap();
        std::os::unix::fs::symlink(outside.path(), src.path().join("dirlink")).unwrap();
        let a = snapshot_dir(&cache, src.path()).unwrap();
        assert_eq!(
            a.files,
            [PathBuf::from("pkg/mod.py"), PathBuf::from("solution.py")]
        );
        assert!(!a.dir.join("link").exists() && !a.dir.join("dirlink").exists());
        assert_eq!(
            fs::read_to_string(a.dir.join("pkg/mod.py")).unwrap(),
            "y = 2\n"
        );
        for f in ["pkg/mod.py", "solution.py", "pkg", ""] {
            let m = fs::metadata(a.dir.join(f)).unwrap().modified().unwrap();
            assert_eq!(
                m,
                SystemTime::UNIX_EPOCH + Duration::from_secs(FIXED_MTIME_S),
                "{f}"
            );
        }
        let b = snapshot_dir(&cache, src.path()).unwrap();
        assert_eq!((a.hash.clone(), a.dir.clone()), (b.hash, b.dir));
        fs::write(src.path().join("solution.py"), "x = 2\n").unwrap();
        assert_ne!(snapshot_dir(&cache, src.path()).unwrap().hash, a.hash);
    }
}
