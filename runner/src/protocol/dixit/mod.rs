//! Protocol `dixit`, side by side with the seed's pseudocode (`shared/seeds/dixit-orchestrator.txt`):
//! coders implement the spec, testers propose tests one at a time, and a test joins the suite
//! only if it is IDEAL (some coders fail it, no more than a minority). Deviations from the seed
//! are marked `DEVIATION:` with the reason.

use std::sync::Arc;

use futures::future::join_all;

use crate::agents::{Agent, Checkpoint};
use crate::classify::Class;
use crate::engine::{
    ask_person, ask_test, classify, Classified, Coder, Ctx, Halt, HighWaterMark, Judgement, Keep,
    Offer, Proposal, ProtocolError, Suite, Team,
};
use crate::journal::{Choice, Event, StopReason, RUN_LANE};
use crate::toolchain::Solution;
use events::{CannotPass, Converged, HumanNeeded, Identical, Spent, Stalled};

use futures::future::BoxFuture;

use super::{first_halt, Stop};
use crate::config::{Config, ConfigError, TeamShape};
use crate::engine::{Inputs, Protocol};
use crate::selection::{SelectionConfig, Strategy};

pub mod events;
pub mod part;
mod settings;
use crate::english::and_list;
pub use settings::Settings;

/// The protocol's name in `[protocol] name`, journals and output.
pub const NAME: &str = "dixit";

/// The prompt templates of this protocol (`prompts/`, beside this file).
pub const TEMPLATES: &[(&str, &str)] = templates![
    "coder_build_error",
    "coder_fix",
    "coder_no_code",
    "coder_solve",
    "coder_system",
    "coder_system_defensive",
    "coder_system_terse",
    "coder_thanks",
    "coder_truncated",
    "tester_detached",
    "tester_first",
    "tester_invalid",
    "tester_more",
    "tester_no_code",
    "tester_system",
    "tester_system_adversarial",
    "tester_thanks",
    "tester_too_easy",
    "tester_too_hard",
    "tester_truncated",
];

/// The game is invisible: no prompt may mention other agents, coders, testers, games, scores,
/// judges or rounds (whole words, case-insensitive).
pub const FORBIDDEN: &[&str] = &[
    "agent",
    "agents",
    "coder",
    "coders",
    "tester",
    "testers",
    "game",
    "games",
    "player",
    "players",
    "score",
    "scores",
    "scoring",
    "judge",
    "judges",
    "judged",
    "judging",
    "judgement",
    "judgment",
    "round",
    "rounds",
    "opponent",
    "opponents",
    "compete",
    "competition",
    "minority",
    "majority",
    "other implementations",
    "another implementation",
];

/// A tester, its checkpoints and, while hibernating, its two too-hard tests.
pub struct Tester {
    /// The tester's agent.
    pub agent: Agent,
    /// Its state before its first proposal of the turn (a try that does not fit goes back to it).
    pub before_test_1: Option<Checkpoint>,
    /// Its state before its retry (a revival goes back to it).
    pub before_test_2: Option<Checkpoint>,
    /// While it hibernates: its two TOO_HARD tests.
    pub too_hard_tests: Option<[Proposal; 2]>,
    /// How its proposals of the current round were classified (for "converged or stalled").
    pub classified: Vec<(String, Class)>,
    /// The calls it may still make this round under `[dixit] max_calls` (`None`: no cap).
    pub calls: Option<u32>,
}

impl Tester {
    fn new(agent: Agent) -> Tester {
        Tester {
            agent,
            before_test_1: None,
            before_test_2: None,
            too_hard_tests: None,
            classified: Vec::new(),
            calls: None,
        }
    }

    /// Whether it hibernates (sleeps with two TOO_HARD tests).
    pub fn is_hibernated(&self) -> bool {
        self.too_hard_tests.is_some()
    }

    /// Whether its share of `[dixit] max_calls` leaves it a call this round.
    fn may_propose(&self) -> bool {
        self.calls != Some(0)
    }

    /// `tester.propose_test(prompt)`.
    async fn propose(&mut self, ctx: &Ctx, purpose: &str, prompt: &str) -> Result<Proposal, Halt> {
        if let Some(n) = &mut self.calls {
            *n = n.saturating_sub(1);
        }
        ask_test(ctx, &mut self.agent, purpose, prompt).await
    }

