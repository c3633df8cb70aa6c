//! Tests written by agents: asking for one ([`ask_test`]) and classifying it against a pool of
//! solutions ([`classify`]: TOO_EASY, IDEAL, TOO_HARD or INVALID).

use std::sync::Arc;

use crate::agents::Agent;
use crate::classify::{run_matrix, Class, Classification};
use crate::journal::{CellRecord, Event, DETACHED_SINCE_MINOR, NAMES_BOUND_SINCE_MINOR};
use crate::sandbox::CompileSide;
use crate::toolchain::{Solution, Test};

use super::ctx::{Ctx, Halt, ProtocolError};

/// A proposed test: where it came from and, if the reply had one, the test itself.
#[derive(Clone)]
pub struct Proposal {
    /// `tester-1#3`: the agent and the call that produced it.
    pub id: String,
    /// The test's source, when the reply had one.
    pub source: Option<String>,
    /// The test, or why there is none (no test in the reply, or one that could not be taken).
    pub test: Result<Arc<Test>, String>,
    /// The reply was cut off at the length limit.
    pub truncated: bool,
}

/// Asks `agent` for one test with `prompt`. The test is taken from the reply (its first code
/// block of the test kind) and kept in `runs/<id>/tests/<agent>/<call>/`, never in the
/// agent's workspace: an agent that also writes code keeps its solution apart
/// from its tests.
pub async fn ask_test(
    ctx: &Ctx,
    agent: &mut Agent,
    purpose: &str,
    prompt: &str,
) -> Result<Proposal, Halt> {
    let kind = ctx.test_kind();
    let default_file = format!("test.{}", kind.extension());
    let turn = ctx
        .ask_detached(agent, purpose, prompt, &default_file, &[kind.extension()])
        .await?;
    let id = format!("{}#{}", agent.name, turn.call);
    let Some((name, content)) = turn
        .files
        .iter()
        .find_map(|f| Some((f.path.clone(), f.content.clone()?)))
    else {
        return Ok(Proposal {
            id,
            source: None,
            test: Err("no test was found in the reply".into()),
            truncated: turn.truncated,
        });
    };
    // The test keeps the name the reply gave it (`test.py` for an unnamed block): its build
    // errors, which go back to its author, name it.
    let dir = ctx
        .run_dir
        .join("tests")
        .join(&agent.name)
        .join(turn.call.to_string());
    let path = dir.join(&name);
    std::fs::create_dir_all(path.parent().unwrap_or(&dir))
        .and_then(|()| std::fs::write(&path, &content))
        .map_err(|source| {
            Halt::Fatal(ProtocolError::Write {
                path: path.clone(),
                source,
            })
        })?;
    let test = ctx
        .test(&path)
        .map(Arc::new)
        .map_err(|e| e.message.replace(&format!("{}/", dir.display()), ""));
    Ok(Proposal {
        id,
        source: Some(content),
        test,
        truncated: turn.truncated,
    })
}

/// What `classify` found.
pub struct Classified {
    /// The test's class.
    pub class: Class,
    /// Solutions that failed the test.
    pub failures: usize,
    /// For INVALID: what the test's author is told (its own build errors; never solution code).
    pub reason: Option<String>,
    /// The test's reply was cut off at the length limit.
    pub truncated: bool,
    /// For INVALID: the test failed every solution exactly as it fails with none, so it does not
    /// exercise the implementation; what it printed then (the test's own output, no solution's).
    pub detached: Option<String>,
    /// With `detached`: why it never reached the code, as specifically as its failure says (a
    /// name used without its import, a name or module the interface does not have).
    pub detached_why: Option<String>,
}

