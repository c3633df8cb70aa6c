//! Protocol `repair`, after `shared/seeds/test-driven-termination.txt` (the BestTracker harness):
//! coders against a given acceptance suite, which they see but must not change.
//!
//! ```text
//! first attempt:  write → review ("CLEAN", or findings → one rewrite) → test
//! attempts 2..N:  focused fix prompt (failing tests + their output, the best code, the tests)
//!                 → test → BestTracker.update: worse? revert to the best before the next try
//! ship the best attempt (the high-water mark), whatever the last one did
//! ```
//!
//! The seed's extractor rejects a reply that does not parse; here every reply's code is built by
//! its toolchain before it is judged (Python is compiled in the sandbox), so a reply that does not
//! compile is a failed attempt (`compile_error`, no test passes) that the high-water mark undoes.
//!
//! Each coder works concurrently with its own reviewer (a second, cheaper model, configured in
//! `[reviewers]`). Budget caps stop the run at once, mid-task (the engine checks before every
//! call).

use futures::future::join_all;

use crate::agents::Agent;
use crate::engine::{
    Coder, Ctx, Detail, Halt, HighWaterMark, Inputs, Judgement, Keep, Offer, ProtocolError, Suite,
    Team,
};
use crate::journal::{Event, Standing, StopReason};

use futures::future::BoxFuture;

use super::{first_halt, Stop};
use crate::config::{Config, ConfigError, Project, TeamShape};
use crate::engine::Protocol;
use crate::outcome::ProtocolData;

pub mod events;
pub mod part;
mod settings;
use events::{Repaired, Reviewed};
pub use settings::Settings;

/// The protocol's name in `[protocol] name`, journals and output.
pub const NAME: &str = "repair";

/// The prompt templates of this protocol (`prompts/`, beside this file).
pub const TEMPLATES: &[(&str, &str)] = templates![
    "coder_fix",
    "coder_rewrite",
    "coder_system",
    "coder_system_defensive",
    "coder_system_terse",
    "coder_write",
    "reviewer_review",
    "reviewer_system",
];

/// Repair is plain about the tests and the review; it never turns the work into a contest.
pub const FORBIDDEN: &[&str] = &[
    "game",
    "games",
    "score",
    "scores",
    "scoring",
    "winner",
    "opponent",
    "opponents",
    "compete",
    "competition",
    "reward",
];

/// The protocol, for the registry.
pub struct Repair;

