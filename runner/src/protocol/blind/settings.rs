//! `[blind]`: blind verification's settings, read and checked here.

use serde::{Deserialize, Serialize};

use crate::config::{Config, ConfigError, Role, TeamShape};
use crate::engine::{settings_error, Ctx, Halt};

/// The table's name.
pub(super) const TABLE: &str = "blind";

/// `[blind]` (`shared/seeds/blind-verification.md`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// How many coders.
    pub coders: usize,
    /// Implementation attempts against the coder's own tests (full feedback).
    pub max_self_attempts: u32,
    /// Runs of the hidden suite (each answers pass or fail only); after a failure the coder
    /// re-reads the spec, adds tests and tries again.
    pub max_blind_attempts: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            coders: 1,
            max_self_attempts: 5,
            max_blind_attempts: 2,
        }
    }
}

impl Settings {
    /// The settings of the running protocol.
    pub fn of(ctx: &Ctx) -> Result<Settings, Halt> {
        ctx.config.section(TABLE).map_err(settings_error)
    }

    /// Checks the settings and says the team: coders only (they write their own tests).
    pub fn team(config: &Config) -> Result<TeamShape, ConfigError> {
        let s: Settings = config.section(TABLE)?;
        if s.max_self_attempts == 0 || s.max_blind_attempts == 0 {
            return Err(config.invalid(
                "blind.max_self_attempts",
                "attempts must be at least 1".into(),
            ));
        }
        let coders = s.coders.max(config.listed(Role::Coder));
        if coders < 1 {
            return Err(config.invalid("blind.coders", "at least one coder is needed".into()));
        }
        Ok(TeamShape {
            coders,
            ..TeamShape::default()
        })
    }
}