    /// The first prompt (with the spec) if the tester has not proposed anything in its current
    /// history, else "one more".
    fn propose_prompt(&self, ctx: &Ctx) -> Result<String, Halt> {
        let proposed_before = self
            .agent
            .state
            .messages()
            .iter()
            .any(|m| m.role == "assistant");
        Ok(if proposed_before {
            ctx.prompts.render("tester_more", &[])?
        } else {
            ctx.prompts
                .render("tester_first", &[("spec", ctx.spec.trim())])?
        })
    }
}

/// `classify(test, coders)` with the run's MINORITY, remembered for the round's outcome.
async fn classify_test(
    ctx: &Ctx,
    t: &mut Tester,
    test: &Proposal,
    coders: &[Arc<Solution>],
) -> Result<Classified, Halt> {
    let c = classify(
        ctx,
        &t.agent.name,
        test,
        coders,
        Settings::of(ctx)?.minority,
    )
    .await?;
    t.classified.push((test.id.clone(), c.class));
    Ok(c)
}

/// The protocol, for the registry.
pub struct Dixit;

impl Protocol for Dixit {
    fn about(&self) -> &'static str {
        "coders and testers; a test joins the suite only if it is IDEAL"
    }

    fn team(&self, config: &Config) -> Result<TeamShape, ConfigError> {
        Settings::team(config)
    }

    fn settings(&self, config: &Config) -> Result<Vec<(String, String)>, ConfigError> {
        Ok(crate::engine::settings_pairs(&Settings::read(config)?))
    }

    fn legacy_keys(&self) -> &'static [&'static str] {
        settings::LEGACY_KEYS
    }

    /// Ships by evidence (`[dixit] ship`), not by the seed's "first coder passing the suite":
    /// the suite is a few IDEAL tests, the run holds every proposal and every answer.
    fn shipping(
        &self,
        config: &Config,
    ) -> Result<Option<(Strategy, SelectionConfig)>, ConfigError> {
        let s = Settings::read(config)?;
        Ok(Some((
            s.ship,
            SelectionConfig {
                minority: s.minority,
                ..SelectionConfig::default()
            },
        )))
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
        inputs: &'a Inputs,
    ) -> BoxFuture<'a, Result<Stop, Halt>> {
        Box::pin(run(ctx, team, inputs))
    }
}

/// Runs the protocol with the run's coders and testers.
pub async fn run(ctx: &Ctx, team: &mut Team, inputs: &Inputs) -> Result<Stop, Halt> {
    let mut testers: Vec<Tester> = std::mem::take(&mut team.testers)
        .into_iter()
        .map(Tester::new)
        .collect();
    let mut suite = Suite::default();
    let result = main(ctx, &mut team.coders, &mut testers, &mut suite, inputs).await;
    team.testers = testers.into_iter().map(|t| t.agent).collect();
    result.map(|(reason, round)| Stop { reason, round })
}

/// How a coder's `ensure_passes` ended.
pub enum Ensured {
    /// It passes every suite test.
    Passes,
    /// It could not pass these tests (1-based) after its retries; it was left at its best attempt.
    CannotPass(Vec<usize>),
}

