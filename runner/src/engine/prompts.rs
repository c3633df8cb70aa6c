//! Prompt templates: Markdown files with `{{name}}` placeholders, embedded in the binary from
//! `runner/assets/prompts/` (`common/`: the language instructions every protocol uses; one
//! folder per protocol for the rest) and overridable per project by `prompts/<name>.md`.
//!
//! Each protocol has its own forbidden-word policy ([`crate::protocol::forbidden`]): the Dixit
//! game is invisible (no template may mention other agents, games, scores, judges or rounds),
//! while a debate's prompts may say "another implementation". Tests render every prompt each
//! protocol can send and check it.

use std::collections::BTreeMap;
use std::path::Path;

use crate::config::{Config, Role};
use crate::toolchain::TestKind;

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
pub fn builtin(protocol: crate::config::ProtocolName) -> BTreeMap<String, String> {
    COMMON
        .iter()
        .chain(crate::protocol::templates(protocol))
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
}

/// A template problem (a missing template or placeholder).
#[derive(Debug, thiserror::Error)]
#[error("prompt template `{name}`: {message}")]
pub struct PromptError {
    pub name: String,
    pub message: String,
}

impl Prompts {
    /// The built-in templates of the config's protocol with the project's `prompts/*.md`
    /// overrides.
    pub fn load(project_dir: &Path, config: &Config) -> Result<Prompts, PromptError> {
        let mut templates = builtin(config.protocol_name());
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
        Prompts::from_templates(templates, config)
    }

