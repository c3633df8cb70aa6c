//! Prompt templates: Markdown files with `{{name}}` placeholders, embedded in the binary from
//! `runner/assets/prompts/common/` (the language instructions every protocol uses) and each
//! protocol's own (`Protocol::templates`, from its folder's `prompts/`), and overridable per
//! project by `prompts/<name>.md`.
//!
//! Each protocol has its own forbidden-word policy ([`Protocol::forbidden`]): where the game is
//! invisible no template may mention other agents, games, scores, judges or rounds, while a
//! protocol that shows other implementations may name them. The registry's tests
//! (`crate::protocol`) render every prompt each protocol can send and check it.

use std::collections::BTreeMap;
use std::path::Path;

use crate::config::{AgentSpec, Config, Role};
use crate::toolchain::TestKind;

use super::protocol::Protocol;

/// The language instructions every protocol's prompts include, by name.
pub const COMMON: &[(&str, &str)] = &[
    (
        "c_solution",
        include_str!("../../assets/prompts/common/c_solution.md"),
    ),
    (
        "c_test",
        include_str!("../../assets/prompts/common/c_test.md"),
    ),
    (
        "cpp_solution",
        include_str!("../../assets/prompts/common/cpp_solution.md"),
    ),
    (
        "cpp_test",
        include_str!("../../assets/prompts/common/cpp_test.md"),
    ),
    (
        "io_c_solution",
        include_str!("../../assets/prompts/common/io_c_solution.md"),
    ),
    (
        "io_cpp_solution",
        include_str!("../../assets/prompts/common/io_cpp_solution.md"),
    ),
    (
        "io_python_solution",
        include_str!("../../assets/prompts/common/io_python_solution.md"),
    ),
    (
        "io_rust_solution",
        include_str!("../../assets/prompts/common/io_rust_solution.md"),
    ),
    (
        "io_test",
        include_str!("../../assets/prompts/common/io_test.md"),
    ),
    (
        "python_solution",
        include_str!("../../assets/prompts/common/python_solution.md"),
    ),
    (
        "python_test",
        include_str!("../../assets/prompts/common/python_test.md"),
    ),
    (
        "rust_solution",
        include_str!("../../assets/prompts/common/rust_solution.md"),
    ),
    (
        "rust_test",
        include_str!("../../assets/prompts/common/rust_test.md"),
    ),
];

