//! A project: a folder with `spec.md` and `dixit.toml`, optionally `hidden/` (tests no agent
//! ever sees), `tests/` (an acceptance suite the `repair` protocol shows its coders) and
//! `prompts/` (overrides of the prompt templates).
//!
//! ```toml
//! [project]
//! language = "python"      # what coders write: python | c | cpp | rust
//! tests = "unit"           # unit: test files call the solution | io: stdin/stdout cases
//! # interface = ["to_roman", "Stack: push, pop"]   # python: what tests may call
//! # interface = "interface/solution.h"   # c, cpp: the header(s) tests compile against
//! # interface = ["add: fn(i32, i32) -> i32", "parse: fn(&str) -> Option<i32>"]   # rust: what tests may call
//! seed = 1                 # base seed of sandbox runs and agent sampling
//!
//! [limits]                 # per sandbox run
//! fuel = 4000000000
//! memory_mb = 256
//!
//! [protocol]
//! name = "…"               # a protocol of the registry (`dixit protocols` lists them)
//! reruns = "auto"          # runs per (solution, test) pair: a number, or auto
//!
//! # [<protocol name>]      # each protocol's own table, read and checked by that protocol
//! # coders = 3             # (its folder under `protocol/` documents the keys)
//!
//! [budget]                 # caps; a call that would start past one is refused and the run stops
//! max_usd = 2.0
//! max_tokens = 500000
//! per_agent_usd = 0.5
//! per_agent_tokens = 200000
//!
//! [agents]                 # defaults for every agent
//! backend = "script"       # script | openai | anthropic | command
//! script = "script.toml"
//!
//! [[coder]]                # optional per-agent overrides, in order (coder-1, coder-2, ...)
//! temperature = 0.2
//!
//! [prices."gpt-4o-mini"]   # USD per million tokens; needed for USD caps
//! input = 0.15
//! output = 0.6
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::classify::Reruns;
use crate::sandbox::Limits;
use crate::toolchain::{Language, StatedInterface, TestKind};

/// Why a project could not be loaded. Every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A file could not be read.
    #[error("{path}: cannot read: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A file is not valid TOML, or has a key or a value the config does not take (toml's
    /// message names the line and column).
    #[error("{path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// toml's message.
        message: String,
    },
    /// A key's value is refused.
    #[error("{path}: `{key}`{}: {message}", line_note(*.line))]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The key, as `table.key`.
        key: String,
        /// Where the key is set, when it is written in the file.
        line: Option<usize>,
        /// Why it is refused.
        message: String,
    },
    /// The project has no `spec.md`.
    #[error("{path}: missing (a project needs spec.md beside dixit.toml)")]
    MissingSpec {
        /// Where it was looked for.
        path: PathBuf,
    },
}

/// `[project]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectSection {
    /// The project's name, if given.
    #[serde(default)]
    pub name: Option<String>,
    /// The language coders write.
    pub language: LanguageName,
    /// Whether tests are unit tests or stdin/expected-stdout cases.
    #[serde(default)]
    pub tests: TestStyle,
    /// The base seed of sandbox runs and of agent sampling (default 1).
    #[serde(default = "one")]
    pub seed: u64,
    /// What a unit test may use of a solution: the Python functions and classes it may call
    /// (`NAME`, or `NAME: METHOD, ...` for a class; when absent, the functions the spec names),
    /// header files the project provides (C/C++; tests include them by file name), or the Rust
    /// items of the solution crate (`NAME` or `NAME: TYPE`). Tests compile against this, never
    /// a coder's files.
    #[serde(default)]
    pub interface: Option<InterfaceValue>,
}

/// `[project] interface`: one entry or a list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum InterfaceValue {
    /// A single entry.
    One(String),
    /// A list of entries.
    Many(Vec<String>),
}

impl InterfaceValue {
    /// The entries, in order.
    pub fn entries(&self) -> Vec<String> {
        match self {
            InterfaceValue::One(s) => vec![s.clone()],
            InterfaceValue::Many(v) => v.clone(),
        }
    }
}

fn one() -> u64 {
    1
}

/// A language name as written in the config.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LanguageName {
    /// `python`.
    Python,
    /// `c`.
    C,
    /// `cpp`.
    Cpp,
    /// `rust`.
    Rust,
}

impl LanguageName {
    /// The language this name stands for.
    pub fn language(self) -> Language {
        match self {
            LanguageName::Python => Language::Python,
            LanguageName::C => Language::C,
            LanguageName::Cpp => Language::Cpp,
            LanguageName::Rust => Language::Rust,
        }
    }
}

/// How tests talk to solutions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestStyle {
    /// Tests are programs in the solution's language that call its functions.
    #[default]
    Unit,
    /// Tests are stdin/expected-stdout cases (`.toml`); the solution is a program.
    Io,
}

/// `[limits]` (per sandbox run), in friendlier units than [`Limits`].
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LimitsSection {
    /// Fuel per run (about one unit per WebAssembly instruction).
    pub fuel: u64,
    /// Memory per run, in MiB (all linear memories together).
    pub memory_mb: u64,
    /// Bytes kept of each of stdout and stderr; writing more ends the run.
    pub output_bytes: u64,
    /// Wall-clock safety net per run, in milliseconds.
    pub wall_time_ms: u64,
}

impl Default for LimitsSection {
    fn default() -> Self {
        let l = Limits::default();
        LimitsSection {
            fuel: l.fuel,
            memory_mb: l.memory_bytes >> 20,
            output_bytes: l.output_bytes,
            wall_time_ms: l.wall_time_ms,
        }
    }
}

impl LimitsSection {
    /// The sandbox limits these settings give.
    pub fn limits(&self) -> Limits {
        Limits {
            fuel: self.fuel,
            memory_bytes: self.memory_mb << 20,
            output_bytes: self.output_bytes,
            wall_time_ms: self.wall_time_ms,
        }
    }
}

/// A protocol's name, as `[protocol] name`, journals and output write it. Which names exist
/// is the protocol registry's business (`crate::protocol`), not the config's.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ProtocolName(String);

impl ProtocolName {
    /// A name as written (the registry says whether a protocol has it).
    pub fn new(name: impl Into<String>) -> ProtocolName {
        ProtocolName(name.into())
    }

    /// The name in config files, journals and output.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for ProtocolName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::str::FromStr for ProtocolName {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if is_name(s) {
            Ok(ProtocolName(s.to_string()))
        } else {
            Err(format!(
                "`{s}` is not a protocol name (lowercase letters, digits, `_`)"
            ))
        }
    }
}

