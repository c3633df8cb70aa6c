//! Terminal output shared by commands: verdicts, colour, guest text made safe to print (numbers
//! are `report::format`'s). Data goes to stdout; progress and logs to stderr. Colour only on a
//! terminal and never when `NO_COLOR` is set.

use std::io::IsTerminal;

use crate::evidence::Evidence;
use crate::report::format::{bytes, micros, thousands};
use crate::sandbox::{Verdict, VerdictKind};

/// Whether to colour stdout.
pub fn color() -> bool {
    std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal()
}

fn paint(s: &str, code: &str) -> String {
    if color() {
        format!("\x1b[{code}m{s}\x1b[0m")
    } else {
        s.to_string()
    }
}

/// A verdict name, green for pass and red otherwise.
pub fn verdict_name(k: VerdictKind) -> String {
    paint(k.as_str(), if k == VerdictKind::Pass { "32" } else { "31" })
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

/// The one-line summary of a verdict plus its detail and a tail of its output.
pub fn verdict_block(v: &Verdict) -> String {
    let mut s = format!(
        "{}{}  (fuel {} · peak memory {} · {} · seed {})\n",
        verdict_name(v.verdict),
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
