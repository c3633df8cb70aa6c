//! Reading a run's bridge: the calls a test made into the solution and the answers it got,
//! off the exchanges the host carried ([`crate::sandbox::Exchange`]). Requests come from the
//! test and answers from the implementation: both are untrusted, parsed within fixed bounds
//! ([`Value::from_json`]), and anything malformed is skipped. The disagreement finder and
//! `dixit eval`'s outputs read runs through this one reader.

use std::collections::BTreeMap;

use super::value::Value;
use super::{AnswerGroup, NAME_CHARS, SHOWN};

/// An implementation's answer to one call.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Answer {
    /// Returned plain data.
    Value(Value),
    /// Raised an exception (in the call, or importing the solution raised it).
    Raised { exception: String },
    /// Returned something that is not plain data (its type).
    Unrepresentable(String),
    /// The solution has no such function.
    Missing,
    /// No answer: the run ended without one (its verdict: `time_limit`, `memory_limit`, ...).
    Silent(String),
}

impl Answer {
    /// Equal for answers Python would call the same: values by `==`, exceptions by type.
    pub(crate) fn key(&self) -> String {
        match self {
            Answer::Value(v) => format!("v{}", v.key()),
            Answer::Raised { exception } => format!("r{exception}"),
            Answer::Unrepresentable(t) => format!("u{t}"),
            Answer::Missing => "m".into(),
            Answer::Silent(why) => format!("n{why}"),
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
            Answer::Value(v) => ("value", v.repr(SHOWN)),
            Answer::Raised { exception } => ("raised", format!("raises {exception}")),
            Answer::Unrepresentable(t) => (
                "unrepresentable",
                format!("returns a {t} (not plain data, not compared)"),
            ),
            Answer::Missing => ("missing", "has no such function".to_string()),
            Answer::Silent(why) => ("no_answer", format!("no answer ({why})")),
        }
    }
}

/// One recorded call: a function and plain-data arguments.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Call {
    pub(crate) function: String,
    pub(crate) args: Vec<Value>,
    pub(crate) kwargs: Vec<(String, Value)>,
}

