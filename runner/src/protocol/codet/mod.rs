//! Protocol `codet`, after CodeT (Chen et al., "CodeT: Code Generation with Generated Tests",
//! ICLR 2023): the strongest known way to pick one of N answers at the same number of calls,
//! and the baseline beside `single` that the other protocols are compared with.
//!
//! ```text
//! solutions = [coder.solve(spec) for coder in coders]        # N calls, at once
//! tests     = [case for tester in testers                    # M calls, at once, beside them
//!                   for case in cases(tester.write_tests(spec))[:tests]]
//! run every solution against every test
//! groups    = solutions grouped by the exact set of tests they pass (passing none: no group)
//! score(g)  = |tests g passes| × √|g|
//! ship(the first coder of the best-scoring groups)           # equal scores pooled, as CodeT
//! no group  → ship(the first coder whose code builds)        # CodeT: a random sample
//! ```
//!
//! The score is `selection::DualAgreement`, the very function `dixit eval` scores CodeT's
//! corpora with; the square root is CodeT's released code (its paper writes the product).
//! Test cases (`cases.rs`): every code block of a tester's reply is a test, and a Python block
//! with several top-level asserts is one case per assert, as CodeT counts them; the first
//! `[codet] tests` cases of each reply count (CodeT's `test_case_limit`).
//!
//! DEVIATION: CodeT pools the top-scoring groups and draws one of their solutions at random
//! (`dixit eval` reports that draw's expected pass@1); a run ships one, the first of the pool
//! in agent order, which a replay reproduces. With no group, CodeT draws among all samples; a
//! run ships the first coder whose code builds (a reply without code is no sample), which is
//! what `single` ships when coder-1's code builds.
//!
//! Nobody is told there is anyone else: a coder sees the spec only and never a test, a tester
//! sees the spec only and never a solution, and each is asked once. A reply without code is not
//! asked again (as in `single` and `blind`): a coder without code passes nothing, a tester
//! without a test adds none.

use std::sync::Arc;

use futures::future::{join_all, BoxFuture};

use crate::agents::{code_blocks, Agent};
use crate::config::{Config, ConfigError, TeamShape};
use crate::engine::{Ctx, Halt, Inputs, Proposal, Protocol, ProtocolError, Suite, Team};
use crate::journal::{Event, StopReason, RUN_LANE};
use crate::selection::DualAgreement;
use crate::toolchain::TestKind;
use events::{Case, Group, Pick, Shipped, TestCases};

use super::{first_halt, Stop};

mod cases;
pub mod events;
pub mod part;
mod settings;
pub use settings::Settings;

/// The protocol's name in `[protocol] name`, journals and output.
pub const NAME: &str = "codet";

/// The prompt templates of this protocol (`prompts/`, beside this file).
pub const TEMPLATES: &[(&str, &str)] = templates![
    "coder_solve",
    "coder_system",
    "coder_system_defensive",
    "coder_system_terse",
    "tester_system",
    "tester_system_adversarial",
    "tester_tests",
];

/// Each agent is asked once, as anyone would ask: nothing about other agents, other answers,
/// a vote or a contest.
pub const FORBIDDEN: &[&str] = &[
    "agent",
    "agents",
    "coder",
    "coders",
    "tester",
    "testers",
    "game",
    "games",
    "score",
    "scores",
    "scoring",
    "judge",
    "judges",
    "round",
    "rounds",
    "compete",
    "competition",
    "vote",
    "votes",
    "majority",
    "agreement",
    "consensus",
    "other implementations",
    "other solutions",
];

/// The protocol, for the registry.
pub struct Codet;

impl Protocol for Codet {
    fn about(&self) -> &'static str {
        "coders answer once, testers write tests once; CodeT's dual agreement picks the answer \
         that ships"
    }

    fn team(&self, config: &Config) -> Result<TeamShape, ConfigError> {
        Settings::team(config)
    }

    fn settings(&self, config: &Config) -> Result<Vec<(String, String)>, ConfigError> {
        Ok(crate::engine::settings_pairs(
            &config.section::<Settings>(settings::TABLE)?,
        ))
    }

    fn templates(&self) -> &'static [(&'static str, &'static str)] {
        TEMPLATES
    }

    fn forbidden(&self) -> &'static [&'static str] {
        FORBIDDEN
    }

    fn run<'a>(
        &'a self,
        ctx: &'a Ctx,
        team: &'a mut Team,
        _inputs: &'a Inputs,
    ) -> BoxFuture<'a, Result<Stop, Halt>> {
        Box::pin(run(ctx, team))
    }
}

