//! A problem's [`Outputs`] assembled from the calls its verdict matrix's runs made: each run of a
//! generated test against a solution is read off the bridge ([`crate::consensus`]'s reader, the
//! one the disagreement finder uses), so the answers are the solution's own, carried by the host,
//! and cost no run of their own. The hidden check's runs and the reference solution's are not
//! read: selection must not see them.
//!
//! Runs finish in any order on any thread, so each run's calls and answers are first numbered
//! in a table the problem's runs share ([`Seen`], whose numbers depend on scheduling); a run keeps
//! only those pairs of numbers. [`Recorder`] then numbers calls in the order the tests first made
//! them (test order, then solution order) and answers by first use; a solution's answer to a
//! call is the first it gave. The result depends only on the runs' results.

use std::collections::HashMap;
use std::sync::Mutex;

use super::observe::{call_key, observe, ObservedAnswer};
use crate::sandbox::Exchange;
use crate::selection::{AnswerClass, AnswerKind, Outputs};

/// A run's calls, each a (call, answer) pair of [`Seen`]'s numbers, in the order made.
pub(crate) type SeenCalls = Vec<(u32, u32)>;

/// The distinct calls and answers the runs of one problem have shown so far, numbered as they
/// came.
#[derive(Default)]
pub(crate) struct Seen {
    inner: Mutex<Table>,
}

#[derive(Default)]
struct Table {
    call_index: HashMap<String, u32>,
    calls: Vec<String>,
    answer_index: HashMap<String, u32>,
    answers: Vec<AnswerClass>,
}

impl Seen {
    /// The calls a run made, read off its bridge exchanges.
    pub(crate) fn note(&self, exchanges: &[Exchange]) -> SeenCalls {
        let observed = observe(exchanges).calls;
        if observed.is_empty() {
            return Vec::new();
        }
        let mut t = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        observed
            .iter()
            .map(|(call, answer)| {
                let key = call_key(call);
                let c = match t.call_index.get(&key) {
                    Some(&c) => c,
                    None => {
                        let c = t.calls.len() as u32;
                        t.call_index.insert(key, c);
                        t.calls.push(call.shown());
                        c
                    }
                };
                let key = answer.key();
                let class = class_of(answer);
                let a = match t.answer_index.get(&key) {
                    Some(&a) => {
                        // Answers Python calls equal can read differently (`0` and `0.0`): the
                        // class shows the shortest, then least, so that what it shows does not
                        // depend on which run came first.
                        let shown = &mut t.answers[a as usize].shown;
                        if (class.shown.len(), &class.shown) < (shown.len(), shown) {
                            *shown = class.shown;
                        }
                        a
                    }
                    None => {
                        let a = t.answers.len() as u32;
                        t.answers.push(class);
                        t.answer_index.insert(key, a);
                        a
                    }
                };
                (c, a)
            })
            .collect()
    }

