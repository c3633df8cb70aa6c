//! A project: a folder with `spec.md` and `dixit.toml`, optionally `hidden/` (tests no agent
//! ever sees), `tests/` (an acceptance suite the `repair` protocol shows its coders) and
//! `prompts/` (overrides of the prompt templates).
//!
//! ```toml
//! [project]
//! language = "python"      # what coders write: python | c | cpp | rust
//! tests = "unit"           # unit: test files call the solution | io: stdin/stdout cases
//! # interface = "interface/solution.h"   # c, cpp: the header(s) tests compile against
//! # interface = ["add: fn(i32, i32) -> i32", "Stack"]   # rust: what tests may use
//! seed = 1                 # base seed of sandbox runs and agent sampling
//!
//! [limits]                 # per sandbox run
//! fuel = 4000000000
//! memory_mb = 256
//!
//! [protocol]
//! name = "dixit"           # dixit | debate | repair | blind
//! reruns = "auto"          # runs per (solution, test) pair: a number, or auto
//!
//! [dixit]                  # each protocol's own table (older projects put these in [protocol])
//! coders = 3
//! testers = 2
//! minority = 0.4
//! max_tester_retries = 2
//! max_coder_retries = 3
//! max_rounds = 8
//!
//! [debate]
//! coders = 3
//! max_epochs = 4
//! early_stop = 2
//!
//! [repair]
//! coders = 1
//! max_attempts = 5
//! review = true            # a `reviewer` agent reviews each first attempt
//!
//! [blind]
//! coders = 1
//! max_self_attempts = 5
//! max_blind_attempts = 2
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

use crate::classify::{Reruns, DEFAULT_MINORITY};
use crate::sandbox::Limits;
use crate::toolchain::{Language, StatedInterface, TestKind};

/// Why a project could not be loaded. Every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: cannot read: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("{path}: `{key}`{}: {message}", line_note(*.line))]
    Invalid {
        path: PathBuf,
        key: String,
        /// Where the key is set, when it is written in the file.
        line: Option<usize>,
        message: String,
    },
    #[error("{path}: missing (a project needs spec.md beside dixit.toml)")]
    MissingSpec { path: PathBuf },
}

/// `[project]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectSection {
    #[serde(default)]
    pub name: Option<String>,
    pub language: LanguageName,
    #[serde(default)]
    pub tests: TestStyle,
    #[serde(default = "one")]
    pub seed: u64,
    /// What a C, C++ or Rust unit test may use of a solution: header files the project
    /// provides (C/C++; tests include them by file name), or the Rust items of the solution
    /// crate (`NAME` or `NAME: TYPE`). Tests compile against this, never a coder's files.
    #[serde(default)]
    pub interface: Option<InterfaceValue>,
}

/// `[project] interface`: one entry or a list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum InterfaceValue {
    One(String),
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
    Python,
    C,
    Cpp,
    Rust,
}

impl LanguageName {
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
    pub fuel: u64,
    pub memory_mb: u64,
    pub output_bytes: u64,
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
    pub fn limits(&self) -> Limits {
        Limits {
            fuel: self.fuel,
            memory_bytes: self.memory_mb << 20,
            output_bytes: self.output_bytes,
            wall_time_ms: self.wall_time_ms,
        }
    }
}

/// The protocols dixit runs (each is a folder under `protocol/`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum ProtocolName {
    /// Coders and testers; a test joins the suite only if it is IDEAL.
    #[default]
    Dixit,
    /// Coders write tests against each other's code; refinements that pass as many tests stay.
    Debate,
    /// Coders against a given acceptance suite, with a high-water mark and a first review.
    Repair,
    /// A coder writes its own tests, then the hidden suite answers pass or fail only.
    Blind,
}

impl ProtocolName {
    /// Every protocol, in a fixed order.
    pub const ALL: [ProtocolName; 4] = [
        ProtocolName::Dixit,
        ProtocolName::Debate,
        ProtocolName::Repair,
        ProtocolName::Blind,
    ];

    /// The name in config files, journals and output.
    pub fn as_str(self) -> &'static str {
        match self {
            ProtocolName::Dixit => "dixit",
            ProtocolName::Debate => "debate",
            ProtocolName::Repair => "repair",
            ProtocolName::Blind => "blind",
        }
    }
}

impl std::fmt::Display for ProtocolName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for ProtocolName {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        ProtocolName::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| {
                format!("unknown protocol `{s}` (expected dixit, debate, repair or blind)")
            })
    }
}

