//! Terminal output shared by commands: verdicts, colour, guest text made safe to print (numbers
//! are `report::format`'s). Data goes to stdout; progress and logs to stderr. Colour is decided
//! per stream: only on a terminal, never when `TERM=dumb` or `NO_COLOR` is set (non-empty).

use std::ffi::OsStr;
use std::io::IsTerminal;

use crate::evidence::Evidence;
use crate::report::format::{bytes, micros, thousands};
use crate::sandbox::{Verdict, VerdictKind};

/// An output stream of the process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// Data: results, tables, JSON.
    Stdout,
    /// Progress, the status line, logs and errors.
    Stderr,
}

impl Stream {
    /// Whether this stream is a terminal.
    pub fn is_terminal(self) -> bool {
        match self {
            Stream::Stdout => std::io::stdout().is_terminal(),
            Stream::Stderr => std::io::stderr().is_terminal(),
        }
    }

    /// Whether to colour what goes to this stream: a terminal that is not `TERM=dumb`, and no
    /// `NO_COLOR`.
    pub fn color(self) -> bool {
        wants_color(
            self.is_terminal(),
            std::env::var_os("NO_COLOR").as_deref(),
            std::env::var_os("TERM").as_deref(),
        )
    }

    /// Whether a live status line (which redraws itself with cursor movements) fits this
    /// stream: a terminal that is not `TERM=dumb`.
    pub fn live(self) -> bool {
        self.is_terminal() && !dumb(std::env::var_os("TERM").as_deref())
    }
}

fn dumb(term: Option<&OsStr>) -> bool {
    term == Some(OsStr::new("dumb"))
}

/// The colour rule, apart from the environment: a terminal, no non-empty `NO_COLOR`
/// (no-color.org), and a `TERM` that is not `dumb`.
fn wants_color(terminal: bool, no_color: Option<&OsStr>, term: Option<&OsStr>) -> bool {
    terminal && no_color.is_none_or(|v| v.is_empty()) && !dumb(term)
}

/// `s` in the SGR colour `code` when `stream` is coloured, else as it is.
pub fn paint(stream: Stream, s: &str, code: &str) -> String {
    if stream.color() {
        format!("\x1b[{code}m{s}\x1b[0m")
    } else {
        s.to_string()
    }
}

/// A verdict name for `stream`, green for pass and red otherwise, padded to `width` columns
/// (the padding outside the colour, so that columns line up either way).
pub fn verdict_name(stream: Stream, k: VerdictKind, width: usize) -> String {
    let name = k.as_str();
    let pad = " ".repeat(width.saturating_sub(name.chars().count()));
    let code = if k == VerdictKind::Pass { "32" } else { "31" };
    format!("{}{pad}", paint(stream, name, code))
}

/// Text from a guest (its output, a build log, a detail) made safe to print on a terminal:
/// control characters other than newline and tab are shown escaped (`\x1b`), so an ANSI escape
/// in a test's stderr cannot move the cursor, recolour or retitle the terminal.
pub fn printable(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            c if c.is_control() => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out
}

/// The one-line summary of a verdict plus its detail and a tail of its output, for stdout.
pub fn verdict_block(v: &Verdict) -> String {
    let mut s = format!(
        "{}{}  (fuel {} · peak memory {} · {} · seed {})\n",
        verdict_name(Stream::Stdout, v.verdict, 0),
        v.side
            .map(|s| format!(
                " ({})",
                serde_json::to_value(s)
                    .ok()
                    .and_then(|x| x.as_str().map(String::from))
                    .unwrap_or_default()
            ))
            .unwrap_or_default(),
        thousands(v.fuel),
        bytes(v.peak_memory),
        micros(v.wall_us),
        v.seed
    );
    if let Some(d) = &v.detail {
        s.push_str(&format!("  {}\n", printable(d)));
    }
    // Where a failed check or an exception happened, as the journal keeps it.
    if let Some(e) = Evidence::of(v).filter(|e| e.line.is_some()) {
        s.push_str(&format!("  failed at {}\n", printable(&e.headline())));
    }
    if v.read_entropy || v.read_clock {
        let what: Vec<&str> = [(v.read_entropy, "entropy"), (v.read_clock, "a clock")]
            .iter()
            .filter(|x| x.0)
            .map(|x| x.1)
            .collect();
        s.push_str(&format!(
            "  read {}: reruns with other seeds may differ\n",
            what.join(" and ")
        ));
    }
    for (name, text) in [("stdout", &v.stdout), ("stderr", &v.stderr)] {
        if !v.passed() && !text.trim().is_empty() {
            s.push_str(&format!("  --- {name} (last lines) ---\n"));
            let lines: Vec<&str> = text.lines().collect();
            for l in &lines[lines.len().saturating_sub(12)..] {
                s.push_str(&format!(
                    "  {}\n",
                    printable(&l.chars().take(200).collect::<String>())
                ));
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    #[test]
    fn colour_only_on_a_terminal_that_is_not_dumb_and_without_no_color() {
        let c = |t, n: Option<&str>, term: Option<&str>| {
            super::wants_color(t, n.map(OsStr::new), term.map(OsStr::new))
        };
        assert!(c(true, None, Some("xterm-256color")));
        assert!(c(true, None, None));
        assert!(
            c(true, Some(""), Some("xterm")),
            "an empty NO_COLOR is unset"
        );
        assert!(!c(false, None, Some("xterm")), "not a terminal");
        assert!(!c(true, Some("1"), Some("xterm")), "NO_COLOR");
        assert!(!c(true, None, Some("dumb")), "TERM=dumb");
    }

    #[test]
    fn guest_text_cannot_drive_the_terminal() {
        let evil = "ok\x1b]0;pwned\x07\x1b[2J\rline\n\tnext\u{9b}31m";
        let p = super::printable(evil);
        assert!(
            !p.chars().any(|c| c.is_control() && c != '\n' && c != '\t'),
            "{p:?}"
        );
        assert!(p.contains("\\u{1b}]0;pwned"), "{p}");
        assert!(p.contains("\n\tnext"), "{p}");
    }
}