/// Runs the protocol: every coder answers and every tester writes tests, once; every answer
/// runs against every test; dual agreement picks the one the run ships.
pub async fn run(ctx: &Ctx, team: &mut Team) -> Result<Stop, Halt> {
    let settings = Settings::of(ctx)?;
    ctx.round.store(1, std::sync::atomic::Ordering::SeqCst);
    ctx.emit(RUN_LANE, Event::Round { round: 1, suite: 0 })?;
    let spec = ctx.spec.trim();
    let solve = ctx.prompts.render("coder_solve", &[("spec", spec)])?;
    let write = ctx.prompts.render(
        "tester_tests",
        &[("spec", spec), ("count", &settings.tests.to_string())],
    )?;
    let Team {
        coders, testers, ..
    } = team;
    let (solved, written) = futures::join!(
        join_all(coders.iter_mut().map(|c| c.solve(ctx, "solve", &solve))),
        join_all(
            testers
                .iter_mut()
                .map(|t| write_tests(ctx, t, &write, settings.tests))
        ),
    );
    first_halt(solved)?;
    let written = first_halt(written)?;

    // Every test case joins the suite (CodeT keeps them all), in tester order.
    let mut suite = Suite::default();
    let accepted = written
        .iter()
        .flat_map(|w| w.cases.iter().map(|p| (w.author.clone(), p.clone())))
        .collect();
    let added = suite.admit(ctx, accepted)?;
    let mut numbers = added.iter().map(|e| e.number);
    for w in &written {
        let cases = w
            .cases
            .iter()
            .zip(numbers.by_ref())
            .map(|(p, number)| Case {
                id: p.id.clone(),
                number,
            })
            .collect();
        ctx.emit(
            &w.author,
            Event::own(&TestCases {
                reply: w.reply.clone(),
                blocks: w.blocks,
                cases,
                beyond_limit: w.beyond_limit,
            }),
        )?;
    }

    // Every solution against every test: each coder's row of the matrix, in its lane.
    let judged = first_halt(join_all(coders.iter().map(|c| c.judge(ctx, &suite))).await)?;
    let passes: Vec<Vec<bool>> = judged
        .iter()
        .map(|j| {
            (0..suite.len())
                .map(|t| j.build_error.is_none() && j.vector.get(t) == Some(&true))
                .collect()
        })
        .collect();
    let builds: Vec<bool> = judged.iter().map(|j| j.build_error.is_none()).collect();
    let names: Vec<String> = coders.iter().map(|c| c.agent.name.clone()).collect();
    let numbers: Vec<usize> = suite.entries.iter().map(|e| e.number).collect();
    Ok(Stop {
        reason: StopReason::own(&ship(&names, &passes, &builds, &numbers)),
        round: 1,
    })
}

/// What a tester's reply held: its test cases, as proposals for the suite.
struct Written {
    author: String,
    /// The reply (`tester-1#1`).
    reply: String,
    blocks: usize,
    cases: Vec<Proposal>,
    beyond_limit: usize,
}

/// Asks a tester for `limit` test cases and takes the first `limit` its reply holds: each code
/// block of the run's test kind, a Python block split at its top-level asserts
/// ([`cases::python_cases`]). Each case is kept in `runs/<id>/tests/<tester>/<call>/`.
///
/// DEVIATION: CodeT drops a test that does not compile before it counts the limit; here only a
/// case dixit cannot read as a test at all is dropped, and one that does not build fails every
/// implementation, so it joins no group (it still takes a place under the limit).
async fn write_tests(
    ctx: &Ctx,
    tester: &mut Agent,
    prompt: &str,
    limit: usize,
) -> Result<Written, Halt> {
    let kind = ctx.test_kind();
    let turn = ctx.ask_text(tester, "tests", prompt).await?;
    let reply = format!("{}#{}", tester.name, turn.call);
    let blocks = code_blocks(&turn.text, kind.extension());
    let split: Vec<(String, String)> = blocks
        .iter()
        .enumerate()
        .flat_map(|(b, body)| {
            let parts = if kind == TestKind::Python {
                cases::python_cases(body)
            } else {
                vec![body.clone()]
            };
            let whole = parts.len() == 1;
            parts.into_iter().enumerate().map(move |(k, source)| {
                let id = if whole {
                    format!("{}", b + 1)
                } else {
                    format!("{}.{}", b + 1, k + 1)
                };
                (id, source)
            })
        })
        .collect();
    let dir = ctx
        .run_dir
        .join("tests")
        .join(&tester.name)
        .join(turn.call.to_string());
    let mut cases = Vec::new();
    for (id, source) in &split {
        let path = dir.join(format!(
            "case_{}.{}",
            id.replace('.', "_"),
            kind.extension()
        ));
        std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(&path, source))
            .map_err(|source| {
                Halt::Fatal(ProtocolError::Write {
                    path: path.clone(),
                    source,
                })
            })?;
        // A case dixit cannot read as a test (an I/O test that is not TOML) is no test.
        if let Ok(test) = ctx.test(&path) {
            cases.push(Proposal {
                id: format!("{reply}.{id}"),
                source: Some(source.clone()),
                test: Ok(Arc::new(test)),
                truncated: turn.truncated,
            });
        }
    }
    let beyond_limit = cases.len().saturating_sub(limit);
    cases.truncate(limit);
    Ok(Written {
        author: tester.name.clone(),
        reply,
        blocks: blocks.len(),
        cases,
        beyond_limit,
    })
}

