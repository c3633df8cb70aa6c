//! Decisions without a person. A run's decision policy (`[policy] name`, `dixit run --policy`)
//! answers each stop that asks for a person with the choice its stated rule supports from the
//! evidence the stop already shows, and otherwise with the stop's safe default: accept (the
//! run ends with the implementations it has; a limit is never raised). The evidence is what the
//! run journaled before the stop (the suite's verdicts per coder, the classifications); the
//! hidden tests, which no agent and no rule of the run may see, are never read.
//!
//! Each decision is journaled like a person's (`decision` on the person's lane) with a
//! [`PolicyNote`]: the policy, its rule, and the evidence it read. A replay decides again from
//! the same evidence and must reach the same choice; a person can overturn a decision later
//! (`dixit decide RUN --at N ...` forks the run from that stop).
//!
//! The rule of `majority`, over the coders still taking part:
//! - a suite test that a majority of them fail is wrong: drop it;
//! - a coder whose code does not build while a majority's does, or that fails tests every one
//!   of which a majority passes, is wrong: leave it behind (while at least two coders remain);
//! - a hibernating tester's tests that a majority of the coders they ran against fail are
//!   wrong: discard them (the tester proposes afresh); that a majority pass are right: wake it;
//! - otherwise, accept.

use crate::config::PolicyName;
use crate::journal::{Choice, PolicyNote};
use crate::outcome::Summary;

/// The rule of [`PolicyName::Majority`], as the journal and the page state it.
pub const MAJORITY_RULE: &str = "the majority of the coders still taking part is right: a test \
     most of them fail is dropped, a coder whose code does not build while most coders' does, or \
     that fails tests most of them pass, is left behind (two coders at least remain), a \
     hibernating tester's tests most coders fail are discarded and those most pass are woken; \
     otherwise accept";

/// The rule of [`PolicyName::Majority`] before a coder whose code does not build could be left
/// behind: a decision journaled under it is decided again under it, so older runs replay.
pub const MAJORITY_RULE_1: &str = "the majority of the coders still taking part is right: a test \
     most of them fail is dropped, a coder failing tests most of them pass is left behind (two \
     coders at least remain), a hibernating tester's tests most coders fail are discarded and \
     those most pass are woken; otherwise accept";

/// What `policy` decides among `choices` (a stop's offer, in its order) on the evidence in
/// `summary`; `None` for [`PolicyName::Person`], whose stops wait for a person.
pub fn decide(
    policy: PolicyName,
    choices: &[Choice],
    summary: &Summary,
) -> Option<(Choice, PolicyNote)> {
    decide_under(policy, MAJORITY_RULE, choices, summary)
}

/// What `policy` decided, under the `rule` it stated then (a journaled decision, decided again
/// on replay): the current rule, or an earlier one it names.
pub fn decide_under(
    policy: PolicyName,
    rule: &str,
    choices: &[Choice],
    summary: &Summary,
) -> Option<(Choice, PolicyNote)> {
    if choices.is_empty() {
        return None;
    }
    match policy {
        PolicyName::Person => None,
        PolicyName::Majority => {
            let (rule, builds) = if rule == MAJORITY_RULE_1 {
                (MAJORITY_RULE_1, false)
            } else {
                (MAJORITY_RULE, true)
            };
            let (choice, evidence) = majority(choices, summary, builds);
            Some((
                choice,
                PolicyNote {
                    name: policy.as_str().into(),
                    rule: rule.into(),
                    evidence,
                },
            ))
        }
    }
}