/// A name as protocols and their settings are written: a lowercase letter, then lowercase
/// letters, digits and `_`.
fn is_name(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_lowercase())
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// One arm of a comparison: a protocol, with some keys of its own table set otherwise than the
/// projects set them (`dixit:max_calls=7`, `dixit:coders=5:testers=3`), so that one protocol
/// can be compared with itself under other settings. Its text is the arm's name in tables,
/// kept cells and reports; a plain protocol name is an arm with no settings.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Arm(String);

impl Arm {
    /// An arm as written (unchecked: [`str::parse`] checks a name given by a user).
    pub fn new(name: impl Into<String>) -> Arm {
        Arm(name.into())
    }

    /// The protocol this arm runs.
    pub fn protocol(&self) -> ProtocolName {
        ProtocolName::new(self.0.split(':').next().unwrap_or_default())
    }

    /// The keys it sets in the protocol's table, in order, each with its TOML value.
    pub fn settings(&self) -> Vec<(String, toml::Value)> {
        self.0
            .split(':')
            .skip(1)
            .filter_map(|kv| Arm::setting(kv).ok())
            .collect()
    }

    /// The name in tables and reports.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `KEY=VALUE`: a key as protocol tables name them and a TOML value (`7`, `true`,
    /// `"srank"`).
    fn setting(kv: &str) -> Result<(String, toml::Value), String> {
        let Some((key, value)) = kv.split_once('=') else {
            return Err(format!("`{kv}` is not KEY=VALUE"));
        };
        if !is_name(key) {
            return Err(format!(
                "`{key}` is not a setting's name (lowercase letters, digits, `_`)"
            ));
        }
        let mut table: toml::Table = format!("v = {value}")
            .parse()
            .map_err(|_| format!("`{value}` (of {key}) is not a TOML value: quote a string"))?;
        let v = table.remove("v").expect("parsed as v = …");
        if v.is_table() || v.is_array() {
            return Err(format!(
                "`{value}` (of {key}): only a number, boolean or string"
            ));
        }
        Ok((key.to_string(), v))
    }
}

impl From<ProtocolName> for Arm {
    fn from(p: ProtocolName) -> Arm {
        Arm(p.0)
    }
}

impl std::fmt::Display for Arm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::str::FromStr for Arm {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let mut parts = s.split(':');
        parts.next().unwrap_or_default().parse::<ProtocolName>()?;
        let mut seen = Vec::new();
        for kv in parts {
            let (key, _) = Arm::setting(kv)?;
            if seen.contains(&key) {
                return Err(format!("`{s}` sets {key} twice"));
            }
            seen.push(key);
        }
        Ok(Arm(s.to_string()))
    }
}

/// `[protocol]`: which protocol runs, and what every protocol shares.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ProtocolSection {
    /// The protocol that runs; unset: the registry's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<ProtocolName>,
    /// Runs per (solution, test) pair: a solution fails a test if any run fails.
    #[serde(default)]
    pub reruns: Reruns,
    /// Any other key: a protocol's settings as projects written before its own table had them
    /// (journals keep such configs). The protocol that claims them reads them; the registry
    /// refuses a key no protocol claims.
    #[serde(flatten)]
    pub other: BTreeMap<String, toml::Value>,
}

/// How many agents of each role a run has: the protocol's choice, from its table and the
/// per-agent tables (`[[coder]]`, ...).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TeamShape {
    /// How many coders.
    pub coders: usize,
    /// How many testers.
    pub testers: usize,
    /// How many reviewers.
    pub reviewers: usize,
}

impl TeamShape {
    /// How many agents of `role`.
    pub fn count(&self, role: Role) -> usize {
        match role {
            Role::Coder => self.coders,
            Role::Tester => self.testers,
            Role::Reviewer => self.reviewers,
        }
    }
}

/// `[policy]`: who answers a stop that asks for a person (`dixit run --policy` overrides it).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PolicySection {
    /// The policy that answers stops (`person` or `majority`).
    pub name: PolicyName,
}

/// A decision policy (see `engine/policy.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PolicyName {
    /// The run stops and waits for `dixit decide`.
    #[default]
    Person,
    /// The majority of the coders is right, on the evidence the stop shows; otherwise accept.
    Majority,
}

impl PolicyName {
    /// Whether a decision's maker, as the journal names it (`by`: "policy majority", "person
    /// ada"), is a policy rather than a person.
    pub fn is_decider(by: &str) -> bool {
        by.strip_prefix("policy ")
            .is_some_and(|n| n.parse::<PolicyName>().is_ok())
    }

    /// The policy's name, as written in `dixit.toml`.
    pub fn as_str(self) -> &'static str {
        match self {
            PolicyName::Person => "person",
            PolicyName::Majority => "majority",
        }
    }
}

impl std::fmt::Display for PolicyName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for PolicyName {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "person" => Ok(PolicyName::Person),
            "majority" => Ok(PolicyName::Majority),
            _ => Err(format!(
                "unknown policy `{s}` (expected person or majority)"
            )),
        }
    }
}

/// `[budget]`: caps checked before every agent call.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BudgetSection {
    /// Cap on the run's spend, in US dollars.
    pub max_usd: Option<f64>,
    /// Cap on the run's tokens.
    pub max_tokens: Option<u64>,
    /// Cap on each agent's spend, in US dollars.
    pub per_agent_usd: Option<f64>,
    /// Cap on each agent's tokens.
    pub per_agent_tokens: Option<u64>,
}

