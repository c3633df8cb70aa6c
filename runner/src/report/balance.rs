//! The balance a person reads at a stop before choosing, the same on the page and in the
//! terminal and in the same order: each coder's suite and hidden results, one balance line per
//! group of failing tests (who passes them, who fails them, and what the hidden tests say), and
//! where the final implementations disagree, grouped by who answers alone.

use std::collections::BTreeMap;

use crate::english::and_list;
use crate::outcome::Summary;

/// What the person reads first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Balance {
    /// One line per coder: `coder-4: fails tests 1 and 2 of 2 · hidden tests 0/3`.
    pub coders: Vec<(String, String)>,
    /// Who agrees with which tests: `3 of 4 coders and the hidden tests agree with tests 1 and
    /// 2; coder-4 alone fails them`.
    pub balance: Vec<String>,
    /// Disagreements by the odd one out: `coder-4 alone answers differently on 32 of the 36
    /// calls the tests made`.
    pub odd: Vec<String>,
}

impl Balance {
    /// Nothing to show.
    pub fn is_empty(&self) -> bool {
        self.coders.is_empty() && self.balance.is_empty() && self.odd.is_empty()
    }
}

/// What a person reads first at a stop of the run of summary `s`.
pub fn balance(s: &Summary) -> Balance {
    let numbers: Vec<usize> = s.suite.iter().map(|t| t.number).collect();
    let number = |j: usize| {
        if numbers.len()
            == s.coders
                .values()
                .map(|c| c.last_vector.len())
                .max()
                .unwrap_or(0)
        {
            numbers[j]
        } else {
            j + 1
        }
    };
    let tests = |list: &[usize]| {
        format!(
            "{} {}",
            if list.len() == 1 { "test" } else { "tests" },
            and_list(list)
        )
    };
    let coders: Vec<(String, String)> = s
        .coders
        .iter()
        .map(|(name, c)| {
            let failing: Vec<usize> = c
                .last_vector
                .iter()
                .enumerate()
                .filter(|(_, p)| !**p)
                .map(|(j, _)| number(j))
                .collect();
            let suite = if c.last_vector.is_empty() {
                "not checked against a suite".to_string()
            } else if failing.is_empty() {
                format!("passes all {} suite tests", c.last_vector.len())
                    .replace("all 1 suite tests", "the suite's 1 test")
            } else {
                format!("fails {} of {}", tests(&failing), c.last_vector.len())
            };
            let hidden = c
                .hidden
                .map(|(p, t)| format!(" · hidden tests {p}/{t}"))
                .unwrap_or_default();
            let gone = if s.left_behind.contains(name) {
                " · left behind"
            } else {
                ""
            };
            (name.clone(), format!("{suite}{hidden}{gone}"))
        })
        .collect();
    let mut balance = lines(s, &number, &tests);
    if let Some(p) = s.part.get() {
        balance.extend(p.balance(s));
    }
    Balance {
        coders,
        balance,
        odd: odd_one_out(s),
    }
}