/// `[protocol]`: which protocol runs, and what every protocol shares.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ProtocolSection {
    pub name: ProtocolName,
    /// Runs per (solution, test) pair: a solution fails a test if any run fails.
    pub reruns: Reruns,
    // The `dixit` protocol's settings as projects written before `[dixit]` existed had them
    // (journals keep such configs: they must still parse). Merged into `Config::dixit`.
    #[serde(skip_serializing_if = "Option::is_none")]
    coders: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    testers: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    minority: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tester_retries: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_coder_retries: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_rounds: Option<u32>,
}

impl Default for ProtocolSection {
    fn default() -> Self {
        ProtocolSection {
            name: ProtocolName::Dixit,
            reruns: Reruns::default(),
            coders: None,
            testers: None,
            minority: None,
            max_tester_retries: None,
            max_coder_retries: None,
            max_rounds: None,
        }
    }
}

impl ProtocolSection {
    /// The legacy dixit keys that are set, for the "set them in one place" error.
    fn legacy_keys(&self) -> Vec<&'static str> {
        [
            (self.coders.is_some(), "coders"),
            (self.testers.is_some(), "testers"),
            (self.minority.is_some(), "minority"),
            (self.max_tester_retries.is_some(), "max_tester_retries"),
            (self.max_coder_retries.is_some(), "max_coder_retries"),
            (self.max_rounds.is_some(), "max_rounds"),
        ]
        .into_iter()
        .filter_map(|(set, k)| set.then_some(k))
        .collect()
    }
}

/// `[dixit]`: the Dixit loop (`shared/seeds/dixit-orchestrator.txt`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DixitSection {
    pub coders: usize,
    pub testers: usize,
    /// More than this share of failing coders makes a test TOO_HARD.
    pub minority: f64,
    pub max_tester_retries: u32,
    pub max_coder_retries: u32,
    pub max_rounds: u32,
}

impl Default for DixitSection {
    fn default() -> Self {
        DixitSection {
            coders: 3,
            testers: 2,
            minority: DEFAULT_MINORITY,
            max_tester_retries: 2,
            max_coder_retries: 3,
            max_rounds: 8,
        }
    }
}

/// `[debate]`: DebateCoder (`shared/seeds/debatecoder.md`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DebateSection {
    pub coders: usize,
    /// Epochs at most (the paper converges within 3–5).
    pub max_epochs: u32,
    /// Stop after this many epochs in a row without a coder improving.
    pub early_stop: u32,
}

impl Default for DebateSection {
    fn default() -> Self {
        DebateSection {
            coders: 3,
            max_epochs: 4,
            early_stop: 2,
        }
    }
}

/// `[repair]`: the BestTracker repair loop (`shared/seeds/test-driven-termination.txt`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RepairSection {
    pub coders: usize,
    /// Attempts per coder: the first one and its fixes.
    pub max_attempts: u32,
    /// Whether a `reviewer` agent reviews each first attempt ("CLEAN" or findings → a rewrite).
    pub review: bool,
    /// The acceptance suite, relative to the project (shown to the coders, read-only).
    pub tests: PathBuf,
}

impl Default for RepairSection {
    fn default() -> Self {
        RepairSection {
            coders: 1,
            max_attempts: 5,
            review: true,
            tests: PathBuf::from("tests"),
        }
    }
}

/// `[blind]`: blind verification (`shared/seeds/blind-verification.md`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BlindSection {
    pub coders: usize,
    /// Implementation attempts against the coder's own tests (full feedback).
    pub max_self_attempts: u32,
    /// Runs of the hidden suite (each answers pass or fail only); after a failure the coder
    /// re-reads the spec, adds tests and tries again.
    pub max_blind_attempts: u32,
}

impl Default for BlindSection {
    fn default() -> Self {
        BlindSection {
            coders: 1,
            max_self_attempts: 5,
            max_blind_attempts: 2,
        }
    }
}

/// `[budget]`: caps checked before every agent call.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BudgetSection {
    pub max_usd: Option<f64>,
    pub max_tokens: Option<u64>,
    pub per_agent_usd: Option<f64>,
    pub per_agent_tokens: Option<u64>,
}

/// Settings of one agent; every field optional so that defaults, role tables and per-agent
/// tables can be layered.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentSettings {
    /// `script`, `openai`, `anthropic` or `command`.
    pub backend: Option<String>,
    pub name: Option<String>,
    /// script: the script file (relative to the project).
    pub script: Option<PathBuf>,
    /// openai/anthropic: model name and endpoint.
    pub model: Option<String>,
    pub base_url: Option<String>,
    /// The environment variable holding the API key.
    pub api_key_env: Option<String>,
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    pub seed: Option<u64>,
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
    pub input: f64,
    pub output: f64,
}