/// Settings of one agent; every field optional so that defaults, role tables and per-agent
/// tables can be layered.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentSettings {
    /// `script`, `openai`, `anthropic` or `command`.
    pub backend: Option<String>,
    /// The agent's name (default `coder-1`, `tester-1`, ...; set in a per-agent table).
    pub name: Option<String>,
    /// script: the script file (relative to the project).
    pub script: Option<PathBuf>,
    /// openai/anthropic: model name and endpoint.
    pub model: Option<String>,
    /// openai/anthropic: the API's base URL.
    pub base_url: Option<String>,
    /// The environment variable holding the API key.
    pub api_key_env: Option<String>,
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Nucleus sampling's `top_p`.
    pub top_p: Option<f64>,
    /// The sampling seed (default: derived from the run's seed and the agent's name); each call
    /// adds its call number.
    pub seed: Option<u64>,
    /// The most tokens a reply may have.
    pub max_tokens: Option<u32>,
    /// Seconds before a request (or a command turn) times out.
    pub timeout_s: Option<u64>,
    /// Attempts per call on 429/5xx/timeouts (default 4).
    pub retries: Option<u32>,
    /// Delay before the first retry in milliseconds (default 500); it doubles each retry, plus
    /// up to 50 % jitter; a `Retry-After` header takes precedence.
    pub retry_delay_ms: Option<u64>,
    /// A system-prompt variant: a template `system_<variant>.md` for the agent's role.
    pub prompt_variant: Option<String>,
    /// command: the command line (argv); `{prompt}` is replaced by the prompt, otherwise the
    /// prompt goes to stdin.
    pub command: Option<Vec<String>>,
    /// command: extra environment (values may use `{state}` for the agent's state directory).
    pub env: Option<BTreeMap<String, String>>,
    /// command: substrings of commands the agent may not run (checked by a host-side guard).
    pub forbidden_commands: Option<Vec<String>>,
}

impl AgentSettings {
    /// `self` with every unset field taken from `base`.
    pub fn over(&self, base: &AgentSettings) -> AgentSettings {
        macro_rules! pick {
            ($($f:ident),*) => { AgentSettings { $($f: self.$f.clone().or_else(|| base.$f.clone()),)* } };
        }
        pick!(
            backend,
            name,
            script,
            model,
            base_url,
            api_key_env,
            temperature,
            top_p,
            seed,
            max_tokens,
            timeout_s,
            retries,
            retry_delay_ms,
            prompt_variant,
            command,
            env,
            forbidden_commands
        )
    }
}

/// `[prices.<model>]`: USD per million tokens.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// USD per million prompt tokens.
    pub input: f64,
    /// USD per million completion tokens.
    pub output: f64,
}

/// The whole of `dixit.toml`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Config {
    /// `[project]`.
    pub project: ProjectSection,
    /// `[limits]`.
    #[serde(default)]
    pub limits: LimitsSection,
    /// `[protocol]`.
    #[serde(default)]
    pub protocol: ProtocolSection,
    /// `[budget]`.
    #[serde(default)]
    pub budget: BudgetSection,
    /// Who answers the run's stops for a person.
    #[serde(default)]
    pub policy: PolicySection,
    /// `[agents]`: defaults for every agent.
    #[serde(default)]
    pub agents: AgentSettings,
    /// Role defaults.
    #[serde(default)]
    pub coders: AgentSettings,
    /// `[testers]`: role defaults.
    #[serde(default)]
    pub testers: AgentSettings,
    /// `[reviewers]`: role defaults.
    #[serde(default)]
    pub reviewers: AgentSettings,
    /// Per-agent overrides, in order.
    #[serde(default)]
    pub coder: Vec<AgentSettings>,
    /// `[[tester]]`: per-agent overrides, in order.
    #[serde(default)]
    pub tester: Vec<AgentSettings>,
    /// `[[reviewer]]`: per-agent overrides, in order.
    #[serde(default)]
    pub reviewer: Vec<AgentSettings>,
    /// `[prices.<model>]`: prices by model.
    #[serde(default)]
    pub prices: BTreeMap<String, Price>,
    /// Every other table: a protocol's own (`[<name>]`), read and checked by that protocol
    /// ([`Config::section`]); the registry refuses a table no protocol has.
    #[serde(flatten)]
    pub tables: BTreeMap<String, toml::Value>,
    /// The text it was parsed from and its path, so later errors name the file and the line.
    #[serde(skip)]
    source: Source,
}

/// Where a config came from.
#[derive(Clone, Debug, Default)]
struct Source {
    text: String,
    path: PathBuf,
}

/// An agent's role. Which roles a run has, and how many of each, is the protocol's choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Writes code (in `debate` and `blind`, tests too).
    Coder,
    /// Writes tests.
    Tester,
    /// Reviews a first attempt (a protocol with reviewers).
    Reviewer,
}

impl Role {
    /// The role's name as written in config (`coder`, `tester`, `reviewer`).
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Coder => "coder",
            Role::Tester => "tester",
            Role::Reviewer => "reviewer",
        }
    }
}

/// One agent as configured: its name, role and layered settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentSpec {
    /// The agent's name (also the name of its folders).
    pub name: String,
    /// Its role.
    pub role: Role,
    /// Its settings, layered: per-agent over role over `[agents]`.
    pub settings: AgentSettings,
}

