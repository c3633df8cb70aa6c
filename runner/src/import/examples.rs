//! The examples in a Python function's docstring, read as assertions for an acceptance suite.
//!
//! Forms read (each line trimmed; a leading `* `, `- ` or `• ` bullet is dropped):
//!
//! | form | example | assertion |
//! |---|---|---|
//! | doctest | `>>> f(1, [2])` then the output line(s) | `f(1, [2]) == OUTPUT` |
//! | doctest, no output | `>>> f([])` then a blank line | `f([]) is None` (doctest's rule: nothing printed) |
//! | doctest comparison | `>>> f(3) == 'x'` with no output, or `True` | `f(3) == 'x'` |
//! | a call and its value | `f(1) ==> 2`, `=>`, `==`, `->`, `➞`, `→`, `=`, `returns`, `should return`, `should be` | `f(1) == 2` |
//! | input and output | `Input: arr = [1], k = 2` then `Output: [1]` | `f([1], 2) == [1]` |
//! | "for" sentences | `For lst = [1, 2] the output should be 3` (or `the result`) | `f([1, 2]) == 3` |
//!
//! The call must be a call of the function whose arguments are Python literals (a doctest may
//! wrap it in other calls, `round(f(x), 2)`), and the value must be a Python literal (numbers,
//! strings, `True`, `False`, `None`, and lists, tuples, dicts and sets of them). Named arguments
//! of the last two forms must be the function's parameters, all of them, in order. Anything else
//! that looks like an example (a line starting with the call, `>>>`, `Input:` or `For NAME =`)
//! is [`Unread`]: left out and reported, never guessed at (`is_happy(a) => False`, where `a`
//! means a string; `f(1) => true`, which is not Python).

use serde::{Deserialize, Serialize};

/// One example read from a docstring: a call and the value it gives.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Example {
    /// Its first line in the text read (1-based).
    pub line: usize,
    /// How the docstring writes it (its lines trimmed, joined by newlines).
    pub text: String,
    /// A Python expression that calls the function.
    pub call: String,
    /// A Python literal the call must equal (`None`: the call must return `None`).
    pub expected: String,
}

impl Example {
    /// The Python assertion: `assert CALL == EXPECTED`, or `assert CALL is None`.
    pub fn assertion(&self) -> String {
        let wrap = |s: &str| {
            if s.contains('\n') {
                format!("({s})")
            } else {
                s.to_string()
            }
        };
        if self.expected.trim() == "None" {
            format!("assert {} is None", wrap(&self.call))
        } else {
            format!("assert {} == {}", wrap(&self.call), wrap(&self.expected))
        }
    }

    /// A test file holding this example alone: it imports `entry` from the module `solution`.
    pub fn test_file(&self, entry: &str) -> String {
        format!("from solution import {entry}\n\n{}\n", self.assertion())
    }
}

/// A line that looks like an example but could not be read as one: left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unread {
    /// Its line in the text read (1-based).
    pub line: usize,
    /// The line, trimmed.
    pub text: String,
}

/// What a docstring holds: the examples read, and the lines that looked like examples but were
/// not read.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Found {
    /// The examples read, in order.
    pub examples: Vec<Example>,
    /// The lines that looked like examples but were not read.
    pub unread: Vec<Unread>,
}

/// The examples of function `entry`'s docstring in the Python source `source` (a benchmark's
/// prompt: imports, helpers, the signature and the docstring). Lines are numbered in `source`.
pub(super) fn read(source: &str, entry: &str) -> Found {
    let Some((first, doc)) = docstring(source, entry) else {
        return Found::default();
    };
    let params = parameters(source, entry);
    let lines: Vec<&str> = doc.iter().map(|l| l.trim()).collect();
    let mut found = Found::default();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let at = first + i;
        if line.starts_with(">>>") {
            let (end, example) = doctest(&lines, i, entry);
            match example {
                Some(mut e) => {
                    e.line = at;
                    found.examples.push(e);
                }
                None => found.unread.push(Unread {
                    line: at,
                    text: lines[i..end].join("\n"),
                }),
            }
            i = end;
            continue;
        }
        if let Some(rest) = line.strip_prefix("Input:") {
            let output = (i + 1..lines.len()).find(|&j| !lines[j].is_empty());
            let read = output.and_then(|j| {
                let value = lines[j].strip_prefix("Output:")?;
                let call = call_of_arguments(entry, params.as_deref(), rest)?;
                Some((j, call, literal_text(value)?))
            });
            match read {
                Some((j, call, expected)) => {
                    found.examples.push(Example {
                        line: at,
                        text: format!("{line}\n{}", lines[j]),
                        call,
                        expected,
                    });
                    i = j + 1;
                }
                None => {
                    found.unread.push(Unread {
                        line: at,
                        text: line.into(),
                    });
                    i += 1;
                }
            }
            continue;
        }
        let line_body = unbulleted(line);
        let example = if line_body.starts_with("For ") {
            for_sentence(entry, params.as_deref(), line_body)
        } else if line_body.starts_with(entry) {
            call_and_value(entry, line_body)
        } else {
            if looks_like_example(line_body, entry) {
                found.unread.push(Unread {
                    line: at,
                    text: line.into(),
                });
            }
            i += 1;
            continue;
        };
        match example {
            Some((call, expected)) => found.examples.push(Example {
                line: at,
                text: line.into(),
                call,
                expected,
            }),
            None if looks_like_example(line_body, entry) => found.unread.push(Unread {
                line: at,
                text: line.into(),
            }),
            None => {}
        }
        i += 1;
    }
    found
}

