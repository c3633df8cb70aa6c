//! The protocols, one folder each, every one reading like its seed (`shared/seeds/`):
//!
//! | protocol | seed | roles | what a run produces |
//! |---|---|---|---|
//! | `dixit` | `dixit-orchestrator.txt` | coders, testers | a suite of IDEAL tests every coder passes |
//! | `debate` | `debatecoder.md` | coders (who also write tests) | a winner and the tests that discriminated |
//! | `repair` | `test-driven-termination.txt` | coders, a reviewer | each coder's best attempt against a given suite |
//! | `blind` | `blind-verification.md` | coders (who write their own tests) | code checked by a suite answering pass/fail only |
//! | `single` | (the control) | one coder | one answer, asked once |
//! | `codet` | CodeT (Chen et al.) | coders, testers | one answer of N, picked by dual agreement |
//!
//! A protocol owns its roles' behaviour, its prompt templates (`<name>/prompts/`) and its
//! forbidden-word policy; everything else (agents, the sandbox, journaling, budget, resume and
//! replay) is the engine's (`crate::engine`).

/// A protocol's prompt templates by name, each the file `prompts/<name>.md` beside the folder's
/// `mod.rs` (the name and the file cannot drift apart).
macro_rules! templates {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!("prompts/", $name, ".md")))),*]
    };
}

pub mod blind;
pub mod codet;
pub mod debate;
pub mod dixit;
pub mod repair;
pub mod single;

use crate::config::{AgentSpec, Config, ConfigError, ProtocolName};
use crate::engine::{Halt, Protocol};

pub(crate) use crate::engine::Stop;

/// Every protocol of this version; the first is the one a project that names none runs. Adding
/// a protocol is a folder and one line here.
pub static REGISTRY: &[&dyn Protocol] = &[
    &dixit::Dixit,
    &debate::Debate,
    &repair::Repair,
    &blind::Blind,
    &single::Single,
    &codet::Codet,
];

/// The protocol named `name`.
pub fn get(name: &str) -> Option<&'static dyn Protocol> {
    REGISTRY.iter().copied().find(|p| p.name() == name)
}

/// The protocol named `name`, or an error listing those there are.
pub fn named(name: &ProtocolName) -> Result<&'static dyn Protocol, String> {
    get(name.as_str()).ok_or_else(|| {
        format!(
            "unknown protocol `{name}` (this version has {})",
            names().join(", ")
        )
    })
}

/// The names of the protocols, in registry order.
pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|p| p.name()).collect()
}

/// A protocol chosen for a config, and the agents its run has.
pub struct Selected {
    /// The protocol.
    pub protocol: &'static dyn Protocol,
    /// The agents of its run.
    pub agents: Vec<AgentSpec>,
}

/// The protocol `config` runs (`[protocol] name`, or the first of the registry), its table
/// read and checked, and the run's agents. Refuses a table or a `[protocol]` key that no
/// protocol of this version has. Errors name the file, the key and its line.
pub fn select(config: &Config) -> Result<Selected, ConfigError> {
    let protocol = match &config.protocol.name {
        None => REGISTRY[0],
        Some(name) => named(name).map_err(|m| config.invalid("protocol.name", m))?,
    };
    for table in config.tables.keys() {
        if get(table).is_none() {
            return Err(config.invalid(
                table,
                format!(
                    "unknown table [{table}] (dixit.toml has [project], [limits], [protocol], \
                     [budget], [agents], role tables and one table per protocol: {})",
                    names().join(", ")
                ),
            ));
        }
    }
    for key in config.protocol.other.keys() {
        if !REGISTRY
            .iter()
            .any(|p| p.legacy_keys().contains(&key.as_str()))
        {
            return Err(config.invalid(
                &format!("protocol.{key}"),
                "unknown key (`[protocol]` has `name` and `reruns`; a protocol's settings go \
                 in its own table)"
                    .into(),
            ));
        }
    }
    let team = protocol.team(config)?;
    let agents = config.agent_specs(&team)?;
    Ok(Selected { protocol, agents })
}