    fn into_table(self) -> Table {
        self.inner.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

/// Builds the [`Outputs`] of one problem from its runs' [`SeenCalls`], renumbered.
pub(crate) struct Recorder {
    seen: Table,
    calls: Vec<Option<u32>>,
    call_order: Vec<u32>,
    answers: Vec<Option<u32>>,
    answer_order: Vec<u32>,
    rows: Vec<Vec<Option<u32>>>,
}

impl Recorder {
    pub(crate) fn new(seen: Seen, solutions: usize) -> Self {
        let seen = seen.into_table();
        Recorder {
            calls: vec![None; seen.calls.len()],
            answers: vec![None; seen.answers.len()],
            seen,
            call_order: Vec::new(),
            answer_order: Vec::new(),
            rows: vec![Vec::new(); solutions],
        }
    }

    /// The calls one run of `solution` made, in the order made: the first answer to a call
    /// stands.
    pub(crate) fn record(&mut self, solution: usize, calls: &[(u32, u32)]) {
        for &(call, answer) in calls {
            let c = *self.calls[call as usize].get_or_insert_with(|| {
                self.call_order.push(call);
                self.call_order.len() as u32 - 1
            }) as usize;
            let row = &mut self.rows[solution];
            if row.len() <= c {
                row.resize(c + 1, None);
            }
            if row[c].is_none() {
                let a = *self.answers[answer as usize].get_or_insert_with(|| {
                    self.answer_order.push(answer);
                    self.answer_order.len() as u32 - 1
                });
                row[c] = Some(a);
            }
        }
    }

    /// The outputs: a call a solution was never asked is answered "not asked".
    pub(crate) fn finish(self) -> Outputs {
        let mut answers: Vec<AnswerClass> = self
            .answer_order
            .iter()
            .map(|&a| self.seen.answers[a as usize].clone())
            .collect();
        let n = self.call_order.len();
        let mut not_asked = None;
        let rows = self
            .rows
            .into_iter()
            .map(|row| {
                (0..n)
                    .map(|c| match row.get(c).copied().flatten() {
                        Some(a) => a,
                        None => *not_asked.get_or_insert_with(|| {
                            answers.push(AnswerClass {
                                kind: AnswerKind::NotAsked,
                                shown: "not asked".into(),
                            });
                            answers.len() as u32 - 1
                        }),
                    })
                    .collect()
            })
            .collect();
        Outputs {
            calls: self
                .call_order
                .iter()
                .map(|&c| self.seen.calls[c as usize].clone())
                .collect(),
            answers,
            rows,
        }
    }
}

fn class_of(answer: &ObservedAnswer) -> AnswerClass {
    let (kind, shown) = answer.shown();
    let kind = match kind {
        "value" => AnswerKind::Value,
        "raised" => AnswerKind::Raised,
        "unrepresentable" => AnswerKind::Unrepresentable,
        "missing" => AnswerKind::Missing,
        _ => AnswerKind::NoAnswer,
    };
    AnswerClass { kind, shown }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::boundary::{Answer as A, Call, Callee, Value};

    /// One run of a test making the calls `f(x)` for each `(x, answer)`.
    fn run(calls: &[(i64, A)]) -> Vec<Exchange> {
        calls
            .iter()
            .map(|(x, answer)| Exchange {
                call: Call {
                    callee: Callee::Function("f".into()),
                    args: vec![Value::Int(x.to_string())],
                    kwargs: Vec::new(),
                },
                answer: answer.clone(),
            })
            .collect()
    }

    fn int(i: i64) -> A {
        A::Returned {
            value: Value::Int(i.to_string()),
            out: Vec::new(),
        }
    }

    fn raises() -> A {
        A::Raised {
            class: "ValueError".into(),
            message: String::new(),
        }
    }

    #[test]
    fn calls_and_answers_are_numbered_by_first_appearance_whatever_the_runs_order() {
        // Three solutions; test 1 calls f(1), test 2 calls f(2) then f(1). Solution 2 does not
        // build: never asked.
        let runs: Vec<(usize, usize, Vec<Exchange>)> = vec![
            (0, 0, run(&[(1, int(2))])),
            (1, 0, run(&[(1, int(1))])),
            (0, 1, run(&[(2, int(3)), (1, A::Ended)])), // f(1) unanswered: the first answer stands
            (1, 1, run(&[(2, raises())])),
        ];
        let outputs = |order: &[usize]| {
            let seen = Seen::default();
            let mut noted = vec![vec![Vec::new(); 2]; 3];
            for &k in order {
                let (i, j, ex) = &runs[k];
                noted[*i][*j] = seen.note(ex);
            }
            let mut r = Recorder::new(seen, 3);
            for j in 0..2 {
                for (i, by_test) in noted.iter().enumerate() {
                    r.record(i, &by_test[j]);
                }
            }
            r.finish()
        };
        let o = outputs(&[0, 1, 2, 3]);
        // The same whatever order the runs finished in.
        assert_eq!(o, outputs(&[3, 2, 1, 0]));
        assert_eq!(o, outputs(&[2, 0, 3, 1]));
        assert_eq!(o.calls, ["f(1)", "f(2)"]);
        let shown = |i: usize| -> Vec<&str> {
            o.rows[i]
                .iter()
                .map(|&a| o.answers[a as usize].shown.as_str())
                .collect()
        };
        assert_eq!(shown(0), ["2", "3"]);
        assert_eq!(shown(1), ["1", "raises ValueError"]);
        assert_eq!(shown(2), ["not asked", "not asked"]);
        assert_eq!(o.rows, vec![vec![0, 2], vec![1, 3], vec![4, 4]]);
        o.validate(3).unwrap();
    }

    #[test]
    fn equal_answers_show_one_text_whatever_came_first() {
        let float = A::Returned {
            value: Value::Float(3.0),
            out: Vec::new(),
        };
        for order in [[0, 1], [1, 0]] {
            let runs = [run(&[(2, float.clone())]), run(&[(2, int(3))])];
            let seen = Seen::default();
            let noted: Vec<SeenCalls> = order.iter().map(|&k| seen.note(&runs[k])).collect();
            let mut r = Recorder::new(seen, 2);
            for (i, calls) in noted.iter().enumerate() {
                r.record(i, calls);
            }
            let o = r.finish();
            // 3.0 == 3 in Python: one class, shown as the shorter text.
            assert_eq!(o.rows, vec![vec![0], vec![0]]);
            assert_eq!(o.answers[0].shown, "3");
        }
    }
}