/// The choice the majority rule supports, and the evidence it read, in sentences; `builds`:
/// whether a coder whose code does not build while most coders' does is left behind.
fn majority(choices: &[Choice], s: &Summary, builds: bool) -> (Choice, Vec<String>) {
    let active: Vec<&String> = s
        .coders
        .keys()
        .filter(|c| !s.left_behind.contains(c))
        .collect();
    let n = active.len();
    let numbers: Vec<usize> = s.suite.iter().map(|t| t.number).collect();
    // Per suite test, who passes and who fails it, as each coder's last check says.
    let verdict = |coder: &String, test: usize| -> Option<bool> {
        let v = &s.coders.get(coder)?.last_vector;
        let at = numbers.iter().position(|&t| t == test)?;
        (v.len() == numbers.len()).then(|| v[at])
    };
    let split = |test: usize| -> (Vec<&String>, Vec<&String>) {
        let mut pass = Vec::new();
        let mut fail = Vec::new();
        for c in &active {
            match verdict(c, test) {
                Some(true) => pass.push(*c),
                Some(false) => fail.push(*c),
                None => {}
            }
        }
        (pass, fail)
    };
    let said = |test: usize| {
        let (pass, fail) = split(test);
        format!(
            "test {test}: {} of {n} coders pass it ({}), {} fail it ({})",
            pass.len(),
            names(&pass),
            fail.len(),
            names(&fail)
        )
    };
    let mut evidence = Vec::new();
    for c in choices {
        match c {
            Choice::DropTest { test } => {
                let (_, fail) = split(*test);
                evidence.push(said(*test));
                if 2 * fail.len() > n {
                    return (c.clone(), evidence);
                }
            }
            Choice::LeaveBehind { coder } => {
                let broken = |c: &String| s.coders.get(c).is_some_and(|c| c.does_not_build);
                if builds && broken(coder) {
                    let building: Vec<&String> =
                        active.iter().copied().filter(|c| !broken(c)).collect();
                    evidence.push(format!(
                        "{coder}'s code does not build; {} of {n} coders' code builds ({})",
                        building.len(),
                        names(&building)
                    ));
                    if n > 2 && 2 * building.len() > n {
                        return (c.clone(), evidence);
                    }
                    continue;
                }
                let failing: Vec<usize> = numbers
                    .iter()
                    .copied()
                    .filter(|&t| verdict(coder, t) == Some(false))
                    .collect();
                if failing.is_empty() || n <= 2 {
                    continue;
                }
                let all_majority = failing.iter().all(|&t| 2 * split(t).0.len() > n);
                evidence.extend(failing.iter().map(|&t| said(t)));
                if all_majority {
                    return (c.clone(), evidence);
                }
            }
            Choice::Discard { tester } | Choice::Wake { tester } => {
                let tests = s.hibernating.get(tester).cloned().unwrap_or_default();
                if tests.is_empty() {
                    continue;
                }
                let counts: Vec<(usize, usize)> = tests
                    .iter()
                    .filter_map(|t| s.classified.get(t).copied())
                    .collect();
                for (t, (fail, pool)) in tests.iter().zip(&counts) {
                    evidence.push(format!(
                        "{tester}'s test {t}: {fail} of the {pool} coders it ran against fail it"
                    ));
                }
                if counts.len() != tests.len() {
                    continue;
                }
                let most_fail = counts.iter().all(|&(f, p)| 2 * f > p);
                let most_pass = counts.iter().all(|&(f, p)| 2 * (p - f.min(p)) > p);
                match c {
                    Choice::Discard { .. } if most_fail => return (c.clone(), evidence),
                    Choice::Wake { .. } if most_pass => return (c.clone(), evidence),
                    _ => {}
                }
            }
            Choice::Raise { .. } | Choice::Accept => {}
        }
    }
    evidence.push(format!(
        "no choice has a majority of the {n} coders behind it: accept (the safe default)"
    ));
    (Choice::Accept, evidence)
}

