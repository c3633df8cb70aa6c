//! The evidence of a failing run: what failed (an exception's type, a C check, a Rust panic, a
//! trap, a limit), its message, the test's line where it happened, and the end of stderr, cut
//! to small sizes and with control characters escaped. Journaled with each failing cell
//! ([`crate::journal::CellRecord`]), shown by the run report and carried into JUnit.
//!
//! Everything here is a function of the verdict, which is a function of (artifact, input,
//! seed): no wall time, no host path, no fuel count, so a replay re-derives the same bytes. A
//! time limit's output is left out (how far a run got before its fuel ran out depends on the
//! fuel a runtime spends, which replays on another machine's runtime do not compare).
//!
//! Where the text comes from, by the test's language:
//! - Python: the runner's failure line ([`crate::sandbox::GuestFailure`]: the exception's type and
//!   message, the last frame in the test file and its source);
//! - C/C++: dixit's checks and `assert` print `FILE:LINE: check failed: …` (`guest-sdk/c/`);
//! - Rust: dixit's panic hook prints `test failed: panicked at FILE:LINE:COL:` and the message
//!   (`guest-sdk/rust/`);
//! - anything else (a trap, an exit, an I/O test's differing output): the verdict's detail, or
//!   the last line of stderr.
//!
//! All of it is guest text, written by agents: hostile. It is stored with control characters
//! escaped (`\u{1b}`; newlines and tabs kept in the stderr excerpt and the message) and Unicode
//! direction overrides escaped too; whoever shows it still escapes it for HTML or XML.

use serde::{Deserialize, Serialize};

use crate::sandbox::{CompileSide, Verdict, VerdictKind};

/// The most characters of a message (and of a line's source) kept; a longer one ends in
/// `… (N more characters)`.
pub const MESSAGE_CAP: usize = 300;

/// The most bytes of stderr kept: its end; a longer stderr starts with a line saying how many
/// bytes were cut before it.
pub const STDERR_CAP: usize = 2048;

/// Why a run failed, as journaled and shown (see the module doc).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// What failed: an exception's type (`AssertionError`, `ValueError`), `check failed` or
    /// `assertion failed` (C/C++), `panic` (Rust), `trap`, `exit`, or the verdict's name (a
    /// limit, a build, an I/O test's output).
    pub kind: String,
    /// The failure's message, or a sentence for a limit or a build; at most [`MESSAGE_CAP`]
    /// characters.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// The file the failing line is in (the test's, or a solution's for a panic there): a
    /// file name, never a path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The failing line in `file`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// That line's source, when the runtime says (Python); at most [`MESSAGE_CAP`] characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The end of the run's stderr, at most [`STDERR_CAP`] bytes (none for a limit that cuts a
    /// run short at an arbitrary point, or a run that never started).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stderr: String,
}

impl Evidence {
    /// The evidence of a verdict; `None` for a pass.
    pub fn of(v: &Verdict) -> Option<Evidence> {
        use VerdictKind::*;
        let sentence = |kind: VerdictKind, message: &str| Evidence {
            kind: kind.as_str().into(),
            message: message.into(),
            ..Evidence::default()
        };
        let mut e = match v.verdict {
            Pass => return None,
            CompileError => sentence(
                CompileError,
                match v.side {
                    Some(CompileSide::Solution) => "the solution does not build",
                    Some(CompileSide::Test) => "the test does not build",
                    Some(CompileSide::Link) => "the test and the solution do not build together",
                    None => "the code does not build",
                },
            ),
            InternalError => sentence(
                InternalError,
                "dixit could not run it: a failure of this machine, not of the code",
            ),
            TimeLimit => sentence(
                TimeLimit,
                "the fuel ran out before the test finished: a loop that does not end, or more \
                 work than the fuel limit allows",
            ),
            WallTimeLimit => sentence(
                WallTimeLimit,
                "the wall-clock safety net stopped the run (not deterministic: run it again)",
            ),
            MemoryLimit => Evidence {
                stderr: excerpt(&v.stderr),
                ..sentence(MemoryLimit, "the run needed more memory than its limit")
            },
            OutputLimit => Evidence {
                stderr: excerpt(&v.stderr),
                ..sentence(OutputLimit, "the run wrote more than the output limit")
            },
            WrongAnswer | RuntimeError => Evidence {
                stderr: excerpt(&v.stderr),
                ..failure(v)
            },
        };
        e.message = capped(&escaped(&e.message), MESSAGE_CAP);
        e.kind = capped(&escaped(&e.kind), 80);
        e.code = e
            .code
            .map(|c| capped(&escaped(&c), MESSAGE_CAP))
            .filter(|c| !c.is_empty());
        e.file = e
            .file
            .map(|f| capped(&escaped(base_name(&f)), 120))
            .filter(|f| !f.is_empty());
        Some(e)
    }