/// ```text
/// def main(spec):
///     test_suite = {}
///     for coder in coders: coder.solve()
///     loop:
///         for coder in coders:
///             if not ensure_passes(coder, test_suite): return
///         new_tests = []
///         for tester in testers:
///             if tester.is_hibernated: new_tests += attempt_revival(tester, coders)
///             else:                     new_tests += propose_test(tester, coders)
///         if not new_tests: return
///         test_suite += new_tests
/// ```
/// Coders act concurrently, and so do testers; decisions are taken in agent order, and tests
/// join the suite at the end of the round in tester order, so the result does not depend on
/// which agent answers first.
pub async fn main(
    ctx: &Ctx,
    coders: &mut [Coder],
    testers: &mut [Tester],
    suite: &mut Suite,
    inputs: &Inputs,
) -> Result<(StopReason, u32), Halt> {
    // Coders a person left behind at a stop: they take no further part.
    let mut left_behind: Vec<String> = Vec::new();
    let solve_prompt = ctx
        .prompts
        .render("coder_solve", &[("spec", ctx.spec.trim())])?;
    let Settings {
        max_rounds,
        max_coder_retries,
        max_calls,
        ..
    } = Settings::of(ctx)?;
    first_halt(
        join_all(
            coders
                .iter_mut()
                .map(|c| c.solve(ctx, "solve", &solve_prompt)),
        )
        .await,
    )?;

    // DEVIATION: the seed loops forever; `max_rounds` caps it (a resumable stop).
    for round in 1..=max_rounds {
        ctx.round.store(round, std::sync::atomic::Ordering::SeqCst);
        ctx.emit(
            RUN_LANE,
            Event::Round {
                round,
                suite: suite.len(),
            },
        )?;

        // DEVIATION (`[dixit] max_calls`): once no further call can change what ships, or none
        // is left, the run ends and ships by the evidence it has.
        if let Some(left) = calls_left(ctx, max_calls) {
            if same_program(coders, &left_behind) {
                return Ok((StopReason::own(&Identical {}), round));
            }
            if left == 0 {
                let calls = max_calls.unwrap_or_default();
                return Ok((StopReason::own(&Spent { calls }), round));
            }
        }

        let active = |c: &&mut Coder| !left_behind.contains(&c.agent.name);
        let ensured = if max_calls.is_none() {
            first_halt(
                join_all(
                    coders
                        .iter_mut()
                        .filter(active)
                        .map(|c| ensure_passes(ctx, c, suite, max_coder_retries)),
                )
                .await,
            )?
        } else {
            // Under a cap, fixes come first (they are where the coders disagree), one coder
            // after another in agent order, each with what the ones before it left.
            let mut ensured = Vec::new();
            for c in coders.iter_mut().filter(active) {
                let left = calls_left(ctx, max_calls).unwrap_or_default();
                ensured.push(ensure_passes(ctx, c, suite, max_coder_retries.min(left)).await?);
            }
            ensured
        };
        // DEVIATION: every coder gets its chance to pass before the stop, which names all those
        // that cannot (the seed returns at the first).
        let cannot_pass: Vec<CannotPass> = coders
            .iter()
            .filter(|c| !left_behind.contains(&c.agent.name))
            .zip(ensured)
            .filter_map(|(c, e)| match e {
                Ensured::CannotPass(failing) => Some(CannotPass {
                    coder: c.agent.name.clone(),
                    failing,
                }),
                Ensured::Passes => None,
            })
            .collect();
        if !cannot_pass.is_empty() {
            // Human judgement needed: perhaps the tests are wrong.
            let stop = StopReason::own(&HumanNeeded { cannot_pass });
            let all: Vec<&Coder> = coders.iter().collect();
            match ask_person(ctx, &all, inputs, &stop, round).await? {
                None => return Ok((stop, round)),
                Some(choice) => {
                    apply(ctx, choice, suite, testers, &mut left_behind)?;
                    continue;
                }
            }
        }
        let shares = calls_left(ctx, max_calls).map(|left| shares(left, testers.len()));
        for (k, t) in testers.iter_mut().enumerate() {
            t.classified.clear();
            t.calls = shares.as_ref().map(|s| s[k]);
        }

        let pool: Vec<Arc<Solution>> = coders
            .iter()
            .filter(|c| !left_behind.contains(&c.agent.name))
            .filter_map(|c| c.solution.clone().ok())
            .collect();
        let proposals = first_halt(
            join_all(testers.iter_mut().map(|t| {
                let pool = &pool;
                async move {
                    let name = t.agent.name.clone();
                    let test = if t.is_hibernated() {
                        attempt_revival(ctx, t, pool).await?
                    } else {
                        propose_test(ctx, t, pool).await?
                    };
                    Ok((name, test))
                }
            }))
            .await,
        )?;
        let new_tests: Vec<(String, Proposal)> = proposals
            .into_iter()
            .filter_map(|(n, t)| t.map(|t| (n, t)))
            .collect();
        if new_tests.is_empty() {
            let stop = converged_or_stalled(testers);
            // The cap, not the coders' agreement, ended a round whose testers had no call left.
            if calls_left(ctx, max_calls) == Some(0)
                && stop
                    .decided()
                    .is_some_and(|s| s.read::<Converged>().is_some())
            {
                let calls = max_calls.unwrap_or_default();
                return Ok((StopReason::own(&Spent { calls }), round));
            }
            if stop
                .decided()
                .is_some_and(|s| s.read::<Stalled>().is_some())
            {
                let all: Vec<&Coder> = coders.iter().collect();
                if let Some(choice) = ask_person(ctx, &all, inputs, &stop, round).await? {
                    apply(ctx, choice, suite, testers, &mut left_behind)?;
                    continue;
                }
            }
            return Ok((stop, round));
        }
        suite.admit(ctx, new_tests)?;
    }
    Ok((StopReason::RoundCap { rounds: max_rounds }, max_rounds))
}

