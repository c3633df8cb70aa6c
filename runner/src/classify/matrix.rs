//! The (test × solution × rerun) matrix, fanned out over the rayon pool. Reruns of one pair run
//! in order and stop at the first failure, whose seed is reported so `dixit exec --seed` replays
//! it exactly.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::Reruns;
use crate::sandbox::{splitmix64, Limits, Verdict, VerdictKind};
use crate::toolchain::{Solution, Test, Toolchains};

/// The verdict of one (test, solution) pair over its reruns.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PairVerdict {
    /// The deciding verdict: the first failing rerun, else the last passing one.
    pub verdict: Verdict,
    /// Runs performed.
    pub runs: u32,
    /// Reruns skipped because the run read neither entropy nor a clock (`reruns = auto`).
    pub skipped: u32,
}

impl PairVerdict {
    /// Whether the deciding verdict is a pass.
    pub fn passed(&self) -> bool {
        self.verdict.passed()
    }
}

/// The seed of rerun `r` given the base seed: rerun 0 uses the base itself.
pub fn rerun_seed(base: u64, r: u32) -> u64 {
    if r == 0 {
        base
    } else {
        splitmix64(base ^ (u64::from(r)).wrapping_mul(0xa076_1d64_78bd_642f))
    }
}

/// Runs one pair with its reruns.
pub fn run_cell(
    tc: &Toolchains,
    s: &Solution,
    t: &Test,
    reruns: Reruns,
    base_seed: u64,
    limits: &Limits,
) -> PairVerdict {
    let max = reruns.max();
    let mut last = None;
    for r in 0..max {
        let v = tc.run(s, t, rerun_seed(base_seed, r), limits);
        if v.verdict == VerdictKind::CompileError {
            // Nothing ran: a build failure does not depend on the seed.
            return PairVerdict {
                verdict: v,
                runs: 0,
                skipped: 0,
            };
        }
        let deterministic = !v.seed_dependent();
        let failed = !v.passed();
        let runs = r + 1;
        if failed || (matches!(reruns, Reruns::Auto(_)) && deterministic) || runs == max {
            let skipped = if failed { 0 } else { max - runs };
            return PairVerdict {
                verdict: v,
                runs,
                skipped,
            };
        }
        last = Some(v);
    }
    PairVerdict {
        verdict: last.expect("max ≥ 1"),
        runs: max,
        skipped: 0,
    }
}

/// Runs every test against every solution: `result[t][s]`.
pub fn run_matrix(
    tc: &Toolchains,
    solutions: &[&Solution],
    tests: &[&Test],
    reruns: Reruns,
    base_seed: u64,
    limits: &Limits,
) -> Vec<Vec<PairVerdict>> {
    let pairs: Vec<(usize, usize)> = (0..tests.len())
        .flat_map(|t| (0..solutions.len()).map(move |s| (t, s)))
        .collect();
    let cells: Vec<PairVerdict> = pairs
        .par_iter()
        .map(|&(t, s)| run_cell(tc, solutions[s], tests[t], reruns, base_seed, limits))
        .collect();
    let mut out: Vec<Vec<PairVerdict>> = Vec::with_capacity(tests.len());
    let mut it = cells.into_iter();
    for _ in 0..tests.len() {
        out.push(it.by_ref().take(solutions.len()).collect());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rerun_seeds_are_distinct_and_rerun_zero_is_the_base() {
        assert_eq!(rerun_seed(42, 0), 42);
        let mut seeds: Vec<u64> = (0..1000).map(|r| rerun_seed(42, r)).collect();
        seeds.sort_unstable();
        seeds.dedup();
        assert_eq!(seeds.len(), 1000);
        assert_ne!(rerun_seed(1, 1), rerun_seed(2, 1));
    }
}