/// The words of `forbidden` that `text` contains (whole words, case-insensitive; an entry with
/// a space matches as a phrase).
pub fn forbidden_words(text: &str, forbidden: &[&'static str]) -> Vec<&'static str> {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    forbidden
        .iter()
        .copied()
        .filter(|f| {
            if f.contains(' ') {
                lower.contains(f)
            } else {
                words.contains(f)
            }
        })
        .collect()
}

/// Every built-in template of a protocol: the common ones and its own.
pub fn builtin(protocol: &dyn Protocol) -> BTreeMap<String, String> {
    COMMON
        .iter()
        .chain(protocol.templates())
        .map(|(n, t)| (n.to_string(), t.to_string()))
        .collect()
}

/// The templates in effect for a project.
#[derive(Clone, Debug)]
pub struct Prompts {
    templates: BTreeMap<String, String>,
    /// Language-specific instructions, resolved once.
    solution_instructions: String,
    test_instructions: String,
    /// The test instructions as written, before `{{import_line}}` is resolved.
    test_template: String,
}

/// A template problem (a missing template or placeholder).
#[derive(Debug, thiserror::Error)]
#[error("prompt template `{name}`: {message}")]
pub struct PromptError {
    /// The template's name.
    pub name: String,
    /// What is wrong.
    pub message: String,
}

impl Prompts {
    /// The built-in templates of the config's protocol with the project's `prompts/*.md`
    /// overrides.
    pub fn load(
        project_dir: &Path,
        config: &Config,
        protocol: &dyn Protocol,
        agents: &[AgentSpec],
    ) -> Result<Prompts, PromptError> {
        let mut templates = builtin(protocol);
        if let Ok(rd) = std::fs::read_dir(project_dir.join("prompts")) {
            for e in rd.flatten() {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "md") {
                    let name = p
                        .file_stem()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    let text = std::fs::read_to_string(&p).map_err(|e| PromptError {
                        name: name.clone(),
                        message: e.to_string(),
                    })?;
                    templates.insert(name, text);
                }
            }
        }
        Prompts::from_templates(templates, config, protocol.name(), agents)
    }

    /// Prompts from an explicit template set (a journal's snapshot).
    pub fn from_templates(
        templates: BTreeMap<String, String>,
        config: &Config,
        protocol: &str,
        agents: &[AgentSpec],
    ) -> Result<Prompts, PromptError> {
        let lang = config.project.language.language().as_str();
        let (sol, test) = match config.test_kind() {
            TestKind::Io => (format!("io_{lang}_solution"), "io_test".to_string()),
            _ => (format!("{lang}_solution"), format!("{lang}_test")),
        };
        let get = |n: &str| {
            templates.get(n).cloned().ok_or_else(|| PromptError {
                name: n.into(),
                message: "missing".into(),
            })
        };
        let test_template = get(&test)?.trim().to_string();
        let p = Prompts {
            solution_instructions: get(&sol)?.trim().to_string(),
            test_instructions: import_line(&test_template, &[]),
            test_template,
            templates: templates.clone(),
        };
        for spec in agents {
            let variant = spec.settings.prompt_variant.as_deref();
            p.system(spec.role, variant).map_err(|e| match variant {
                Some(v) => PromptError {
                    name: e.name.clone(),
                    message: format!(
                        "dixit.toml gives agent {} prompt_variant = \"{v}\", which protocol `{}` \
                         does not have: add prompts/{}.md to the project, or drop the variant",
                        spec.name, protocol, e.name
                    ),
                },
                None => e,
            })?;
        }
        Ok(p)
    }

    /// These prompts for a project whose tests may call `names` of a solution (a Python
    /// interface): the test instructions' `{{import_line}}` names them, so a test's first line
    /// is the import it needs.
    pub fn with_interface(mut self, names: &[String]) -> Prompts {
        self.test_instructions = import_line(&self.test_template, names);
        self
    }

    /// Every template, for the journal's snapshot.
    pub fn templates(&self) -> &BTreeMap<String, String> {
        &self.templates
    }

    /// The system prompt of a role, optionally a variant (`coder_system_<variant>`).
    pub fn system(&self, role: Role, variant: Option<&str>) -> Result<String, PromptError> {
        let name = match variant {
            Some(v) => format!("{}_system_{v}", role.as_str()),
            None => format!("{}_system", role.as_str()),
        };
        self.render(&name, &[])
    }

    /// Renders a template in one pass: every `{{name}}` must be given, and values are inserted
    /// verbatim (a spec containing braces is never re-expanded).
    pub fn render(&self, name: &str, vars: &[(&str, &str)]) -> Result<String, PromptError> {
        let t = self.templates.get(name).ok_or_else(|| PromptError {
            name: name.into(),
            message: "missing".into(),
        })?;
        let builtin = [
            ("solution_instructions", self.solution_instructions.as_str()),
            ("test_instructions", self.test_instructions.as_str()),
        ];
        let lookup = |k: &str| {
            vars.iter()
                .chain(builtin.iter())
                .find(|(n, _)| *n == k)
                .map(|(_, v)| *v)
        };
        let mut out = String::with_capacity(t.len());
        let mut rest = t.trim_end();
        while let Some(at) = rest.find("{{") {
            out.push_str(&rest[..at]);
            let after = &rest[at + 2..];
            let end = after.find("}}").ok_or_else(|| PromptError {
                name: name.into(),
                message: "unclosed `{{`".into(),
            })?;
            let key = after[..end].trim();
            let value = lookup(key).ok_or_else(|| PromptError {
                name: name.into(),
                message: format!("unknown placeholder `{{{{{key}}}}}`"),
            })?;
            out.push_str(value);
            rest = &after[end + 2..];
        }
        out.push_str(rest);
        Ok(out)
    }
}

/// `template` with `{{import_line}}` written as the import of `names` from `solution` (or, with
/// none known, its shape).
fn import_line(template: &str, names: &[String]) -> String {
    let line = if names.is_empty() {
        "`from solution import ...`".to_string()
    } else {
        format!("`from solution import {}`", names.join(", "))
    };
    template.replace("{{import_line}}", &line)
}
