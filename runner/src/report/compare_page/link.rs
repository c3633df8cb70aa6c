//! Links from the comparison page to each cell's run page (`<run_dir>/report.html`): relative
//! to the page's folder when the two share a folder below the root (so the comparison and its
//! runs can move together), else an absolute `file://` URL. Every path segment is
//! percent-encoded byte by byte, so a folder named by an agent or a benchmark (`#`, `?`, `%`,
//! spaces, `:`, quotes, non-UTF-8 bytes) stays one segment of a path and can never become a
//! scheme (`javascript:`), a query or a fragment.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

/// The href of the run page of `run_dir` from a page in `page_dir`.
pub fn run_page_href(page_dir: &Path, run_dir: &Path) -> String {
    // Real paths when both exist (links then hold across symbolic links), else both absolute
    // paths as written: never one of each.
    let (from, to) = match (
        std::fs::canonicalize(page_dir),
        std::fs::canonicalize(run_dir),
    ) {
        (Ok(a), Ok(b)) => (segments(&a), segments(&b)),
        _ => (segments(page_dir), segments(run_dir)),
    };
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let target: Vec<String> = to[common..]
        .iter()
        .map(|s| encode_segment(s))
        .chain(["report.html".to_string()])
        .collect();
    if common == 0 {
        return format!("file:///{}", target.join("/"));
    }
    let up = vec![".."; from.len() - common];
    up.into_iter()
        .map(str::to_string)
        .chain(target)
        .collect::<Vec<_>>()
        .join("/")
}

/// The folders of `p` from the root, with `.` and `..` resolved by name (a relative `p` is
/// taken from the working directory).
fn segments(p: &Path) -> Vec<PathBuf> {
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut out: Vec<PathBuf> = Vec::new();
    for c in abs.components() {
        match c {
            Component::Normal(s) => out.push(PathBuf::from(s)),
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    out
}

/// One path segment percent-encoded: every byte but ASCII letters, digits and `-._~` (RFC
/// 3986's unreserved characters) becomes `%XX`.
pub fn encode_segment(segment: &Path) -> String {
    let bytes = OsStr::as_bytes(segment.as_os_str());
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_near_the_page_is_linked_relatively() {
        assert_eq!(
            run_page_href(Path::new("/exp/cmp"), Path::new("/exp/tri1/runs/r1")),
            "../tri1/runs/r1/report.html"
        );
        assert_eq!(
            run_page_href(Path::new("/exp/cmp"), Path::new("/exp/cmp/runs/tri/r1")),
            "runs/tri/r1/report.html"
        );
        assert_eq!(
            run_page_href(Path::new("/exp/./a/../cmp"), Path::new("/exp/x/r")),
            "../x/r/report.html"
        );
    }

    #[test]
    fn a_run_with_nothing_in_common_gets_a_file_url() {
        assert_eq!(
            run_page_href(Path::new("/exp/cmp"), Path::new("/srv/runs/r 1")),
            "file:///srv/runs/r%201/report.html"
        );
    }

    #[test]
    fn every_segment_is_encoded_and_no_scheme_or_fragment_appears() {
        let href = run_page_href(
            Path::new("/exp/cmp"),
            Path::new("/exp/javascript:alert(1)/<b>#x?y=%\"'/r"),
        );
        assert_eq!(
            href,
            "../javascript%3Aalert%281%29/%3Cb%3E%23x%3Fy%3D%25%22%27/r/report.html"
        );
        let bytes = OsStr::from_bytes(b"caf\xc3\xa9\xff");
        assert_eq!(encode_segment(Path::new(bytes)), "caf%C3%A9%FF");
    }
}