impl Config {
    /// Parses `text` (the contents of `path`) and checks what every protocol shares. Errors
    /// name the file, the key and, where the key is written in the file, its line. The
    /// protocol's own table and the team it implies are checked by the protocol
    /// (`crate::protocol::select`), agents by [`Config::agent_specs`].
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let mut config: Config = toml::from_str(text).map_err(|e| parse_error(path, &e))?;
        config.source = Source {
            text: text.to_string(),
            path: path.to_path_buf(),
        };
        config.validate()?;
        Ok(config)
    }

    /// A validation error naming this config's file, `key` and (when it is written there) its
    /// line.
    pub fn invalid(&self, key: &str, message: String) -> ConfigError {
        invalid(&self.source.text, &self.source.path, key, message)
    }

    /// This config with `key` (`table.key`, e.g. `dixit.max_rounds` or `budget.max_calls`) set
    /// to `value`: a limit a person raised at a stop (`dixit decide … raise`). The result is
    /// checked as any config is; a key no table reads is refused when its table is read.
    pub fn with_raised(&self, key: &str, value: i64) -> Result<Config, ConfigError> {
        let bad = |message: &str| self.invalid(key, message.to_string());
        let (table, name) = key
            .split_once('.')
            .filter(|(t, n)| !t.is_empty() && !n.is_empty() && !n.contains('.'))
            .ok_or_else(|| bad("a limit is named `table.key`, e.g. `dixit.max_rounds`"))?;
        let mut doc: toml::Table =
            toml::from_str(&self.source.text).map_err(|e| parse_error(&self.source.path, &e))?;
        // An older project keeps its protocol's settings in [protocol]: raise them there.
        let legacy = !doc.contains_key(table)
            && doc
                .get("protocol")
                .and_then(|p| p.as_table())
                .is_some_and(|p| p.contains_key(name));
        let t = doc
            .entry(if legacy { "protocol" } else { table })
            .or_insert_with(|| toml::Value::Table(toml::Table::new()))
            .as_table_mut()
            .ok_or_else(|| bad("is not a table"))?;
        t.insert(name.to_string(), toml::Value::Integer(value));
        let text = toml::to_string(&doc).map_err(|e| bad(&e.to_string()))?;
        let mut c = Config::parse(&text, &self.source.path)?;
        c.protocol.name = self.protocol.name.clone();
        Ok(c)
    }

    /// Whether the file has a `[name]` table.
    pub fn has_table(&self, name: &str) -> bool {
        text_has_table(&self.source.text, name)
    }

    /// Table `[name]` read as `T` (its defaults when the table is absent). Read from the file's
    /// text, so an unknown or mistyped key is reported with its line, as any other.
    pub fn section<T: serde::de::DeserializeOwned + Default>(
        &self,
        name: &str,
    ) -> Result<T, ConfigError> {
        if !self.tables.contains_key(name) {
            return Ok(T::default());
        }
        let seed = Pick::<T> {
            name,
            _t: std::marker::PhantomData,
        };
        serde::de::DeserializeSeed::deserialize(seed, toml::Deserializer::new(&self.source.text))
            .map(Option::unwrap_or_default)
            .map_err(|e| parse_error(&self.source.path, &e))
    }

    fn validate(&self) -> Result<(), ConfigError> {
        let bad = |key: &str, message: String| Err(self.invalid(key, message));
        if let Some(message) = self.interface_problem() {
            return bad("project.interface", message);
        }
        if self.limits.fuel == 0 || self.limits.memory_mb == 0 {
            return bad("limits", "fuel and memory_mb must be positive".into());
        }
        if self.limits.memory_mb > 1024 {
            return bad(
                "limits.memory_mb",
                format!(
                    "{} MiB is above the sandbox's 1024 MiB ceiling",
                    self.limits.memory_mb
                ),
            );
        }
        for (name, value) in &self.tables {
            if !value.is_table() {
                return bad(name, "not a key of dixit.toml".into());
            }
        }
        Ok(())
    }

    /// How many `[[role]]` tables the file lists (each adds an agent of that role).
    pub fn listed(&self, role: Role) -> usize {
        match role {
            Role::Coder => self.coder.len(),
            Role::Tester => self.tester.len(),
            Role::Reviewer => self.reviewer.len(),
        }
    }

    /// What is wrong with `[project] interface` for this language and test style, if anything.
    fn interface_problem(&self) -> Option<String> {
        let lang = self.project.language;
        let entries = self.project.interface.as_ref().map(InterfaceValue::entries);
        match (self.project.tests, lang, entries) {
            (TestStyle::Io, _, Some(_)) => Some(
                "I/O tests talk to a program through stdin and stdout; remove the interface".into(),
            ),
            (TestStyle::Unit, LanguageName::Python, Some(e)) if !e.is_empty() => {
                crate::sandbox::boundary::Interface::parse(&e)
                    .err()
                    .map(|e| e.to_string())
            }
            (TestStyle::Unit, LanguageName::C | LanguageName::Cpp, None) => Some(format!(
                "a {} project with unit tests states the header its tests compile against, \
                 e.g. interface = \"interface/solution.h\" (a file in the project; tests \
                 `#include \"solution.h\"`): a test never compiles against a coder's own header",
                lang.language().as_str()
            )),
            (TestStyle::Unit, LanguageName::Rust, None) => Some(
                "a rust project with unit tests states the functions tests may call of the \
                 solution crate, with their types, e.g. interface = [\"add: fn(i32, i32) -> \
                 i32\", \"parse: fn(&str) -> Option<i32>\"]: a test calls only these, never \
                 the rest of a coder's crate"
                    .into(),
            ),
            (_, _, Some(e)) if e.is_empty() => Some("is empty".into()),
            (TestStyle::Unit, LanguageName::C | LanguageName::Cpp, Some(e)) => {
                e.iter().find_map(|h| {
                    let p = Path::new(h);
                    let ext = p.extension().and_then(|x| x.to_str());
                    if p.is_absolute()
                        || p.components()
                            .any(|c| !matches!(c, std::path::Component::Normal(_)))
                    {
                        Some(format!(
                            "`{h}`: a path inside the project folder (relative, no `..`)"
                        ))
                    } else if !matches!(ext, Some("h" | "hh" | "hpp" | "hxx")) {
                        Some(format!("`{h}`: a header ends in .h, .hh, .hpp or .hxx"))
                    } else {
                        None
                    }
                })
            }
            (TestStyle::Unit, LanguageName::Rust, Some(e)) => {
                crate::toolchain::InterfaceItem::parse_all(&e)
                    .err()
                    .map(|e| e.to_string())
            }
            _ => None,
        }
    }

    /// The interface a project in `dir` with `spec` states (header paths made absolute under
    /// `dir`). A Python project with unit tests that states none has the functions its spec
    /// names ([`spec_functions`]).
    pub fn stated_interface(&self, dir: &Path, spec: &str) -> StatedInterface {
        let Some(entries) = self.project.interface.as_ref().map(InterfaceValue::entries) else {
            return match (self.project.language, self.project.tests) {
                (LanguageName::Python, TestStyle::Unit) => {
                    StatedInterface::Names(spec_functions(spec))
                }
                _ => StatedInterface::None,
            };
        };
        match self.project.language {
            LanguageName::C | LanguageName::Cpp => {
                StatedInterface::Headers(entries.iter().map(|h| dir.join(h)).collect())
            }
            LanguageName::Rust => StatedInterface::Items(entries),
            LanguageName::Python => StatedInterface::Names(entries),
        }
    }

    /// This config under another decision policy (`dixit run --policy`, `dixit compare
    /// --policy`).
    pub fn with_policy(&self, name: PolicyName) -> Config {
        let mut c = self.clone();
        c.policy.name = name;
        c
    }

    /// This config running another protocol (what `dixit run --protocol` and `dixit compare`
    /// do with one project).
    pub fn with_protocol(&self, name: ProtocolName) -> Config {
        let mut c = self.clone();
        c.protocol.name = Some(name);
        c
    }

    /// The solution language.
    pub fn language(&self) -> Language {
        self.project.language.language()
    }

    /// The kind of the tests testers write.
    pub fn test_kind(&self) -> TestKind {
        match (self.project.tests, self.project.language) {
            (TestStyle::Io, _) => TestKind::Io,
            (TestStyle::Unit, LanguageName::Python) => TestKind::Python,
            (TestStyle::Unit, LanguageName::C) => TestKind::C,
            (TestStyle::Unit, LanguageName::Cpp) => TestKind::Cpp,
            (TestStyle::Unit, LanguageName::Rust) => TestKind::Rust,
        }
    }

    /// Every agent of a run with `team`, coders first, with settings layered: per-agent over
    /// role over `[agents]`; checked (names usable as folder names and distinct, a backend
    /// with what it needs, prices for a USD cap).
    pub fn agent_specs(&self, team: &TeamShape) -> Result<Vec<AgentSpec>, ConfigError> {
        let mut out = Vec::new();
        for (role, role_defaults, list) in [
            (Role::Coder, &self.coders, &self.coder),
            (Role::Tester, &self.testers, &self.tester),
            (Role::Reviewer, &self.reviewers, &self.reviewer),
        ] {
            for i in 0..team.count(role) {
                let own = list.get(i).cloned().unwrap_or_default();
                let settings = own.over(&role_defaults.over(&self.agents));
                let name = own
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("{}-{}", role.as_str(), i + 1));
                out.push(AgentSpec {
                    name,
                    role,
                    settings,
                });
            }
        }
        self.check_agents(&out)?;
        Ok(out)
    }

    /// The key that sets `field` for agent `index` of `role`: its own `[[role]]` table, its
    /// role's table, or `[agents]` (settings layer in that order).
    fn where_set(
        &self,
        role: Role,
        index: usize,
        field: &str,
        set: impl Fn(&AgentSettings) -> bool,
    ) -> String {
        let (own, defaults) = match role {
            Role::Coder => (self.coder.get(index), &self.coders),
            Role::Tester => (self.tester.get(index), &self.testers),
            Role::Reviewer => (self.reviewer.get(index), &self.reviewers),
        };
        if own.is_some_and(&set) {
            format!("{}.{field}", role.as_str())
        } else if set(defaults) {
            format!("{}s.{field}", role.as_str())
        } else {
            format!("agents.{field}")
        }
    }

    fn check_agents(&self, specs: &[AgentSpec]) -> Result<(), ConfigError> {
        let bad = |key: &str, message: String| Err(self.invalid(key, message));
        // An agent's name is the name of its folders (`agents/<name>`, `implementations/<name>`),
        // so it must already be a file name that no other agent's name is.
        let mut names = std::collections::BTreeSet::new();
        for spec in specs {
            let key = format!("{}.name", spec.role.as_str());
            if crate::file_name::encode(&spec.name) != spec.name {
                return bad(
                    &key,
                    format!(
                        "`{}` cannot name a folder: use letters, digits, `-`, `_` and `.` (not first)",
                        spec.name
                    ),
                );
            }
            if !names.insert(spec.name.clone()) {
                return bad(&key, format!("two agents are named `{}`", spec.name));
            }
        }
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        for spec in specs {
            let index = seen.entry(spec.role.as_str()).or_default();
            let key = self.where_set(spec.role, *index, "backend", |s| s.backend.is_some());
            *index += 1;
            match spec.settings.backend.as_deref() {
                None => {
                    return bad(
                        &format!("agents.backend ({})", spec.name),
                        "no backend set".into(),
                    )
                }
                Some("script") if spec.settings.script.is_none() => {
                    return bad(
                        "agents.script",
                        format!(
                            "{}: the script backend needs `script = \"FILE\"`",
                            spec.name
                        ),
                    )
                }
                Some("command") if spec.settings.command.as_ref().is_none_or(|c| c.is_empty()) => {
                    return bad(
                        "agents.command",
                        format!("{}: the command backend needs `command = [...]`", spec.name),
                    )
                }
                Some("openai" | "anthropic") if spec.settings.model.is_none() => {
                    return bad(
                        "agents.model",
                        format!(
                            "{}: the {} backend needs `model`",
                            spec.name,
                            spec.settings.backend.clone().unwrap_or_default()
                        ),
                    )
                }
                Some("script" | "command" | "openai" | "anthropic") => {}
                Some(other) => {
                    return bad(
                        &key,
                        format!(
                        "unknown backend `{other}` (expected script, openai, anthropic or command)"
                    ),
                    )
                }
            }
            if (self.budget.max_usd.is_some() || self.budget.per_agent_usd.is_some())
                && matches!(
                    spec.settings.backend.as_deref(),
                    Some("openai" | "anthropic")
                )
            {
                let model = spec.settings.model.clone().unwrap_or_default();
                if !self.prices.contains_key(&model) {
                    return bad(
                        "budget.max_usd",
                        format!("a USD cap is set but [prices.\"{model}\"] is not: dixit never guesses prices"),
                    );
                }
            }
        }
        Ok(())
    }
}