    /// Prompts from an explicit template set (a journal's snapshot).
    pub fn from_templates(
        templates: BTreeMap<String, String>,
        config: &Config,
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
        let p = Prompts {
            solution_instructions: get(&sol)?.trim().to_string(),
            test_instructions: get(&test)?.trim().to_string(),
            templates: templates.clone(),
        };
        for spec in config.agent_specs() {
            let variant = spec.settings.prompt_variant.as_deref();
            p.system(spec.role, variant).map_err(|e| match variant {
                Some(v) => PromptError {
                    name: e.name.clone(),
                    message: format!(
                        "dixit.toml gives agent {} prompt_variant = \"{v}\", which protocol `{}` \
                         does not have: add prompts/{}.md to the project, or drop the variant",
                        spec.name,
                        config.protocol_name(),
                        e.name
                    ),
                },
                None => e,
            })?;
        }
        Ok(p)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ProtocolName;

    fn config(language: &str, tests: &str, extra: &str) -> Config {
        let interface = match (language, tests) {
            ("c" | "cpp", "unit") => "interface = \"interface/solution.h\"\n",
            ("rust", "unit") => "interface = [\"f\"]\n",
            _ => "",
        };
        Config::parse(
            &format!(
                "[project]\nlanguage = \"{language}\"\ntests = \"{tests}\"\n{interface}[agents]\nbackend = \"script\"\nscript = \"s\"\n{extra}"
            ),
            Path::new("dixit.toml"),
        )
        .unwrap()
    }

    /// A variant no protocol template defines is a config error naming the agent, the protocol
    /// and the file that would define it.
    #[test]
    fn a_variant_the_protocol_lacks_names_the_agent_and_the_fix() {
        for &protocol in crate::protocol::IMPLEMENTED {
            let c = config(
                "python",
                "unit",
                &format!(
                    "[protocol]\nname = \"{protocol}\"\n[[coder]]\n[[coder]]\nprompt_variant = \"loud\"\n"
                ),
            );
            let e = Prompts::from_templates(builtin(protocol), &c).unwrap_err();
            let text = e.to_string();
            for needle in [
                "agent coder-2",
                "prompt_variant = \"loud\"",
                &format!("protocol `{protocol}`"),
                "prompts/coder_system_loud.md",
            ] {
                assert!(
                    text.contains(needle),
                    "{protocol}: {needle:?} not in {text}"
                );
            }
        }
    }

    /// Every prompt each protocol can send, for every language, test style and system variant,
    /// says nothing its protocol forbids, and fills every placeholder.
    #[test]
    fn no_prompt_breaks_its_protocols_policy_and_every_placeholder_is_filled() {
        let variants = [
            "",
            "[coders]\nprompt_variant = \"terse\"\n[testers]\nprompt_variant = \"adversarial\"\n",
            "[coders]\nprompt_variant = \"defensive\"\n",
        ];
        let vars: &[(&str, &str)] = &[
            ("spec", "Write a function that adds two numbers."),
            ("total", "5"),
            ("failing_sentence", "Tests 2 and 4 fail; the others pass."),
            ("vector", "1: pass, 2: FAIL, 3: pass, 4: FAIL, 5: pass"),
            ("build_error", "SyntaxError: invalid syntax"),
            ("code", "def add(a, b):\n    return a + b"),
            (
                "others",
                "Implementation A:\n```\ndef add(a, b): return a - b\n```",
            ),
            (
                "failures",
                "## test_add.py — wrong_answer\nassert add(1, 2) == 3",
            ),
            ("tests", "```\nassert add(1, 2) == 3\n```"),
            ("findings", "The function ignores negative numbers."),
            ("results", "## test_1.py — pass"),
            ("attempt", "2"),
        ];
        let mut rendered = 0;
        for &protocol in crate::protocol::IMPLEMENTED {
            let forbidden = crate::protocol::forbidden(protocol);
            for (lang, tests) in [
                ("python", "unit"),
                ("c", "unit"),
                ("cpp", "unit"),
                ("rust", "unit"),
                ("python", "io"),
                ("c", "io"),
                ("rust", "io"),
            ] {
                let table = match protocol {
                    ProtocolName::Dixit => "",
                    ProtocolName::Debate => "[protocol]\nname = \"debate\"\n",
                    ProtocolName::Repair => "[protocol]\nname = \"repair\"\n",
                    ProtocolName::Blind => "[protocol]\nname = \"blind\"\n",
                };
                for v in variants {
                    let c = config(lang, tests, &format!("{table}{v}"));
                    let p = Prompts::from_templates(builtin(protocol), &c).unwrap();
                    for spec in c.agent_specs() {
                        let s = p
                            .system(spec.role, spec.settings.prompt_variant.as_deref())
                            .unwrap();
                        assert!(
                            forbidden_words(&s, forbidden).is_empty(),
                            "{protocol} {lang}/{tests}: system prompt: {:?}",
                            forbidden_words(&s, forbidden)
                        );
                    }
                    for (name, _) in crate::protocol::templates(protocol) {
                        let text = p
                            .render(name, vars)
                            .unwrap_or_else(|e| panic!("{protocol}: {e}"));
                        assert!(
                            !text.contains("{{"),
                            "{protocol}/{name}: unfilled placeholder in {text}"
                        );
                        assert!(
                            forbidden_words(&text, forbidden).is_empty(),
                            "{protocol}/{name} ({lang}/{tests}) says {:?}: {text}",
                            forbidden_words(&text, forbidden)
                        );
                        rendered += 1;
                    }
                }
            }
        }
        assert!(rendered > 100);
    }

    #[test]
    fn the_guard_finds_what_it_should() {
        let f = crate::protocol::forbidden(ProtocolName::Dixit);
        assert_eq!(forbidden_words("Another coder wrote this", f), ["coder"]);
        assert_eq!(
            forbidden_words("In this round, the judges...", f),
            ["judges", "round"]
        );
        assert!(forbidden_words("Round the result to two decimals", f).contains(&"round"));
        assert!(forbidden_words("test suite of 5 tests; tests 3 and 7 fail", f).is_empty());
        // Debate shows other implementations, by design; dixit never names them.
        let text = "Here are other implementations of the same specification.";
        assert!(!forbidden_words(text, f).is_empty());
        assert!(forbidden_words(text, crate::protocol::forbidden(ProtocolName::Debate)).is_empty());
    }

    #[test]
    fn rendering_is_one_pass_and_strict() {
        let c = config("python", "unit", "");
        let p = Prompts::from_templates(builtin(ProtocolName::Dixit), &c).unwrap();
        let s = p
            .render("coder_solve", &[("spec", "use {{total}} literally")])
            .unwrap();
        assert!(
            s.contains("use {{total}} literally"),
            "values are not re-expanded"
        );
        assert!(p
            .render("coder_fix", &[])
            .unwrap_err()
            .to_string()
            .contains("{{total}}"));
    }
}