impl Call {
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
    pub(crate) calls: Vec<(Call, Answer)>,
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

/// Reads the calls and answers off a run's bridge exchanges. Requests come from the test and
/// answers from the implementation: both are untrusted, parsed within bounds, and anything
/// malformed is skipped. The functions are the ones the test got from `solution` by name
/// (`getattr` on the module, as `from solution import f` does) or among the solution's names
/// (`vars`, how offline evaluation runs a test in the solution's namespace). A request whose
/// answer never came (the exchange's answer is empty: the solution's instance ended while
/// answering it) is a call answered with [`Answer::Silent`].
pub(crate) fn observe(exchanges: &[crate::sandbox::Exchange]) -> Observed {
    let mut out = Observed::default();
    let mut functions: BTreeMap<i64, String> = BTreeMap::new();
    for ex in exchanges {
        let Ok(req) = serde_json::from_slice::<serde_json::Value>(&ex.request) else {
            continue;
        };
        let ans = if ex.answer.is_empty() {
            serde_json::Value::Null
        } else {
            match serde_json::from_slice::<serde_json::Value>(&ex.answer) {
                Ok(a) => a,
                Err(_) => continue,
            }
        };
        let handle = req.get("h").and_then(|h| h.as_i64());
        match req.get("op").and_then(|o| o.as_str()) {
            Some("vars") => {
                let Some(entries) = ans.pointer("/value/dict").and_then(|d| d.as_array()) else {
                    continue;
                };
                for entry in entries {
                    let (Some(name), Some(h)) = (
                        entry
                            .pointer("/0")
                            .and_then(|n| n.as_str())
                            .filter(|n| is_name(n)),
                        entry.pointer("/1/handle/0").and_then(|h| h.as_i64()),
                    ) else {
                        continue;
                    };
                    functions.insert(h, name.to_string());
                }
            }
            Some("getattr") if handle == Some(0) => {
                let Some(name) = req
                    .get("name")
                    .and_then(|n| n.as_str())
                    .filter(|n| is_name(n))
                else {
                    continue;
                };
                if let Some(h) = ans.pointer("/value/handle/0").and_then(|h| h.as_i64()) {
                    functions.insert(h, name.to_string());
                } else if raised(&ans).as_deref() == Some("AttributeError")
                    && !out.missing.iter().any(|m| m == name)
                {
                    out.missing.push(name.to_string());
                }
            }
            Some("call") => {
                let Some(function) = handle.and_then(|h| functions.get(&h)) else {
                    continue;
                };
                let args = req.get("args").and_then(|a| a.as_array()).map(|a| {
                    a.iter()
                        .map(Value::from_json)
                        .collect::<Result<Vec<_>, _>>()
                });
                let kwargs =
                    req.get("kwargs")
                        .and_then(|k| k.as_array())
                        .map_or(Some(Vec::new()), |k| {
                            k.iter()
                                .map(|kv| {
                                    let pair = kv.as_array().filter(|p| p.len() == 2)?;
                                    let k = pair[0].as_str().filter(|k| k.len() <= NAME_CHARS)?;
                                    Some((k.to_string(), Value::from_json(&pair[1]).ok()?))
                                })
                                .collect::<Option<Vec<_>>>()
                        });
                let (Some(Ok(args)), Some(kwargs)) = (args, kwargs) else {
                    out.not_replayable += 1;
                    continue;
                };
                let call = Call {
                    function: function.clone(),
                    args,
                    kwargs,
                };
                let answer = if ans.is_null() {
                    Answer::Silent(NO_ANSWER.into())
                } else {
                    answer_of(&ans)
                };
                out.calls.push((call, answer));
            }
            _ => {}
        }
    }
    out
}

/// Why a call that never got its answer has none.
pub(crate) const NO_ANSWER: &str = "the solution's instance ended";

/// A Python identifier of reasonable length (a function's name as shown).
fn is_name(n: &str) -> bool {
    !n.is_empty()
        && n.len() <= NAME_CHARS
        && n.chars().all(|c| c == '_' || c.is_alphanumeric())
        && !n.starts_with(|c: char| c.is_ascii_digit())
}

/// The first class name of a raised exception's MRO, bounded.
fn raised(ans: &serde_json::Value) -> Option<String> {
    ans.pointer("/raise/mro/0")
        .and_then(|n| n.as_str())
        .map(|n| cut(n, NAME_CHARS))
}

/// An implementation's answer as the bridge carried it.
fn answer_of(ans: &serde_json::Value) -> Answer {
    if let Some(e) = raised(ans) {
        return Answer::Raised { exception: e };
    }
    let Some(v) = ans.get("value") else {
        return Answer::Silent("unreadable answer".into());
    };
    if let Some(t) = v.pointer("/handle/1").and_then(|t| t.as_str()) {
        return Answer::Unrepresentable(cut(t, NAME_CHARS));
    }
    Value::from_json(v).map_or_else(
        |_| Answer::Silent("unreadable answer".into()),
        Answer::Value,
    )
}

/// Equal for calls Python would make identically (arguments compared by `==`).
pub(crate) fn call_key(c: &Call) -> String {
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
    use crate::sandbox::Exchange;

    fn ex(request: &str, answer: &str) -> Exchange {
        Exchange {
            request: request.as_bytes().to_vec(),
            answer: answer.as_bytes().to_vec(),
        }
    }

    #[test]
    fn calls_are_read_off_the_bridge_and_bounded() {
        let long = "E".repeat(500);
        let o = observe(&[
            ex(
                r#"{"op":"getattr","h":0,"name":"f"}"#,
                r#"{"value":{"handle":[3,"function"]}}"#,
            ),
            ex(
                r#"{"op":"call","h":3,"args":[{"int":"2"}],"kwargs":[["k","x"]]}"#,
                r#"{"value":{"float":"2.0"}}"#,
            ),
            ex(
                r#"{"op":"call","h":3,"args":[{"handle":[9,"Box"]}]}"#,
                r#"{"value":null}"#,
            ),
            ex(
                r#"{"op":"call","h":3,"args":[]}"#,
                &format!(r#"{{"raise":{{"mro":["{long}"],"args":[]}}}}"#),
            ),
            ex(
                r#"{"op":"call","h":3,"args":[[]]}"#,
                r#"{"value":{"handle":[4,"Stack"]}}"#,
            ),
            // A handle that is not a function the test asked `solution` for: not a call.
            ex(r#"{"op":"call","h":4,"args":[]}"#, r#"{"value":1}"#),
            ex(
                r#"{"op":"getattr","h":0,"name":"g"}"#,
                r#"{"raise":{"mro":["AttributeError","Exception","BaseException"],"args":[]}}"#,
            ),
            ex(
                r#"{"op":"getattr","h":0,"name":"<img src=x>"}"#,
                r#"{"value":1}"#,
            ),
            ex("not json", "{}"),
        ]);
        assert_eq!(o.calls.len(), 3);
        assert_eq!(o.calls[0].0.shown(), "f(2, k='x')");
        assert_eq!(
            o.calls[0].1.key(),
            Answer::Value(Value::Int("2".into())).key(),
            "2.0 == 2 in Python"
        );
        let Answer::Raised { exception, .. } = &o.calls[1].1 else {
            panic!("{:?}", o.calls[1].1)
        };
        assert_eq!(exception.chars().count(), NAME_CHARS + 1, "bounded");
        assert_eq!(o.calls[2].1, Answer::Unrepresentable("Stack".into()));
        assert_eq!(o.not_replayable, 1);
        assert_eq!(o.missing, ["g"]);
        let raised = |e: &str| Answer::Raised {
            exception: e.into(),
        };
        assert_ne!(raised("ValueError").key(), raised("TypeError").key());
    }

    #[test]
    fn names_come_from_vars_and_an_unanswered_call_has_no_answer() {
        let o = observe(&[
            ex(
                r#"{"op":"vars"}"#,
                r#"{"value":{"dict":[["f",{"handle":[1,"function"]}],["N",{"int":"3"}],["<x>",{"handle":[2,"function"]}]]}}"#,
            ),
            ex(
                r#"{"op":"call","h":1,"args":[[{"int":"1"},{"int":"2"}]]}"#,
                r#"{"value":{"int":"3"}}"#,
            ),
            // A handle whose name is not a Python name: not a function the test got.
            ex(
                r#"{"op":"call","h":2,"args":[]}"#,
                r#"{"value":{"int":"3"}}"#,
            ),
            // The solution's instance ended while answering: no answer.
            ex(r#"{"op":"call","h":1,"args":[[]]}"#, ""),
        ]);
        assert_eq!(o.calls.len(), 2);
        assert_eq!(o.calls[0].0.shown(), "f([1, 2])");
        assert_eq!(o.calls[0].1, Answer::Value(Value::Int("3".into())));
        assert_eq!(o.calls[1].1, Answer::Silent(NO_ANSWER.into()));
    }
}
