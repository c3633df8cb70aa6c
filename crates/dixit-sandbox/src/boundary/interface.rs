//! What a Python test may call of a solution: the interface's functions and the classes it
//! declares with their methods. A project states it (`[project] interface = ["to_roman",
//! "Stack: push, pop, __len__"]`); both sides of the boundary are told it, and the host accepts
//! no call outside it.

use serde::Serialize;

/// The special methods a declared class may list (each a call of the solution's, by value).
pub const SPECIAL_METHODS: &[&str] = &[
    "__len__",
    "__contains__",
    "__getitem__",
    "__setitem__",
    "__delitem__",
    "__iter__",
    "__str__",
    "__repr__",
    "__bool__",
    "__eq__",
    "__ne__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__call__",
    "__hash__",
];

/// The operators that make a declared class a value class: its objects cross as their fields'
/// values (its stated public names), and a test's side decides these operators from those
/// values, never asking the solution (whose `__eq__` could say yes to anything).
pub(super) const VALUE_OPERATORS: &[&str] = &[
    "__eq__", "__ne__", "__hash__", "__lt__", "__le__", "__gt__", "__ge__",
];

/// Why an entry of a Python interface is not one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{entry}`: {message}")]
pub struct EntryError {
    /// The entry as written.
    pub entry: String,
    /// What is wrong with it.
    pub message: String,
}

/// A Python interface: functions, and classes with the methods a test may call on their
/// objects.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Interface {
    /// The functions a test may call, by name.
    pub functions: Vec<String>,
    /// Each class with its methods, in the order stated.
    pub classes: Vec<(String, Vec<String>)>,
}

impl Interface {
    /// Parses entries `NAME` (a function) and `NAME: METHOD, METHOD, ...` (a class whose objects
    /// offer these methods). Names are Python identifiers that do not start with `_`; a method
    /// is such a name or one of [`SPECIAL_METHODS`]. No name may be given twice.
    pub fn parse<S: AsRef<str>>(entries: &[S]) -> Result<Interface, EntryError> {
        let mut out = Interface::default();
        for entry in entries {
            let text = entry.as_ref();
            let bad = |message: String| EntryError {
                entry: text.to_string(),
                message,
            };
            let (name, methods) = match text.split_once(':') {
                Some((n, m)) => (n.trim(), Some(m)),
                None => (text.trim(), None),
            };
            if !is_public_name(name) {
                return Err(bad(
                    "not a public Python name (expected NAME for a function, or NAME: METHOD, \
                     ... for a class)"
                        .into(),
                ));
            }
            if out.has(name) {
                return Err(bad(format!("`{name}` is stated twice")));
            }
            match methods {
                None => out.functions.push(name.to_string()),
                Some(list) => {
                    let mut ms: Vec<String> = Vec::new();
                    for m in list.split(',').map(str::trim).filter(|m| !m.is_empty()) {
                        if !(is_public_name(m) || SPECIAL_METHODS.contains(&m)) {
                            return Err(bad(format!(
                                "`{m}` is not a method a test may call (a public name, or one of \
                                 {})",
                                SPECIAL_METHODS.join(", ")
                            )));
                        }
                        if ms.iter().any(|x| x == m) {
                            return Err(bad(format!("method `{m}` is stated twice")));
                        }
                        ms.push(m.to_string());
                    }
                    out.classes.push((name.to_string(), ms));
                }
            }
        }
        Ok(out)
    }

    /// Whether the interface has a function or class `name`.
    pub fn has(&self, name: &str) -> bool {
        self.functions.iter().any(|f| f == name) || self.classes.iter().any(|(c, _)| c == name)
    }

    /// The methods of class `class`, when the interface declares it.
    pub fn methods(&self, class: &str) -> Option<&[String]> {
        self.classes
            .iter()
            .find(|(c, _)| c == class)
            .map(|(_, m)| m.as_slice())
    }

    /// Whether `class` is a declared value class (it states one of `VALUE_OPERATORS`).
    pub fn is_value_class(&self, class: &str) -> bool {
        self.methods(class)
            .is_some_and(|m| m.iter().any(|x| VALUE_OPERATORS.contains(&x.as_str())))
    }

