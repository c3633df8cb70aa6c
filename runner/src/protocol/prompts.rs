//! Prompt templates: Markdown files with `{{name}}` placeholders, embedded in the binary from
//! `runner/assets/prompts/` and overridable per project by `prompts/<name>.md`.
//!
//! The game is invisible: no template may mention other agents, coders, testers, games, scores,
//! judges or rounds, and none may lie. A test renders every prompt the protocol can send and
//! checks it (see `FORBIDDEN`).

use std::collections::BTreeMap;
use std::path::Path;

use crate::config::{Config, Role};
use crate::toolchain::TestKind;

/// The embedded templates, by name.
pub const BUILTIN: &[(&str, &str)] = &[
    (
        "c_solution",
        include_str!("../../assets/prompts/c_solution.md"),
    ),
    ("c_test", include_str!("../../assets/prompts/c_test.md")),
    (
        "coder_build_error",
        include_str!("../../assets/prompts/coder_build_error.md"),
    ),
    (
        "coder_fix",
        include_str!("../../assets/prompts/coder_fix.md"),
    ),
    (
        "coder_no_code",
        include_str!("../../assets/prompts/coder_no_code.md"),
    ),
    (
        "coder_solve",
        include_str!("../../assets/prompts/coder_solve.md"),
    ),
    (
        "coder_system",
        include_str!("../../assets/prompts/coder_system.md"),
    ),
    (
        "coder_system_defensive",
        include_str!("../../assets/prompts/coder_system_defensive.md"),
    ),
    (
        "coder_system_terse",
        include_str!("../../assets/prompts/coder_system_terse.md"),
    ),
    (
        "coder_thanks",
        include_str!("../../assets/prompts/coder_thanks.md"),
    ),
    (
        "coder_truncated",
        include_str!("../../assets/prompts/coder_truncated.md"),
    ),
    (
        "cpp_solution",
        include_str!("../../assets/prompts/cpp_solution.md"),
    ),
    ("cpp_test", include_str!("../../assets/prompts/cpp_test.md")),
    (
        "io_c_solution",
        include_str!("../../assets/prompts/io_c_solution.md"),
    ),
    (
        "io_cpp_solution",
        include_str!("../../assets/prompts/io_cpp_solution.md"),
    ),
    (
        "io_python_solution",
        include_str!("../../assets/prompts/io_python_solution.md"),
    ),
    (
        "io_rust_solution",
        include_str!("../../assets/prompts/io_rust_solution.md"),
    ),
    ("io_test", include_str!("../../assets/prompts/io_test.md")),
    (
        "python_solution",
        include_str!("../../assets/prompts/python_solution.md"),
    ),
    (
        "python_test",
        include_str!("../../assets/prompts/python_test.md"),
    ),
    (
        "rust_solution",
        include_str!("../../assets/prompts/rust_solution.md"),
    ),
    (
        "rust_test",
        include_str!("../../assets/prompts/rust_test.md"),
    ),
    (
        "tester_first",
        include_str!("../../assets/prompts/tester_first.md"),
    ),
    (
        "tester_invalid",
        include_str!("../../assets/prompts/tester_invalid.md"),
    ),
    (
        "tester_more",
        include_str!("../../assets/prompts/tester_more.md"),
    ),
    (
        "tester_no_code",
        include_str!("../../assets/prompts/tester_no_code.md"),
    ),
    (
        "tester_system",
        include_str!("../../assets/prompts/tester_system.md"),
    ),
    (
        "tester_system_adversarial",
        include_str!("../../assets/prompts/tester_system_adversarial.md"),
    ),
    (
        "tester_thanks",
        include_str!("../../assets/prompts/tester_thanks.md"),
    ),
    (
        "tester_too_easy",
        include_str!("../../assets/prompts/tester_too_easy.md"),
    ),
    (
        "tester_too_hard",
        include_str!("../../assets/prompts/tester_too_hard.md"),
    ),
    (
        "tester_truncated",
        include_str!("../../assets/prompts/tester_truncated.md"),
    ),
];

