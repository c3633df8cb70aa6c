//! A project: a folder with `spec.md` and `dixit.toml`, optionally `hidden/` (tests no agent
//! ever sees) and `prompts/` (overrides of the prompt templates).
//!
//! ```toml
//! [project]
//! language = "python"      # what coders write: python | c | cpp | rust
//! tests = "unit"           # unit: test files call the solution | io: stdin/stdout cases
//! seed = 1                 # base seed of sandbox runs and agent sampling
//!
//! [limits]                 # per sandbox run
//! fuel = 4000000000
//! memory_mb = 256
//!
//! [protocol]
//! coders = 3
//! testers = 2
//! reruns = "auto"          # or a number
//! minority = 0.4
//! max_tester_retries = 2
//! max_coder_retries = 3
//! max_rounds = 8
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
use crate::toolchain::{Language, TestKind};

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
    #[error("{path}: `{key}`: {message}")]
    Invalid {
        path: PathBuf,
        key: String,
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

/// `[protocol]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ProtocolSection {
    /// Only `dixit` is implemented.
    pub name: String,
    pub coders: usize,
    pub testers: usize,
    pub reruns: Reruns,
    pub minority: f64,
    pub max_tester_retries: u32,
    pub max_coder_retries: u32,
    pub max_rounds: u32,
}

impl Default for ProtocolSection {
    fn default() -> Self {
        ProtocolSection {
            name: "dixit".into(),
            coders: 3,
            testers: 2,
            reruns: Reruns::default(),
            minority: DEFAULT_MINORITY,
            max_tester_retries: 2,
            max_coder_retries: 3,
            max_rounds: 8,
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
    pub budget: BudgetSection,
    #[serde(default)]
    pub agents: AgentSettings,
    /// Role defaults.
    #[serde(default)]
    pub coders: AgentSettings,
    #[serde(default)]
    pub testers: AgentSettings,
    /// Per-agent overrides, in order.
    #[serde(default)]
    pub coder: Vec<AgentSettings>,
    #[serde(default)]
    pub tester: Vec<AgentSettings>,
    #[serde(default)]
    pub prices: BTreeMap<String, Price>,
}

/// An agent's role.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Coder,
    Tester,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Coder => "coder",
            Role::Tester => "tester",
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
    /// Parses `text` (the contents of `path`) and validates it.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let config: Config = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: path.to_path_buf(),
            message: e.to_string().trim_end().replace('\n', "\n  "),
        })?;
        config.validate(path)?;
        Ok(config)
    }

    fn validate(&self, path: &Path) -> Result<(), ConfigError> {
        let bad = |key: &str, message: String| {
            Err(ConfigError::Invalid {
                path: path.to_path_buf(),
                key: key.into(),
                message,
            })
        };
        let p = &self.protocol;
        if p.name != "dixit" {
            return bad(
                "protocol.name",
                format!("unknown protocol `{}` (this version runs `dixit`)", p.name),
            );
        }
        if !(0.0..1.0).contains(&p.minority) || p.minority <= 0.0 {
            return bad(
                "protocol.minority",
                format!("{} is not a share strictly between 0 and 1", p.minority),
            );
        }
        if self.coder_count() < 1 {
            return bad("protocol.coders", "at least one coder is needed".into());
        }
        if self.tester_count() < 1 {
            return bad("protocol.testers", "at least one tester is needed".into());
        }
        if p.max_rounds == 0 {
            return bad("protocol.max_rounds", "must be at least 1".into());
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

    fn coder_count(&self) -> usize {
        self.protocol.coders.max(self.coder.len())
    }

    fn tester_count(&self) -> usize {
        self.protocol.testers.max(self.tester.len())
    }

    /// Every agent, coders first, with settings layered: per-agent over role over `[agents]`.
    pub fn agent_specs(&self) -> Vec<AgentSpec> {
        let mut out = Vec::new();
        for (role, count, role_defaults, list) in [
            (Role::Coder, self.coder_count(), &self.coders, &self.coder),
            (
                Role::Tester,
                self.tester_count(),
                &self.testers,
                &self.tester,
            ),
        ] {
            for i in 0..count {
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
                message: "the spec is empty".into(),
            });
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
        assert_eq!(c.protocol.coders, 3);
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

    #[test]
    fn usd_cap_needs_prices() {
        let text = "[project]\nlanguage = \"python\"\n[budget]\nmax_usd = 1.0\n[agents]\nbackend = \"openai\"\nmodel = \"m\"\n";
        let e = Config::parse(text, Path::new("dixit.toml")).unwrap_err();
        assert!(e.to_string().contains("prices"), "{e}");
        let ok = format!("{text}[prices.m]\ninput = 1.0\noutput = 2.0\n");
        Config::parse(&ok, Path::new("dixit.toml")).unwrap();
    }
}