/// The names of the parameters of `entry` in `source`, when all are plain (no `*args`,
/// `**kwargs` or `/`).
pub(super) fn parameters(source: &str, entry: &str) -> Option<Vec<String>> {
    let head = format!("def {entry}(");
    let start = source
        .split('\n')
        .scan(0, |offset, l| {
            let here = *offset;
            *offset += l.len() + 1;
            Some((here, l))
        })
        .find(|(_, l)| l.starts_with(&head))
        .map(|(offset, _)| offset + head.len() - 1)?;
    let c: Vec<char> = source[start..].chars().collect();
    let end = group_end(&c, 0)?;
    let inside: String = c[1..end - 1].iter().collect();
    let mut names = Vec::new();
    for part in split_top(&inside) {
        let p = part.trim();
        if p.is_empty() {
            continue;
        }
        if p.starts_with('*') || p == "/" {
            return None;
        }
        let name: String = p
            .chars()
            .take_while(|&ch| ch.is_alphanumeric() || ch == '_')
            .collect();
        if !is_identifier(&name) {
            return None;
        }
        names.push(name);
    }
    Some(names)
}

/// Whether `s` is a Python identifier (ASCII; keywords included).
pub(super) fn is_identifier(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
}

/// The first line (1-based) of `entry`'s docstring and its lines (the opening line without its
/// quotes, the closing one without its quotes).
fn docstring<'s>(source: &'s str, entry: &str) -> Option<(usize, Vec<&'s str>)> {
    let lines: Vec<&str> = source.lines().collect();
    let head = format!("def {entry}(");
    let def = lines.iter().position(|l| l.starts_with(&head))?;
    let (open, quote, at) = lines[def..].iter().enumerate().find_map(|(k, l)| {
        let a = l.find("\"\"\"");
        let b = l.find("'''");
        match (a, b) {
            (Some(a), Some(b)) if b < a => Some((def + k, "'''", b)),
            (Some(a), _) => Some((def + k, "\"\"\"", a)),
            (None, Some(b)) => Some((def + k, "'''", b)),
            (None, None) => None,
        }
    })?;
    let mut out = Vec::new();
    let first_rest = &lines[open][at + 3..];
    if let Some(close) = first_rest.find(quote) {
        return Some((open + 1, vec![&first_rest[..close]]));
    }
    out.push(first_rest);
    for l in &lines[open + 1..] {
        if let Some(close) = l.find(quote) {
            out.push(&l[..close]);
            return Some((open + 1, out));
        }
        out.push(l);
    }
    // An unclosed docstring: read what there is.
    Some((open + 1, out))
}