/// A test against every solution of `pool`, with reruns: one cell per solution, or the build
/// error when the test does not build on its own. Nothing is journaled (the caller journals
/// what it decides).
pub async fn run_test(
    ctx: &Ctx,
    test: &Arc<Test>,
    pool: &[Arc<Solution>],
) -> Result<Vec<crate::classify::PairVerdict>, String> {
    let (test, pool, reruns, seed, limits) = (
        test.clone(),
        pool.to_vec(),
        ctx.reruns(),
        ctx.seed(),
        ctx.limits(),
    );
    ctx.blocking(move |tc| {
        tc.check_test(&test).map_err(|e| e.message)?;
        let sols: Vec<&Solution> = pool.iter().map(|s| &**s).collect();
        Ok(run_matrix(tc, &sols, &[&test], reruns, seed, &limits).remove(0))
    })
    .await
}

/// `classify(test, coders)`: the test against every solution of `pool`, with reruns, under the
/// band rule with `minority` (journaled in `lane`, the author's).
pub async fn classify(
    ctx: &Ctx,
    lane: &str,
    p: &Proposal,
    pool: &[Arc<Solution>],
    minority: f64,
) -> Result<Classified, Halt> {
    let test = match &p.test {
        Err(reason) => {
            ctx.emit(
                lane,
                Event::Classified {
                    test: p.id.clone(),
                    class: Class::Invalid,
                    failures: 0,
                    pool: pool.len(),
                    build_error: Some(reason.clone()),
                    cells: vec![],
                },
            )?;
            return Ok(Classified {
                class: Class::Invalid,
                failures: 0,
                reason: Some(reason.clone()),
                truncated: p.truncated,
                detached: None,
                detached_why: None,
            });
        }
        Ok(t) => t.clone(),
    };
    let c: Result<Classification, String> = run_test(ctx, &test, pool)
        .await
        .map(|row| Classification::from_cells(row, minority));
    let mut detached = None;
    let mut detached_why = None;
    let (class, reason, failures, cells) = match c {
        Err(e) => (Class::Invalid, Some(e), 0, vec![]),
        Ok(c) => {
            let mut reason = c.build_error.as_ref().map(|_| link_errors_only(&c));
            let mut class = c.class;
            if class != Class::Invalid && ctx.journal.minor() >= DETACHED_SINCE_MINOR {
                if let Some((out, why)) =
                    detached_output(ctx, &test, &c, p.source.as_deref()).await?
                {
                    detached = Some(out);
                    detached_why = Some(why);
                }
                if let Some(out) = &detached {
                    class = Class::Invalid;
                    reason = Some(format!(
                        "it fails every implementation exactly as it fails with none: {out}"
                    ));
                }
            }
            (
                class,
                reason,
                c.failures,
                c.cells.iter().map(CellRecord::from).collect(),
            )
        }
    };
    ctx.emit(
        lane,
        Event::Classified {
            test: p.id.clone(),
            class,
            failures,
            pool: pool.len(),
            build_error: reason.clone(),
            cells,
        },
    )?;
    Ok(Classified {
        class,
        failures,
        reason,
        truncated: p.truncated,
        detached,
        detached_why,
    })
}

/// Whether a test that every solution fails fails them all exactly as it fails with no
/// solution at all (an empty one): then its verdict does not depend on the implementation (it
/// never imports or calls it, or fails before it does), and no coder can pass it by writing
/// code. Returns the test's own output in that run, the one thing its author may be shown, and
/// why it never reached the code ([`detached_why`]); `None` when some solution passes, or fails
/// another way. One more sandbox run, only for a test that fails everyone.
async fn detached_output(
    ctx: &Ctx,
    test: &Arc<Test>,
    c: &Classification,
    source: Option<&str>,
) -> Result<Option<(String, String)>, Halt> {
    if c.pool == 0 || c.failures < c.pool {
        return Ok(None);
    }
    let first = &c.cells[0].verdict;
    if !c.cells.iter().all(|x| x.verdict.same_outcome(first)) {
        return Ok(None);
    }
    let blank = blank_solution(ctx).map_err(Halt::Fatal)?;
    let row = run_test(ctx, test, &[blank]).await;
    let names: Vec<String> = ctx.interface.python().names().map(str::to_string).collect();
    // Runs recorded before journal 1.8 tell their authors as they did then.
    let source = (ctx.journal.minor() >= NAMES_BOUND_SINCE_MINOR).then(|| source.unwrap_or(""));
    Ok(match row.as_deref() {
        Ok([cell]) if cell.verdict.same_outcome(first) => Some((
            cell.verdict.failure_line(),
            detached_why(&cell.verdict, &names, source),
        )),
        _ => None,
    })
}