/// Whether `text` has a `[name]` table header.
fn text_has_table(text: &str, name: &str) -> bool {
    text.lines().any(|l| l.trim() == format!("[{name}]"))
}

/// A TOML error of `path` (toml's message names the line and column).
fn parse_error(path: &Path, e: &toml::de::Error) -> ConfigError {
    ConfigError::Parse {
        path: path.to_path_buf(),
        message: e.to_string().trim_end().replace('\n', "\n  "),
    }
}

/// Deserializes one top-level table of a document by name, ignoring the others (so errors
/// inside it keep their place in the file).
struct Pick<'n, T> {
    name: &'n str,
    _t: std::marker::PhantomData<T>,
}

impl<'de, T: serde::Deserialize<'de>> serde::de::DeserializeSeed<'de> for Pick<'_, T> {
    type Value = Option<T>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Option<T>, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, T: serde::Deserialize<'de>> serde::de::Visitor<'de> for Pick<'_, T> {
    type Value = Option<T>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "a document with a table [{}]", self.name)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Option<T>, A::Error> {
        let mut out = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == self.name {
                out = Some(map.next_value::<T>()?);
            } else {
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(out)
    }
}

/// A validation error naming the file, the key and (when it is written there) its line.
fn invalid(text: &str, path: &Path, key: &str, message: String) -> ConfigError {
    ConfigError::Invalid {
        path: path.to_path_buf(),
        key: key.to_string(),
        line: key_line(text, key),
        message,
    }
}

fn line_note(line: Option<usize>) -> String {
    line.map(|n| format!(" (line {n})")).unwrap_or_default()
}

