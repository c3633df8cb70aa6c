//! What a confined build may learn about host paths outside its confinement: nothing, not even
//! whether they exist.
//!
//! Landlock refuses to open what a build may not read, but it refuses with `EACCES`, while a
//! path that does not exist fails with `ENOENT`, and `stat` is not confined at all. A build whose
//! messages differ between the two (`Permission denied` against `No such file or directory`, or
//! `__has_include` true against false) would let one compile error probe dozens of host paths,
//! and the build log reaches the verdict and the agent's next prompt. Two mechanisms close this
//! as a class:
//!
//! * **At the source, for clang** ([`clang_overlay`]): clang's front end (every `#include`,
//!   `__has_include`, `#pragma GCC dependency`; newer clangs' `#embed` and `__has_embed` use the
//!   same lookup, untested with clang 14) looks files up through a virtual file system; dixit gives it an overlay that shows exactly the directories the build
//!   may read and nothing else (`fallthrough: false`). A path outside them is missing for the
//!   compiler, whether or not it exists on the host: one lookup, one answer, one message. The
//!   integrated assembler's `.incbin` and `.include` read the real file system, but clang reports
//!   every failure to open them with one message already ("Could not find incbin file").
//! * **In every build log, for every tool** ([`hide_open_failures`]): the operating system's
//!   reasons for failing to open a path (`Permission denied`, `No such file or directory`, `Not a
//!   directory`, `Is a directory`, and the like, in LLVM's form `…: Permission denied` and Rust's
//!   `…: Permission denied (os error 13)`) all read [`NOT_FOUND_OR_NOT_ALLOWED`]. rustc opens the
//!   files of `include_str!`, `include_bytes!`, `include!`, `#[path]` and
//!   `#[debugger_visualizer]` directly and says only why it failed, so its messages for a
//!   forbidden and for a missing path differ in that reason alone. `process::failure_log`, which
//!   every log of a confined build passes through before it can reach a verdict or a prompt,
//!   applies it.

use std::path::{Path, PathBuf};

/// What every failure to open a path says in a build log.
pub(crate) const NOT_FOUND_OR_NOT_ALLOWED: &str = "not found or not allowed";

/// The reasons an `open` (or a path lookup) can fail with, as `strerror` spells them (what
/// LLVM's and Rust's messages print): any of them may depend on what exists outside the
/// confinement (`Not a directory` under an existing file, `Is a directory`, a symlink loop…).
const OPEN_FAILURES: &[&str] = &[
    "No such file or directory",
    "Permission denied",
    "Operation not permitted",
    "Not a directory",
    "Is a directory",
    "Too many levels of symbolic links",
    "File name too long",
    "No such device or address",
    "No such device",
    "Invalid argument",
    "Text file busy",
    "Input/output error",
    "Value too large for defined data type",
    "Operation not supported",
    "Read-only file system",
];

/// `log` with every reason for a failed open replaced by [`NOT_FOUND_OR_NOT_ALLOWED`]: in
/// LLVM's form (`cannot open file 'x': Permission denied`, the reason ending the line) and in
/// Rust's (`couldn't read `x`: Permission denied (os error 13)`, anywhere in a line).
pub(crate) fn hide_open_failures(log: &str) -> String {
    let mut out = String::with_capacity(log.len());
    for (i, line) in log.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&hide_in_line(line));
    }
    out
}

fn hide_in_line(line: &str) -> String {
    let mut line = line.to_string();
    // Rust: `: <reason> (os error N)`, wherever it is.
    let mut from = 0;
    while let Some(at) = line[from..].find(" (os error ").map(|p| p + from) {
        let digits_start = at + " (os error ".len();
        let digits = line[digits_start..]
            .bytes()
            .take_while(u8::is_ascii_digit)
            .count();
        let close = digits_start + digits;
        let reason_start = line[..at].rfind(": ").map(|p| p + 2);
        match reason_start {
            Some(start)
                if digits > 0
                    && line[close..].starts_with(')')
                    && OPEN_FAILURES.contains(&&line[start..at]) =>
            {
                line.replace_range(start..close + 1, NOT_FOUND_OR_NOT_ALLOWED);
                from = start + NOT_FOUND_OR_NOT_ALLOWED.len();
            }
            _ => from = close,
        }
    }
    // LLVM (clang, lld): `…: <reason>` ending the line.
    let trimmed = line.trim_end_matches('\r');
    for reason in OPEN_FAILURES {
        if let Some(head) = trimmed.strip_suffix(reason) {
            if head.ends_with(": ") {
                let tail = &line[trimmed.len()..];
                return format!("{head}{NOT_FOUND_OR_NOT_ALLOWED}{tail}");
            }
        }
    }
    line
}