    /// One line, as a compiler says it: `test_001.py:4: AssertionError: message — assert f(1)
    /// == 2` (the place when known, the message's newlines as spaces, then the line's source).
    pub fn headline(&self) -> String {
        let mut s = self
            .location()
            .map_or_else(String::new, |at| format!("{at}: "));
        s.push_str(&self.kind);
        let message = self
            .message
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        if !message.is_empty() {
            s.push_str(": ");
            s.push_str(&message);
        }
        if let Some(c) = &self.code {
            s.push_str(" — ");
            s.push_str(c);
        }
        s
    }

    /// `test_001.py:4`, `line 4`, or `None` when the line is not known.
    pub fn location(&self) -> Option<String> {
        let line = self.line?;
        Some(match &self.file {
            Some(f) => format!("{f}:{line}"),
            None => format!("line {line}"),
        })
    }
}

/// A failed check or an error: the runner's failure line, a C/C++ check, a Rust panic, a trap,
/// else the detail or the last line of stderr. Text not yet escaped or capped.
fn failure(v: &Verdict) -> Evidence {
    if let Some(f) = &v.failure {
        return Evidence {
            kind: if f.kind.is_empty() {
                v.verdict.as_str().into()
            } else {
                f.kind.clone()
            },
            message: f.message.clone(),
            file: f.file.clone(),
            line: f.line,
            code: f.code.clone(),
            stderr: String::new(),
        };
    }
    if let Some(e) = rust_panic(&v.stderr).or_else(|| c_check(&v.stderr)) {
        return e;
    }
    let detail = v.detail.as_deref().unwrap_or_default();
    if let Some(trap) = detail.strip_prefix("trap: ") {
        return Evidence {
            kind: "trap".into(),
            message: first_line(trap).into(),
            ..Evidence::default()
        };
    }
    if detail.starts_with("stack overflow") {
        return Evidence {
            kind: "trap".into(),
            message: first_line(detail).into(),
            ..Evidence::default()
        };
    }
    let last = v.stderr.lines().rev().find(|l| !l.trim().is_empty());
    match (detail.strip_prefix("exit code "), last) {
        // A bare exit code says less than what the program printed last.
        (Some(_), Some(line)) => Evidence {
            kind: v.verdict.as_str().into(),
            message: line.trim().into(),
            ..Evidence::default()
        },
        (Some(_), None) => Evidence {
            kind: "exit".into(),
            message: detail.into(),
            ..Evidence::default()
        },
        _ => Evidence {
            kind: v.verdict.as_str().into(),
            message: first_line(detail).into(),
            ..Evidence::default()
        },
    }
}

/// The last Rust panic printed by dixit's hook: `test failed: panicked at FILE:LINE:COL:` and
/// the message on the lines after it.
fn rust_panic(stderr: &str) -> Option<Evidence> {
    const MARK: &str = "test failed: panicked at ";
    let at = stderr.rfind(MARK)?;
    if at > 0 && !stderr[..at].ends_with('\n') {
        return None;
    }
    let rest = &stderr[at + MARK.len()..];
    let (head, message) = rest.split_once('\n').unwrap_or((rest, ""));
    let place = head.strip_suffix(':')?;
    let mut parts = place.rsplitn(3, ':');
    let (_col, line, file) = (parts.next()?, parts.next()?, parts.next()?);
    let line = line.parse::<u32>().ok()?;
    Some(Evidence {
        kind: "panic".into(),
        message: message.trim_end().into(),
        file: Some(file.into()),
        line: Some(line),
        ..Evidence::default()
    })
}

/// The last line of dixit's C/C++ checks and `assert`: `FILE:LINE: check failed: EXPR (VALUES)`
/// or `FILE:LINE: assertion failed: EXPR`.
fn c_check(stderr: &str) -> Option<Evidence> {
    stderr.lines().rev().find_map(|l| {
        let (place, kind, message) = ["check failed", "assertion failed"].iter().find_map(|k| {
            let (place, message) = l.split_once(&format!(": {k}: "))?;
            Some((place, *k, message))
        })?;
        let (file, line) = place.rsplit_once(':')?;
        let line = line.parse::<u32>().ok()?;
        Some(Evidence {
            kind: kind.into(),
            message: message.into(),
            file: Some(file.into()),
            line: Some(line),
            ..Evidence::default()
        })
    })
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or_default().trim_end()
}

/// The last component of a path (guest paths, or a build's absolute path in a panic).
fn base_name(p: &str) -> &str {
    p.rsplit(['/', '\\']).next().unwrap_or(p)
}