/// The whole of `dixit.toml`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub project: ProjectSection,
    #[serde(default)]
    pub limits: LimitsSection,
    #[serde(default)]
    pub protocol: ProtocolSection,
    #[serde(default)]
    pub dixit: DixitSection,
    #[serde(default)]
    pub debate: DebateSection,
    #[serde(default)]
    pub repair: RepairSection,
    #[serde(default)]
    pub blind: BlindSection,
    #[serde(default)]
    pub budget: BudgetSection,
    #[serde(default)]
    pub agents: AgentSettings,
    /// Role defaults.
    #[serde(default)]
    pub coders: AgentSettings,
    #[serde(default)]
    pub testers: AgentSettings,
    #[serde(default)]
    pub reviewers: AgentSettings,
    /// Per-agent overrides, in order.
    #[serde(default)]
    pub coder: Vec<AgentSettings>,
    #[serde(default)]
    pub tester: Vec<AgentSettings>,
    #[serde(default)]
    pub reviewer: Vec<AgentSettings>,
    #[serde(default)]
    pub prices: BTreeMap<String, Price>,
}

/// An agent's role. Which roles a run has, and how many of each, is the protocol's choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Writes code (in `debate` and `blind`, tests too).
    Coder,
    /// Writes tests (`dixit`).
    Tester,
    /// Reviews a first attempt (`repair`).
    Reviewer,
}

impl Role {
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
    pub name: String,
    pub role: Role,
    pub settings: AgentSettings,
}