impl Protocol for Repair {
    fn about(&self) -> &'static str {
        "coders against a given acceptance suite, with a high-water mark and a first review"
    }

    fn team(&self, config: &Config) -> Result<TeamShape, ConfigError> {
        Settings::team(config)
    }

    fn settings(&self, config: &Config) -> Result<Vec<(String, String)>, ConfigError> {
        Ok(crate::engine::settings_pairs(
            &config.section::<Settings>(settings::TABLE)?,
        ))
    }

    fn lacks(&self, project: &Project) -> Option<String> {
        let dir = self.acceptance(&project.config).ok().flatten()?;
        project
            .files_in(&dir)
            .is_empty()
            .then(|| format!("no acceptance suite in `{}`", dir.display()))
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

/// Runs the protocol: every coder, with its reviewer, against the acceptance suite.
pub async fn run(ctx: &Ctx, team: &mut Team, inputs: &Inputs) -> Result<Stop, Halt> {
    let suite = Suite::from_files(ctx, &inputs.acceptance, ctx.test_kind(), "acceptance")?;
    if suite.is_empty() {
        return Err(Halt::Fatal(ProtocolError::Lacks {
            protocol: "repair",
            what: format!(
                "an acceptance suite: no .{} test in the project's `{}` folder ([repair] tests)",
                ctx.test_kind().extension(),
                Settings::of(ctx)?.tests.display()
            ),
        }));
    }
    let mut reviewers = team.reviewers.iter_mut().map(Some).collect::<Vec<_>>();
    reviewers.resize_with(team.coders.len(), || None);
    let done = first_halt(
        join_all(
            team.coders
                .iter_mut()
                .zip(reviewers)
                .map(|(c, r)| repair(ctx, c, r, &suite)),
        )
        .await,
    )?;
    // The stop's "round": the most attempts any coder made.
    let round = done.iter().map(|(_, a)| *a).max().unwrap_or(0);
    Ok(Stop {
        reason: StopReason::own(&Repaired {
            standings: done.into_iter().map(|(s, _)| s).collect(),
        }),
        round,
    })
}

/// One coder's task: write (reviewed), then fix with the high-water mark, and ship the best.
/// Returns its standing and the attempts it made.
async fn repair(
    ctx: &Ctx,
    coder: &mut Coder,
    reviewer: Option<&mut Agent>,
    suite: &Suite,
) -> Result<(Standing, u32), Halt> {
    let tests = suite.shown();
    let write = ctx.prompts.render(
        "coder_write",
        &[("spec", ctx.spec.trim()), ("tests", &tests)],
    )?;
    coder.solve(ctx, "write", &write).await?;
    if let Some(reviewer) = reviewer {
        review(ctx, coder, reviewer, &tests).await?;
    }
    let first = coder.judge(ctx, suite).await?;
    attempt_event(ctx, coder, 1, &first, "first")?;
    let mut best = HighWaterMark::start(ctx, coder, first, Keep::Better)?;
    let mut made = 1;
    for attempt in 2..=Settings::of(ctx)?.max_attempts {
        if best.best.all_pass() {
            break;
        }
        made = attempt;
        let fix = ctx.prompts.render(
            "coder_fix",
            &[
                ("failures", &best.best.feedback(suite, Detail::Failures)),
                ("code", &coder.code_text()),
                ("tests", &tests),
            ],
        )?;
        coder.solve(ctx, "fix", &fix).await?;
        let judgement = coder.judge(ctx, suite).await?;
        let offered = judgement.clone();
        let outcome = best.offer(
            ctx,
            coder,
            judgement,
            "the attempt was no better than the best so far: the best attempt goes back to disk",
        )?;
        let outcome = match outcome {
            Offer::Kept => "kept",
            Offer::Reverted => "reverted",
        };
        attempt_event(ctx, coder, attempt, &offered, outcome)?;
    }
    Ok((
        Standing {
            coder: coder.agent.name.clone(),
            passed: best.best.passes(),
            total: suite.len(),
        },
        made,
    ))
}

/// The first attempt's review: "CLEAN", or findings that the coder fixes in one rewrite.
async fn review(
    ctx: &Ctx,
    coder: &mut Coder,
    reviewer: &mut Agent,
    tests: &str,
) -> Result<(), Halt> {
    let prompt = ctx.prompts.render(
        "reviewer_review",
        &[("spec", ctx.spec.trim()), ("code", &coder.code_text())],
    )?;
    let reply = ctx.ask_text(reviewer, "review", &prompt).await?;
    let verdict = reply.text.trim().trim_end_matches(['.', '!']).trim();
    let clean = verdict.eq_ignore_ascii_case("clean");
    ctx.emit(
        &reviewer.name,
        Event::own(&Reviewed {
            coder: coder.agent.name.clone(),
            clean,
        }),
    )?;
    if !clean {
        let rewrite = ctx.prompts.render(
            "coder_rewrite",
            &[("findings", reply.text.trim()), ("tests", tests)],
        )?;
        coder.solve(ctx, "rewrite", &rewrite).await?;
    }
    Ok(())
}

fn attempt_event(
    ctx: &Ctx,
    coder: &Coder,
    attempt: u32,
    j: &Judgement,
    outcome: &str,
) -> Result<(), Halt> {
    ctx.emit(
        &coder.agent.name,
        Event::Attempt {
            attempt,
            passed: j.passes(),
            failed: j.failures(),
            errors: j.vector.len() - j.passes() - j.failures(),
            total: j.vector.len(),
            outcome: outcome.into(),
        },
    )
}