/// One line per set of coders failing the same tests.
fn lines(
    s: &Summary,
    number: &dyn Fn(usize) -> usize,
    tests: &dyn Fn(&[usize]) -> String,
) -> Vec<String> {
    let active: Vec<&String> = s
        .coders
        .keys()
        .filter(|c| !s.left_behind.contains(c))
        .collect();
    let n = active.len();
    if n == 0 {
        return Vec::new();
    }
    let len = s
        .coders
        .values()
        .map(|c| c.last_vector.len())
        .max()
        .unwrap_or(0);
    // Failing coders → the tests they (and only they) fail.
    let mut groups: BTreeMap<Vec<&String>, Vec<usize>> = BTreeMap::new();
    for j in 0..len {
        let failers: Vec<&String> = active
            .iter()
            .copied()
            .filter(|c| s.coders[*c].last_vector.get(j) == Some(&false))
            .collect();
        if !failers.is_empty() {
            groups.entry(failers).or_default().push(number(j));
        }
    }
    let hidden_ok = |c: &String| s.coders[c].hidden.map(|(p, t)| p == t);
    let all_hidden = active.iter().all(|c| s.coders[*c].hidden.is_some());
    if groups.is_empty() {
        if len == 0 {
            return Vec::new();
        }
        let mut line = format!(
            "all {n} coders pass the suite's {}",
            if len == 1 {
                "test".to_string()
            } else {
                format!("{len} tests")
            }
        );
        if all_hidden {
            let failing: Vec<&String> = active
                .iter()
                .copied()
                .filter(|c| hidden_ok(c) == Some(false))
                .collect();
            if failing.is_empty() {
                line.push_str(", and the hidden tests");
            } else {
                line.push_str(&format!(
                    ", but {} {} hidden tests",
                    and_list(&failing),
                    if failing.len() == 1 { "fails" } else { "fail" }
                ));
            }
        }
        return vec![line];
    }
    let mut groups: Vec<(Vec<&String>, Vec<usize>)> = groups.into_iter().collect();
    groups.sort_by_key(|(_, failed)| failed[0]);
    groups
        .into_iter()
        .map(|(failers, failed)| {
            let passers: Vec<&String> = active
                .iter()
                .copied()
                .filter(|c| !failers.contains(c))
                .collect();
            let them = if failed.len() == 1 { "it" } else { "them" };
            let who = if failers.len() == 1 && n > 2 {
                format!("{} alone fails {them}", failers[0])
            } else {
                format!(
                    "{} {} {them}",
                    and_list(&failers),
                    if failers.len() == 1 { "fails" } else { "fail" }
                )
            };
            let of = format!(
                "{} of {n} {}",
                passers.len(),
                if n == 1 { "coder" } else { "coders" }
            );
            if !all_hidden {
                return format!("{of} pass {}; {who}", tests(&failed));
            }
            let passers_right = passers.iter().all(|c| hidden_ok(c) == Some(true));
            let failers_wrong = failers.iter().all(|c| hidden_ok(c) == Some(false));
            let failers_right: Vec<&String> = failers
                .iter()
                .copied()
                .filter(|c| hidden_ok(c) == Some(true))
                .collect();
            if !passers.is_empty() && passers_right && failers_wrong {
                format!(
                    "{of} and the hidden tests agree with {}; {who}",
                    tests(&failed)
                )
            } else if !failers_right.is_empty() {
                format!(
                    "{of} pass {}; {who}, but {} {} the hidden tests: perhaps the {} wrong",
                    tests(&failed),
                    and_list(&failers_right),
                    if failers_right.len() == 1 {
                        "passes"
                    } else {
                        "pass"
                    },
                    if failed.len() == 1 {
                        "test is"
                    } else {
                        "tests are"
                    }
                )
            } else {
                format!(
                    "{of} pass {}; {who} (the hidden tests fail {} of the coders that pass {them})",
                    tests(&failed),
                    passers
                        .iter()
                        .filter(|c| hidden_ok(c) == Some(false))
                        .count()
                )
            }
        })
        .collect()
}