/// Words that would reveal the game (whole words, case-insensitive).
pub const FORBIDDEN: &[&str] = &[
    "agent",
    "agents",
    "coder",
    "coders",
    "tester",
    "testers",
    "game",
    "games",
    "player",
    "players",
    "score",
    "scores",
    "scoring",
    "judge",
    "judges",
    "judged",
    "judging",
    "judgement",
    "judgment",
    "round",
    "rounds",
    "opponent",
    "opponents",
    "compete",
    "competition",
    "minority",
    "majority",
    "other implementations",
];

/// The words of `FORBIDDEN` that `text` contains.
pub fn forbidden_words(text: &str) -> Vec<&'static str> {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    FORBIDDEN
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
    /// The built-in templates with the project's `prompts/*.md` overrides.
    pub fn load(project_dir: &Path, config: &Config) -> Result<Prompts, PromptError> {
        let mut templates: BTreeMap<String, String> = BUILTIN
            .iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect();
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
            p.system(spec.role, spec.settings.prompt_variant.as_deref())?;
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

    fn config(language: &str, tests: &str, variant: &str) -> Config {
        Config::parse(
            &format!(
                "[project]\nlanguage = \"{language}\"\ntests = \"{tests}\"\n[agents]\nbackend = \"script\"\nscript = \"s\"\n{variant}"
            ),
            Path::new("dixit.toml"),
        )
        .unwrap()
    }

    /// Every prompt the protocol can send, for every language, test style and system variant.
    #[test]
    fn no_prompt_reveals_the_game_and_every_placeholder_is_filled() {
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
        ];
        let mut rendered = 0;
        for (lang, tests) in [
            ("python", "unit"),
            ("c", "unit"),
            ("cpp", "unit"),
            ("rust", "unit"),
            ("python", "io"),
            ("c", "io"),
            ("rust", "io"),
        ] {
            for v in variants {
                let c = config(lang, tests, v);
                let p = Prompts::from_templates(
                    BUILTIN
                        .iter()
                        .map(|(n, t)| (n.to_string(), t.to_string()))
                        .collect(),
                    &c,
                )
                .unwrap();
                for spec in c.agent_specs() {
                    let s = p
                        .system(spec.role, spec.settings.prompt_variant.as_deref())
                        .unwrap();
                    assert!(
                        forbidden_words(&s).is_empty(),
                        "{lang}/{tests}: system prompt: {:?}",
                        forbidden_words(&s)
                    );
                }
                for (name, _) in BUILTIN
                    .iter()
                    .filter(|(n, _)| n.starts_with("coder_") || n.starts_with("tester_"))
                {
                    let text = p.render(name, vars).unwrap_or_else(|e| panic!("{e}"));
                    assert!(
                        !text.contains("{{"),
                        "{name}: unfilled placeholder in {text}"
                    );
                    assert!(
                        forbidden_words(&text).is_empty(),
                        "{name} ({lang}/{tests}) says {:?}: {text}",
                        forbidden_words(&text)
                    );
                    rendered += 1;
                }
            }
        }
        assert!(rendered > 100);
    }

    #[test]
    fn the_guard_finds_what_it_should() {
        assert_eq!(forbidden_words("Another coder wrote this"), ["coder"]);
        assert_eq!(
            forbidden_words("In this round, the judges..."),
            ["judges", "round"]
        );
        assert!(forbidden_words("Round the result to two decimals").contains(&"round"));
        assert!(forbidden_words("test suite of 5 tests; tests 3 and 7 fail").is_empty());
    }

    #[test]
    fn rendering_is_one_pass_and_strict() {
        let c = config("python", "unit", "");
        let p = Prompts::from_templates(
            BUILTIN
                .iter()
                .map(|(n, t)| (n.to_string(), t.to_string()))
                .collect(),
            &c,
        )
        .unwrap();
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