impl Config {
    /// Parses `text` (the contents of `path`) and validates it. Errors name the file, the key
    /// and, where the key is written in the file, its line.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let mut config: Config = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: path.to_path_buf(),
            message: e.to_string().trim_end().replace('\n', "\n  "),
        })?;
        config.merge_legacy(text, path)?;
        config.validate(text, path)?;
        Ok(config)
    }

    /// Moves dixit's settings written in `[protocol]` (projects and journals from before
    /// `[dixit]`) into `[dixit]`; both at once is an error.
    fn merge_legacy(&mut self, text: &str, path: &Path) -> Result<(), ConfigError> {
        let legacy = self.protocol.legacy_keys();
        if legacy.is_empty() {
            return Ok(());
        }
        if text_has_table(text, "dixit") {
            let key = format!("protocol.{}", legacy[0]);
            return Err(invalid(
                text,
                path,
                &key,
                "dixit's settings are in [dixit]; remove them from [protocol]".into(),
            ));
        }
        let p = &self.protocol;
        let d = &mut self.dixit;
        d.coders = p.coders.unwrap_or(d.coders);
        d.testers = p.testers.unwrap_or(d.testers);
        d.minority = p.minority.unwrap_or(d.minority);
        d.max_tester_retries = p.max_tester_retries.unwrap_or(d.max_tester_retries);
        d.max_coder_retries = p.max_coder_retries.unwrap_or(d.max_coder_retries);
        d.max_rounds = p.max_rounds.unwrap_or(d.max_rounds);
        Ok(())
    }

    fn validate(&self, text: &str, path: &Path) -> Result<(), ConfigError> {
        let bad = |key: &str, message: String| Err(invalid(text, path, key, message));
        if !crate::protocol::IMPLEMENTED.contains(&self.protocol.name) {
            return bad(
                "protocol.name",
                format!(
                    "the `{}` protocol is not in this version yet",
                    self.protocol.name
                ),
            );
        }
        // dixit's keys may sit in [protocol] (older projects) or in [dixit].
        let dixit_key = |k: &str| {
            if self.protocol.legacy_keys().is_empty() {
                format!("dixit.{k}")
            } else {
                format!("protocol.{k}")
            }
        };
        match self.protocol.name {
            ProtocolName::Dixit => {
                let d = &self.dixit;
                if !(0.0..1.0).contains(&d.minority) || d.minority <= 0.0 {
                    return bad(
                        &dixit_key("minority"),
                        format!("{} is not a share strictly between 0 and 1", d.minority),
                    );
                }
                if self.role_count(Role::Tester) < 1 {
                    return bad(
                        &dixit_key("testers"),
                        "at least one tester is needed".into(),
                    );
                }
                if d.max_rounds == 0 {
                    return bad(&dixit_key("max_rounds"), "must be at least 1".into());
                }
            }
            ProtocolName::Debate => {
                if self.role_count(Role::Coder) < 2 {
                    return bad("debate.coders", "a debate needs at least two coders".into());
                }
                if self.debate.max_epochs == 0 {
                    return bad("debate.max_epochs", "must be at least 1".into());
                }
            }
            ProtocolName::Repair => {
                if self.repair.max_attempts == 0 {
                    return bad("repair.max_attempts", "must be at least 1".into());
                }
            }
            ProtocolName::Blind => {
                if self.blind.max_self_attempts == 0 || self.blind.max_blind_attempts == 0 {
                    return bad(
                        "blind.max_self_attempts",
                        "attempts must be at least 1".into(),
                    );
                }
            }
        }
        if self.role_count(Role::Coder) < 1 {
            let key = match self.protocol.name {
                ProtocolName::Dixit => dixit_key("coders"),
                other => format!("{other}.coders"),
            };
            return bad(&key, "at least one coder is needed".into());
        }
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
        // An agent's name is the name of its folders (`agents/<name>`, `implementations/<name>`),
        // so it must already be a file name that no other agent's name is.
        let mut names = std::collections::BTreeSet::new();
        for spec in self.agent_specs() {
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
        for spec in self.agent_specs() {
            let key = format!("{}s", spec.role.as_str());
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
                        &format!("{key}.backend"),
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

    /// What is wrong with `[project] interface` for this language and test style, if anything.
    fn interface_problem(&self) -> Option<String> {
        let lang = self.project.language;
        let entries = self.project.interface.as_ref().map(InterfaceValue::entries);
        match (self.project.tests, lang, entries) {
            (TestStyle::Io, _, Some(_)) => Some(
                "I/O tests talk to a program through stdin and stdout; remove the interface".into(),
            ),
            (TestStyle::Unit, LanguageName::Python, Some(_)) => Some(
                "is read for c, cpp and rust projects only (a Python test imports the solution)"
                    .into(),
            ),
            (TestStyle::Unit, LanguageName::C | LanguageName::Cpp, None) => Some(format!(
                "a {} project with unit tests states the header its tests compile against, \
                 e.g. interface = \"interface/solution.h\" (a file in the project; tests \
                 `#include \"solution.h\"`): a test never compiles against a coder's own header",
                lang.language().as_str()
            )),
            (TestStyle::Unit, LanguageName::Rust, None) => Some(
                "a rust project with unit tests states the items tests may use of the solution \
                 crate, e.g. interface = [\"add: fn(i32, i32) -> i32\", \"Stack\"]: a test \
                 sees only these, never the rest of a coder's crate"
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
            (TestStyle::Unit, LanguageName::Rust, Some(e)) => e
                .iter()
                .find_map(|i| crate::toolchain::InterfaceItem::parse(i).err())
                .map(|e| e.to_string()),
            _ => None,
        }
    }

    /// The interface a project in `dir` states (header paths made absolute under `dir`).
    pub fn stated_interface(&self, dir: &Path) -> StatedInterface {
        let Some(entries) = self.project.interface.as_ref().map(InterfaceValue::entries) else {
            return StatedInterface::None;
        };
        match self.project.language {
            LanguageName::C | LanguageName::Cpp => {
                StatedInterface::Headers(entries.iter().map(|h| dir.join(h)).collect())
            }
            LanguageName::Rust => StatedInterface::Items(entries),
            LanguageName::Python => StatedInterface::None,
        }
    }

    /// This config running another protocol (what `dixit compare` does with one project).
    pub fn with_protocol(&self, name: ProtocolName) -> Config {
        let mut c = self.clone();
        c.protocol.name = name;
        c
    }

    /// The protocol that runs.
    pub fn protocol_name(&self) -> ProtocolName {
        self.protocol.name
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

    /// How many agents of `role` the protocol that runs has (a per-agent table adds one).
    pub fn role_count(&self, role: Role) -> usize {
        let (configured, listed) = match (self.protocol.name, role) {
            (ProtocolName::Dixit, Role::Coder) => (self.dixit.coders, self.coder.len()),
            (ProtocolName::Dixit, Role::Tester) => (self.dixit.testers, self.tester.len()),
            (ProtocolName::Debate, Role::Coder) => (self.debate.coders, self.coder.len()),
            (ProtocolName::Repair, Role::Coder) => (self.repair.coders, self.coder.len()),
            // One reviewer per coder: coders work concurrently, each with its own reviewer.
            (ProtocolName::Repair, Role::Reviewer) if self.repair.review => (
                self.repair.coders.max(self.coder.len()),
                self.reviewer.len(),
            ),
            (ProtocolName::Blind, Role::Coder) => (self.blind.coders, self.coder.len()),
            _ => (0, 0),
        };
        configured.max(listed)
    }

    /// Every agent of the protocol that runs, coders first, with settings layered: per-agent over
    /// role over `[agents]`.
    pub fn agent_specs(&self) -> Vec<AgentSpec> {
        let mut out = Vec::new();
        for (role, role_defaults, list) in [
            (Role::Coder, &self.coders, &self.coder),
            (Role::Tester, &self.testers, &self.tester),
            (Role::Reviewer, &self.reviewers, &self.reviewer),
        ] {
            for i in 0..self.role_count(role) {
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
        out
    }
}

/// Whether `text` has a `[name]` table header.
fn text_has_table(text: &str, name: &str) -> bool {
    text.lines().any(|l| l.trim() == format!("[{name}]"))
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
    pub dir: PathBuf,
    pub config: Config,
    /// The original text of `dixit.toml` (journaled so a replay needs nothing else).
    pub config_text: String,
    pub spec: String,
    /// Files in `hidden/`, if any.
    pub hidden: Vec<PathBuf>,
}

impl Project {
    /// This project with protocol `p` instead of the one its config names, validated for it (a
    /// debate needs two coders): what `dixit run --protocol` and `dixit compare` run.
    pub fn with_protocol(&self, p: ProtocolName) -> Result<Project, ConfigError> {
        let mut project = self.clone();
        project.config = self.config.with_protocol(p);
        project
            .config
            .validate(&self.config_text, &self.dir.join("dixit.toml"))?;
        Ok(project)
    }

    /// The acceptance suite's files (`[repair] tests`, default `tests/`), sorted, when the
    /// protocol that runs is `repair`; none otherwise.
    pub fn acceptance_tests(&self, config: &Config) -> Vec<PathBuf> {
        if config.protocol_name() != ProtocolName::Repair {
            return Vec::new();
        }
        let mut files: Vec<PathBuf> = std::fs::read_dir(self.dir.join(&config.repair.tests))
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
        if let StatedInterface::Headers(headers) = config.stated_interface(dir) {
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

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: &str =
        "[project]\nlanguage = \"python\"\n[agents]\nbackend = \"script\"\nscript = \"s.toml\"\n";

    #[test]
    fn minimal_config_gets_defaults() {
        let c = Config::parse(MIN, Path::new("dixit.toml")).unwrap();
        assert_eq!(c.dixit.coders, 3);
        assert_eq!(c.test_kind(), TestKind::Python);
        let specs = c.agent_specs();
        assert_eq!(specs.len(), 5);
        assert_eq!(specs[0].name, "coder-1");
        assert_eq!(specs[4].name, "tester-2");
    }

    #[test]
    fn unknown_key_names_key_and_file() {
        let e = Config::parse(
            &format!("{MIN}[protocol]\ncodrs = 4\n"),
            Path::new("p/dixit.toml"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("p/dixit.toml:"), "{e}");
        assert!(e.contains("codrs"), "{e}");
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
        let s = c.agent_specs();
        assert_eq!(s[0].name, "ada");
        assert_eq!(s[0].settings.temperature, Some(0.1));
        assert_eq!(s[1].settings.temperature, Some(0.5));
        assert_eq!(s[1].settings.backend.as_deref(), Some("script"));
    }

    /// Agent names become folder names, so each must be a file name of its own.
    #[test]
    fn agent_names_are_distinct_file_names() {
        for name in ["a/b", "..", ".hidden", "", "a%b", "é"] {
            let e = Config::parse(
                &format!("{MIN}[[coder]]\nname = {name:?}\n"),
                Path::new("dixit.toml"),
            )
            .unwrap_err()
            .to_string();
            assert!(
                e.contains("coder.name") && e.contains("cannot name a folder"),
                "{e}"
            );
        }
        let e = Config::parse(
            &format!("{MIN}[[coder]]\nname = \"x\"\n[[coder]]\nname = \"x\"\n"),
            Path::new("dixit.toml"),
        )
        .unwrap_err();
        assert!(e.to_string().contains("two agents are named `x`"), "{e}");
        Config::parse(
            &format!("{MIN}[[coder]]\nname = \"gpt-4.1_a\"\n"),
            Path::new("dixit.toml"),
        )
        .unwrap();
    }

    #[test]
    fn bad_values_name_the_key() {
        let e = Config::parse(
            &format!("{MIN}[protocol]\nminority = 0.7\nreruns = 0\n"),
            Path::new("dixit.toml"),
        );
        assert!(e.unwrap_err().to_string().contains("reruns"));
        let e = Config::parse(
            &format!("{MIN}[protocol]\nminority = 1.5\n"),
            Path::new("dixit.toml"),
        )
        .unwrap_err();
        assert!(e.to_string().contains("`protocol.minority`"), "{e}");
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
            e.contains("`project.interface`") && e.contains("Stack"),
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
        let e = err(project("python", "interface = [\"add\"]"));
        assert!(e.contains("c, cpp and rust projects only"), "{e}");
        let e = err(project("rust", "interface = []"));
        assert!(e.contains("is empty"), "{e}");
        let c = Config::parse(
            &project("c", "interface = \"interface/solution.h\""),
            Path::new("dixit.toml"),
        )
        .unwrap();
        assert_eq!(
            c.stated_interface(Path::new("/p")),
            StatedInterface::Headers(vec![PathBuf::from("/p/interface/solution.h")])
        );
        let c = Config::parse(
            &project(
                "rust",
                "interface = [\"add: fn(i32, i32) -> i32\", \"Stack\"]",
            ),
            Path::new("dixit.toml"),
        )
        .unwrap();
        assert_eq!(
            c.stated_interface(Path::new("/p")),
            StatedInterface::Items(vec!["add: fn(i32, i32) -> i32".into(), "Stack".into()])
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

    /// Older projects (and journals) keep dixit's settings in [protocol]; new ones in [dixit];
    /// both at once is an error naming the key and its line.
    #[test]
    fn dixit_settings_in_protocol_or_in_their_own_table() {
        let old = Config::parse(
            &format!("{MIN}[protocol]\ncoders = 4\nmax_rounds = 2\n"),
            Path::new("dixit.toml"),
        )
        .unwrap();
        assert_eq!((old.dixit.coders, old.dixit.max_rounds), (4, 2));
        let new = Config::parse(
            &format!("{MIN}[dixit]\ncoders = 4\nmax_rounds = 2\n"),
            Path::new("dixit.toml"),
        )
        .unwrap();
        assert_eq!((new.dixit.coders, new.dixit.max_rounds), (4, 2));
        let e = Config::parse(
            &format!("{MIN}[protocol]\ncoders = 4\n[dixit]\ntesters = 1\n"),
            Path::new("dixit.toml"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("`protocol.coders` (line 7)"), "{e}");
    }

    #[test]
    fn each_protocol_has_its_roles_and_checks() {
        let c = Config::parse(
            &format!("{MIN}[protocol]\nname = \"repair\"\n[repair]\ncoders = 2\n"),
            Path::new("dixit.toml"),
        )
        .unwrap();
        let roles: Vec<(String, Role)> = c
            .agent_specs()
            .into_iter()
            .map(|s| (s.name, s.role))
            .collect();
        assert_eq!(
            roles,
            [
                ("coder-1".into(), Role::Coder),
                ("coder-2".into(), Role::Coder),
                ("reviewer-1".into(), Role::Reviewer),
                ("reviewer-2".into(), Role::Reviewer),
            ]
        );
        let e = Config::parse(
            &format!("{MIN}[protocol]\nname = \"debate\"\n[debate]\ncoders = 1\n"),
            Path::new("p/dixit.toml"),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("p/dixit.toml: `debate.coders` (line 9)"),
            "{e}"
        );
        let e = Config::parse(
            &format!("{MIN}[protocol]\nname = \"chess\"\n"),
            Path::new("dixit.toml"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("chess"), "{e}");
        let blind = c.with_protocol(ProtocolName::Blind);
        assert_eq!(blind.agent_specs().len(), 1);
    }

    #[test]
    fn usd_cap_needs_prices() {
        let text = "[project]\nlanguage = \"python\"\n[budget]\nmax_usd = 1.0\n[agents]\nbackend = \"openai\"\nmodel = \"m\"\n";
        let e = Config::parse(text, Path::new("dixit.toml")).unwrap_err();
        assert!(e.to_string().contains("prices"), "{e}");
        let ok = format!("{text}[prices.m]\ninput = 1.0\noutput = 2.0\n");
        Config::parse(&ok, Path::new("dixit.toml")).unwrap();
    }
}