/// A virtual file system overlay for clang's front end (`-ivfsoverlay FILE`) that shows only
/// the directories among `visible` (what the build may read, run and write) and hides the rest
/// of the host: there, existing and missing paths look the same (missing). Nested directories
/// are covered by their ancestor's entry.
pub(crate) fn clang_overlay<'p>(visible: impl IntoIterator<Item = &'p Path>) -> String {
    let mut dirs: Vec<PathBuf> = visible
        .into_iter()
        .filter(|p| p.is_dir())
        .filter_map(|p| std::path::absolute(p).ok())
        .collect();
    dirs.sort();
    dirs.dedup();
    let roots: Vec<&Path> = dirs
        .iter()
        .enumerate()
        .filter(|(i, d)| !dirs[..*i].iter().any(|a| d.starts_with(a)))
        .map(|(_, d)| d.as_path())
        .collect();
    let entries: Vec<serde_json::Value> = roots
        .iter()
        .map(|d| {
            let p = d.display().to_string();
            serde_json::json!({"type": "directory-remap", "name": p, "external-contents": p})
        })
        .collect();
    // JSON is YAML, which is what clang reads.
    serde_json::json!({
        "version": 0,
        "case-sensitive": true,
        "fallthrough": false,
        "roots": entries,
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_an_open_failed_reads_the_same() {
        let rustc = |reason: &str, n: u32| {
            format!(
                "error: couldn't read `/etc/xxxxxx`: {reason} (os error {n})\n --> lib.rs:1:21\n"
            )
        };
        let clang = |reason: &str| {
            format!("t.c:1:10: fatal error: cannot open file '/etc/xxxxxx': {reason}\n1 error generated.")
        };
        let hidden_rustc = hide_open_failures(&rustc("Permission denied", 13));
        let hidden_clang = hide_open_failures(&clang("Permission denied"));
        assert_eq!(
            hidden_rustc,
            "error: couldn't read `/etc/xxxxxx`: not found or not allowed\n --> lib.rs:1:21\n"
        );
        for (reason, n) in [
            ("No such file or directory", 2),
            ("Not a directory", 20),
            ("Is a directory", 21),
            ("Too many levels of symbolic links", 40),
            ("Operation not permitted", 1),
        ] {
            assert_eq!(hide_open_failures(&rustc(reason, n)), hidden_rustc);
            assert_eq!(hide_open_failures(&clang(reason)), hidden_clang);
        }
        // lld's form, and a line with CR.
        assert_eq!(
            hide_open_failures("wasm-ld: error: cannot open /x: Permission denied\r"),
            "wasm-ld: error: cannot open /x: not found or not allowed\r"
        );
    }

    #[test]
    fn other_messages_are_left_alone() {
        for log in [
            "error[E0308]: mismatched types",
            "t.c:3:5: error: use of undeclared identifier 'Permission denied'",
            "note: Permission denied is a phrase",
            "error: something (os error 28)",
            "error: No space left on device (os error 28)",
            "x: Permission denied (os error )",
            "",
        ] {
            assert_eq!(hide_open_failures(log), log);
        }
    }

    #[test]
    fn the_overlay_lists_each_readable_tree_once() {
        let d = tempfile::tempdir().unwrap();
        let a = d.path().join("a");
        let nested = a.join("b");
        std::fs::create_dir_all(&nested).unwrap();
        let file = d.path().join("f");
        std::fs::write(&file, "").unwrap();
        let missing = d.path().join("missing");
        let visible = [file.as_path(), &nested, &a, &missing];
        let v: serde_json::Value = serde_json::from_str(&clang_overlay(visible)).unwrap();
        assert_eq!(v["fallthrough"], false);
        let roots = v["roots"].as_array().unwrap();
        assert_eq!(roots.len(), 1, "{v}");
        assert_eq!(roots[0]["name"], a.display().to_string());
        assert_eq!(roots[0]["external-contents"], a.display().to_string());
    }
}
