//! Where shards put their results: one file per shard, `shard-I-of-N.json`, written atomically
//! (a temporary file in the same directory, then a rename), so a shard that is killed leaves no
//! half-written file and a requeued or repeated shard replaces its earlier file whole. A
//! directory of such files is read back with [`ShardFiles::scan`], and [`Coverage`] says which
//! shards are missing or given twice.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::shard::Shard;
use crate::english::and_list;

/// Why shard files could not be written or listed.
#[derive(Debug, thiserror::Error)]
pub enum ShardFileError {
    /// A file or directory could not be read or written.
    #[error("cannot access {path}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A directory without a single shard file.
    #[error("{dir} holds no shard files (shard-I-of-N.json)")]
    Empty {
        /// The directory.
        dir: PathBuf,
    },
    /// Shard files of different splits in one directory.
    #[error("{dir} mixes shard files of {counts} shards; keep one split (remove the others)")]
    MixedCounts {
        /// The directory.
        dir: PathBuf,
        /// The counts found, e.g. `8 and 16`.
        counts: String,
    },
}

/// The file name of a shard's report: `shard-3-of-8.json`.
pub fn shard_file_name(shard: Shard) -> String {
    format!("shard-{}-of-{}.json", shard.index, shard.count)
}

/// The shard a file name stands for (`shard-3-of-8.json` → 3/8), if it is one.
pub fn parse_shard_file_name(name: &str) -> Option<Shard> {
    let rest = name.strip_prefix("shard-")?.strip_suffix(".json")?;
    let (i, n) = rest.split_once("-of-")?;
    let (index, count) = (i.parse().ok()?, n.parse().ok()?);
    (index >= 1 && index <= count).then_some(Shard { index, count })
}

/// Checks that the report read from shard file `path` holds the shard its name says (`holds`:
/// the report's own shard, `None` for an unsharded report), so a renamed file is not merged as
/// another shard. The error says what the file holds.
pub fn check_shard_file(path: &Path, holds: Option<Shard>) -> Result<(), String> {
    let named = path
        .file_name()
        .and_then(|n| parse_shard_file_name(&n.to_string_lossy()));
    if holds == named {
        return Ok(());
    }
    Err(format!(
        "{} holds {}, not the shard its name says",
        path.display(),
        holds.map_or("an unsharded report".to_string(), |s| format!("shard {s}"))
    ))
}

/// Writes `bytes` to `path` atomically: to a temporary file beside it, flushed to disk, then
/// renamed over `path`. Readers see the old file or the new one, never a part.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ShardFileError> {
    let io = |source| ShardFileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Readable by others like any report (a temporary file is created 0600), subject to umask.
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644))
        .tempfile_in(dir)
        .map_err(io)?;
    tmp.write_all(bytes).map_err(io)?;
    tmp.as_file().sync_all().map_err(io)?;
    tmp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

/// The shard files found in a directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardFiles {
    /// How many shards the files say there are.
    pub count: u32,
    /// The file of each shard found, by index.
    pub files: BTreeMap<u32, PathBuf>,
}

impl ShardFiles {
    /// Lists `dir`'s `shard-I-of-N.json` files (other files are ignored). All must agree on N.
    pub fn scan(dir: &Path) -> Result<ShardFiles, ShardFileError> {
        let io = |source| ShardFileError::Io {
            path: dir.to_path_buf(),
            source,
        };
        let mut by_count: BTreeMap<u32, BTreeMap<u32, PathBuf>> = BTreeMap::new();
        for entry in std::fs::read_dir(dir).map_err(io)? {
            let entry = entry.map_err(io)?;
            let name = entry.file_name();
            if let Some(s) = parse_shard_file_name(&name.to_string_lossy()) {
                by_count
                    .entry(s.count)
                    .or_default()
                    .insert(s.index, entry.path());
            }
        }
        match by_count.len() {
            0 => Err(ShardFileError::Empty {
                dir: dir.to_path_buf(),
            }),
            1 => {
                let (count, files) = by_count.into_iter().next().unwrap_or_default();
                Ok(ShardFiles { count, files })
            }
            _ => Err(ShardFileError::MixedCounts {
                dir: dir.to_path_buf(),
                counts: and_list(by_count.keys()),
            }),
        }
    }

