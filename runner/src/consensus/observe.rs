//! Reading a run's bridge: the calls a test made into the solution and the answers it got,
//! off the exchanges the host carried ([`crate::sandbox::Exchange`]), which the host read and
//! checked as they crossed. The disagreement finder and `dixit eval`'s outputs read runs
//! through this one reader.

use super::{AnswerGroup, NAME_CHARS, SHOWN};
use crate::sandbox::boundary::{self, Bounds, Callee, Value};

/// An implementation's answer to one call.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ObservedAnswer {
    /// Returned plain data.
    Value(Value),
    /// Raised an exception (in the call, or importing the solution raised it).
    Raised { exception: String },
    /// Returned something that is not data (what it was), or an object of the solution's.
    Unrepresentable(String),
    /// The solution has no such function.
    Missing,
    /// No answer: the run ended without one (its verdict: `time_limit`, `memory_limit`, ...).
    Silent(String),
}

impl ObservedAnswer {
    /// Equal for answers Python would call the same: values by `==`, exceptions by type.
    pub(crate) fn key(&self) -> String {
        match self {
            ObservedAnswer::Value(v) => format!("v{}", v.key()),
            ObservedAnswer::Raised { exception } => format!("r{exception}"),
            ObservedAnswer::Unrepresentable(t) => format!("u{t}"),
            ObservedAnswer::Missing => "m".into(),
            ObservedAnswer::Silent(why) => format!("n{why}"),
        }
    }

    pub(crate) fn group(&self, coders: Vec<String>) -> AnswerGroup {
        let (kind, answer) = self.shown();
        AnswerGroup {
            kind: kind.into(),
            answer,
            coders,
        }
    }

    /// Its kind (`value`, `raised`, `unrepresentable`, `missing`, `no_answer`) and the answer
    /// for people.
    pub(crate) fn shown(&self) -> (&'static str, String) {
        match self {
            ObservedAnswer::Value(v) => ("value", v.repr(SHOWN)),
            ObservedAnswer::Raised { exception } => ("raised", format!("raises {exception}")),
            ObservedAnswer::Unrepresentable(t) => (
                "unrepresentable",
                format!("returns {t} (not data, not compared)"),
            ),
            ObservedAnswer::Missing => ("missing", "has no such function".to_string()),
            ObservedAnswer::Silent(why) => ("no_answer", format!("no answer ({why})")),
        }
    }
}

/// One recorded call: a function and plain-data arguments.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ObservedCall {
    pub(crate) function: String,
    pub(crate) args: Vec<Value>,
    pub(crate) kwargs: Vec<(String, Value)>,
}

impl ObservedCall {
    pub(crate) fn shown(&self) -> String {
        let mut parts: Vec<String> = self.args.iter().map(|a| a.repr(SHOWN)).collect();
        parts.extend(
            self.kwargs
                .iter()
                .map(|(k, v)| format!("{k}={}", v.repr(SHOWN))),
        );
        let s = format!("{}({})", self.function, parts.join(", "));
        cut(&s, SHOWN)
    }

    pub(crate) fn to_json(&self) -> (serde_json::Value, serde_json::Value) {
        (
            serde_json::Value::Array(self.args.iter().map(Value::to_json).collect()),
            serde_json::Value::Array(
                self.kwargs
                    .iter()
                    .map(|(k, v)| serde_json::json!([k, v.to_json()]))
                    .collect(),
            ),
        )
    }
}

pub(crate) fn cut(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut k = max;
    while !s.is_char_boundary(k) {
        k -= 1;
    }
    format!("{}…", &s[..k])
}

/// What one observed run showed: the calls the test made (on functions it got from
/// `solution`) with the implementation's answers.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Observed {
    pub(crate) calls: Vec<(ObservedCall, ObservedAnswer)>,
    /// Names the test asked `solution` for that it does not have.
    pub(crate) missing: Vec<String>,
    /// Calls whose arguments were not plain data (an object of the implementation's).
    pub(crate) not_replayable: usize,
    /// Why the run could not be made (then nothing else is known).
    pub(crate) failure: Option<String>,
}

impl Observed {
    pub(crate) fn failed(why: String) -> Self {
        Observed {
            failure: Some(why),
            ..Default::default()
        }
    }
}

/// Reads the calls and answers off a run's bridge exchanges, which the host has already read,
/// checked and written again ([`crate::sandbox::boundary`]): each is a call of a name of the
/// interface with data arguments, and the answer the test received (or the one that ended the
/// run). Calls on an object of the implementation's, or with one among their arguments, are
/// not comparable; a value beyond [`Bounds::COMPARED`] is not compared.
pub(crate) fn observe(exchanges: &[crate::sandbox::Exchange]) -> Observed {
    let mut out = Observed::default();
    for ex in exchanges {
        let function = match &ex.call.callee {
            Callee::Function(name) => name.clone(),
            Callee::Method { .. } => {
                out.not_replayable += 1;
                continue;
            }
        };
        if let boundary::Answer::Missing(name) = &ex.answer {
            if !out.missing.iter().any(|m| m == name) {
                out.missing.push(cut(name, NAME_CHARS));
            }
        }
        let comparable = |v: &Value| v.within(&Bounds::COMPARED) && !has_handle(v);
        if !ex.call.args.iter().all(comparable)
            || !ex
                .call
                .kwargs
                .iter()
                .all(|(k, v)| k.len() <= NAME_CHARS && comparable(v))
        {
            out.not_replayable += 1;
            continue;
        }
        let call = ObservedCall {
            function,
            args: ex.call.args.clone(),
            kwargs: ex.call.kwargs.clone(),
        };
        out.calls.push((call, answer_of(&ex.answer)));
    }
    out
}