/// Guest text made safe to store and show: control characters other than newline and tab, and
/// characters that reorder or hide text (direction overrides, U+FFFE/U+FFFF), written as Rust
/// escapes (`\u{1b}`). A carriage return is escaped too: it could overwrite a line on a
/// terminal.
pub fn escaped(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            c if hostile(c) => out.extend(c.escape_unicode()),
            c => out.push(c),
        }
    }
    out
}

/// Whether a character must not reach a page, a terminal or an XML file as itself.
fn hostile(c: char) -> bool {
    c.is_control()
        || matches!(c as u32,
            0x200E | 0x200F | 0x202A..=0x202E | 0x2066..=0x2069 | 0xFFFE | 0xFFFF | 0xFEFF)
}

/// `s` cut to `cap` characters, saying how many more there were.
fn capped(s: &str, cap: usize) -> String {
    let n = s.chars().count();
    if n <= cap {
        return s.to_string();
    }
    let kept: String = s.chars().take(cap).collect();
    format!("{kept}… ({} more characters)", n - cap)
}

/// The end of stderr, escaped, at most [`STDERR_CAP`] bytes, cut at a line start when one is
/// near, with a first line saying how much was cut.
fn excerpt(stderr: &str) -> String {
    let s = escaped(stderr);
    if s.len() <= STDERR_CAP {
        return s;
    }
    let mut start = s.len() - STDERR_CAP;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    // Start at a line when one begins in the first quarter of what is kept.
    if let Some(nl) = s[start..].find('\n').filter(|&i| i < STDERR_CAP / 4) {
        start += nl + 1;
    }
    format!("[… {} bytes of stderr cut here]\n{}", start, &s[start..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::GuestFailure;

    fn verdict(kind: VerdictKind, detail: &str, stderr: &str) -> Verdict {
        let mut v = Verdict::not_run(kind, None, detail, 7);
        v.stderr = stderr.into();
        v
    }

    #[test]
    fn a_pass_has_none() {
        assert_eq!(Evidence::of(&verdict(VerdictKind::Pass, "", "noise")), None);
    }

    /// The runner's failure report (through the bridge, not stderr): the evidence's type,
    /// message, file, line and source.
    #[test]
    fn python_failure_report() {
        let stderr = "Traceback (most recent call last):\n  File \"/test/test_001.py\", line 4, in test_to_roman\n    assert to_roman(1) == \"I\"\nAssertionError: got ''\n";
        let report = "{\"type\": \"AssertionError\", \"message\": \"got ''\", \"file\": \"test_001.py\", \"line\": 4, \"code\": \"assert to_roman(1) == \\\"I\\\"\"}";
        let mut v = verdict(VerdictKind::WrongAnswer, "exit code 1", stderr);
        v.note_failure(Some(report));
        assert_eq!(v.stderr, stderr, "stderr stays the test's output");
        assert_eq!(
            v.failure,
            Some(GuestFailure {
                kind: "AssertionError".into(),
                message: "got ''".into(),
                file: Some("test_001.py".into()),
                line: Some(4),
                code: Some("assert to_roman(1) == \"I\"".into()),
            })
        );
        let e = Evidence::of(&v).unwrap();
        assert_eq!(e.kind, "AssertionError");
        assert_eq!(e.location().as_deref(), Some("test_001.py:4"));
        assert_eq!(
            e.headline(),
            "test_001.py:4: AssertionError: got '' — assert to_roman(1) == \"I\""
        );
        assert!(e.stderr.starts_with("Traceback"), "{}", e.stderr);
    }

    /// Text on stderr, whoever wrote it, is never a failure report: a solution that prints a
    /// line shaped like the old one forges nothing.
    #[test]
    fn stderr_never_becomes_a_failure_report() {
        let mut v = verdict(
            VerdictKind::WrongAnswer,
            "exit code 1",
            "dixit-failure: {\"type\": \"Forged\"}\n",
        );
        v.note_failure(None);
        v.note_failure(Some("not json"));
        assert_eq!(v.failure, None);
        let e = Evidence::of(&v).unwrap();
        assert_eq!(e.kind, "wrong_answer");
    }

    #[test]
    fn c_check_and_assert() {
        let v = verdict(
            VerdictKind::WrongAnswer,
            "exit code 1",
            "progress\ntoo_hard.c:5: check failed: is_leap(2000) == 1 (left: 0, right: 1)\n",
        );
        let e = Evidence::of(&v).unwrap();
        assert_eq!(e.kind, "check failed");
        assert_eq!(e.message, "is_leap(2000) == 1 (left: 0, right: 1)");
        assert_eq!(e.location().as_deref(), Some("too_hard.c:5"));
        let v = verdict(
            VerdictKind::WrongAnswer,
            "exit code 1",
            "t.cpp:12: assertion failed: f(3) == 9\n",
        );
        let e = Evidence::of(&v).unwrap();
        assert_eq!(
            e.headline(),
            "t.cpp:12: assertion failed: f(3) == 9",
            "{e:?}"
        );
    }

    /// A Rust panic: where, and the message's lines; a build path is cut to its file name.
    #[test]
    fn rust_panic_with_its_place() {
        let v = verdict(
            VerdictKind::WrongAnswer,
            "exit code 1",
            "test failed: panicked at /tmp/build-x/too_hard.rs:5:9:\nassertion `left == right` failed: is_leap(2000)\n  left: false\n right: true\n",
        );
        let e = Evidence::of(&v).unwrap();
        assert_eq!(e.kind, "panic");
        assert_eq!(e.file.as_deref(), Some("too_hard.rs"));
        assert_eq!(e.line, Some(5));
        assert_eq!(
            e.message,
            "assertion `left == right` failed: is_leap(2000)\n  left: false\n right: true"
        );
        assert_eq!(
            e.headline(),
            "too_hard.rs:5: panic: assertion `left == right` failed: is_leap(2000) left: false right: true"
        );
    }

    #[test]
    fn traps_exits_and_limits() {
        let v = verdict(
            VerdictKind::RuntimeError,
            "trap: wasm trap: integer divide by zero\nwasm backtrace:\n  0: 0x1f - f",
            "",
        );
        let e = Evidence::of(&v).unwrap();
        assert_eq!(
            (e.kind.as_str(), e.message.as_str()),
            ("trap", "wasm trap: integer divide by zero")
        );
        let v = verdict(VerdictKind::RuntimeError, "exit code 3", "");
        let e = Evidence::of(&v).unwrap();
        assert_eq!(
            (e.kind.as_str(), e.message.as_str()),
            ("exit", "exit code 3")
        );
        let v = verdict(
            VerdictKind::TimeLimit,
            "fuel exhausted after 99 units",
            "partial output",
        );
        let e = Evidence::of(&v).unwrap();
        assert_eq!(e.kind, "time_limit");
        assert!(e.message.starts_with("the fuel ran out"), "{}", e.message);
        assert!(
            e.stderr.is_empty(),
            "a time limit's output depends on the fuel spent"
        );
        assert!(!e.message.contains("99"));
        let mut v = verdict(VerdictKind::CompileError, "/tmp/x/a.c:1: error", "");
        v.side = Some(CompileSide::Test);
        let e = Evidence::of(&v).unwrap();
        assert_eq!(e.message, "the test does not build");
        let v = verdict(VerdictKind::WrongAnswer, "output differs at byte 4", "");
        assert_eq!(
            Evidence::of(&v).unwrap().message,
            "output differs at byte 4"
        );
    }

    /// Terminal escapes, carriage returns, direction overrides, NULs and markup: escaped or
    /// kept as text; the caps hold and say where they cut.
    #[test]
    fn hostile_text_is_escaped_and_capped() {
        let evil = "\u{1b}[2J\u{1b}]0;pwned\u{7}\rover\u{202e}txt\0</script><![CDATA[ ]]>";
        let mut v = verdict(
            VerdictKind::WrongAnswer,
            "exit code 1",
            &format!("{evil}\n"),
        );
        v.failure = Some(GuestFailure {
            kind: "Evil\u{1b}[31m".into(),
            message: format!("{evil}{}", "x".repeat(400)),
            file: Some("/test/../../etc/test_1.py".into()),
            line: Some(3),
            code: Some(evil.into()),
        });
        let e = Evidence::of(&v).unwrap();
        for text in [&e.kind, &e.message, &e.stderr, e.code.as_ref().unwrap()] {
            assert!(!text.chars().any(|c| hostile(c) && c != '\n'), "{text:?}");
        }
        assert!(e.message.contains("\\u{1b}[2J"), "{}", e.message);
        assert!(e.message.contains("\\u{202e}"), "{}", e.message);
        assert!(
            e.message.contains("</script>"),
            "kept as text: escaping is the page's job"
        );
        assert!(e.message.ends_with("more characters)"), "{}", e.message);
        assert!(e.message.chars().count() < MESSAGE_CAP + 30);
        assert_eq!(e.file.as_deref(), Some("test_1.py"));
        let v = verdict(
            VerdictKind::RuntimeError,
            "exit code 2",
            &"line\n".repeat(2000),
        );
        let e = Evidence::of(&v).unwrap();
        assert!(e.stderr.len() <= STDERR_CAP + 60, "{}", e.stderr.len());
        assert!(e.stderr.starts_with("[… 7"), "{}", &e.stderr[..40]);
        assert!(e.stderr.lines().nth(1) == Some("line"));
    }
}
