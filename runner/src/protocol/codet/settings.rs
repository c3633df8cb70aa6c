//! `[codet]`: CodeT's settings, read and checked here.

use serde::{Deserialize, Serialize};

use crate::config::{Config, ConfigError, Role, TeamShape};
use crate::engine::{settings_error, Ctx, Halt};

/// The table's name.
pub(super) const TABLE: &str = "codet";

/// `[codet]` (CodeT, Chen et al.: N solutions, M test samples, dual agreement).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// N: coders, each answering the spec once.
    pub coders: usize,
    /// M: testers, each writing tests from the spec once.
    pub testers: usize,
    /// Test cases asked of each tester; the first this many of its reply count (CodeT's
    /// `test_case_limit`, 5 in its paper).
    pub tests: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            coders: 5,
            testers: 2,
            tests: 5,
        }
    }
}

impl Settings {
    /// The settings of the running protocol.
    pub fn of(ctx: &Ctx) -> Result<Settings, Halt> {
        ctx.config.section(TABLE).map_err(settings_error)
    }

    /// Checks the settings and says the team: coders and testers.
    pub fn team(config: &Config) -> Result<TeamShape, ConfigError> {
        let s: Settings = config.section(TABLE)?;
        let team = TeamShape {
            coders: s.coders.max(config.listed(Role::Coder)),
            testers: s.testers.max(config.listed(Role::Tester)),
            reviewers: 0,
        };
        if team.coders < 1 {
            return Err(config.invalid("codet.coders", "at least one coder is needed".into()));
        }
        if team.testers < 1 {
            return Err(config.invalid("codet.testers", "at least one tester is needed".into()));
        }
        if s.tests < 1 {
            return Err(config.invalid("codet.tests", "must be at least 1".into()));
        }
        Ok(team)
    }
}