/// Why a test that fails every implementation as it fails with none never reached the code, as
/// its author is told: it defines an interface's name itself (and so checks its own copy), used
/// one without importing it (runs before journal 1.8) or another name it never defined, imported
/// a name from `solution` that the interface does not have, or a module instead of `solution`;
/// else that it never reaches the code. `names`: what a Python test may import (none for another
/// language, which gets the general sentence); `source`: the test's text, `None` for a run
/// recorded before journal 1.8 (which is told only of a missing import of the interface's).
pub(super) fn detached_why(
    v: &crate::sandbox::Verdict,
    names: &[String],
    source: Option<&str>,
) -> String {
    let (kind, message) = v
        .failure
        .as_ref()
        .map_or(("", ""), |f| (f.kind.as_str(), f.message.as_str()));
    let quoted = message.split('\'').nth(1).filter(|n| !n.is_empty());
    let import = if names.is_empty() {
        "...".to_string()
    } else {
        names.join(", ")
    };
    if let Some(n) = source.and_then(|s| names.iter().find(|n| defines(s, n))) {
        return format!(
            "it defines `{n}` itself, so it checks its own copy and never the code under test: \
             import `{n}` from `solution` and do not define it"
        );
    }
    match (kind, quoted) {
        ("NameError", Some(n)) if names.iter().any(|x| x == n) => format!(
            "it uses `{n}` without importing it: the test must start with `from solution import \
             {import}`"
        ),
        ("NameError", Some(n)) if source.is_some() => format!(
            "it uses `{n}`, which it never defines or imports (the code under test is imported \
             with `from solution import {import}`)"
        ),
        ("ImportError", Some(n)) if message.contains("from 'solution'") => format!(
            "it imports `{n}` from `solution`, which has no such name: the specification names \
             {}",
            if names.is_empty() {
                "other names".to_string()
            } else {
                crate::english::and_list(names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>())
            }
        ),
        ("ModuleNotFoundError", Some(m)) => format!(
            "it imports the module `{m}`, which does not exist here: the code under test is the \
             module `solution` (`from solution import {import}`)"
        ),
        _ => "it never reaches the code it is meant to test (does it import what the \
              specification names, from `solution`?)"
            .into(),
    }
}

/// Whether a Python test's text defines `name` (a function or class of that name, or a
/// top-level assignment to it).
fn defines(source: &str, name: &str) -> bool {
    source.lines().any(|line| {
        let t = line.trim_start();
        let rest = |kw: &str| {
            t.strip_prefix(kw)
                .and_then(|r| r.trim_start().strip_prefix(name))
                .map(str::trim_start)
        };
        let header = |r: Option<&str>| r.is_some_and(|r| r.starts_with('(') || r.starts_with(':'));
        header(rest("def "))
            || header(rest("async def "))
            || header(rest("class "))
            || (t.len() == line.len()
                && t.strip_prefix(name)
                    .map(str::trim_start)
                    .is_some_and(|r| r.starts_with('=') && !r.starts_with("==")))
    })
}