/// The calls the run may still make under `[dixit] max_calls` (`None`: no cap). Every call
/// of the run counts, as its budget recorded it (a resumed or replayed run counts the
/// recorded ones again as it re-executes them).
fn calls_left(ctx: &Ctx, max_calls: Option<u32>) -> Option<u32> {
    let made = u32::try_from(ctx.budget.totals().0.calls).unwrap_or(u32::MAX);
    max_calls.map(|m| m.saturating_sub(made))
}

/// `left` calls split between `n` testers in agent order: evenly, the first ones taking what
/// does not divide.
fn shares(left: u32, n: usize) -> Vec<u32> {
    let n32 = u32::try_from(n.max(1)).unwrap_or(u32::MAX);
    (0..n32)
        .map(|k| left / n32 + u32::from(k < left % n32))
        .take(n)
        .collect()
}

/// Whether the coders still taking part (two at least) wrote the same program, byte for byte:
/// their snapshots (every file by path and content) hash alike. Then the sandbox gives each
/// test the same verdict on every one of them, so no test can change what ships.
fn same_program(coders: &[Coder], left_behind: &[String]) -> bool {
    let hashes: Vec<Option<&str>> = coders
        .iter()
        .filter(|c| !left_behind.contains(&c.agent.name))
        .map(|c| c.solution.as_ref().ok().map(|s| s.snapshot.hash.as_str()))
        .collect();
    hashes.len() >= 2 && hashes[0].is_some() && hashes.iter().all(|h| *h == hashes[0])
}

/// A person's choice at a stop, applied: a wrong test leaves the suite (the coders are judged
/// again without it at the next round), a wrong coder is left behind, a hibernated tester's
/// tests join the suite (woken) or are forgotten (discarded). The agents are not told: coders
/// see their judgement vector without the test (numbers are kept) or with the woken tests,
/// testers a smaller pool; a woken tester is thanked, a discarded one is taken back to before
/// it wrote the tests.
fn apply(
    ctx: &Ctx,
    choice: Choice,
    suite: &mut Suite,
    testers: &mut [Tester],
    left_behind: &mut Vec<String>,
) -> Result<(), Halt> {
    match choice {
        Choice::DropTest { test } => {
            if suite.drop_test(test) {
                ctx.emit(
                    RUN_LANE,
                    Event::SuiteChanged {
                        added: Vec::new(),
                        removed: vec![test],
                        size: suite.len(),
                    },
                )?;
            }
        }
        Choice::LeaveBehind { coder } => left_behind.push(coder),
        Choice::Wake { tester } => {
            let t = asleep(testers, &tester)?;
            let tests = t.too_hard_tests.take().expect("hibernating");
            ctx.emit(&tester, Event::Revived)?;
            ctx.thank(&mut t.agent, "tester_thanks")?;
            for test in &tests {
                ctx.emit(
                    &tester,
                    Event::Accepted {
                        test: test.id.clone(),
                    },
                )?;
            }
            suite.admit(ctx, tests.map(|p| (tester.clone(), p)).into())?;
        }
        Choice::Discard { tester } => {
            let t = asleep(testers, &tester)?;
            let tests = t.too_hard_tests.take().expect("hibernating");
            ctx.emit(
                &tester,
                Event::Forgotten {
                    tests: tests.iter().map(|p| p.id.clone()).collect(),
                },
            )?;
            let cp = t.before_test_1.expect("saved before test 1");
            ctx.rollback(&mut t.agent, cp, "its hibernated tests were discarded")?;
        }
        // Raising a limit acts on the config; accepting ends the run before this.
        Choice::Raise { .. } | Choice::Accept => {}
    }
    Ok(())
}

/// The hibernating tester a decision names.
fn asleep<'a>(testers: &'a mut [Tester], name: &str) -> Result<&'a mut Tester, Halt> {
    testers
        .iter_mut()
        .find(|t| t.agent.name == name && t.is_hibernated())
        .ok_or_else(|| {
            Halt::Fatal(ProtocolError::Decision(format!(
                "{name} is not a hibernating tester of this run"
            )))
        })
}