/// Collects concurrent results; the first halt in agent order wins (a real cause is preferred
/// over `Stopped`, which only means "another agent halted").
pub(crate) fn first_halt<T>(results: Vec<Result<T, Halt>>) -> Result<Vec<T>, Halt> {
    let mut out = Vec::with_capacity(results.len());
    let mut halt: Option<Halt> = None;
    for r in results {
        match r {
            Ok(v) => out.push(v),
            Err(h) => {
                let replace = match (&halt, &h) {
                    (None, _) => true,
                    (Some(Halt::Stopped), Halt::Stopped) => false,
                    (Some(Halt::Stopped), _) => true,
                    (Some(Halt::Fatal(_)), _) => false,
                    (Some(_), Halt::Fatal(_)) => true,
                    _ => false,
                };
                if replace {
                    halt = Some(h);
                }
            }
        }
    }
    match halt {
        Some(h) => Err(h),
        None => Ok(out),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::config::Role;
    use crate::engine::forbidden_words;
    use crate::engine::prompts::{builtin, Prompts};

    const MIN: &str =
        "[project]\nlanguage = \"python\"\n[agents]\nbackend = \"script\"\nscript = \"s.toml\"\n";

    fn parse(text: &str) -> Config {
        Config::parse(text, Path::new("p/dixit.toml")).unwrap()
    }

    fn select_err(text: &str) -> String {
        select(&parse(text)).err().expect("an error").to_string()
    }

    #[test]
    fn the_first_protocol_is_the_default_and_names_are_unique() {
        let s = select(&parse(MIN)).unwrap();
        assert_eq!(s.protocol.name(), REGISTRY[0].name());
        let mut names = names();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), REGISTRY.len());
    }

    /// A table, a `[protocol]` key or a protocol name this version lacks is refused with the
    /// file, the key and its line.
    #[test]
    fn unknown_tables_keys_and_names_are_refused() {
        let e = select_err(&format!("{MIN}[protocol]\ncodrs = 4\n"));
        assert!(
            e.starts_with("p/dixit.toml: `protocol.codrs` (line 7)"),
            "{e}"
        );
        let e = select_err(&format!("{MIN}[debait]\ncoders = 4\n"));
        assert!(e.starts_with("p/dixit.toml: `debait`"), "{e}");
        let e = select_err(&format!("{MIN}[protocol]\nname = \"chess\"\n"));
        assert!(e.contains("chess") && e.contains("(line 7)"), "{e}");
    }

    /// Each protocol says its team; its checks name the key and its line.
    #[test]
    fn each_protocol_has_its_roles_and_checks() {
        let c = parse(&format!(
            "{MIN}[protocol]\nname = \"repair\"\n[repair]\ncoders = 2\n"
        ));
        let roles: Vec<(String, Role)> = select(&c)
            .unwrap()
            .agents
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
        let e = select_err(&format!(
            "{MIN}[protocol]\nname = \"debate\"\n[debate]\ncoders = 1\n"
        ));
        assert!(
            e.starts_with("p/dixit.toml: `debate.coders` (line 9)"),
            "{e}"
        );
        let blind = c.with_protocol(ProtocolName::new("blind"));
        assert_eq!(select(&blind).unwrap().agents.len(), 1);
        let e = select_err(&format!("{MIN}[dixit]\nminority = 1.5\n"));
        assert!(e.contains("`dixit.minority` (line 7)"), "{e}");
    }

    /// Older projects (and journals) keep dixit's settings in [protocol]; new ones in [dixit];
    /// both at once is an error naming the key and its line.
    #[test]
    fn dixit_settings_in_protocol_or_in_their_own_table() {
        let settings = |text: String| dixit::Settings::read(&parse(&text));
        let old = settings(format!("{MIN}[protocol]\ncoders = 4\nmax_rounds = 2\n")).unwrap();
        assert_eq!((old.coders, old.max_rounds), (4, 2));
        let new = settings(format!("{MIN}[dixit]\ncoders = 4\nmax_rounds = 2\n")).unwrap();
        assert_eq!((new.coders, new.max_rounds), (4, 2));
        let e = settings(format!(
            "{MIN}[protocol]\ncoders = 4\n[dixit]\ntesters = 1\n"
        ))
        .unwrap_err()
        .to_string();
        assert!(e.contains("`protocol.coders` (line 7)"), "{e}");
        let e = select_err(&format!("{MIN}[protocol]\nminority = 1.5\n"));
        assert!(e.contains("`protocol.minority`"), "{e}");
    }

    fn config(language: &str, tests: &str, extra: &str) -> Config {
        let interface = match (language, tests) {
            ("c" | "cpp", "unit") => "interface = \"interface/solution.h\"\n",
            ("rust", "unit") => "interface = [\"f: fn() -> i32\"]\n",
            _ => "",
        };
        parse(&format!(
            "[project]\nlanguage = \"{language}\"\ntests = \"{tests}\"\n{interface}[agents]\nbackend = \"script\"\nscript = \"s\"\n{extra}"
        ))
    }

    /// A variant no protocol template defines is a config error naming the agent, the protocol
    /// and the file that would define it.
    #[test]
    fn a_variant_the_protocol_lacks_names_the_agent_and_the_fix() {
        for protocol in REGISTRY {
            let name = protocol.name();
            let c = config(
                "python",
                "unit",
                &format!("[protocol]\nname = \"{name}\"\n[[coder]]\nprompt_variant = \"loud\"\n"),
            );
            let agents = select(&c).unwrap().agents;
            let e = Prompts::from_templates(builtin(*protocol), &c, name, &agents).unwrap_err();
            let text = e.to_string();
            for needle in [
                "agent coder-1",
                "prompt_variant = \"loud\"",
                &format!("protocol `{name}`"),
                "prompts/coder_system_loud.md",
            ] {
                assert!(text.contains(needle), "{name}: {needle:?} not in {text}");
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
            ("output", "NameError: name 'add' is not defined"),
            (
                "why",
                "it uses `add` without importing it: the test must start with `from solution \
                 import add`",
            ),
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
            ("count", "5"),
        ];
        let mut rendered = 0;
        for protocol in REGISTRY {
            let name = protocol.name();
            let forbidden = protocol.forbidden();
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
                    let c = config(lang, tests, &format!("[protocol]\nname = \"{name}\"\n{v}"));
                    let agents = select(&c).unwrap().agents;
                    let p = Prompts::from_templates(builtin(*protocol), &c, name, &agents).unwrap();
                    for spec in &agents {
                        let s = p
                            .system(spec.role, spec.settings.prompt_variant.as_deref())
                            .unwrap();
                        assert!(
                            forbidden_words(&s, forbidden).is_empty(),
                            "{name} {lang}/{tests}: system prompt: {:?}",
                            forbidden_words(&s, forbidden)
                        );
                    }
                    for (template, _) in protocol.templates() {
                        let text = p
                            .render(template, vars)
                            .unwrap_or_else(|e| panic!("{name}: {e}"));
                        assert!(
                            !text.contains("{{"),
                            "{name}/{template}: unfilled placeholder in {text}"
                        );
                        assert!(
                            forbidden_words(&text, forbidden).is_empty(),
                            "{name}/{template} ({lang}/{tests}) says {:?}: {text}",
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
        let f = dixit::Dixit.forbidden();
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
        assert!(forbidden_words(text, debate::Debate.forbidden()).is_empty());
    }

    #[test]
    fn rendering_is_one_pass_and_strict() {
        let c = config("python", "unit", "");
        let agents = select(&c).unwrap().agents;
        let p = Prompts::from_templates(builtin(&dixit::Dixit), &c, "dixit", &agents).unwrap();
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