/// A doctest example starting at `lines[i]` (`>>> ...`): where its block ends, and the
/// example if it can be read.
fn doctest(lines: &[&str], i: usize, entry: &str) -> (usize, Option<Example>) {
    let mut source = lines[i].trim_start_matches(">>>").trim().to_string();
    let mut j = i + 1;
    while j < lines.len() {
        match lines[j].strip_prefix("...") {
            Some(rest) if lines[j] == "..." || lines[j].starts_with("... ") => {
                source.push('\n');
                source.push_str(rest.trim());
                j += 1;
            }
            _ => break,
        }
    }
    // The output: doctest reads every line up to a blank one or the next `>>>`; a value's repr
    // is one line, or several that one literal spans (a list wrapped). When its first lines are
    // one literal, the example ends there and what follows is read on its own.
    let out_start = j;
    let mut block_end = j;
    while block_end < lines.len()
        && !lines[block_end].is_empty()
        && !lines[block_end].starts_with(">>>")
    {
        block_end += 1;
    }
    j = (out_start + 1..=block_end)
        .find(|&k| literal_text(&lines[out_start..k].join("\n")).is_some())
        .unwrap_or(block_end);
    let output = lines[out_start..j].join("\n");
    let text = lines[i..j].join("\n");
    let source = strip_comment(&source);
    let example = |call: &str, expected: &str| Example {
        line: 0,
        text: text.clone(),
        call: call.to_string(),
        expected: expected.to_string(),
    };
    let c: Vec<char> = source.chars().collect();
    let read = match call_end(&c, 0, entry) {
        Some((end, true)) if end == c.len() => {
            if output.is_empty() {
                Some(example(&source, "None"))
            } else {
                literal_text(&output).map(|v| example(&source, &v))
            }
        }
        Some((end, true)) => {
            let call: String = c[..end].iter().collect();
            let rest: String = c[end..].iter().collect();
            let value = rest.trim_start().strip_prefix("==");
            match value.and_then(literal_text) {
                Some(v) if output.is_empty() || output == "True" => {
                    Some(example(call.trim_end(), &v))
                }
                _ => None,
            }
        }
        _ => None,
    };
    (j, read)
}

/// `f(ARGS) SEP VALUE`: the call (of `entry`, literal arguments) and the value.
fn call_and_value(entry: &str, line: &str) -> Option<(String, String)> {
    const SEPARATORS: &[&str] = &[
        "==>",
        "=>",
        "==",
        "->",
        "➞",
        "→",
        "=",
        "returns",
        "should return",
        "should be",
    ];
    let c: Vec<char> = line.chars().collect();
    let end = entry_call_end(&c, entry)?;
    let call: String = c[..end].iter().collect();
    let rest: String = c[end..].iter().collect();
    let rest = rest.trim_start();
    let value = SEPARATORS.iter().find_map(|s| {
        let after = rest.strip_prefix(s)?;
        // A word separator must end as a word does (`returns`, not `returnsX`).
        let word = s.ends_with(|ch: char| ch.is_alphabetic());
        (!word || after.starts_with(char::is_whitespace)).then_some(after)
    })?;
    Some((call, literal_text(value)?))
}

/// `For NAME = LIT[,] [NAME = LIT ...][,] the output|result should be LIT[.]`.
fn for_sentence(entry: &str, params: Option<&[String]>, line: &str) -> Option<(String, String)> {
    let mut rest = line.strip_prefix("For ")?.trim_start();
    let mut named = Vec::new();
    loop {
        let tail = ["the output should be", "the result should be"]
            .iter()
            .find_map(|p| rest.strip_prefix(p));
        if let Some(value) = tail {
            if named.is_empty() {
                return None;
            }
            let call = named_call(entry, params?, &named)?;
            return Some((call, literal_text(value)?));
        }
        let (name, value, after) = named_argument(rest)?;
        named.push((name, value));
        rest = after.trim_start();
        rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
    }
}

/// `NAME = LIT` at the start of `s`: the name, the literal's text, and what follows.
fn named_argument(s: &str) -> Option<(String, String, &str)> {
    let name: String = s
        .chars()
        .take_while(|&ch| ch.is_ascii_alphanumeric() || ch == '_')
        .collect();
    if !is_identifier(&name) {
        return None;
    }
    let after = s[name.len()..].trim_start();
    let after = after.strip_prefix('=').filter(|a| !a.starts_with('='))?;
    let c: Vec<char> = after.chars().collect();
    let start = skip_ws(&c, 0);
    let end = literal_end(&c, start)?;
    let value: String = c[start..end].iter().collect();
    let consumed: usize = c[..end].iter().map(|ch| ch.len_utf8()).sum();
    Some((name, value, &after[consumed..]))
}