/// A round that added no test. DEVIATION (the seed returns either way): it is *converged* only
/// when the testers' proposals were too easy — the coders agree on everything asked; when they
/// were too hard (or did not build), or a tester hibernates, either the tests or the coders are
/// wrong, and the run is *stalled*: a stop for human judgement, not a success.
fn converged_or_stalled(testers: &[Tester]) -> StopReason {
    let of = |class: Class| -> Vec<String> {
        testers
            .iter()
            .flat_map(|t| &t.classified)
            .filter(|(_, c)| *c == class)
            .map(|(id, _)| id.clone())
            .collect()
    };
    let (too_easy, too_hard, invalid) =
        (of(Class::TooEasy), of(Class::TooHard), of(Class::Invalid));
    let hibernated: Vec<String> = testers
        .iter()
        .filter(|t| t.is_hibernated())
        .map(|t| t.agent.name.clone())
        .collect();
    if too_hard.is_empty() && hibernated.is_empty() && !too_easy.is_empty() {
        StopReason::own(&Converged {})
    } else {
        StopReason::own(&Stalled {
            too_hard,
            invalid,
            hibernated,
        })
    }
}

/// ```text
/// def ensure_passes(coder, test_suite):
///     judgements_vector = run_tests(coder, test_suite)
///     if all_pass(judgements_vector): return True
///     coder.solve("Some tests fail: {judgements_vector}")
///     judgements_vector2 = run_tests(coder, test_suite)
///     if all_pass(judgements_vector2): coder.thanks(); return True
///     checkpoint = coder.save()
///     loop at most MAX_CODER_RETRIES:
///         coder.solve("Some tests fail: {judgements_vector2}")
///         judgments_vector3 = run_tests(coder, test_suite)
///         if all_pass(judgements_vector3): coder.thanks(); return True
///         coder.rollback_to_checkpoint(checkpoint)
///     return False   # human judgement needed, as perhaps tests are wrong
/// ```
/// DEVIATION (high-water mark, from test-driven-termination): the checkpoint is the best
/// attempt so far, starting with the current code. An attempt that passes more tests (or as
/// many with fewer crashes) becomes the new best; any other is rolled back, so a coder never
/// keeps, or is shown, a worse attempt than its best, and each retry starts from the best code
/// with a prompt naming only the tests that best attempt fails. The seed's first unguarded try
/// is folded into the same loop: MAX_CODER_RETRIES counts every fix attempt.
///
/// `retries` is MAX_CODER_RETRIES, or fewer when `[dixit] max_calls` leaves fewer calls.
pub async fn ensure_passes(
    ctx: &Ctx,
    coder: &mut Coder,
    suite: &Suite,
    retries: u32,
) -> Result<Ensured, Halt> {
    let judgement = coder.judge(ctx, suite).await?;
    if judgement.all_pass() {
        return Ok(Ensured::Passes);
    }
    let mut best = HighWaterMark::start(ctx, coder, judgement, Keep::Better)?;
    for _ in 0..retries {
        let prompt = fix_prompt(ctx, coder, &best.best, suite)?;
        coder.solve(ctx, "fix", &prompt).await?;
        let judgement = coder.judge(ctx, suite).await?;
        if judgement.all_pass() {
            ctx.thank(&mut coder.agent, "coder_thanks")?;
            return Ok(Ensured::Passes);
        }
        if best.offer(
            ctx,
            coder,
            judgement,
            "the attempt was no better than the best so far",
        )? == Offer::Reverted
        {
            continue;
        }
    }
    Ok(Ensured::CannotPass(best.best.failing(suite)))
}

