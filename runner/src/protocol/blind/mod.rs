//! Protocol `blind`, after `shared/seeds/blind-verification.md` (HillClimber v3): a coder never
//! sees the real tests.
//!
//! ```text
//! phase 1: the coder writes its own tests from the spec (category + confidence each)
//! phase 2: it implements and iterates against them, with full feedback (inputs, expected,
//!          actual): they are its own tests
//! phase 3: the project's hidden suite runs and answers pass or fail only — no names, no
//!          counts, no output
//! on a blind failure (up to max_blind_attempts): re-read the spec, add tests, phases 2 and 3
//! ```
//!
//! The information boundary is absolute: nothing of the hidden suite but one bit ever reaches a
//! prompt (a test reads every transcript to prove it).

use futures::future::join_all;

use crate::agents::code_blocks;
use crate::engine::{
    Coder, Ctx, Detail, Halt, HighWaterMark, Inputs, Keep, Proposal, ProtocolError, Suite, Team,
};
use crate::journal::{Event, StopReason};
use events::{BlindChecked, SelfTest, SelfTests, Verified};

use futures::future::BoxFuture;

use super::{first_halt, Stop};
use crate::config::{Config, ConfigError, Project, TeamShape};
use crate::engine::Protocol;

pub mod events;
pub mod part;
mod settings;
pub use settings::Settings;

/// The protocol's name in `[protocol] name`, journals and output.
pub const NAME: &str = "blind";

/// The prompt templates of this protocol (`prompts/`, beside this file).
pub const TEMPLATES: &[(&str, &str)] = templates![
    "coder_fix",
    "coder_implement",
    "coder_more_tests",
    "coder_passed",
    "coder_system",
    "coder_system_defensive",
    "coder_system_terse",
    "coder_tests",
];

/// The check is "independent": never a contest, never a count.
pub const FORBIDDEN: &[&str] = &[
    "game",
    "games",
    "score",
    "scores",
    "scoring",
    "judge",
    "judges",
    "opponent",
    "opponents",
    "compete",
    "competition",
    "winner",
    "reward",
    "hidden",
];

/// The categories a self-test may name (the seed's layers); anything else is `other`.
const CATEGORIES: &[&str] = &[
    "existence",
    "format",
    "happy_path",
    "boundary",
    "edge_case",
    "invalid_input",
];

/// The protocol, for the registry.
pub struct Blind;

