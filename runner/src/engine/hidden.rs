//! Hidden tests: never shown to any agent, run against every coder's final code at the end of a
//! run (or, by a protocol that says so, answered pass or fail only).

use std::path::PathBuf;
use std::sync::Arc;

use crate::classify::run_matrix;
use crate::journal::{CellRecord, Event};
use crate::toolchain::{Solution, Test};

use super::coder::Coder;
use super::ctx::{Ctx, Halt};

/// Runs the hidden tests against each coder's final code and journals the result in its lane.
pub async fn run_hidden(ctx: &Ctx, coders: &[&Coder], hidden: &[PathBuf]) -> Result<(), Halt> {
    let tests: Vec<Arc<Test>> = hidden
        .iter()
        .filter_map(|p| ctx.test(p).ok().map(Arc::new))
        .collect();
    for c in coders {
        let Ok(sol) = c.solution.clone() else {
            continue;
        };
        let (tests, reruns, seed, limits) = (tests.clone(), ctx.reruns(), ctx.seed(), ctx.limits());
        let cells = ctx
            .blocking(move |tc| {
                let refs: Vec<&Test> = tests.iter().map(|t| &**t).collect();
                let s: &Solution = &sol;
                run_matrix(tc, &[s], &refs, reruns, seed, &limits)
                    .into_iter()
                    .map(|mut r| r.remove(0))
                    .collect::<Vec<_>>()
            })
            .await;
        let passed = cells.iter().filter(|c| c.passed()).count();
        ctx.emit(
            &c.agent.name,
            Event::Hidden {
                passed,
                total: cells.len(),
                cells: cells.iter().map(CellRecord::from).collect(),
            },
        )?;
    }
    Ok(())
}