/// The line (1-based) where `table.leaf` is set: `leaf = ...` inside `[table]`.
fn key_line(text: &str, key: &str) -> Option<usize> {
    let (table, leaf) = key.rsplit_once('.').unwrap_or(("", key));
    let leaf = leaf.split_whitespace().next()?;
    let mut current = String::new();
    for (i, l) in text.lines().enumerate() {
        let t = l.trim();
        if let Some(h) = t.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
            current = h.trim_matches(['[', ']']).trim().to_string();
            continue;
        }
        let k = t.split('=').next().unwrap_or("").trim();
        if k == leaf && (table.is_empty() || current == table) {
            return Some(i + 1);
        }
    }
    None
}

/// A loaded project: its folder, config, spec and optional hidden tests.
#[derive(Clone, Debug)]
pub struct Project {
    /// The project's folder.
    pub dir: PathBuf,
    /// The parsed `dixit.toml`.
    pub config: Config,
    /// The original text of `dixit.toml` (journaled so a replay needs nothing else).
    pub config_text: String,
    /// The text of `spec.md`.
    pub spec: String,
    /// Files in `hidden/`, if any.
    pub hidden: Vec<PathBuf>,
}

impl Project {
    /// This project with protocol `p` instead of the one its config names (what `dixit run
    /// --protocol` and `dixit compare` run; the protocol checks it when selected).
    pub fn with_protocol(&self, p: ProtocolName) -> Project {
        let mut project = self.clone();
        project.config = self.config.with_protocol(p);
        project
    }

    /// This project with `settings` set in the `[table]` of its `dixit.toml` (a comparison's
    /// [`Arm`]): the text says so too, so the run's journal records what it ran with, comments
    /// and all else kept. An error names the key when the table is not a table or the result
    /// does not check.
    pub fn with_settings(
        &self,
        table: &str,
        settings: &[(String, toml::Value)],
    ) -> Result<Project, ConfigError> {
        if settings.is_empty() {
            return Ok(self.clone());
        }
        let path = self.dir.join("dixit.toml");
        let mut doc: toml_edit::DocumentMut =
            self.config_text
                .parse()
                .map_err(|e: toml_edit::TomlError| ConfigError::Invalid {
                    path: path.clone(),
                    key: table.into(),
                    line: None,
                    message: e.to_string(),
                })?;
        if !doc.contains_key(table) {
            doc[table] = toml_edit::table();
        }
        for (key, value) in settings {
            let Some(t) = doc[table].as_table_like_mut() else {
                return Err(ConfigError::Invalid {
                    path: path.clone(),
                    key: format!("{table}.{key}"),
                    line: None,
                    message: format!("`{table}` is not a table"),
                });
            };
            let v: toml_edit::Value = value
                .to_string()
                .parse()
                .expect("a TOML value prints as one");
            t.insert(key, toml_edit::Item::Value(v));
        }
        let mut project = self.clone();
        project.config_text = doc.to_string();
        let mut config = Config::parse(&project.config_text, &path)?;
        config.protocol.name = self.config.protocol.name.clone();
        config.policy.name = self.config.policy.name;
        project.config = config;
        Ok(project)
    }

    /// This project under decision policy `p` (`dixit run --policy`, `dixit compare --policy`):
    /// its `dixit.toml` text says so too (`[policy] name`), so the run's journal records the
    /// policy it ran under, comments and all else kept.
    pub fn with_policy(&self, p: PolicyName) -> Project {
        let mut project = self.clone();
        project.config = self.config.with_policy(p);
        if let Ok(mut doc) = self.config_text.parse::<toml_edit::DocumentMut>() {
            if !doc.contains_key("policy") {
                doc["policy"] = toml_edit::table();
            }
            doc["policy"]["name"] = toml_edit::value(p.as_str());
            project.config_text = doc.to_string();
        }
        project
    }

    /// The files of folder `rel` of the project (a given acceptance suite), sorted; none when
    /// it does not exist.
    pub fn files_in(&self, rel: &Path) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(self.dir.join(rel))
            .map(|rd| {
                rd.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.is_file())
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        files
    }

    /// Loads `dir/dixit.toml` and `dir/spec.md`.
    pub fn load(dir: &Path) -> Result<Project, ConfigError> {
        let config_path = dir.join("dixit.toml");
        let config_text =
            std::fs::read_to_string(&config_path).map_err(|source| ConfigError::Read {
                path: config_path.clone(),
                source,
            })?;
        let config = Config::parse(&config_text, &config_path)?;
        let spec_path = dir.join("spec.md");
        let spec = match std::fs::read_to_string(&spec_path) {
            Ok(s) => s,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(ConfigError::MissingSpec { path: spec_path })
            }
            Err(source) => {
                return Err(ConfigError::Read {
                    path: spec_path,
                    source,
                })
            }
        };
        if spec.trim().is_empty() {
            return Err(ConfigError::Invalid {
                path: spec_path,
                key: "spec".into(),
                line: None,
                message: "the spec is empty".into(),
            });
        }
        let stated = config.stated_interface(dir, &spec);
        if matches!(&stated, StatedInterface::Names(n) if n.is_empty()) {
            return Err(ConfigError::Invalid {
                path: config_path,
                key: "project.interface".into(),
                line: None,
                message: "the spec names no function a test may call (a `def NAME(` line or \
                          `NAME(...)` in inline code), so state the interface, e.g. interface = \
                          [\"to_roman\"]: a Python test sees only these names of a solution"
                    .into(),
            });
        }
        if let StatedInterface::Headers(headers) = stated {
            for h in headers {
                if !h.is_file() {
                    return Err(invalid(
                        &config_text,
                        &config_path,
                        "project.interface",
                        format!("{}: not a file in the project", h.display()),
                    ));
                }
            }
        }
        let mut hidden = Vec::new();
        if let Ok(rd) = std::fs::read_dir(dir.join("hidden")) {
            for e in rd.flatten() {
                if e.path().is_file() {
                    hidden.push(e.path());
                }
            }
        }
        hidden.sort();
        Ok(Project {
            dir: dir.to_path_buf(),
            config,
            config_text,
            spec,
            hidden,
        })
    }
}

