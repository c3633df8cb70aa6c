//! Protocol `single`, the control every comparison needs: one coder answers the spec once, with
//! no feedback and no tests, and its answer is what the run ships.
//!
//! ```text
//! coder.solve(spec)     # one call
//! ship(coder)           # the hidden tests, if any, judge it
//! ```

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

use crate::config::{Config, ConfigError, TeamShape};
use crate::engine::{Ctx, Halt, Inputs, Protocol, Stop, Team};
use crate::journal::{Choice, ExitClass, Named, Open, StopReason};
use crate::outcome::ProtocolData;

/// The protocol's name in `[protocol] name`, journals and output.
pub const NAME: &str = "single";

/// The prompt templates of this protocol (`prompts/`, beside this file).
pub const TEMPLATES: &[(&str, &str)] = templates![
    "coder_solve",
    "coder_system",
    "coder_system_defensive",
    "coder_system_terse",
];

/// The coder is asked once, as anyone would ask: nothing about other agents or a contest.
pub const FORBIDDEN: &[&str] = &[
    "agent",
    "agents",
    "coder",
    "coders",
    "tester",
    "testers",
    "game",
    "score",
    "judge",
    "round",
    "rounds",
    "compete",
    "competition",
];

/// `[single]`: nothing to set (one coder, one call); the table may be absent or empty.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {}

/// The stop: the protocol ran its course; what the coder wrote is what the run ships, and the
/// hidden tests (if any) judge it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Finished {}

impl Named for Finished {
    const NAME: &'static str = "finished";
}

/// The protocol, for the registry.
pub struct Single;

impl ProtocolData for Single {
    fn name(&self) -> &'static str {
        NAME
    }

    fn describe(&self, _stop: &Open) -> String {
        "finished: what each coder wrote is shipped as it is".into()
    }

    fn exit_class(&self, _stop: &Open) -> ExitClass {
        ExitClass::Done
    }

    /// One answer, asked once: nothing to decide.
    fn choices(&self, _stop: &Open) -> Vec<Choice> {
        Vec::new()
    }

    fn suite_reason(&self) -> Option<&'static str> {
        None
    }

    fn shipped_rule(&self) -> &'static str {
        "its one coder's one answer"
    }
}

impl Protocol for Single {
    fn about(&self) -> &'static str {
        "one coder answers the spec once, with no feedback and no tests: the control"
    }

    fn team(&self, config: &Config) -> Result<TeamShape, ConfigError> {
        config.section::<Settings>("single")?;
        Ok(TeamShape {
            coders: 1,
            ..TeamShape::default()
        })
    }

    fn settings(&self, config: &Config) -> Result<Vec<(String, String)>, ConfigError> {
        Ok(crate::engine::settings_pairs(
            &config.section::<Settings>("single")?,
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

/// Runs the protocol: the coder answers once, and the run ships that answer.
pub async fn run(ctx: &Ctx, team: &mut Team) -> Result<Stop, Halt> {
    let solve = ctx
        .prompts
        .render("coder_solve", &[("spec", ctx.spec.trim())])?;
    for coder in &mut team.coders {
        coder.solve(ctx, "solve", &solve).await?;
    }
    Ok(Stop {
        reason: StopReason::own(&Finished {}),
        round: 1,
    })
}