    /// Which of the `count` shards have a file.
    pub fn coverage(&self) -> Coverage {
        Coverage::of(self.count, self.files.keys().copied())
    }
}

/// Which shards of `1..=count` are present once, missing, or present more than once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coverage {
    /// The number of shards.
    pub count: u32,
    /// Shards with no part, ascending.
    pub missing: Vec<u32>,
    /// Shards given more than once, ascending.
    pub repeated: Vec<u32>,
}

impl Coverage {
    /// The coverage of `1..=count` by `indices`; indices outside the range count as repeated
    /// (they are surplus).
    pub fn of(count: u32, indices: impl IntoIterator<Item = u32>) -> Coverage {
        let mut seen: BTreeMap<u32, u32> = BTreeMap::new();
        for i in indices {
            *seen.entry(i).or_insert(0) += 1;
        }
        Coverage {
            count,
            missing: (1..=count).filter(|i| !seen.contains_key(i)).collect(),
            repeated: seen
                .iter()
                .filter(|&(&i, &n)| n > 1 || i == 0 || i > count)
                .map(|(&i, _)| i)
                .collect(),
        }
    }

    /// Every shard exactly once.
    pub fn is_complete(&self) -> bool {
        self.missing.is_empty() && self.repeated.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        let s = Shard { index: 3, count: 8 };
        assert_eq!(shard_file_name(s), "shard-3-of-8.json");
        assert_eq!(parse_shard_file_name("shard-3-of-8.json"), Some(s));
        for other in [
            "shard-0-of-8.json",
            "shard-9-of-8.json",
            "report.json",
            "shard-3-of-8.json.tmp",
            ".shard-3-of-8.json.x.tmp",
        ] {
            assert_eq!(parse_shard_file_name(other), None, "{other}");
        }
    }

    #[test]
    fn atomic_write_replaces_whole_files_and_leaves_no_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shard-1-of-2.json");
        write_atomic(&path, b"first").unwrap();
        write_atomic(&path, b"second, longer").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second, longer");
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["shard-1-of-2.json"]);
        let missing_dir = dir.path().join("nope/shard-1-of-2.json");
        assert!(matches!(
            write_atomic(&missing_dir, b"x"),
            Err(ShardFileError::Io { .. })
        ));
    }

    #[test]
    fn scan_lists_shards_and_what_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            ShardFiles::scan(dir.path()),
            Err(ShardFileError::Empty { .. })
        ));
        for i in [1, 2, 4, 5, 6, 8] {
            std::fs::write(dir.path().join(format!("shard-{i}-of-8.json")), "{}").unwrap();
        }
        std::fs::write(dir.path().join("report.json"), "{}").unwrap();
        let found = ShardFiles::scan(dir.path()).unwrap();
        assert_eq!(found.count, 8);
        assert_eq!(
            found.files.keys().copied().collect::<Vec<_>>(),
            [1, 2, 4, 5, 6, 8]
        );
        let c = found.coverage();
        assert_eq!(
            (c.missing.as_slice(), c.is_complete()),
            ([3, 7].as_slice(), false)
        );
        std::fs::write(dir.path().join("shard-1-of-16.json"), "{}").unwrap();
        let err = ShardFiles::scan(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("mixes shard files of 8 and 16 shards"),
            "{err}"
        );
    }

    #[test]
    fn coverage_finds_repeats_and_strays() {
        let c = Coverage::of(4, [1, 2, 2, 4, 9]);
        assert_eq!(c.missing, [3]);
        assert_eq!(c.repeated, [2, 9]);
        assert!(Coverage::of(3, [3, 1, 2]).is_complete());
    }
}
