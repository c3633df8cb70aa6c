//! Which implementation a run ships, by evidence. A protocol that ends with several
//! implementations and asks for it ([`super::Protocol::shipping`]) ships the one a selection
//! strategy (`crate::selection`, the code `dixit eval` scores) picks from all the evidence the
//! run has: every test its agents wrote or were given (the suite, every proposal whatever its
//! class, self-tests, the acceptance suite; never the hidden tests), run against every final
//! implementation of a coder still taking part, and every answer those implementations gave to
//! the calls the tests made, read off the bridge as `dixit eval` reads them. The pick's first
//! coder (in coder order) ships, and the `shipped` event journals it before the run's final
//! stop; a replay picks again and must agree.
//!
//! Python unit tests only (the calls and answers are the Python boundary's); other runs ship by
//! their protocol's own rule.

use std::path::PathBuf;
use std::sync::Arc;

use super::{Ctx, Halt, ProtocolError};
use crate::consensus::answers::{Recorder, Seen};
use crate::consensus::{tests_of_journal, Origin};
use crate::journal::{
    Event, JournalFile, Shipping, NAMES_BOUND_SINCE_MINOR, SHIPPED_SINCE_MINOR, SHIP_LANE,
};
use crate::sandbox::{Completion, Verdict, VerdictKind};
use crate::selection::{ProblemMatrix, Strategy};
use crate::toolchain::{Language, TestKind};

/// Exchanges kept per run for the answers: as `dixit eval` keeps.
const BRIDGE_LOG: usize = 64;

/// Chooses and journals the implementation the run ships, when its protocol asks for it and
/// the run can (see the module's comment); `implementations` are the coders' final folders.
pub(crate) async fn ship(ctx: &Ctx, implementations: &[(String, PathBuf)]) -> Result<(), Halt> {
    let shipping = ctx
        .protocol
        .shipping(&ctx.config)
        .map_err(|e| Halt::Fatal(e.into()))?;
    let Some((strategy, selection)) = shipping else {
        return Ok(());
    };
    if ctx.journal.minor() < SHIPPED_SINCE_MINOR
        || ctx.language() != Language::Python
        || ctx.test_kind() != TestKind::Python
    {
        return Ok(());
    }
    let left_behind = ctx
        .summary
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .left_behind
        .clone();
    let among: Vec<(String, PathBuf)> = implementations
        .iter()
        .filter(|(c, _)| !left_behind.contains(c))
        .cloned()
        .collect();
    if among.is_empty() {
        return Ok(());
    }
    let journal = JournalFile::read(ctx.journal.path())
        .map_err(|e| Halt::Fatal(ProtocolError::Journal(e)))?;
    let protocol = ctx.protocol;
    let tests: Vec<String> = tests_of_journal(&journal, &|e| protocol.named_tests(e))
        .into_iter()
        .filter(|t| t.origin != Origin::Hidden)
        .map(|t| t.source)
        .collect();
    let (interface, seed, limits) = (ctx.interface.clone(), ctx.seed(), ctx.limits());
    let bound = ctx.journal.minor() >= NAMES_BOUND_SINCE_MINOR;
    let dirs = among.clone();
    let evidence = ctx
        .blocking(move |tc| matrix(tc, &dirs, &tests, &interface, seed, &limits, bound))
        .await
        .map_err(|e| Halt::Fatal(ProtocolError::Unexpected(format!("shipping: {e}"))))?;
    let (ran, pick) = match strategy.pick(&evidence, &selection) {
        Some(p) => (strategy, p),
        // A strategy that compares answers, on a run whose tests made no call: CodeT's dual
        // agreement reads the pass matrix alone.
        None => (
            Strategy::Codet,
            Strategy::Codet
                .pick(&evidence, &selection)
                .unwrap_or_default(),
        ),
    };
    let mut pick = pick;
    pick.sort_unstable();
    pick.dedup();
    let Some(&first) = pick.first() else {
        return Ok(());
    };
    let names: Vec<String> = among.iter().map(|(c, _)| c.clone()).collect();
    let shipping = Shipping {
        coder: names[first].clone(),
        strategy: ran.name().into(),
        fallback_from: (ran != strategy).then(|| strategy.name().into()),
        tied: pick.iter().map(|&i| names[i].clone()).collect(),
        among: names,
        tests: evidence.test_counts.len(),
        calls: evidence.outputs.as_ref().map_or(0, |o| o.calls.len()),
        passes: evidence
            .passes
            .iter()
            .map(|row| row.iter().filter(|p| **p).count())
            .collect(),
    };
    ctx.emit(SHIP_LANE, Event::Shipped(shipping))
}

/// The evidence matrix: each test against each implementation (one run each, with the run's
/// seed and limits, the bridge read as `dixit eval` reads it), every coder and test counted
/// once, correctness unknown (a live run has no reference); the tests read the interface's
/// names as the run's own tests did (`names_bound`).
fn matrix(
    tc: &crate::toolchain::Toolchains,
    implementations: &[(String, PathBuf)],
    tests: &[String],
    interface: &Arc<crate::toolchain::LoadedInterface>,
    seed: u64,
    limits: &crate::sandbox::Limits,
    names_bound: bool,
) -> Result<ProblemMatrix, String> {
    let work = tempfile::tempdir().map_err(|e| format!("a temporary directory: {e}"))?;
    let mut built = Vec::new();
    for (k, source) in tests.iter().enumerate() {
        let path = work.path().join(k.to_string()).join("test.py");
        std::fs::create_dir_all(path.parent().unwrap_or(work.path()))
            .and_then(|()| std::fs::write(&path, source))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        built.push(
            tc.test(&path)
                .map_err(|e| e.message)?
                .with_names_bound(names_bound),
        );
    }
    let solutions: Vec<Option<crate::toolchain::Solution>> = implementations
        .iter()
        .map(|(_, dir)| {
            tc.solution(dir, Some(Language::Python))
                .ok()
                .map(|s| s.with_interface(interface.clone()))
        })
        .collect();
    let seen = Seen::default();
    let mut passes = vec![vec![false; built.len()]; implementations.len()];
    let mut executes = vec![true; implementations.len()];
    let mut calls = vec![Vec::new(); implementations.len()];
    for (i, s) in solutions.iter().enumerate() {
        let Some(s) = s else {
            executes[i] = false;
            continue;
        };
        for (j, t) in built.iter().enumerate() {
            match tc.run_observed(s, t, seed, limits, BRIDGE_LOG) {
                Ok(o) => {
                    let v = Verdict::from_outcome(&o, seed, Completion::Returned);
                    passes[i][j] = v.verdict == VerdictKind::Pass;
                    calls[i].push(seen.note(&o.exchanges));
                }
                Err(e) => {
                    if e.side == crate::sandbox::CompileSide::Solution {
                        executes[i] = false;
                    }
                    calls[i].push(Vec::new());
                }
            }
        }
    }
    let mut recorder = Recorder::new(seen, implementations.len());
    for j in 0..built.len() {
        for (i, by_test) in calls.iter().enumerate() {
            if let Some(c) = by_test.get(j) {
                recorder.record(i, c);
            }
        }
    }
    let outputs = recorder.finish();
    Ok(ProblemMatrix {
        id: String::new(),
        solution_counts: vec![1; implementations.len()],
        test_counts: vec![1; built.len()],
        passes,
        hidden: vec![false; implementations.len()],
        reference_passes: vec![false; built.len()],
        executes,
        outputs: (!outputs.calls.is_empty()).then_some(outputs),
    })
}