/// The functions a Python spec names, in order: each `NAME` of a `def NAME(` line at the start
/// of a line, and of inline code that begins `NAME(` (`` `to_roman(n)` ``), leaving out names
/// that start with `_`, Python's keywords and its built-in functions. This is the interface of a
/// Python project that states none.
pub fn spec_functions(spec: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |name: &str| {
        if crate::sandbox::boundary::is_public_name(name)
            && !PYTHON_BUILTINS.contains(&name)
            && !out.iter().any(|n| n == name)
        {
            out.push(name.to_string());
        }
    };
    let name_at = |s: &str| -> Option<String> {
        let n: String = s
            .chars()
            .take_while(|c| *c == '_' || c.is_ascii_alphanumeric())
            .collect();
        (!n.is_empty() && s[n.len()..].starts_with('(')).then_some(n)
    };
    for line in spec.lines() {
        if let Some(rest) = line.strip_prefix("def ") {
            if let Some(n) = name_at(rest.trim_start()) {
                add(&n);
            }
        }
        let mut parts = line.split('`');
        parts.next();
        // Inside inline code: every other part, starting with the first after a backtick.
        for (i, part) in parts.enumerate() {
            if i % 2 == 0 {
                if let Some(n) = name_at(part) {
                    add(&n);
                }
            }
        }
    }
    out
}

