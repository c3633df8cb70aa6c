//! The files a run leaves for people: each coder's final implementation, the suite as files a
//! person can run, and `summary.json`, written by the caller of the engine once a run returned.

use std::path::{Path, PathBuf};

use crate::agents::copy_dir;
use crate::outcome::FinishedRun;
use crate::outcome::{ProtocolData, Summary};
use crate::toolchain::TestKind;

/// Why writing a run's outputs failed.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}")]
pub struct OutputError {
    /// The file or folder.
    pub path: PathBuf,
    /// The I/O error.
    #[source]
    pub source: std::io::Error,
}

fn io<T>(path: &Path, r: std::io::Result<T>) -> Result<T, OutputError> {
    r.map_err(|source| OutputError {
        path: path.to_path_buf(),
        source,
    })
}

/// Writes `implementations/<coder>/`, `suite/README.md` and `summary.json` into the folder of
/// the run that returned `outcome`. A resume that was undone, or a replay, leaves the folder as
/// it was.
pub fn write_outputs(outcome: &FinishedRun) -> Result<(), OutputError> {
    if outcome.resume_undone || outcome.journal.is_none() {
        return Ok(());
    }
    let (run_dir, summary, kind) = (&outcome.run_dir, &outcome.summary, outcome.test_kind);
    for (name, ws) in &outcome.implementations {
        let to = run_dir.join("implementations").join(name);
        if to.exists() {
            io(&to, std::fs::remove_dir_all(&to))?;
        }
        copy_dir(ws, &to).map_err(|e| OutputError {
            path: e.path.clone(),
            source: e.source,
        })?;
    }
    let suite_dir = run_dir.join("suite");
    io(&suite_dir, std::fs::create_dir_all(&suite_dir))?;
    let readme = suite_dir.join("README.md");
    io(
        &readme,
        std::fs::write(&readme, suite_readme(kind, summary, outcome.protocol)),
    )?;
    let json = serde_json::to_string_pretty(summary).unwrap_or_default();
    let path = run_dir.join("summary.json");
    io(&path, std::fs::write(&path, json + "\n"))
}

fn suite_readme(kind: TestKind, s: &Summary, protocol: &dyn ProtocolData) -> String {
    let how = match kind {
        TestKind::Python => "cd ../implementations/coder-1 && for t in ../../suite/test_*.py; do PYTHONPATH=. python3 \"$t\" || echo \"FAIL $t\"; done",
        TestKind::C => "for t in test_*.c; do cc -I ../implementations/coder-1 \"$t\" ../implementations/coder-1/*.c -o t.out -lm && ./t.out || echo \"FAIL $t\"; done",
        TestKind::Cpp => "for t in test_*.cpp; do c++ -I ../implementations/coder-1 \"$t\" ../implementations/coder-1/*.cpp -o t.out && ./t.out || echo \"FAIL $t\"; done",
        TestKind::Rust => "(each test is a program using the crate `solution`; or use dixit: dixit exec --solution ../implementations/coder-1 --test test_001.rs)",
        TestKind::Io => "dixit exec --solution ../implementations/coder-1 --test test_001.toml",
    };
    let why = match protocol.suite_reason() {
        Some(r) => format!("Each test joined the suite because {r}."),
        None => "The tests this run checked its implementations against.".into(),
    };
    let mut out =
        format!("# The test suite\n\n{why}\n\n| # | file | written by |\n|---|---|---|\n");
    for t in &s.suite {
        out.push_str(&format!("| {} | {} | {} |\n", t.number, t.file, t.author));
    }
    out.push_str(&format!("\nRun them natively against an implementation, for example:\n\n    {how}\n\nor in dixit's sandbox:\n\n    dixit exec --solution ../implementations/coder-1 --test test_001.{}\n", kind.extension()));
    out
}