    /// A value class's fields: its stated public names, in the order stated.
    pub fn fields(&self, class: &str) -> Vec<&str> {
        self.methods(class)
            .unwrap_or_default()
            .iter()
            .map(String::as_str)
            .filter(|m| !m.starts_with('_'))
            .collect()
    }

    /// Whether a test may call `method` on an object of `class`: a declared method, and of a
    /// value class neither a field (read from the value) nor a value operator (decided by the
    /// test's side).
    pub fn calls(&self, class: &str, method: &str) -> bool {
        let declared = self
            .methods(class)
            .is_some_and(|m| m.iter().any(|x| x == method));
        declared
            && !(self.is_value_class(class)
                && (VALUE_OPERATORS.contains(&method) || !method.starts_with('_')))
    }

    /// Whether an object of `class` can be a dict key or a set element: a value class that
    /// states `__hash__` (a plain handle hashes by identity on the test's side).
    pub fn hashes(&self, class: &str) -> bool {
        !self.is_value_class(class)
            || self
                .methods(class)
                .is_some_and(|m| m.iter().any(|x| x == "__hash__"))
    }

    /// Every name a test can import, functions first.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.functions
            .iter()
            .map(String::as_str)
            .chain(self.classes.iter().map(|(c, _)| c.as_str()))
    }

    /// Whether nothing is stated.
    pub fn is_empty(&self) -> bool {
        self.functions.is_empty() && self.classes.is_empty()
    }

    /// The JSON both sides of the boundary are given (`dixit_bridge.parse_interface`).
    pub fn to_json(&self) -> String {
        let classes: serde_json::Map<String, serde_json::Value> = self
            .classes
            .iter()
            .map(|(c, m)| (c.clone(), serde_json::json!(m)))
            .collect();
        serde_json::json!({ "functions": self.functions, "classes": classes }).to_string()
    }

    /// The entries as a project writes them.
    pub fn entries(&self) -> Vec<String> {
        self.functions
            .iter()
            .cloned()
            .chain(
                self.classes
                    .iter()
                    .map(|(c, m)| format!("{c}: {}", m.join(", "))),
            )
            .collect()
    }
}

/// A Python identifier that does not start with `_` (ASCII letters, digits and `_`).
pub fn is_public_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
        && s.len() <= 100
        && !PYTHON_KEYWORDS.contains(&s)
}

/// Python's keywords, which no function can be named.
const PYTHON_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_and_classes_parse_and_bad_entries_name_themselves() {
        let i = Interface::parse(&["to_roman", "Stack: push, pop, __len__", "Empty:"]).unwrap();
        assert_eq!(i.functions, vec!["to_roman"]);
        assert_eq!(i.methods("Stack").unwrap(), ["push", "pop", "__len__"]);
        assert_eq!(i.methods("Empty").unwrap().len(), 0);
        assert_eq!(
            i.names().collect::<Vec<_>>(),
            ["to_roman", "Stack", "Empty"]
        );
        assert_eq!(
            i.to_json(),
            r#"{"classes":{"Empty":[],"Stack":["push","pop","__len__"]},"functions":["to_roman"]}"#
        );
        for (bad, says) in [
            ("_helper", "not a public Python name"),
            ("to roman", "not a public Python name"),
            ("def", "not a public Python name"),
            ("f(x)", "not a public Python name"),
            ("Stack: push, _secret", "`_secret` is not a method"),
            ("Stack: __init__", "`__init__` is not a method"),
            ("Stack: pop, pop", "stated twice"),
        ] {
            let e = Interface::parse(&[bad]).unwrap_err();
            assert!(e.to_string().contains(says), "{bad}: {e}");
            assert!(e.to_string().starts_with(&format!("`{bad}`")), "{e}");
        }
        let e = Interface::parse(&["f", "f: g"]).unwrap_err();
        assert!(e.to_string().contains("stated twice"), "{e}");
    }
}