/// The call of `entry` with the arguments written `rest` (`Input:`'s text): positional
/// literals, as many as the function has parameters, or every parameter by name, in order.
fn call_of_arguments(entry: &str, params: Option<&[String]>, rest: &str) -> Option<String> {
    let rest = strip_comment(rest);
    let rest = rest.trim();
    if named_argument(rest).is_some() {
        let mut named = Vec::new();
        let mut s = rest;
        while !s.is_empty() {
            let (name, value, after) = named_argument(s)?;
            named.push((name, value));
            let after = after.trim_start();
            s = match after.strip_prefix(',') {
                Some(a) => a.trim_start(),
                None if after.is_empty() => after,
                None => return None,
            };
        }
        return named_call(entry, params?, &named);
    }
    let parts = split_top(rest);
    if parts.len() != params?.len() || !parts.iter().all(|p| is_literal(p)) {
        return None;
    }
    Some(format!("{entry}({rest})"))
}

/// `entry(V1, V2, ...)` when `named` names exactly `params`, in order.
fn named_call(entry: &str, params: &[String], named: &[(String, String)]) -> Option<String> {
    let names: Vec<&String> = named.iter().map(|(n, _)| n).collect();
    if names.len() != params.len() || names.iter().zip(params).any(|(a, b)| *a != b) {
        return None;
    }
    let values: Vec<&str> = named.iter().map(|(_, v)| v.as_str()).collect();
    Some(format!("{entry}({})", values.join(", ")))
}

/// Whether an unread line looks like an example (so leaving it out is said).
fn looks_like_example(line: &str, entry: &str) -> bool {
    let call = format!("{entry}(");
    line.starts_with(&call)
        || line
            .strip_prefix("Output:")
            .is_some_and(|rest| !rest.trim().is_empty())
        || ((line.starts_with("For ") || line.starts_with("for ")) && line.contains(&call))
        || (line.starts_with("For ") && named_argument(&line[4..]).is_some())
}

/// The line without a leading list bullet.
fn unbulleted(line: &str) -> &str {
    ["* ", "- ", "• "]
        .iter()
        .find_map(|b| line.strip_prefix(b))
        .map_or(line, str::trim_start)
}

/// The value written `s`, as a Python literal's source: the whole of `s` without a trailing
/// comment, or without a sentence's final period.
fn literal_text(s: &str) -> Option<String> {
    let s = strip_comment(s);
    let s = s.trim();
    // A sentence's period goes first: `1.` there is 1, not 1.0.
    if let Some(v) = s
        .strip_suffix('.')
        .map(str::trim_end)
        .filter(|v| is_literal(v))
    {
        return Some(v.to_string());
    }
    is_literal(s).then(|| s.to_string())
}

/// `s` up to a `#` comment (outside strings), trimmed at the end.
fn strip_comment(s: &str) -> String {
    let c: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < c.len() {
        if c[i] == '#' {
            return c[..i].iter().collect::<String>().trim_end().to_string();
        }
        if let Some(end) = string_end(&c, i) {
            i = end;
        } else {
            i += 1;
        }
    }
    s.trim_end().to_string()
}

/// Whether `s` is exactly one Python literal (whitespace around it allowed).
pub(super) fn is_literal(s: &str) -> bool {
    let c: Vec<char> = s.chars().collect();
    let start = skip_ws(&c, 0);
    literal_end(&c, start).is_some_and(|end| skip_ws(&c, end) == c.len())
}

