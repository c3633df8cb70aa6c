//! `[dixit]`: the Dixit loop's settings, read and checked here (older projects wrote them in
//! `[protocol]`; journals keep such configs, so both still load, but not both at once).

use serde::{Deserialize, Serialize};

use crate::classify::DEFAULT_MINORITY;
use crate::config::{Config, ConfigError, Role, TeamShape};
use crate::engine::{settings_error, Ctx, Halt};
use crate::selection::Strategy;

/// The table's name.
pub(super) const TABLE: &str = "dixit";

/// `[dixit]` (`shared/seeds/dixit-orchestrator.txt`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// How many coders.
    pub coders: usize,
    /// How many testers.
    pub testers: usize,
    /// More than this share of failing coders makes a test TOO_HARD.
    pub minority: f64,
    /// Tries a tester gets per turn at an IDEAL test (each a proposal and, if it does not fit, a
    /// retry).
    pub max_tester_retries: u32,
    /// Fix attempts a coder gets at passing the suite.
    pub max_coder_retries: u32,
    /// Rounds at most; reaching it is a stop the run can be resumed from.
    pub max_rounds: u32,
    /// The selection strategy the run ships by, from all its evidence (`engine/ship.rs`; the
    /// default is the best measured offline: docs/eval.md, "Selection strategies").
    pub ship: Strategy,
    /// At most this many agent calls for the whole run (unset: no cap). The protocol plans its
    /// calls to stay within it: fixes first, the rest split between the testers each round,
    /// and no call once the coders' programs are the same (no test can separate them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_calls: Option<u32>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            coders: 3,
            testers: 2,
            minority: DEFAULT_MINORITY,
            max_tester_retries: 2,
            max_coder_retries: 3,
            max_rounds: 8,
            ship: Strategy::SrankIdealPassers,
            max_calls: None,
        }
    }
}

/// The keys projects wrote in `[protocol]` before `[dixit]` existed.
pub(super) const LEGACY_KEYS: &[&str] = &[
    "coders",
    "testers",
    "minority",
    "max_tester_retries",
    "max_coder_retries",
    "max_rounds",
];

/// The same keys as they may appear in `[protocol]`.
#[derive(Default, Deserialize)]
struct Legacy {
    coders: Option<usize>,
    testers: Option<usize>,
    minority: Option<f64>,
    max_tester_retries: Option<u32>,
    max_coder_retries: Option<u32>,
    max_rounds: Option<u32>,
}

impl Settings {
    /// The settings of `config`: `[dixit]`, or the legacy keys of `[protocol]`.
    pub fn read(config: &Config) -> Result<Settings, ConfigError> {
        let mut s: Settings = config.section(TABLE)?;
        let legacy: Vec<&String> = config
            .protocol
            .other
            .keys()
            .filter(|k| LEGACY_KEYS.contains(&k.as_str()))
            .collect();
        let Some(first) = legacy.first() else {
            return Ok(s);
        };
        if config.has_table(TABLE) {
            return Err(config.invalid(
                &format!("protocol.{first}"),
                "dixit's settings are in [dixit]; remove them from [protocol]".into(),
            ));
        }
        let table: toml::Table = legacy
            .iter()
            .map(|k| ((*k).clone(), config.protocol.other[*k].clone()))
            .collect();
        let l: Legacy = toml::Value::Table(table)
            .try_into()
            .map_err(|e: toml::de::Error| config.invalid("protocol", e.message().to_string()))?;
        s.coders = l.coders.unwrap_or(s.coders);
        s.testers = l.testers.unwrap_or(s.testers);
        s.minority = l.minority.unwrap_or(s.minority);
        s.max_tester_retries = l.max_tester_retries.unwrap_or(s.max_tester_retries);
        s.max_coder_retries = l.max_coder_retries.unwrap_or(s.max_coder_retries);
        s.max_rounds = l.max_rounds.unwrap_or(s.max_rounds);
        Ok(s)
    }

    /// The settings of the running protocol.
    pub fn of(ctx: &Ctx) -> Result<Settings, Halt> {
        Settings::read(&ctx.config).map_err(settings_error)
    }

    /// Checks the settings and says the team: coders and testers.
    pub fn team(config: &Config) -> Result<TeamShape, ConfigError> {
        let s = Settings::read(config)?;
        // The key as the file writes it: in [dixit], or in [protocol] for older projects.
        let key = |k: &str| {
            if config
                .protocol
                .other
                .keys()
                .any(|o| LEGACY_KEYS.contains(&o.as_str()))
            {
                format!("protocol.{k}")
            } else {
                format!("{TABLE}.{k}")
            }
        };
        let team = TeamShape {
            coders: s.coders.max(config.listed(Role::Coder)),
            testers: s.testers.max(config.listed(Role::Tester)),
            reviewers: 0,
        };
        if !(0.0..1.0).contains(&s.minority) || s.minority <= 0.0 {
            return Err(config.invalid(
                &key("minority"),
                format!("{} is not a share strictly between 0 and 1", s.minority),
            ));
        }
        if team.testers < 1 {
            return Err(config.invalid(&key("testers"), "at least one tester is needed".into()));
        }
        if s.max_rounds == 0 {
            return Err(config.invalid(&key("max_rounds"), "must be at least 1".into()));
        }
        if team.coders < 1 {
            return Err(config.invalid(&key("coders"), "at least one coder is needed".into()));
        }
        if let Some(m) = s.max_calls {
            let least = team.coders + 1;
            if (m as usize) < least {
                return Err(config.invalid(
                    &key("max_calls"),
                    format!(
                        "{m} leaves no call for a tester: the coders' first solutions take {} \
                         ({least} at least)",
                        team.coders
                    ),
                ));
            }
        }
        Ok(team)
    }
}