impl Protocol for Blind {
    fn about(&self) -> &'static str {
        "a coder writes its own tests, then the hidden suite answers pass or fail only"
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
        project
            .hidden
            .is_empty()
            .then(|| "no hidden/ tests to check against".into())
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

/// Runs the protocol: every coder writes its own tests, implements against them, and asks the
/// hidden suite for one bit.
pub async fn run(ctx: &Ctx, team: &mut Team, inputs: &Inputs) -> Result<Stop, Halt> {
    let hidden = Suite::from_files(ctx, &inputs.hidden, ctx.test_kind(), "hidden")?;
    if hidden.is_empty() {
        return Err(Halt::Fatal(ProtocolError::Lacks {
            protocol: "blind verification",
            what: format!(
                "hidden tests: no .{} test in the project's hidden/ folder",
                ctx.test_kind().extension()
            ),
        }));
    }
    let results =
        first_halt(join_all(team.coders.iter_mut().map(|c| verify(ctx, c, &hidden))).await)?;
    let round = results.iter().map(|(_, a)| *a).max().unwrap_or(0);
    let (passed, failed): (Vec<_>, Vec<_>) = team
        .coders
        .iter()
        .zip(&results)
        .map(|(c, (ok, _))| (c.agent.name.clone(), *ok))
        .partition(|(_, ok)| *ok);
    Ok(Stop {
        reason: StopReason::own(&Verified {
            passed: passed.into_iter().map(|(n, _)| n).collect(),
            failed: failed.into_iter().map(|(n, _)| n).collect(),
        }),
        round,
    })
}

/// One coder through the three phases, refining after a blind failure. Returns whether the
/// hidden suite passed and how many blind checks were made.
async fn verify(ctx: &Ctx, coder: &mut Coder, hidden: &Suite) -> Result<(bool, u32), Halt> {
    let mut own = Suite::default();
    let settings = Settings::of(ctx)?;
    for attempt in 1..=settings.max_blind_attempts {
        // Phase 1: tests from the spec (more of them after a blind failure).
        let template = if attempt == 1 {
            "coder_tests"
        } else {
            "coder_more_tests"
        };
        let prompt = ctx.prompts.render(template, &[("spec", ctx.spec.trim())])?;
        write_tests(ctx, coder, &mut own, &prompt).await?;

        // Phase 2: implement, then iterate against its own tests with full feedback.
        if attempt == 1 {
            let implement = ctx
                .prompts
                .render("coder_implement", &[("spec", ctx.spec.trim())])?;
            coder.solve(ctx, "implement", &implement).await?;
        }
        let judgement = coder.judge(ctx, &own).await?;
        let mut best = HighWaterMark::start(ctx, coder, judgement, Keep::Better)?;
        for _ in 0..settings.max_self_attempts {
            if best.best.all_pass() {
                break;
            }
            let fix = ctx.prompts.render(
                "coder_fix",
                &[("results", &best.best.feedback(&own, Detail::Everything))],
            )?;
            coder.solve(ctx, "fix", &fix).await?;
            let judgement = coder.judge(ctx, &own).await?;
            best.offer(
                ctx,
                coder,
                judgement,
                "the attempt passed no more of its own tests than the best so far",
            )?;
        }

        // Phase 3: the hidden suite answers pass or fail, and nothing else.
        let passed = coder.judge_quietly(ctx, hidden).await.all_pass();
        ctx.emit(
            &coder.agent.name,
            Event::own(&BlindChecked { attempt, passed }),
        )?;
        if passed {
            ctx.thank(&mut coder.agent, "coder_passed")?;
            return Ok((true, attempt));
        }
    }
    Ok((false, settings.max_blind_attempts))
}

/// Asks the coder for tests and adds every one its reply holds (one fenced block each) to its
/// own suite, with the category and confidence it gave.
async fn write_tests(
    ctx: &Ctx,
    coder: &mut Coder,
    own: &mut Suite,
    prompt: &str,
) -> Result<(), Halt> {
    let kind = ctx.test_kind();
    let turn = ctx.ask_text(&mut coder.agent, "tests", prompt).await?;
    let blocks = code_blocks(&turn.text, kind.extension());
    let dir = ctx
        .run_dir
        .join("tests")
        .join(&coder.agent.name)
        .join(turn.call.to_string());
    let mut accepted = Vec::new();
    let mut described = Vec::new();
    for (i, body) in blocks.iter().enumerate() {
        let id = format!("{}#{}.{}", coder.agent.name, turn.call, i + 1);
        let path = dir.join(format!("test_{}.{}", i + 1, kind.extension()));
        std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(&path, body))
            .map_err(|source| {
                Halt::Fatal(ProtocolError::Write {
                    path: path.clone(),
                    source,
                })
            })?;
        let (category, confidence) = labels(body);
        described.push(SelfTest {
            id: id.clone(),
            category,
            confidence,
        });
        let test = ctx
            .test(&path)
            .map(std::sync::Arc::new)
            .map_err(|e| e.message);
        accepted.push((
            coder.agent.name.clone(),
            Proposal {
                id,
                source: Some(body.clone()),
                test,
                truncated: turn.truncated,
            },
        ));
    }
    ctx.emit(
        &coder.agent.name,
        Event::own(&SelfTests { tests: described }),
    )?;
    let dir = ctx.run_dir.join("self-tests").join(&coder.agent.name);
    // Tests that cannot even be read are dropped; the rest are the coder's own suite.
    accepted.retain(|(_, p)| p.test.is_ok());
    own.add_in(ctx, &dir, accepted)?;
    Ok(())
}

/// The category and confidence a self-test's first comment lines give
/// (`# category: boundary, confidence: 0.8`); `other` and none when it gives none.
fn labels(body: &str) -> (String, Option<f64>) {
    let head: String = body
        .lines()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    let value = |key: &str| {
        head.split(key).nth(1).map(|rest| {
            rest.trim_start_matches([':', ' ', '='])
                .split(|c: char| c == ',' || c.is_whitespace())
                .next()
                .unwrap_or("")
                .to_string()
        })
    };
    let category = value("category")
        .filter(|c| CATEGORIES.contains(&c.as_str()))
        .unwrap_or_else(|| "other".into());
    let confidence = value("confidence")
        .and_then(|c| c.parse::<f64>().ok())
        .filter(|c| (0.0..=1.0).contains(c));
    (category, confidence)
}

#[cfg(test)]
mod tests {
    use super::labels;

    #[test]
    fn labels_are_read_from_the_first_comment_lines() {
        assert_eq!(
            labels("# category: boundary, confidence: 0.8\nassert f(0) == 0\n"),
            ("boundary".into(), Some(0.8))
        );
        assert_eq!(
            labels("// Category = edge_case  confidence=1\nint main(void) { return 0; }\n"),
            ("edge_case".into(), Some(1.0))
        );
        assert_eq!(labels("assert f(1) == 2\n"), ("other".into(), None));
        assert_eq!(
            labels("# category: vibes, confidence: 7\n"),
            ("other".into(), None)
        );
    }
}
