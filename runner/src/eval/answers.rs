//! A problem's [`Outputs`] assembled from the calls its verdict matrix's runs made: each run of a
//! generated test against a solution is read off the bridge ([`crate::consensus`]'s reader, the
//! one the disagreement finder uses), so the answers are the solution's own, carried by the host,
//! and cost no run of their own.
//!
//! Calls are numbered in the order the tests first made them (test order, then solution order),
//! answers by first appearance; a solution's answer to a call is the first it gave. Everything
//! depends only on the runs' results, never on their scheduling.

use std::collections::HashMap;

use super::scoring::{AnswerClass, AnswerKind, Outputs};
use crate::consensus::observe::{call_key, Answer, Call};

/// Builds the [`Outputs`] of one problem with `solutions` unique solutions.
pub(super) struct Recorder {
    calls: Vec<String>,
    call_index: HashMap<String, usize>,
    answers: Vec<AnswerClass>,
    answer_index: HashMap<String, u32>,
    rows: Vec<Vec<Option<u32>>>,
}

impl Recorder {
    pub(super) fn new(solutions: usize) -> Self {
        Recorder {
            calls: Vec::new(),
            call_index: HashMap::new(),
            answers: Vec::new(),
            answer_index: HashMap::new(),
            rows: vec![Vec::new(); solutions],
        }
    }

    /// The calls one run of `solution` made, with its answers, in the order made.
    pub(super) fn record(&mut self, solution: usize, calls: &[(Call, Answer)]) {
        for (call, answer) in calls {
            let c = match self.call_index.get(&call_key(call)) {
                Some(&c) => c,
                None => {
                    self.call_index.insert(call_key(call), self.calls.len());
                    self.calls.push(call.shown());
                    self.calls.len() - 1
                }
            };
            if self.rows[solution].get(c).copied().flatten().is_none() {
                let (kind, shown) = class_of(answer);
                let a = self.intern(answer.key(), kind, shown);
                let row = &mut self.rows[solution];
                if row.len() <= c {
                    row.resize(c + 1, None);
                }
                row[c] = Some(a);
            }
        }
    }

    fn intern(&mut self, key: String, kind: AnswerKind, shown: String) -> u32 {
        if let Some(&a) = self.answer_index.get(&key) {
            return a;
        }
        let a = self.answers.len() as u32;
        self.answers.push(AnswerClass { kind, shown });
        self.answer_index.insert(key, a);
        a
    }

    /// The outputs: a call a solution was never asked is answered "not asked".
    pub(super) fn finish(mut self) -> Outputs {
        let n = self.calls.len();
        let mut not_asked = None;
        let mut rows = Vec::with_capacity(self.rows.len());
        for row in std::mem::take(&mut self.rows) {
            let mut out = Vec::with_capacity(n);
            for c in 0..n {
                let a = match row.get(c).copied().flatten() {
                    Some(a) => a,
                    None => *not_asked.get_or_insert_with(|| {
                        self.intern("not asked".into(), AnswerKind::NotAsked, "not asked".into())
                    }),
                };
                out.push(a);
            }
            rows.push(out);
        }
        Outputs {
            calls: self.calls,
            answers: self.answers,
            rows,
        }
    }
}

fn class_of(answer: &Answer) -> (AnswerKind, String) {
    let (kind, shown) = answer.shown();
    let kind = match kind {
        "value" => AnswerKind::Value,
        "raised" => AnswerKind::Raised,
        "unrepresentable" => AnswerKind::Unrepresentable,
        "missing" => AnswerKind::Missing,
        _ => AnswerKind::NoAnswer,
    };
    (kind, shown)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consensus::value::Value;

    fn call(f: &str, x: i64) -> Call {
        Call {
            function: f.into(),
            args: vec![Value::Int(x.to_string())],
            kwargs: Vec::new(),
        }
    }

    fn int(x: i64) -> Answer {
        Answer::Value(Value::Int(x.to_string()))
    }

    #[test]
    fn calls_and_answers_are_numbered_by_first_appearance() {
        let mut r = Recorder::new(3);
        // Test 1 against each solution, then test 2.
        r.record(0, &[(call("f", 1), int(1))]);
        r.record(1, &[(call("f", 1), int(2))]);
        r.record(2, &[]); // does not build: never asked
        r.record(
            0,
            &[
                (call("f", 2), int(2)),
                (call("f", 1), int(9)), // asked again: the first answer stands
            ],
        );
        r.record(
            1,
            &[(
                call("f", 2),
                Answer::Raised {
                    exception: "ValueError".into(),
                },
            )],
        );
        let o = r.finish();
        assert_eq!(o.calls, ["f(1)", "f(2)"]);
        // Answers 1 and 2 are classes 0 and 1 whatever call gave them; then the raise.
        assert_eq!(o.rows, vec![vec![0, 1], vec![1, 2], vec![3, 3]]);
        assert_eq!(o.answers[2].kind, AnswerKind::Raised);
        assert_eq!(o.answers[2].shown, "raises ValueError");
        assert_eq!(o.answers[3].kind, AnswerKind::NotAsked);
        o.validate(3).unwrap();
    }
}
