//! What the engine asks of a protocol. The engine runs any [`Protocol`] it is handed and never
//! names one; the protocols implement this trait in their folders and the registry
//! (`crate::protocol`) lists them. The trait lives here, beside its only caller, so that
//! `protocol/` depends on `engine/` and never the reverse.

use futures::future::BoxFuture;

use crate::config::{Config, ConfigError, Project, TeamShape};
use crate::journal::StopReason;
use crate::outcome::ProtocolData;
use crate::selection::{SelectionConfig, Strategy};

use super::{Ctx, Halt, Inputs, Team};

/// How a protocol's run ended: why, and in which round (or epoch, or attempt).
pub struct Stop {
    /// Why it ended.
    pub reason: StopReason,
    /// The round (or epoch, or attempt) it ended in.
    pub round: u32,
}

/// One protocol: its table of `dixit.toml`, its prompts and its run; and, as a
/// [`ProtocolData`], its name, its own events and stops and its part of the summary.
pub trait Protocol: ProtocolData {
    /// One line for `--help` and the docs: what a run of it does.
    fn about(&self) -> &'static str;

    /// Reads and checks this protocol's table of `config` (errors name the key and its line)
    /// and says how many agents of each role a run has.
    fn team(&self, config: &Config) -> Result<TeamShape, ConfigError>;

    /// Its table of `config` as `key = value` pairs, defaults filled in, in the table's order:
    /// what a comparison records of each cell, so that its page says what ran.
    fn settings(&self, config: &Config) -> Result<Vec<(String, String)>, ConfigError>;

    /// The keys of `[protocol]` this protocol reads besides `name` and `reruns` (settings older
    /// projects wrote there before the protocol had its own table).
    fn legacy_keys(&self) -> &'static [&'static str] {
        &[]
    }

    /// The protocol's prompt templates (name, text); the language instructions are common.
    fn templates(&self) -> &'static [(&'static str, &'static str)];

    /// Words its prompts must never contain (agents are never told there is a game).
    fn forbidden(&self) -> &'static [&'static str];

    /// Why `project` cannot run this protocol meaningfully (what it lacks), if it cannot: a
    /// comparison skips such a cell instead of running it.
    fn lacks(&self, _project: &Project) -> Option<String> {
        None
    }

    /// The strategy a run of it ships by, chosen from all the run's evidence when it ends with
    /// several implementations (see `engine/ship.rs`), with what the strategy needs (the band's
    /// minority); `None`: the protocol ships by its own rule (one coder, or a pick of its own).
    fn shipping(
        &self,
        _config: &Config,
    ) -> Result<Option<(Strategy, SelectionConfig)>, ConfigError> {
        Ok(None)
    }

    /// Runs the protocol with `team` to its stop.
    fn run<'a>(
        &'a self,
        ctx: &'a Ctx,
        team: &'a mut Team,
        inputs: &'a Inputs,
    ) -> BoxFuture<'a, Result<Stop, Halt>>;
}

/// The fields of a protocol's settings as `key = value` pairs (TOML values), in their order.
pub fn settings_pairs<T: serde::Serialize>(settings: &T) -> Vec<(String, String)> {
    // A settings struct is flat, so its TOML is one `key = value` line per field, in order.
    toml::to_string(settings)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once(" = "))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Turns a table's error into the error a protocol's `run` returns (the table was checked when
/// the protocol was selected, so this happens only if the config changed under the run).
pub fn settings_error(e: ConfigError) -> Halt {
    Halt::Fatal(e.into())
}