/// The parts of `s` between commas outside brackets and strings.
fn split_top(s: &str) -> Vec<String> {
    let c: Vec<char> = s.chars().collect();
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    let mut i = 0;
    while i < c.len() {
        if let Some(end) = string_end(&c, i) {
            i = end;
            continue;
        }
        match c[i] {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(c[start..i].iter().collect());
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    let last: String = c[start..].iter().collect();
    if !last.trim().is_empty() || !parts.is_empty() {
        parts.push(last);
    }
    parts.retain(|p| !p.trim().is_empty());
    parts
}

fn skip_ws(c: &[char], mut i: usize) -> usize {
    while i < c.len() && c[i].is_whitespace() {
        i += 1;
    }
    i
}

fn is_ident_char(ch: char) -> bool {
    ch.is_ascii_alphanumeric() || ch == '_'
}

/// The end of an identifier at `i`.
fn ident_end(c: &[char], i: usize) -> Option<usize> {
    if !c
        .get(i)
        .is_some_and(|&ch| ch.is_ascii_alphabetic() || ch == '_')
    {
        return None;
    }
    let mut j = i + 1;
    while j < c.len() && is_ident_char(c[j]) {
        j += 1;
    }
    Some(j)
}

/// The end of the call of `entry` that starts `c` (literal arguments only).
fn entry_call_end(c: &[char], entry: &str) -> Option<usize> {
    let name_end = ident_end(c, 0)?;
    if c[..name_end].iter().collect::<String>() != entry {
        return None;
    }
    let open = skip_ws(c, name_end);
    if c.get(open) != Some(&'(') {
        return None;
    }
    arguments_end(c, open, None).map(|(end, _)| end)
}

/// The end of a call at `i` (`name(args)`, arguments literals or calls), and whether `entry`
/// is called in it.
fn call_end(c: &[char], i: usize, entry: &str) -> Option<(usize, bool)> {
    let name_end = ident_end(c, i)?;
    let name: String = c[i..name_end].iter().collect();
    // What `print` shows is not what it returns.
    if name == "print" {
        return None;
    }
    let open = skip_ws(c, name_end);
    if c.get(open) != Some(&'(') {
        return None;
    }
    let (end, inner) = arguments_end(c, open, Some(entry))?;
    Some((end, inner || name == entry))
}

/// The end of an argument list at `open` (`(`): literals, `name=literal`, and (when `entry` is
/// given) calls; whether `entry` is called in it.
fn arguments_end(c: &[char], open: usize, entry: Option<&str>) -> Option<(usize, bool)> {
    let mut i = skip_ws(c, open + 1);
    let mut calls_entry = false;
    loop {
        if c.get(i) == Some(&')') {
            return Some((i + 1, calls_entry));
        }
        // A keyword argument: `name=` (not `==`).
        if let Some(e) = ident_end(c, i) {
            let eq = skip_ws(c, e);
            if c.get(eq) == Some(&'=') && c.get(eq + 1) != Some(&'=') {
                i = skip_ws(c, eq + 1);
            }
        }
        let call = entry.and_then(|entry| call_end(c, i, entry));
        i = match call {
            Some((end, inner)) => {
                calls_entry |= inner;
                end
            }
            None => literal_end(c, i)?,
        };
        i = skip_ws(c, i);
        match c.get(i) {
            Some(',') => i = skip_ws(c, i + 1),
            Some(')') => {}
            _ => return None,
        }
    }
}

/// The end of a string literal (with an optional `r`, `b` or `u` prefix) at `i`, if one starts
/// there.
fn string_end(c: &[char], i: usize) -> Option<usize> {
    let mut q = i;
    while q < c.len() && q < i + 2 && matches!(c[q], 'r' | 'R' | 'b' | 'B' | 'u' | 'U') {
        q += 1;
    }
    if q > i && i > 0 && is_ident_char(c[i - 1]) {
        return None;
    }
    let quote = *c.get(q).filter(|&&ch| ch == '\'' || ch == '"')?;
    let triple = c.get(q + 1) == Some(&quote) && c.get(q + 2) == Some(&quote);
    let mut j = if triple { q + 3 } else { q + 1 };
    while j < c.len() {
        match c[j] {
            '\\' => j += 2,
            ch if ch == quote => {
                if !triple {
                    return Some(j + 1);
                }
                if c.get(j + 1) == Some(&quote) && c.get(j + 2) == Some(&quote) {
                    return Some(j + 3);
                }
                j += 1;
            }
            '\n' if !triple => return None,
            _ => j += 1,
        }
    }
    None
}

/// The end of a bracketed group at `i` (`(`, `[` or `{`), strings skipped.
fn group_end(c: &[char], i: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut j = i;
    while j < c.len() {
        if let Some(end) = string_end(c, j) {
            j = end;
            continue;
        }
        match c[j] {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(j + 1);
                }
            }
            _ => {}
        }
        j += 1;
    }
    None
}

/// The end of a Python literal at `i`: a number (with a sign), strings (adjacent ones
/// concatenate), `True`, `False`, `None`, or a tuple, list, dict or set of literals.
fn literal_end(c: &[char], i: usize) -> Option<usize> {
    literal_at(c, i, 0)
}

/// Literals nest at most this deep (the input is a benchmark's, and hostile).
const MAX_DEPTH: usize = 64;

fn literal_at(c: &[char], i: usize, depth: usize) -> Option<usize> {
    if depth > MAX_DEPTH {
        return None;
    }
    let ch = *c.get(i)?;
    match ch {
        '-' | '+' => number_end(c, skip_ws(c, i + 1)),
        '0'..='9' | '.' => number_end(c, i),
        '(' => sequence_end(c, i, ')', depth, false),
        '[' => sequence_end(c, i, ']', depth, false),
        '{' => sequence_end(c, i, '}', depth, true),
        _ => {
            if let Some(mut end) = string_end(c, i) {
                // Adjacent strings concatenate (`'a' 'b'`).
                while let Some(e) = string_end(c, skip_ws(c, end)) {
                    end = e;
                }
                return Some(end);
            }
            let end = ident_end(c, i)?;
            let word: String = c[i..end].iter().collect();
            matches!(word.as_str(), "True" | "False" | "None").then_some(end)
        }
    }
}