/// "Some tests fail: {judgements_vector}", in words; or the build error, or a request for code.
fn fix_prompt(ctx: &Ctx, coder: &Coder, j: &Judgement, suite: &Suite) -> Result<String, Halt> {
    if !coder.last_had_code && coder.solution.is_err() {
        return Ok(ctx.prompts.render("coder_no_code", &[])?);
    }
    if j.build_error.is_some() && coder.last_truncated {
        return Ok(ctx.prompts.render("coder_truncated", &[])?);
    }
    if let Some(e) = &j.build_error {
        return Ok(ctx
            .prompts
            .render("coder_build_error", &[("build_error", e)])?);
    }
    let failing = j.failing(suite);
    let total = j.vector.len();
    let failing_sentence = match failing.len() {
        n if n == total => format!("All {total} tests fail."),
        1 => format!("Test {} fails; the others pass.", failing[0]),
        _ => format!("Tests {} fail; the others pass.", and_list(&failing)),
    };
    let vector = j
        .vector
        .iter()
        .enumerate()
        .map(|(i, p)| format!("{}: {}", suite.number(i), if *p { "pass" } else { "FAIL" }))
        .collect::<Vec<_>>()
        .join(", ");
    Ok(ctx.prompts.render(
        "coder_fix",
        &[
            ("total", &total.to_string()),
            ("failing_sentence", &failing_sentence),
            ("vector", &vector),
        ],
    )?)
}

/// ```text
/// def propose_test(tester, coders):
///     tester.before_test_1 = tester.save()
///     loop at most MAX_TESTER_RETRIES:
///         test_1 = tester.propose_test("Propose one more test")
///         classification_1 = classify(test_1, coders)
///         if classification_1 == IDEAL: tester.thanks(); return [test_1]
///         tester.before_test_2 = tester.save()
///         test_2 = tester.propose_test("This test was {classification_1}, try again")
///         classification_2 = classify(test_2, coders)
///         if classification_2 == IDEAL: tester.thanks(); return [test_2]
///         if classification_1 == TOO_HARD and classification_2 == TOO_HARD:
///             tester.is_hibernated = True
///             tester.too_hard_tests = [test_1, test_2]
///             return []
///         tester.rollback_to_checkpoint(tester.before_test_1)
///     return []
/// ```
/// DEVIATION: an INVALID test (it does not build, or it fails every implementation exactly as
/// it fails with none: it never reaches the code) is returned to its author with what went
/// wrong and never counts as TOO_HARD, so a broken test cannot send a tester to sleep.
pub async fn propose_test(
    ctx: &Ctx,
    t: &mut Tester,
    coders: &[Arc<Solution>],
) -> Result<Option<Proposal>, Halt> {
    let name = t.agent.name.clone();
    t.before_test_1 = Some(ctx.save(&mut t.agent)?);
    for _ in 0..Settings::of(ctx)?.max_tester_retries {
        if !t.may_propose() {
            return Ok(None);
        }
        let prompt = t.propose_prompt(ctx)?;
        let test_1 = t.propose(ctx, "propose", &prompt).await?;
        let classification_1 = classify_test(ctx, t, &test_1, coders).await?;
        if classification_1.class == Class::Ideal {
            return accept(ctx, t, test_1);
        }
        if !t.may_propose() {
            return Ok(None);
        }
        t.before_test_2 = Some(ctx.save(&mut t.agent)?);
        let test_2 = t
            .propose(ctx, "retry", &nudge(ctx, &classification_1)?)
            .await?;
        let classification_2 = classify_test(ctx, t, &test_2, coders).await?;
        if classification_2.class == Class::Ideal {
            return accept(ctx, t, test_2);
        }
        if classification_1.class == Class::TooHard && classification_2.class == Class::TooHard {
            ctx.emit(
                &name,
                Event::Hibernated {
                    tests: vec![test_1.id.clone(), test_2.id.clone()],
                },
            )?;
            t.too_hard_tests = Some([test_1, test_2]);
            return Ok(None);
        }
        let cp = t.before_test_1.expect("saved above");
        ctx.rollback(&mut t.agent, cp, "two proposals in a row did not fit")?;
    }
    Ok(None)
}