/// Dual agreement over the matrix (`passes[coder][test]`, the tests' suite `numbers`): the
/// groups, best first, and the coder the run ships — the first (in agent order) of the
/// best-scoring groups, or, with no group, the first whose code `builds` (else the first).
fn ship(names: &[String], passes: &[Vec<bool>], builds: &[bool], numbers: &[usize]) -> Shipped {
    let agreement =
        DualAgreement::new(passes, &vec![1; names.len()], &vec![1; numbers.len()], true);
    let mut sets: Vec<_> = agreement.sets.iter().collect();
    sets.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(a.solutions.first().cmp(&b.solutions.first()))
    });
    let groups = sets
        .iter()
        .map(|s| Group {
            coders: s.solutions.iter().map(|&i| names[i].clone()).collect(),
            tests: s.tests.iter().map(|&t| numbers[t]).collect(),
        })
        .collect();
    let top = sets.iter().filter(|s| agreement.is_top(s)).count();
    let (coder, pick) = match agreement.chosen() {
        Some(chosen) => (chosen[0], Pick::Agreement),
        None => match builds.iter().position(|b| *b) {
            Some(first) => (first, Pick::FirstThatBuilds),
            None => (0, Pick::First),
        },
    };
    Shipped {
        coder: names.get(coder).cloned().unwrap_or_default(),
        pick,
        tests: numbers.len(),
        groups,
        top,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize) -> Vec<String> {
        (1..=n).map(|i| format!("coder-{i}")).collect()
    }

    fn rows(rows: &[&str]) -> Vec<Vec<bool>> {
        rows.iter()
            .map(|r| r.chars().map(|c| c == '1').collect())
            .collect()
    }

    fn shipped(r: &[&str], builds: &[bool]) -> Shipped {
        let numbers: Vec<usize> = (1..=r.first().map_or(0, |r| r.len())).collect();
        ship(&names(r.len()), &rows(r), builds, &numbers)
    }

    #[test]
    fn a_right_minority_beats_a_wrong_majority_that_passes_fewer_tests() {
        // coder-1 and coder-2 agree on 3 of 5 tests: 3 × √2 ≈ 4.24; coder-3 passes all 5: 5.
        let s = shipped(&["11100", "11100", "11111"], &[true; 3]);
        assert_eq!(
            (s.coder.as_str(), s.pick, s.top),
            ("coder-3", Pick::Agreement, 1)
        );
        assert_eq!(s.groups[0].coders, ["coder-3"]);
        assert_eq!(s.groups[0].tests, [1, 2, 3, 4, 5]);
        assert_eq!(s.groups[1].coders, ["coder-1", "coder-2"]);
        assert!((s.groups[1].score() - 3.0 * 2f64.sqrt()).abs() < 1e-12);
        // A third member of the majority: 3 × √3 ≈ 5.20 > 5: agreement wins over tests.
        let s = shipped(&["11100", "11100", "11111", "11100"], &[true; 4]);
        assert_eq!(s.coder, "coder-1");
        assert_eq!(s.groups[0].coders, ["coder-1", "coder-2", "coder-4"]);
    }

    #[test]
    fn ties_are_pooled_and_broken_by_agent_order() {
        // coder-2 alone passes {1, 2}: 2; coder-1, 3, 4, 5 pass {1}: 1 × √4 = 2: a tie, pooled;
        // the first coder of the pool ships.
        let s = shipped(&["10", "11", "10", "10", "10"], &[true; 5]);
        assert_eq!((s.coder.as_str(), s.top), ("coder-1", 2));
        assert_eq!(s.groups[0].coders[0], "coder-1");
        // Two groups of one with as many tests: the lower coder ships.
        let s = shipped(&["010", "000", "100"], &[true; 3]);
        assert_eq!((s.coder.as_str(), s.top), ("coder-1", 2));
        assert_eq!(s.groups[1].coders, ["coder-3"]);
    }

    #[test]
    fn identical_answers_form_one_group() {
        let s = shipped(&["101", "101", "011"], &[true; 3]);
        assert_eq!(s.groups.len(), 2);
        assert_eq!(s.groups[0].coders, ["coder-1", "coder-2"]);
        assert_eq!(s.coder, "coder-1");
    }

    /// No test cases (or none that anything passes): no group; CodeT draws a random sample,
    /// this ships the first coder whose code builds: what `single` ships when coder-1's does.
    #[test]
    fn without_a_group_the_first_coder_whose_code_builds_ships() {
        let s = shipped(&["", "", ""], &[true; 3]);
        assert_eq!(
            (s.coder.as_str(), s.pick, s.tests),
            ("coder-1", Pick::FirstThatBuilds, 0)
        );
        assert!(s.groups.is_empty() && s.top == 0);
        let s = shipped(&["00", "00", "00"], &[false, true, true]);
        assert_eq!(
            (s.coder.as_str(), s.pick),
            ("coder-2", Pick::FirstThatBuilds)
        );
        let s = shipped(&["0", "0"], &[false, false]);
        assert_eq!((s.coder.as_str(), s.pick), ("coder-1", Pick::First));
    }
}