/// The end of a number at `i`: digits, a fraction, an exponent (no complex, hex or `_`).
fn number_end(c: &[char], i: usize) -> Option<usize> {
    let digits = |mut j: usize| {
        let start = j;
        while j < c.len() && c[j].is_ascii_digit() {
            j += 1;
        }
        (j, j > start)
    };
    let (mut j, int) = digits(i);
    let mut frac = false;
    if c.get(j) == Some(&'.') {
        let (k, f) = digits(j + 1);
        j = k;
        frac = f;
    }
    if !int && !frac {
        return None;
    }
    if matches!(c.get(j), Some('e' | 'E')) {
        let mut k = j + 1;
        if matches!(c.get(k), Some('+' | '-')) {
            k += 1;
        }
        let (k, e) = digits(k);
        if !e {
            return None;
        }
        j = k;
    }
    if c.get(j).is_some_and(|&ch| is_ident_char(ch) || ch == '.') {
        return None;
    }
    Some(j)
}

/// The end of a tuple, list, dict or set at `i` (`close` its closing bracket); `braces`: a
/// dict's `key: value` pairs are allowed.
fn sequence_end(c: &[char], i: usize, close: char, depth: usize, braces: bool) -> Option<usize> {
    let mut j = skip_ws(c, i + 1);
    let mut dict: Option<bool> = None;
    loop {
        if c.get(j) == Some(&close) {
            return Some(j + 1);
        }
        j = skip_ws(c, literal_at(c, j, depth + 1)?);
        if braces {
            let pair = c.get(j) == Some(&':');
            if *dict.get_or_insert(pair) != pair {
                return None;
            }
            if pair {
                j = skip_ws(c, literal_at(c, skip_ws(c, j + 1), depth + 1)?);
            }
        }
        match c.get(j) {
            Some(',') => j = skip_ws(c, j + 1),
            Some(&ch) if ch == close => {}
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(signature: &str, doc: &str) -> String {
        format!("from typing import List\n\n\ndef {signature}:\n    \"\"\"{doc}\n    \"\"\"\n")
    }

    fn asserts(found: &Found) -> Vec<String> {
        found.examples.iter().map(Example::assertion).collect()
    }

    fn unread(found: &Found) -> Vec<&str> {
        found.unread.iter().map(|u| u.text.as_str()).collect()
    }

    #[test]
    fn literals() {
        for ok in [
            "1",
            "-0.5",
            "+ 3",
            "1e-6",
            ".5",
            "'a'",
            "\"it's\"",
            "'a' 'b'",
            "r'\\d'",
            "b'x'",
            "'''x\ny'''",
            "True",
            "None",
            "()",
            "(1,)",
            "(None, 1)",
            "[]",
            "[1, [2, (3, 'x')], {}]",
            "{'a': 1, 'b': [2]}",
            "{1, 2}",
            "('Venus')",
            "[1,\n 2]",
            "[2, 1, ]",
        ] {
            assert!(is_literal(ok), "{ok}");
        }
        for bad in [
            "",
            "true",
            "a",
            "1 2",
            "\"\"aaaaaaa\"",
            "'open",
            "1j",
            "0x1f",
            "1.2.3",
            "[1, 2",
            "1 + 2",
            "f(1)",
            "{1: 2, 3}",
            "f'x'",
            "(1) (2)",
            "1, 2",
        ] {
            assert!(!is_literal(bad), "{bad}");
        }
        let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        assert!(!is_literal(&deep), "nesting is bounded");
    }

    #[test]
    fn doctests_with_one_or_several_output_lines_and_none() {
        let p = prompt(
            "longest(strings: List[str]) -> Optional[str]",
            " Return the longest one, None if empty.\n    >>> longest([])\n\n    >>> longest(['a', 'bb'])\n    'bb'\n    >>> longest(['a',\n    ...          'b'])\n    'a'\n    >>> longest(['x' * 3])  # a comment\n    'xxx'\n    >>> round(longest(['aaa']), 2)\n    [1,\n     2]\n    >>> longest(['a']) == 'a'\n    >>> longest(['b']) == 'b'\n    True",
        );
        let found = read(&p, "longest");
        assert_eq!(
            asserts(&found),
            [
                "assert longest([]) is None",
                "assert longest(['a', 'bb']) == 'bb'",
                "assert (longest(['a',\n'b'])) == 'a'",
                "assert round(longest(['aaa']), 2) == ([1,\n2])",
                "assert longest(['a']) == 'a'",
                "assert longest(['b']) == 'b'",
            ]
        );
        // `'x' * 3` is not a literal argument: left out, and said.
        assert_eq!(
            unread(&found),
            [">>> longest(['x' * 3])  # a comment\n'xxx'"]
        );
        assert_eq!(found.examples[0].line, 6);
        assert_eq!(found.examples[1].text, ">>> longest(['a', 'bb'])\n'bb'");
    }

    /// An output line ends the example when it is a value: what follows is read on its own.
    #[test]
    fn a_doctest_output_ends_where_its_value_does() {
        let p = prompt(
            "double(x)",
            "Twice x.\n    >>> double(2)\n    4\n    double(3) ==> 6\n    >>> double([1,\n    ...  2])\n    [1,\n     2, 1, 2]\n    Then prose.\n    >>> double(5)\n    Ten, as prose.\n    double(6) ==> 12",
        );
        let found = read(&p, "double");
        assert_eq!(
            asserts(&found),
            [
                "assert double(2) == 4",
                "assert double(3) == 6",
                "assert (double([1,\n2])) == ([1,\n2, 1, 2])",
            ]
        );
        assert_eq!(
            unread(&found),
            [">>> double(5)\nTen, as prose.\ndouble(6) ==> 12"]
        );
    }

    #[test]
    fn doctests_that_are_not_calls_of_the_function_are_unread() {
        let p = prompt(
            "sort_array(arr)",
            "\n    >>> sort_array([1, 0]) [0, 1]\n    >>> print(sort_array([1]))\n    [1]\n    >>> x = 3\n    >>> sort_array([2]) == [2]\n    False\n    >>> other(1)\n    1\n    >>> sort_array([3])\n    Traceback (most recent call last):",
        );
        let found = read(&p, "sort_array");
        assert!(found.examples.is_empty(), "{:?}", found.examples);
        assert_eq!(found.unread.len(), 6, "{:?}", found.unread);
    }

    #[test]
    fn a_call_and_its_value_in_each_form() {
        let p = prompt(
            "f(x, y=0)",
            "\n    Examples:\n    f(1) ==> 2\n    f(2) => [2,3]\n    f(3) == 'x'\n    * f(4) -> (1, 'a')\n    - f(5) ➞ False \n    f(6) → None\n    f(7) = 14\n    f('a') returns 'b'\n    f(8) should return 9\n    f(9, 1) should be {}\n    f(10) ➞ True  # a note\n    f(11) returnsX 1",
        );
        let found = read(&p, "f");
        assert_eq!(
            asserts(&found),
            [
                "assert f(1) == 2",
                "assert f(2) == [2,3]",
                "assert f(3) == 'x'",
                "assert f(4) == (1, 'a')",
                "assert f(5) == False",
                "assert f(6) is None",
                "assert f(7) == 14",
                "assert f('a') == 'b'",
                "assert f(8) == 9",
                "assert f(9, 1) == {}",
                "assert f(10) == True",
            ]
        );
        assert_eq!(unread(&found), ["f(11) returnsX 1"]);
    }

    /// What cannot be read is left out and said, never guessed at.
    #[test]
    fn what_is_not_python_is_left_out() {
        let p = prompt(
            "is_happy(s)",
            "\n    For example:\n    is_happy(a) => False\n    is_happy('abc') => true\n    is_happy('x') = 1 + (2 / 2) = 2\n    is_happy(n) -> is_happy(n-1) + 1\n    for is_happy('ab') == 34\n    is_happy(\"aa\") == \"\"a\"\n    Write a function is_happy() that returns True.\n    is_happy('abc') => True",
        );
        let found = read(&p, "is_happy");
        assert_eq!(asserts(&found), ["assert is_happy('abc') == True"]);
        assert_eq!(
            unread(&found),
            [
                "is_happy(a) => False",
                "is_happy('abc') => true",
                "is_happy('x') = 1 + (2 / 2) = 2",
                "is_happy(n) -> is_happy(n-1) + 1",
                "for is_happy('ab') == 34",
                "is_happy(\"aa\") == \"\"a\"",
            ]
        );
    }

    #[test]
    fn input_and_output_blocks() {
        let p = prompt(
            "maximum(arr, k)",
            "\n    Example 1:\n\n        Input: arr = [-3, -4, 5], k = 3\n        Output: [-4, -3, 5]\n\n    Example 2:\n        Input: arr = [111,21,3], k = 2\n        Output: 24 # sum of 21 + 3\n        Explanation: a sum.\n    Example 3:\n        Input: k = 1, arr = [1]\n        Output: [1]\n    Example 4:\n        Input: [1], 1\n        Output: [1]\n    Example 5:\n        Input: [1]\n        Output: [1]",
        );
        let found = read(&p, "maximum");
        assert_eq!(
            asserts(&found),
            [
                "assert maximum([-3, -4, 5], 3) == [-4, -3, 5]",
                "assert maximum([111,21,3], 2) == 24",
                "assert maximum([1], 1) == [1]",
            ]
        );
        // Named out of order, and one argument for two parameters: not read.
        assert_eq!(
            unread(&found),
            [
                "Input: k = 1, arr = [1]",
                "Output: [1]",
                "Input: [1]",
                "Output: [1]"
            ]
        );
        let one = prompt("pluck(arr)", "\n    Input: [4,2,3]\n    Output: [2, 1]");
        assert_eq!(
            asserts(&read(&one, "pluck")),
            ["assert pluck([4,2,3]) == [2, 1]"]
        );
    }

    #[test]
    fn for_sentences() {
        let p = prompt(
            "reverse_delete(s, c)",
            "\n    For s = \"abcde\", c = \"ae\", the result should be ('bcd',False)\n    For s = \"ab\", c = \"b\"  the result should be ('a',True).\n    For s = \"x\", the output should be 1\n    For N = 1000, the sum of digits will be 1 the output should be \"1\".",
        );
        let found = read(&p, "reverse_delete");
        assert_eq!(
            asserts(&found),
            [
                "assert reverse_delete(\"abcde\", \"ae\") == ('bcd',False)",
                "assert reverse_delete(\"ab\", \"b\") == ('a',True)",
            ]
        );
        assert_eq!(found.unread.len(), 2, "{:?}", found.unread);
        let one = prompt(
            "hex_key(num)",
            "\n    For num = \"AB\" the output should be 1.\n    For lst = []  the output should be 0",
        );
        let found = read(&one, "hex_key");
        assert_eq!(asserts(&found), ["assert hex_key(\"AB\") == 1"]);
        assert_eq!(unread(&found), ["For lst = []  the output should be 0"]);
    }

    #[test]
    fn the_docstring_of_the_function_is_read_not_a_helpers() {
        let p = "def helper(x):\n    \"\"\"\n    >>> helper(1)\n    2\n    \"\"\"\n    return x + 1\n\n\ndef f(x):\n    ''' Single quotes.\n    >>> f(1)\n    1\n    '''\n";
        let found = read(p, "f");
        assert_eq!(asserts(&found), ["assert f(1) == 1"]);
        assert_eq!(found.examples[0].line, 11);
        assert_eq!(read(p, "g"), Found::default());
        // A docstring on one line, and one opening with a fourth quote.
        let p = "def f(x):\n    \"\"\"f(1) == 2\"\"\"\n";
        assert_eq!(asserts(&read(p, "f")), ["assert f(1) == 2"]);
        let p = "def f(x):\n    \"\"\"\"\n    f(1) == 2\n    \"\"\"\n";
        assert_eq!(asserts(&read(p, "f")), ["assert f(1) == 2"]);
    }

    #[test]
    fn parameters_are_read_from_the_signature() {
        let p = "def f(a: List[int], b: Dict[str, int] = {}, c=(1, 2)) -> int:\n    pass\n";
        assert_eq!(parameters(p, "f").unwrap(), ["a", "b", "c"]);
        assert_eq!(parameters("def f(*args):\n", "f"), None);
        assert_eq!(parameters("def f(a, /, b):\n", "f"), None);
        assert_eq!(parameters("def f():\n", "f").unwrap(), Vec::<String>::new());
        assert_eq!(parameters("def g(a):\n", "f"), None);
    }

    #[test]
    fn a_test_file_imports_the_function() {
        let e = Example {
            line: 1,
            text: String::new(),
            call: "f(1)".into(),
            expected: "2".into(),
        };
        assert_eq!(
            e.test_file("f"),
            "from solution import f\n\nassert f(1) == 2\n"
        );
    }
}