/// ```text
/// def attempt_revival(tester, coders):
///     [test_1, test_2] = tester.too_hard_tests
///     classification_1 = classify(test_1, coders)
///     if classification_1 != TOO_HARD:
///         tester.is_hibernated = False
///         tester.rollback_to_checkpoint(tester.before_test_2)
///         if classification_1 == IDEAL: tester.thanks(); return [test_1]
///         test_2 = tester.propose_test("This test was TOO EASY, try again")
///         classification_2 = classify(test_2, coders)
///         if classification_2 == IDEAL: tester.thanks(); return [test_2]
///         tester.rollback(tester.before_test_1)
///         return propose_test(tester, coders)
///     classification_2 = classify(test_2, coders)
///     if classification_2 == TOO_HARD: return []
///     tester.is_hibernated = False
///     if classification_1 == IDEAL: tester.thanks(); return [test_2]
///     tester.rollback(tester.before_test_1)
///     return propose_test(tester, coders)
/// ```
/// DEVIATION (a slip in the seed): in the second branch the check must be
/// `classification_2 == IDEAL` (classification_1 is TOO_HARD there), returning test_2.
pub async fn attempt_revival(
    ctx: &Ctx,
    t: &mut Tester,
    coders: &[Arc<Solution>],
) -> Result<Option<Proposal>, Halt> {
    let name = t.agent.name.clone();
    let [test_1, test_2] = t
        .too_hard_tests
        .clone()
        .expect("only hibernated testers are revived");
    let classification_1 = classify_test(ctx, t, &test_1, coders).await?;
    if classification_1.class != Class::TooHard {
        t.too_hard_tests = None;
        ctx.emit(&name, Event::Revived)?;
        let cp = t.before_test_2.expect("saved before test 2");
        ctx.rollback(
            &mut t.agent,
            cp,
            "revived: its first test is now within reach",
        )?;
        if classification_1.class == Class::Ideal {
            return accept(ctx, t, test_1);
        }
        if !t.may_propose() {
            return Ok(None);
        }
        let test_2 = t
            .propose(ctx, "retry", &nudge(ctx, &classification_1)?)
            .await?;
        let classification_2 = classify_test(ctx, t, &test_2, coders).await?;
        if classification_2.class == Class::Ideal {
            return accept(ctx, t, test_2);
        }
        let cp = t.before_test_1.expect("saved before test 1");
        ctx.rollback(&mut t.agent, cp, "the retry after revival did not fit")?;
        return propose_test(ctx, t, coders).await;
    }
    let classification_2 = classify_test(ctx, t, &test_2, coders).await?;
    if classification_2.class == Class::TooHard {
        return Ok(None);
    }
    t.too_hard_tests = None;
    ctx.emit(&name, Event::Revived)?;
    if classification_2.class == Class::Ideal {
        return accept(ctx, t, test_2);
    }
    let cp = t.before_test_1.expect("saved before test 1");
    ctx.rollback(&mut t.agent, cp, "revived: its tests are now too easy")?;
    propose_test(ctx, t, coders).await
}

/// `tester.thanks(); return [test]`.
fn accept(ctx: &Ctx, t: &mut Tester, test: Proposal) -> Result<Option<Proposal>, Halt> {
    ctx.thank(&mut t.agent, "tester_thanks")?;
    ctx.emit(
        &t.agent.name,
        Event::Accepted {
            test: test.id.clone(),
        },
    )?;
    Ok(Some(test))
}

/// "This test was {classification}, try again", said honestly and without the game's words.
fn nudge(ctx: &Ctx, v: &Classified) -> Result<String, Halt> {
    Ok(match v.class {
        Class::TooEasy => ctx.prompts.render("tester_too_easy", &[])?,
        Class::TooHard => ctx.prompts.render("tester_too_hard", &[])?,
        // An incomplete reply is the likely cause of a broken test: say so.
        Class::Invalid if v.truncated => ctx.prompts.render("tester_truncated", &[])?,
        Class::Invalid if v.detached.is_some() => ctx.prompts.render(
            "tester_detached",
            &[
                ("output", v.detached.as_deref().unwrap_or_default()),
                ("why", v.detached_why.as_deref().unwrap_or_default()),
            ],
        )?,
        Class::Invalid => match v.reason.as_deref() {
            Some(r) if r.starts_with("no test was found") => {
                ctx.prompts.render("tester_no_code", &[])?
            }
            r => ctx.prompts.render(
                "tester_invalid",
                &[("build_error", r.unwrap_or("unknown error"))],
            )?,
        },
        Class::Ideal => unreachable!("an IDEAL test is accepted, not nudged"),
    })
}

#[cfg(test)]
mod tests {
    use super::shares;

    #[test]
    fn calls_are_shared_evenly_the_first_testers_taking_the_rest() {
        assert_eq!(shares(4, 2), [2, 2]);
        assert_eq!(shares(5, 2), [3, 2]);
        assert_eq!(shares(1, 3), [1, 0, 0]);
        assert_eq!(shares(0, 2), [0, 0]);
        assert_eq!(shares(7, 1), [7]);
        assert_eq!(shares(3, 0), Vec::<u32>::new());
    }
}
