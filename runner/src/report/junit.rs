//! JUnit XML of a run (`dixit run --junit FILE`, `dixit report RUN_DIR --junit FILE`): the
//! final suite, and the hidden tests, against every coder's final code, one `<testsuite>` per
//! coder, as CI systems read it. Verdicts come from the journal ([`RunView::final_cells`] and
//! the hidden runs), nothing is run again. A wrong answer is a `<failure>`; any other failing
//! verdict (a crash, a limit, a build) is an `<error>`; a test never run against that code is
//! `<skipped>`. Every text is escaped for XML 1.0, including characters it cannot carry.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::input::ReportError;
use super::run_report::RunView;
use crate::journal::CellRecord;
use crate::sandbox::VerdictKind;

/// Text escaped for XML attributes and character data; characters XML 1.0 forbids become
/// U+FFFD.
pub fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || matches!(c as u32, 0xFFFE | 0xFFFF) => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

struct Case {
    class: &'static str,
    name: String,
    /// The test as a path `dixit exec` takes, relative to the run directory.
    path: String,
    cell: Option<CellRecord>,
}

/// The JUnit XML of `v`.
pub fn render_junit(v: &RunView) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let mut suites = String::new();
    let (mut all_tests, mut all_failures, mut all_errors, mut all_skipped) = (0, 0, 0, 0);
    for coder in &v.coders {
        let mut cases: Vec<Case> = v
            .suite
            .iter()
            .enumerate()
            .map(|(j, t)| Case {
                class: "suite",
                name: format!("{} (by {})", t.file, t.author),
                path: v.suite_test_path(t),
                cell: v
                    .final_cells
                    .get(coder)
                    .and_then(|c| c.get(j).cloned())
                    .flatten(),
            })
            .collect();
        let hidden = v.hidden.get(coder);
        cases.extend(v.hidden_tests.iter().enumerate().map(|(k, name)| Case {
            class: "hidden",
            name: name.clone(),
            path: format!("PROJECT/hidden/{}", name),
            cell: hidden.and_then(|h| h.get(k).cloned()),
        }));
        let failures = cases
            .iter()
            .filter(|c| {
                c.cell
                    .as_ref()
                    .is_some_and(|x| x.v == VerdictKind::WrongAnswer)
            })
            .count();
        let skipped = cases.iter().filter(|c| c.cell.is_none()).count();
        let errors = cases
            .iter()
            .filter(|c| {
                c.cell
                    .as_ref()
                    .is_some_and(|x| !matches!(x.v, VerdictKind::Pass | VerdictKind::WrongAnswer))
            })
            .count();
        all_tests += cases.len();
        all_failures += failures;
        all_errors += errors;
        all_skipped += skipped;
        let _ = writeln!(
            suites,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\">",
            xml_escape(coder),
            cases.len()
        );
        let _ = writeln!(
            suites,
            "    <properties>\n      <property name=\"run\" value=\"{}\"/>\n      <property name=\"protocol\" value=\"{}\"/>\n      <property name=\"implementation\" value=\"implementations/{}\"/>\n    </properties>",
            xml_escape(&v.journal.run_id),
            v.journal.protocol.as_str(),
            xml_escape(coder)
        );
        for c in &cases {
            let _ = write!(
                suites,
                "    <testcase classname=\"{}.{}\" name=\"{}\"",
                xml_escape(coder),
                c.class,
                xml_escape(&c.name)
            );
            let Some(cell) = &c.cell else {
                suites.push_str(
                    ">\n      <skipped message=\"not run against this coder's final code\"/>\n    </testcase>\n",
                );
                continue;
            };
            if cell.v == VerdictKind::Pass {
                suites.push_str("/>\n");
                continue;
            }
            let tag = if cell.v == VerdictKind::WrongAnswer {
                "failure"
            } else {
                "error"
            };
            let verdict = format!(
                "{}{} (seed {}, fuel {})",
                cell.v,
                cell.exit.map(|e| format!(", exit {e}")).unwrap_or_default(),
                cell.seed,
                cell.fuel
            );
            // The failure itself leads the message; its stderr goes in the body.
            let (message, evidence) = match &cell.evidence {
                Some(e) => (
                    format!("{}; {verdict}", e.headline()),
                    if e.stderr.is_empty() {
                        String::new()
                    } else {
                        format!("\nstderr (its end):\n{}", e.stderr.trim_end())
                    },
                ),
                None => (verdict, String::new()),
            };
            let again = v.exec_command(coder, &c.path, cell.seed);
            let _ = write!(
                suites,
                ">\n      <{tag} type=\"{}\" message=\"{}\">{}</{tag}>\n    </testcase>\n",
                cell.v,
                xml_escape(&message),
                xml_escape(&format!("{message}{evidence}\nto see it again, from the run directory (PROJECT: the project's folder): {again}"))
            );
        }
        suites.push_str("  </testsuite>\n");
    }
    let _ = writeln!(
        out,
        "<testsuites name=\"dixit run {}\" tests=\"{all_tests}\" failures=\"{all_failures}\" errors=\"{all_errors}\" skipped=\"{all_skipped}\">",
        xml_escape(&v.journal.run_id)
    );
    out.push_str(&suites);
    out.push_str("</testsuites>\n");
    out
}

/// Writes the JUnit XML of the run in `run_dir` (its journal read, its summary folded) to
/// `path` and returns it.
pub fn write_junit(
    run_dir: &Path,
    journal: &crate::journal::JournalFile,
    summary: &crate::outcome::Summary,
    protocol: &dyn crate::outcome::ProtocolData,
    path: &Path,
) -> Result<PathBuf, ReportError> {
    let v = super::run_report::RunView::new(journal, summary, run_dir, protocol);
    std::fs::write(path, render_junit(&v)).map_err(|e| ReportError::io(path, e))?;
    Ok(path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_quotes_and_forbidden_characters() {
        assert_eq!(
            xml_escape("<img src=x onerror=\"alert('1')\">&\u{1}\u{7}\n"),
            "&lt;img src=x onerror=&quot;alert(&apos;1&apos;)&quot;&gt;&amp;\u{FFFD}\u{FFFD}\n"
        );
        assert_eq!(xml_escape("ünïcode ✓"), "ünïcode ✓");
    }
}
