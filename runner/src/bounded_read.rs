//! Reading a file that may be gzipped, whole but bounded: benchmark and samples files come plain
//! or gzipped (told by their first bytes, whatever their name), and a file, or a gzip bomb,
//! larger than a limit is refused rather than read into memory.

use std::io::Read;
use std::path::Path;

/// Why a bounded read failed.
#[derive(Debug, thiserror::Error)]
pub enum BoundedReadError {
    /// The file could not be read, or its gzip stream is broken.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// More than the limit, before or after decompression.
    #[error("more than {limit} bytes")]
    TooLarge {
        /// The limit.
        limit: u64,
    },
}

/// The bytes of `path`, decompressed when they start as gzip does, at most `limit` either way.
pub fn read_maybe_gzipped(path: &Path, limit: u64) -> Result<Vec<u8>, BoundedReadError> {
    let mut raw = Vec::new();
    std::fs::File::open(path)?
        .take(limit + 1)
        .read_to_end(&mut raw)?;
    if raw.len() as u64 > limit {
        return Err(BoundedReadError::TooLarge { limit });
    }
    if !raw.starts_with(&[0x1f, 0x8b]) {
        return Ok(raw);
    }
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(&raw[..])
        .take(limit + 1)
        .read_to_end(&mut out)?;
    if out.len() as u64 > limit {
        return Err(BoundedReadError::TooLarge { limit });
    }
    Ok(out)
}