/// An implementation that is empty: the solution file of the run's language, with nothing in
/// it, under `runs/<id>/blank/`.
fn blank_solution(ctx: &Ctx) -> Result<Arc<Solution>, ProtocolError> {
    let dir = ctx.run_dir.join("blank");
    let (file, _) = crate::toolchain::solution_files(ctx.language(), ctx.test_kind());
    let path = dir.join(file);
    std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(&path, ""))
        .map_err(|source| ProtocolError::Write {
            path: path.clone(),
            source,
        })?;
    ctx.toolchains
        .solution(&dir, Some(ctx.language()))
        .map(|s| Arc::new(s.with_interface(ctx.interface.clone())))
        .map_err(|e| ProtocolError::Write {
            path,
            source: std::io::Error::other(e.message),
        })
}

/// A test that builds alone but not with any solution: tell its author only the error lines
/// (the full diagnostics would quote solution code).
fn link_errors_only(c: &Classification) -> String {
    let side = c.cells.first().and_then(|x| x.verdict.side);
    let log = c.build_error.clone().unwrap_or_default();
    if side == Some(CompileSide::Test) {
        return log;
    }
    let lines: Vec<&str> = log
        .lines()
        .filter(|l| l.trim_start().starts_with("error") || l.contains(" error:"))
        .take(5)
        .collect();
    if lines.is_empty() {
        "it does not build against the interface the specification describes".into()
    } else {
        lines.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::{GuestFailure, Verdict, VerdictKind};

    fn failing(kind: &str, message: &str) -> Verdict {
        let mut v = Verdict::not_run(VerdictKind::RuntimeError, None, "exit code 2", 1);
        v.failure = Some(GuestFailure {
            kind: kind.into(),
            message: message.into(),
            ..GuestFailure::default()
        });
        v
    }

    /// Issue 36: a test that never reached the code is told why, as specifically as its
    /// failure says.
    #[test]
    fn a_detached_test_is_told_what_it_got_wrong() {
        let names = vec!["to_roman".to_string()];
        let why = |k: &str, m: &str| detached_why(&failing(k, m), &names, Some(""));
        assert_eq!(
            why("NameError", "name 'to_roman' is not defined"),
            "it uses `to_roman` without importing it: the test must start with `from solution \
             import to_roman`"
        );
        assert!(why(
            "ImportError",
            "cannot import name 'roman' from 'solution' (unknown location)"
        )
        .starts_with(
            "it imports `roman` from `solution`, which has no such name: the \
                      specification names `to_roman`"
        ));
        assert!(
            why("ModuleNotFoundError", "No module named 'roman_numerals'")
                .starts_with("it imports the module `roman_numerals`, which does not exist here")
        );
        assert!(why("NameError", "name 'math' is not defined")
            .starts_with("it uses `math`, which it never defines or imports"));
        // A run recorded before 1.8 is told as it was then.
        let own_copy = "def to_roman(n):\n    return 'I'\n";
        for (k, m) in [
            ("NameError", "name 'math' is not defined"),
            ("AssertionError", ""),
        ] {
            assert!(detached_why(&failing(k, m), &names, None).starts_with("it never reaches"));
            assert!(!detached_why(&failing(k, m), &names, Some(own_copy)).starts_with("it never"));
        }
        // Another failure: the general sentence.
        assert!(why("ValueError", "bad").starts_with("it never reaches the code"));
        // A test that writes the function itself checks its copy, whatever it then raised.
        for source in [
            "def to_roman(n):\n    return 'I'\nassert to_roman(2) == 'II'\n",
            "class to_roman:\n    pass\n",
            "to_roman = lambda n: 'I'\n",
        ] {
            let v = failing("AssertionError", "");
            assert!(
                detached_why(&v, &names, Some(source)).starts_with("it defines `to_roman` itself"),
                "{source}"
            );
        }
        for source in [
            "from solution import to_roman\nassert to_roman(2) == 'II'\n",
            "def to_roman_check():\n    pass\n",
            "x = to_roman(1)\nassert to_roman == to_roman\n",
        ] {
            let v = failing("AssertionError", "");
            assert!(
                !detached_why(&v, &names, Some(source)).starts_with("it defines"),
                "{source}"
            );
        }
    }
}
