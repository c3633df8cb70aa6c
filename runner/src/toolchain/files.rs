//! Reading files an agent controls: sizes are checked before anything is read, and paths named
//! inside a test stay inside the test's own folder.
//!
//! A path named inside a file (an I/O test's `stdin_file`, `expected_file`, `checker`) must be
//! relative, without `..`, and lead to a regular file with no symlink anywhere on the way: it
//! is opened with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` from the folder's descriptor,
//! so neither a path trick nor a symlink swapped in later reaches `/etc/passwd`, `/proc` or
//! `/dev/zero`. Every read is of a regular file whose size (`fstat` of the opened descriptor)
//! is within the cap, and is itself bounded by the cap.

use std::fs::File;
use std::io::Read;
use std::path::{Component, Path};

use rustix::fs::{Mode, OFlags, ResolveFlags};

/// Why a file was refused.
#[derive(Clone, Debug, thiserror::Error)]
pub enum FileError {
    /// The path is empty or absolute.
    #[error("`{0}` must be a relative path inside the test's folder")]
    NotRelative(String),
    /// The path leaves the folder (`..`).
    #[error("`{0}` leaves the test's folder (`..` is not allowed)")]
    Escapes(String),
    /// The path is not a regular file (a symlink, a device, a pipe).
    #[error(
        "`{0}` is not a regular file inside the folder (symlinks, devices and pipes are refused)"
    )]
    NotRegular(String),
    /// The file is larger than allowed.
    #[error("`{path}` is {size} bytes; at most {cap} are allowed")]
    TooLarge {
        /// The path as given.
        path: String,
        /// The file's size, in bytes.
        size: u64,
        /// The most bytes allowed.
        cap: u64,
    },
    /// The file could not be opened or read.
    #[error("`{path}`: {message}")]
    Io {
        /// The path as given.
        path: String,
        /// The I/O error.
        message: String,
    },
}

/// Reads the regular file `rel` beneath the directory `base` (see the module doc), at most
/// `cap` bytes.
pub(super) fn read_beneath(base: &Path, rel: &Path, cap: u64) -> Result<Vec<u8>, FileError> {
    let shown = rel.display().to_string();
    if rel.as_os_str().is_empty() || rel.is_absolute() {
        return Err(FileError::NotRelative(shown));
    }
    for c in rel.components() {
        match c {
            Component::Normal(_) | Component::CurDir => {}
            Component::ParentDir => return Err(FileError::Escapes(shown)),
            Component::RootDir | Component::Prefix(_) => return Err(FileError::NotRelative(shown)),
        }
    }
    let io = |e: std::io::Error| FileError::Io {
        path: shown.clone(),
        message: e.kind().to_string(),
    };
    let dir = File::open(base).map_err(io)?;
    let fd = rustix::fs::openat2(
        &dir,
        rel,
        OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY,
        Mode::empty(),
        ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS,
    );
    let fd = match fd {
        Ok(fd) => fd,
        // ELOOP: a symlink on the way; EXDEV: a path that would leave the folder.
        Err(rustix::io::Errno::LOOP | rustix::io::Errno::XDEV) => {
            return Err(FileError::NotRegular(shown))
        }
        Err(e) => return Err(io(e.into())),
    };
    read_open(File::from(fd), &shown, cap)
}

/// Reads a file named by the user (a command-line argument, a project file), following
/// symlinks as any tool would, but only a regular file of at most `cap` bytes, checked before
/// reading.
pub(super) fn read_capped(path: &Path, cap: u64) -> Result<Vec<u8>, FileError> {
    let shown = path.display().to_string();
    let file = File::options()
        .read(true)
        .custom_flags_nonblocking()
        .open(path)
        .map_err(|e| FileError::Io {
            path: shown.clone(),
            message: e.to_string(),
        })?;
    read_open(file, &shown, cap)
}

fn read_open(mut file: File, shown: &str, cap: u64) -> Result<Vec<u8>, FileError> {
    let meta = file.metadata().map_err(|e| FileError::Io {
        path: shown.to_string(),
        message: e.kind().to_string(),
    })?;
    if !meta.is_file() {
        return Err(FileError::NotRegular(shown.to_string()));
    }
    if meta.len() > cap {
        return Err(FileError::TooLarge {
            path: shown.to_string(),
            size: meta.len(),
            cap,
        });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    (&mut file)
        .take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| FileError::Io {
            path: shown.to_string(),
            message: e.kind().to_string(),
        })?;
    if bytes.len() as u64 > cap {
        // It grew between the check and the read.
        return Err(FileError::TooLarge {
            path: shown.to_string(),
            size: bytes.len() as u64,
            cap,
        });
    }
    Ok(bytes)
}

/// Opening without blocking: a FIFO swapped in for a file must not stall the host.
trait NonBlocking {
    fn custom_flags_nonblocking(&mut self) -> &mut Self;
}

impl NonBlocking for std::fs::OpenOptions {
    fn custom_flags_nonblocking(&mut self) -> &mut Self {
        std::os::unix::fs::OpenOptionsExt::custom_flags(self, OFlags::NONBLOCK.bits() as i32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_beneath_and_sizes_are_checked_first() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "s3cr3t").unwrap();
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("in.txt"), "hello").unwrap();
        std::fs::create_dir(d.path().join("sub")).unwrap();
        std::fs::write(d.path().join("sub/x.txt"), "x").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), d.path().join("link")).unwrap();
        std::os::unix::fs::symlink(outside.path(), d.path().join("dirlink")).unwrap();
        std::os::unix::fs::symlink("in.txt", d.path().join("inner_link")).unwrap();
        let read = |p: &str| read_beneath(d.path(), Path::new(p), 100);
        assert_eq!(read("in.txt").unwrap(), b"hello");
        assert_eq!(read("./sub/x.txt").unwrap(), b"x");
        for bad in ["/etc/passwd", "/proc/self/environ", "/dev/zero"] {
            assert!(matches!(read(bad), Err(FileError::NotRelative(_))), "{bad}");
        }
        assert!(matches!(read("../x"), Err(FileError::Escapes(_))));
        assert!(matches!(read("sub/../in.txt"), Err(FileError::Escapes(_))));
        for link in ["link", "dirlink/secret", "inner_link"] {
            assert!(
                matches!(read(link), Err(FileError::NotRegular(_))),
                "{link}"
            );
        }
        assert!(matches!(read("sub"), Err(FileError::NotRegular(_))));
        assert!(matches!(read("missing"), Err(FileError::Io { .. })));
        // A sparse file of 1 GiB is refused by its size, without reading it.
        let big = File::create(d.path().join("sparse")).unwrap();
        big.set_len(1 << 30).unwrap();
        assert!(matches!(
            read("sparse"),
            Err(FileError::TooLarge { size, .. }) if size == 1 << 30
        ));
        assert!(matches!(
            read_capped(&d.path().join("sparse"), 100),
            Err(FileError::TooLarge { .. })
        ));
        assert!(matches!(
            read_capped(Path::new("/dev/zero"), 100),
            Err(FileError::NotRegular(_))
        ));
        for e in [read("link").unwrap_err(), read("../x").unwrap_err()] {
            assert!(!e.to_string().contains("s3cr3t"), "{e}");
        }
    }
}