/// Python's built-in functions and types, which a spec names without meaning a solution's.
const PYTHON_BUILTINS: &[&str] = &[
    "abs",
    "aiter",
    "all",
    "anext",
    "any",
    "ascii",
    "bin",
    "bool",
    "breakpoint",
    "bytearray",
    "bytes",
    "callable",
    "chr",
    "classmethod",
    "compile",
    "complex",
    "delattr",
    "dict",
    "dir",
    "divmod",
    "enumerate",
    "eval",
    "exec",
    "filter",
    "float",
    "format",
    "frozenset",
    "getattr",
    "globals",
    "hasattr",
    "hash",
    "help",
    "hex",
    "id",
    "input",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "list",
    "locals",
    "map",
    "max",
    "memoryview",
    "min",
    "next",
    "object",
    "oct",
    "open",
    "ord",
    "pow",
    "print",
    "property",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "setattr",
    "slice",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "super",
    "tuple",
    "type",
    "vars",
    "zip",
];

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: &str =
        "[project]\nlanguage = \"python\"\n[agents]\nbackend = \"script\"\nscript = \"s.toml\"\n";

    /// Three coders and two testers, as a protocol might ask.
    const TEAM: TeamShape = TeamShape {
        coders: 3,
        testers: 2,
        reviewers: 0,
    };

    #[test]
    fn an_arm_is_a_protocol_and_the_keys_it_sets() {
        let a: Arm = "dixit:max_calls=7:ship=\"srank\"".parse().unwrap();
        assert_eq!(a.protocol(), ProtocolName::new("dixit"));
        assert_eq!(
            a.settings(),
            [
                ("max_calls".to_string(), toml::Value::Integer(7)),
                ("ship".to_string(), toml::Value::String("srank".into())),
            ]
        );
        let plain: Arm = "codet".parse().unwrap();
        assert_eq!(plain, Arm::from(ProtocolName::new("codet")));
        assert!(plain.settings().is_empty());
        for (bad, says) in [
            ("Dixit", "not a protocol name"),
            ("dixit:max_calls", "not KEY=VALUE"),
            ("dixit:Max=1", "not a setting's name"),
            ("dixit:ship=srank", "quote a string"),
            ("dixit:coders=[1]", "only a number"),
            ("dixit:coders=1:coders=2", "sets coders twice"),
        ] {
            let e = bad.parse::<Arm>().unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn minimal_config_gets_defaults() {
        let c = Config::parse(MIN, Path::new("dixit.toml")).unwrap();
        assert_eq!(c.test_kind(), TestKind::Python);
        assert_eq!(c.protocol.name, None);
        let specs = c.agent_specs(&TEAM).unwrap();
        assert_eq!(specs.len(), 5);
        assert_eq!(specs[0].name, "coder-1");
        assert_eq!(specs[4].name, "tester-2");
    }

    #[test]
    fn unknown_key_names_key_and_file() {
        let e = Config::parse(
            &format!("{MIN}[limits]\nfeul = 4\n"),
            Path::new("p/dixit.toml"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("p/dixit.toml:"), "{e}");
        assert!(e.contains("feul"), "{e}");
    }

    /// A protocol reads its own table through `section`; an unknown key there is reported with
    /// the file and the line, as anywhere else.
    #[test]
    fn a_section_is_read_from_the_text() {
        #[derive(Debug, Default, serde::Deserialize)]
        #[serde(deny_unknown_fields, default)]
        struct Table {
            rounds: u32,
        }
        let c = Config::parse(
            &format!("{MIN}[mine]\nrounds = 4\n"),
            Path::new("dixit.toml"),
        )
        .unwrap();
        assert_eq!(c.section::<Table>("mine").unwrap().rounds, 4);
        assert_eq!(c.section::<Table>("absent").unwrap().rounds, 0);
        let c = Config::parse(
            &format!("{MIN}[mine]\nrondz = 4\n"),
            Path::new("p/dixit.toml"),
        )
        .unwrap();
        let e = c.section::<Table>("mine").unwrap_err().to_string();
        assert!(
            e.starts_with("p/dixit.toml:") && e.contains("rondz") && e.contains("line 7"),
            "{e}"
        );
    }

    #[test]
    fn per_agent_overrides_layer() {
        let c = Config::parse(
            &format!(
                "{MIN}[coders]\ntemperature = 0.5\n[[coder]]\nname = \"ada\"\ntemperature = 0.1\n"
            ),
            Path::new("dixit.toml"),
        )
        .unwrap();
        let s = c.agent_specs(&TEAM).unwrap();
        assert_eq!(s[0].name, "ada");
        assert_eq!(s[0].settings.temperature, Some(0.1));
        assert_eq!(s[1].settings.temperature, Some(0.5));
        assert_eq!(s[1].settings.backend.as_deref(), Some("script"));
    }

    /// Agent names become folder names, so each must be a file name of its own.
    #[test]
    fn agent_names_are_distinct_file_names() {
        let specs = |text: String| {
            Config::parse(&text, Path::new("dixit.toml"))
                .unwrap()
                .agent_specs(&TEAM)
        };
        for name in ["a/b", "..", ".hidden", "", "a%b", "é"] {
            let e = specs(format!("{MIN}[[coder]]\nname = {name:?}\n"))
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("coder.name") && e.contains("cannot name a folder"),
                "{e}"
            );
        }
        let e = specs(format!(
            "{MIN}[[coder]]\nname = \"x\"\n[[coder]]\nname = \"x\"\n"
        ))
        .unwrap_err();
        assert!(e.to_string().contains("two agents are named `x`"), "{e}");
        specs(format!("{MIN}[[coder]]\nname = \"gpt-4.1_a\"\n")).unwrap();
    }

    #[test]
    fn bad_values_name_the_key() {
        let e = Config::parse(
            &format!("{MIN}[protocol]\nminority = 0.7\nreruns = 0\n"),
            Path::new("dixit.toml"),
        );
        assert!(e.unwrap_err().to_string().contains("reruns"));
        let e = Config::parse("[project]\nlanguage = \"cobol\"\n", Path::new("dixit.toml"))
            .unwrap_err();
        assert!(e.to_string().contains("cobol"), "{e}");
    }

    /// A C, C++ or Rust project states the interface tests compile against; errors name the
    /// file, the key and its line.
    #[test]
    fn compiled_projects_state_their_interface() {
        let project = |lang: &str, interface: &str| {
            format!(
                "[project]\nlanguage = \"{lang}\"\n{interface}\n[agents]\nbackend = \"script\"\nscript = \"s.toml\"\n"
            )
        };
        let err = |text: String| {
            Config::parse(&text, Path::new("p/dixit.toml"))
                .unwrap_err()
                .to_string()
        };
        let e = err(project("c", ""));
        assert!(e.starts_with("p/dixit.toml: `project.interface`"), "{e}");
        assert!(e.contains("interface/solution.h"), "{e}");
        let e = err(project("rust", ""));
        assert!(
            e.contains("`project.interface`") && e.contains("parse: fn(&str)"),
            "{e}"
        );
        let e = err(project("cpp", "interface = \"../outside.h\""));
        assert!(
            e.contains("(line 3)") && e.contains("relative, no `..`"),
            "{e}"
        );
        let e = err(project("c", "interface = \"interface/solution.c\""));
        assert!(e.contains("a header ends in .h"), "{e}");
        let e = err(project("rust", "interface = [\"add: i32; fn x() {}\"]"));
        assert!(
            e.contains("`project.interface`") && e.contains("add"),
            "{e}"
        );
        let e = err(project("python", "interface = [\"_add\"]"));
        assert!(e.contains("`_add`: not a public Python name"), "{e}");
        let e = err(project("rust", "interface = []"));
        assert!(e.contains("is empty"), "{e}");
        let c = Config::parse(
            &project("c", "interface = \"interface/solution.h\""),
            Path::new("dixit.toml"),
        )
        .unwrap();
        assert_eq!(
            c.stated_interface(Path::new("/p"), ""),
            StatedInterface::Headers(vec![PathBuf::from("/p/interface/solution.h")])
        );
        let c = Config::parse(
            &project(
                "rust",
                "interface = [\"add: fn(i32, i32) -> i32\", \"len: fn(&[u8]) -> usize\"]",
            ),
            Path::new("dixit.toml"),
        )
        .unwrap();
        assert_eq!(
            c.stated_interface(Path::new("/p"), ""),
            StatedInterface::Items(vec![
                "add: fn(i32, i32) -> i32".into(),
                "len: fn(&[u8]) -> usize".into()
            ])
        );
    }

    /// A Python project that states no interface has the functions its spec names; one whose
    /// spec names none is told to state it.
    #[test]
    fn a_python_interface_comes_from_the_spec_when_not_stated() {
        assert_eq!(
            spec_functions(
                "Write a function `to_roman(n)`; `to_roman(1994)` is `\"MCMXCIV\"`. Use \
                 `len(s)` and `_helper(x)`.\n```python\ndef check(x):\n    def inner(y):\n```\n"
            ),
            ["to_roman", "check"]
        );
        let c = Config::parse(MIN, Path::new("dixit.toml")).unwrap();
        assert_eq!(
            c.stated_interface(Path::new("/p"), "Write `f(x)`."),
            StatedInterface::Names(vec!["f".into()])
        );
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("dixit.toml"), MIN).unwrap();
        std::fs::write(dir.path().join("spec.md"), "Write a function.\n").unwrap();
        let e = Project::load(dir.path()).err().unwrap().to_string();
        assert!(
            e.contains("`project.interface`") && e.contains("the spec names no function"),
            "{e}"
        );
    }

    /// An interface header the project does not have is an error naming the file, the key and
    /// its line.
    #[test]
    fn a_missing_interface_header_names_the_key() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("spec.md"), "Write answer().\n").unwrap();
        std::fs::write(
            dir.path().join("dixit.toml"),
            "[project]\nlanguage = \"c\"\ninterface = \"interface/solution.h\"\n[agents]\nbackend = \"script\"\nscript = \"s.toml\"\n",
        )
        .unwrap();
        let e = Project::load(dir.path()).unwrap_err().to_string();
        assert!(
            e.contains("dixit.toml: `project.interface` (line 3)"),
            "{e}"
        );
        assert!(e.contains("interface/solution.h: not a file"), "{e}");
        std::fs::create_dir(dir.path().join("interface")).unwrap();
        std::fs::write(
            dir.path().join("interface/solution.h"),
            "int answer(void);\n",
        )
        .unwrap();
        assert!(Project::load(dir.path()).is_ok());
    }

    /// An unknown backend is named where it is set: `[agents]`, a role's table or an agent's.
    #[test]
    fn an_unknown_backend_names_the_table_that_sets_it() {
        let err = |text: String| {
            Config::parse(&text, Path::new("p/dixit.toml"))
                .unwrap()
                .agent_specs(&TEAM)
                .unwrap_err()
                .to_string()
        };
        let e = err(MIN.replace("\"script\"\nscript", "\"telepathy\"\nscript"));
        assert!(
            e.contains("`agents.backend` (line 4): unknown backend `telepathy`"),
            "{e}"
        );
        let e = err(format!("{MIN}[testers]\nbackend = \"telepathy\"\n"));
        assert!(e.contains("`testers.backend` (line 7)"), "{e}");
        let e = err(format!(
            "{MIN}[[coder]]\n[[coder]]\nbackend = \"telepathy\"\n"
        ));
        assert!(e.contains("`coder.backend`"), "{e}");
    }

    #[test]
    fn usd_cap_needs_prices() {
        let text = "[project]\nlanguage = \"python\"\n[budget]\nmax_usd = 1.0\n[agents]\nbackend = \"openai\"\nmodel = \"m\"\n";
        let specs = |text: &str| {
            Config::parse(text, Path::new("dixit.toml"))
                .unwrap()
                .agent_specs(&TEAM)
        };
        let e = specs(text).unwrap_err();
        assert!(e.to_string().contains("prices"), "{e}");
        specs(&format!("{text}[prices.m]\ninput = 1.0\noutput = 2.0\n")).unwrap();
    }
}