/// Why a call that never got its answer has none.
pub(crate) const NO_ANSWER: &str = "the solution's instance ended";

fn has_handle(v: &Value) -> bool {
    let mut found = Vec::new();
    v.handles(&mut found);
    !found.is_empty()
}

/// An implementation's answer as the bridge carried it.
fn answer_of(answer: &boundary::Answer) -> ObservedAnswer {
    use boundary::Answer as A;
    match answer {
        A::Returned { value, .. } => {
            let mut handles = Vec::new();
            value.handles(&mut handles);
            if let Some((_, class)) = handles.first() {
                ObservedAnswer::Unrepresentable(format!("an object of {}", cut(class, NAME_CHARS)))
            } else if value.within(&Bounds::COMPARED) {
                ObservedAnswer::Value(value.clone())
            } else {
                ObservedAnswer::Silent("an answer too large to compare".into())
            }
        }
        A::Raised { class, .. } | A::ImportFailed { class, .. } => ObservedAnswer::Raised {
            exception: class.clone(),
        },
        A::NotData(what) => ObservedAnswer::Unrepresentable(cut(what, NAME_CHARS)),
        A::Missing(_) => ObservedAnswer::Missing,
        A::Malformed(_) => ObservedAnswer::Silent("unreadable answer".into()),
        A::Ended => ObservedAnswer::Silent(NO_ANSWER.into()),
    }
}

/// Equal for calls Python would make identically (arguments compared by `==`).
pub(crate) fn call_key(c: &ObservedCall) -> String {
    let mut k = format!("{}(", c.function);
    for a in &c.args {
        let ak = a.key();
        k.push_str(&format!("{}:{ak},", ak.len()));
    }
    for (name, v) in &c.kwargs {
        let vk = v.key();
        k.push_str(&format!("{name}={}:{vk},", vk.len()));
    }
    k.push(')');
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::boundary::{Answer as A, Call as BCall};
    use crate::sandbox::Exchange;

    fn ex(function: &str, args: Vec<Value>, answer: A) -> Exchange {
        Exchange {
            call: BCall {
                callee: Callee::Function(function.into()),
                args,
                kwargs: Vec::new(),
            },
            answer,
        }
    }

    fn int(i: i64) -> Value {
        Value::Int(i.to_string())
    }

    #[test]
    fn calls_are_read_off_the_bridge_and_bounded() {
        let returned = |value| A::Returned {
            value,
            out: Vec::new(),
        };
        let handle = Value::Handle {
            id: 1,
            class: "Stack".into(),
        };
        let mut kw = ex("f", vec![int(2)], returned(Value::Float(2.0)));
        kw.call.kwargs.push(("k".into(), Value::Str("x".into())));
        let o = observe(&[
            kw,
            ex("f", vec![handle.clone()], returned(Value::None)),
            ex(
                "f",
                vec![],
                A::Raised {
                    class: "ValueError".into(),
                    message: "no".into(),
                },
            ),
            ex("f", vec![Value::List(vec![])], returned(handle)),
            ex("f", vec![int(1)], A::NotData("a generator".into())),
            ex("g", vec![], A::Missing("g".into())),
            ex(
                "f",
                vec![Value::List(vec![Value::None; 20_000])],
                returned(Value::None),
            ),
            ex(
                "f",
                vec![int(3)],
                returned(Value::List(vec![Value::None; 20_000])),
            ),
            ex("f", vec![int(4)], A::Ended),
        ]);
        assert_eq!(o.calls.len(), 7);
        assert_eq!(o.calls[0].0.shown(), "f(2, k='x')");
        assert_eq!(
            o.calls[0].1.key(),
            ObservedAnswer::Value(int(2)).key(),
            "2.0 == 2 in Python"
        );
        assert_eq!(
            o.calls[1].1,
            ObservedAnswer::Raised {
                exception: "ValueError".into()
            }
        );
        assert_eq!(
            o.calls[2].1,
            ObservedAnswer::Unrepresentable("an object of Stack".into())
        );
        assert_eq!(
            o.calls[3].1,
            ObservedAnswer::Unrepresentable("a generator".into())
        );
        assert_eq!(o.calls[4].1, ObservedAnswer::Missing);
        assert!(matches!(&o.calls[5].1, ObservedAnswer::Silent(w) if w.contains("too large")));
        assert_eq!(o.calls[6].1, ObservedAnswer::Silent(NO_ANSWER.into()));
        assert_eq!(
            o.not_replayable, 2,
            "an object argument, an argument too large"
        );
        assert_eq!(o.missing, ["g"]);
    }
}
