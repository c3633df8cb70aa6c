//! `[repair]`: the repair loop's settings, read and checked here.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::config::{Config, ConfigError, Role, TeamShape};
use crate::engine::{settings_error, Ctx, Halt};

/// The table's name.
pub(super) const TABLE: &str = "repair";

/// `[repair]`: the BestTracker repair loop (`shared/seeds/test-driven-termination.txt`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// How many coders.
    pub coders: usize,
    /// Attempts per coder: the first one and its fixes.
    pub max_attempts: u32,
    /// Whether a `reviewer` agent reviews each first attempt ("CLEAN" or findings → a rewrite).
    pub review: bool,
    /// The acceptance suite, relative to the project (shown to the coders, read-only).
    pub tests: PathBuf,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            coders: 1,
            max_attempts: 5,
            review: true,
            tests: PathBuf::from("tests"),
        }
    }
}

impl Settings {
    /// The settings of the running protocol.
    pub fn of(ctx: &Ctx) -> Result<Settings, Halt> {
        ctx.config.section(TABLE).map_err(settings_error)
    }

    /// Checks the settings and says the team: coders, and one reviewer per coder when first
    /// attempts are reviewed (coders work concurrently, each with its own reviewer).
    pub fn team(config: &Config) -> Result<TeamShape, ConfigError> {
        let s: Settings = config.section(TABLE)?;
        if s.max_attempts == 0 {
            return Err(config.invalid("repair.max_attempts", "must be at least 1".into()));
        }
        let coders = s.coders.max(config.listed(Role::Coder));
        if coders < 1 {
            return Err(config.invalid("repair.coders", "at least one coder is needed".into()));
        }
        let reviewers = if s.review {
            coders.max(config.listed(Role::Reviewer))
        } else {
            0
        };
        Ok(TeamShape {
            coders,
            testers: 0,
            reviewers,
        })
    }
}