/// Disagreements grouped by the coder that answers alone (with three coders or more).
fn odd_one_out(s: &Summary) -> Vec<String> {
    let Some(d) = &s.disagreements else {
        return Vec::new();
    };
    let differing = d.count();
    if d.error.is_some() || differing == 0 {
        return Vec::new();
    }
    if d.implementations.len() < 3 {
        return vec![format!(
            "{} answer differently on {} of the {} calls the tests made",
            and_list(&d.implementations),
            differing,
            d.calls
        )];
    }
    let mut alone: BTreeMap<&str, usize> = BTreeMap::new();
    for f in &d.functions {
        for call in &f.inputs {
            if let [a, b] = call.answers.as_slice() {
                let single = match (a.coders.len(), b.coders.len()) {
                    (1, k) if k > 1 => Some(&a.coders[0]),
                    (k, 1) if k > 1 => Some(&b.coders[0]),
                    _ => None,
                };
                if let Some(c) = single {
                    *alone.entry(c.as_str()).or_default() += 1;
                }
            }
        }
    }
    let mut ranked: Vec<(&str, usize)> = alone.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let grouped: usize = ranked.iter().map(|(_, k)| k).sum();
    let mut out: Vec<String> = ranked
        .into_iter()
        .map(|(c, k)| {
            format!(
                "{c} alone answers differently on {k} of the {} calls the tests made",
                d.calls
            )
        })
        .collect();
    if differing > grouped {
        let rest = differing - grouped;
        out.push(if rest == 1 {
            "1 other call splits the coders otherwise".to_string()
        } else {
            format!("{rest} other calls split the coders otherwise")
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consensus::{AnswerGroup, Disagreement, Disagreements, FunctionDisagreements};
    use crate::outcome::{CoderStats, SuiteItem};

    /// A coder: its name, its suite vector and its hidden result.
    type Coder<'a> = (&'a str, &'a [bool], Option<(usize, usize)>);

    fn summary(coders: &[Coder]) -> Summary {
        let mut s = Summary::new("dixit", None);
        for (name, v, hidden) in coders {
            s.coders.insert(
                name.to_string(),
                CoderStats {
                    last_vector: v.to_vec(),
                    hidden: *hidden,
                    ..Default::default()
                },
            );
        }
        let len = coders.iter().map(|c| c.1.len()).max().unwrap_or(0);
        s.suite = (1..=len)
            .map(|number| SuiteItem {
                number,
                author: "tester-1".into(),
                file: format!("test_{number}.py"),
            })
            .collect();
        s
    }

    #[test]
    fn the_hidden_tests_side_with_the_majority() {
        let s = summary(&[
            ("coder-1", &[true, true], Some((3, 3))),
            ("coder-2", &[true, true], Some((3, 3))),
            ("coder-3", &[true, true], Some((3, 3))),
            ("coder-4", &[false, false], Some((0, 3))),
        ]);
        let e = balance(&s);
        assert_eq!(
            e.balance,
            ["3 of 4 coders and the hidden tests agree with tests 1 and 2; coder-4 alone fails them"]
        );
        assert_eq!(
            e.coders[3],
            (
                "coder-4".to_string(),
                "fails tests 1 and 2 of 2 · hidden tests 0/3".to_string()
            )
        );
        assert_eq!(e.coders[0].1, "passes all 2 suite tests · hidden tests 3/3");
    }

    #[test]
    fn the_hidden_tests_side_with_the_one_that_fails() {
        let s = summary(&[
            ("coder-1", &[true, true], Some((1, 2))),
            ("coder-2", &[true, true], Some((1, 2))),
            ("coder-3", &[true, false], Some((2, 2))),
        ]);
        assert_eq!(
            balance(&s).balance,
            ["2 of 3 coders pass test 2; coder-3 alone fails it, but coder-3 passes the hidden tests: perhaps the test is wrong"]
        );
    }

    #[test]
    fn without_hidden_tests_and_without_failures() {
        let s = summary(&[
            ("coder-1", &[true, false, false], None),
            ("coder-2", &[true, true, false], None),
            ("coder-3", &[true, true, true], None),
        ]);
        assert_eq!(
            balance(&s).balance,
            [
                "2 of 3 coders pass test 2; coder-1 alone fails it",
                "1 of 3 coders pass test 3; coder-1 and coder-2 fail it"
            ]
        );
        let s = summary(&[
            ("coder-1", &[true], Some((1, 1))),
            ("coder-2", &[true], Some((0, 1))),
        ]);
        assert_eq!(
            balance(&s).balance,
            ["all 2 coders pass the suite's test, but coder-2 fails hidden tests"]
        );
    }

    #[test]
    fn a_coder_left_behind_is_not_counted() {
        let mut s = summary(&[
            ("coder-1", &[true, false], None),
            ("coder-2", &[true, true], None),
            ("coder-3", &[true, true], None),
        ]);
        s.left_behind.push("coder-1".into());
        let e = balance(&s);
        assert_eq!(e.balance, ["all 2 coders pass the suite's 2 tests"]);
        assert!(e.coders[0].1.ends_with("· left behind"), "{:?}", e.coders);
    }

    #[test]
    fn disagreements_grouped_by_the_odd_one_out() {
        let mut s = summary(&[
            ("coder-1", &[true], None),
            ("coder-2", &[true], None),
            ("coder-3", &[true], None),
        ]);
        let group = |answer: &str, coders: &[&str]| AnswerGroup {
            kind: "value".into(),
            answer: answer.into(),
            coders: coders.iter().map(|c| c.to_string()).collect(),
        };
        let call = |answers: Vec<AnswerGroup>| Disagreement {
            call: "f(1)".into(),
            args: serde_json::json!([]),
            kwargs: serde_json::json!([]),
            tests: vec![],
            answers,
        };
        s.disagreements = Some(Disagreements {
            implementations: vec!["coder-1".into(), "coder-2".into(), "coder-3".into()],
            calls: 10,
            functions: vec![FunctionDisagreements {
                function: "f".into(),
                inputs: vec![
                    call(vec![
                        group("1", &["coder-1", "coder-2"]),
                        group("2", &["coder-3"]),
                    ]),
                    call(vec![
                        group("2", &["coder-3"]),
                        group("1", &["coder-1", "coder-2"]),
                    ]),
                    call(vec![
                        group("1", &["coder-1"]),
                        group("2", &["coder-2", "coder-3"]),
                    ]),
                    call(vec![
                        group("1", &["coder-1"]),
                        group("2", &["coder-2"]),
                        group("3", &["coder-3"]),
                    ]),
                ],
            }],
            ..Default::default()
        });
        assert_eq!(
            balance(&s).odd,
            [
                "coder-3 alone answers differently on 2 of the 10 calls the tests made",
                "coder-1 alone answers differently on 1 of the 10 calls the tests made",
                "1 other call splits the coders otherwise"
            ]
        );
    }
}