fn names(c: &[&String]) -> String {
    if c.is_empty() {
        "none".into()
    } else {
        crate::english::and_list(c.iter().map(|s| s.as_str()).collect::<Vec<_>>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::{Event, SuiteEntry};

    fn summary(vectors: &[(&str, &[bool])]) -> Summary {
        let mut s = Summary::new("dixit", None);
        s.add(
            "run",
            &Event::Started {
                coders: vectors.iter().map(|(c, _)| c.to_string()).collect(),
                testers: vec!["tester-1".into()],
                reviewers: Vec::new(),
                seed: 1,
            },
        );
        let tests = vectors.first().map_or(0, |(_, v)| v.len());
        s.add(
            "run",
            &Event::SuiteChanged {
                added: (1..=tests)
                    .map(|n| SuiteEntry {
                        number: n,
                        author: "tester-1".into(),
                        file: format!("test_{n:03}.py"),
                        source: String::new(),
                    })
                    .collect(),
                removed: Vec::new(),
                size: tests,
            },
        );
        for (c, v) in vectors {
            s.add(
                c,
                &Event::Judged {
                    vector: v.to_vec(),
                    build_error: None,
                    cells: Vec::new(),
                },
            );
        }
        s
    }

    fn decide_among(choices: &[Choice], s: &Summary) -> Choice {
        decide(PolicyName::Majority, choices, s).unwrap().0
    }

    /// A coder whose code does not build while most coders' does is left behind (the stop
    /// names no test it fails: the suite is empty); two of three that do not build are not;
    /// a decision journaled under the rule before this one is decided again under it.
    #[test]
    fn a_coder_whose_code_does_not_build_is_left_behind_when_most_coders_build() {
        let mut s = summary(&[("coder-1", &[]), ("coder-2", &[]), ("coder-3", &[])]);
        let broken = |s: &mut Summary, c: &str| {
            s.add(
                c,
                &Event::Judged {
                    vector: Vec::new(),
                    build_error: Some("error[E0308]: mismatched types".into()),
                    cells: Vec::new(),
                },
            )
        };
        broken(&mut s, "coder-2");
        let offer = [
            Choice::LeaveBehind {
                coder: "coder-2".into(),
            },
            Choice::Accept,
        ];
        let (choice, note) = decide(PolicyName::Majority, &offer, &s).unwrap();
        assert_eq!(choice, offer[0]);
        assert_eq!(note.rule, MAJORITY_RULE);
        assert_eq!(
            note.evidence,
            ["coder-2's code does not build; 2 of 3 coders' code builds (coder-1 and coder-3)"]
        );
        let (old, note) = decide_under(PolicyName::Majority, MAJORITY_RULE_1, &offer, &s).unwrap();
        assert_eq!((old, note.rule.as_str()), (Choice::Accept, MAJORITY_RULE_1));
        broken(&mut s, "coder-3");
        assert_eq!(
            decide_among(&offer, &s),
            Choice::Accept,
            "most do not build"
        );
    }

    /// The odd coder out is left behind; a test most coders fail is dropped; without a
    /// majority, accept; the person's policy decides nothing.
    #[test]
    fn the_majority_rule() {
        let s = summary(&[
            ("coder-1", &[true, true]),
            ("coder-2", &[true, false]),
            ("coder-3", &[true, true]),
        ]);
        let offer = [
            Choice::DropTest { test: 2 },
            Choice::LeaveBehind {
                coder: "coder-2".into(),
            },
            Choice::Accept,
        ];
        let (choice, note) = decide(PolicyName::Majority, &offer, &s).unwrap();
        assert_eq!(
            choice,
            Choice::LeaveBehind {
                coder: "coder-2".into()
            }
        );
        assert!(note
            .evidence
            .iter()
            .any(|e| e.contains("test 2: 2 of 3 coders pass it (coder-1 and coder-3)")));
        let s = summary(&[
            ("coder-1", &[true, false]),
            ("coder-2", &[true, false]),
            ("coder-3", &[true, true]),
        ]);
        let offer = [
            Choice::DropTest { test: 2 },
            Choice::LeaveBehind {
                coder: "coder-1".into(),
            },
            Choice::Accept,
        ];
        assert_eq!(decide_among(&offer, &s), Choice::DropTest { test: 2 });
        // Two coders: no majority can leave one behind.
        let s = summary(&[("coder-1", &[true]), ("coder-2", &[false])]);
        let offer = [
            Choice::DropTest { test: 1 },
            Choice::LeaveBehind {
                coder: "coder-2".into(),
            },
            Choice::Accept,
        ];
        assert_eq!(decide_among(&offer, &s), Choice::Accept);
        assert!(decide(PolicyName::Person, &offer, &s).is_none());
    }

    /// A hibernating tester's tests that most coders fail are discarded, and the hidden tests
    /// never count: a summary that says every coder passes them changes nothing.
    #[test]
    fn hibernated_tests_most_coders_fail_are_discarded_whatever_the_hidden_tests_say() {
        let mut s = summary(&[("coder-1", &[]), ("coder-2", &[]), ("coder-3", &[])]);
        for (t, failures) in [("tester-1#3", 3), ("tester-1#4", 2)] {
            s.add(
                "tester-1",
                &Event::Classified {
                    test: t.into(),
                    class: crate::classify::Class::TooHard,
                    failures,
                    pool: 3,
                    build_error: None,
                    cells: Vec::new(),
                },
            );
        }
        s.add(
            "tester-1",
            &Event::Hibernated {
                tests: vec!["tester-1#3".into(), "tester-1#4".into()],
            },
        );
        for c in ["coder-1", "coder-2", "coder-3"] {
            s.add(
                c,
                &Event::Hidden {
                    passed: 1,
                    total: 1,
                    cells: Vec::new(),
                },
            );
        }
        let offer = [
            Choice::Wake {
                tester: "tester-1".into(),
            },
            Choice::Discard {
                tester: "tester-1".into(),
            },
            Choice::Accept,
        ];
        assert_eq!(
            decide_among(&offer, &s),
            Choice::Discard {
                tester: "tester-1".into()
            }
        );
    }
}
