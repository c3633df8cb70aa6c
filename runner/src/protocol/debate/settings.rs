//! `[debate]`: DebateCoder's settings, read and checked here.

use serde::{Deserialize, Serialize};

use crate::selection::Strategy;

use crate::config::{Config, ConfigError, Role, TeamShape};
use crate::engine::{settings_error, Ctx, Halt};

/// The table's name.
pub(super) const TABLE: &str = "debate";

/// `[debate]` (`shared/seeds/debatecoder.md`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// How many coders.
    pub coders: usize,
    /// Epochs at most (the paper converges within 3–5).
    pub max_epochs: u32,
    /// Stop after this many epochs in a row without a coder improving.
    pub early_stop: u32,
    /// The selection strategy the run ships by, from all its evidence (`engine/ship.rs`).
    pub ship: Strategy,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            coders: 3,
            max_epochs: 4,
            early_stop: 2,
            ship: Strategy::SrankIdealPassers,
        }
    }
}

impl Settings {
    /// The settings of the running protocol.
    pub fn of(ctx: &Ctx) -> Result<Settings, Halt> {
        ctx.config.section(TABLE).map_err(settings_error)
    }

    /// Checks the settings and says the team: coders only (they write the tests too).
    pub fn team(config: &Config) -> Result<TeamShape, ConfigError> {
        let s: Settings = config.section(TABLE)?;
        let coders = s.coders.max(config.listed(Role::Coder));
        if coders < 2 {
            return Err(
                config.invalid("debate.coders", "a debate needs at least two coders".into())
            );
        }
        if s.max_epochs == 0 {
            return Err(config.invalid("debate.max_epochs", "must be at least 1".into()));
        }
        Ok(TeamShape {
            coders,
            ..TeamShape::default()
        })
    }
}
