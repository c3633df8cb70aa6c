//! Just enough of C++ and Rust source to cut a benchmark's code into top-level pieces: which
//! bytes are code (not a comment, a string or a character literal), where each top-level brace
//! block ends, and whether a file's braces close at all (a test cut off mid-file does not).

/// The two brace languages a benchmark's code comes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Syntax {
    Cpp,
    Rust,
}

/// For each byte of `text`, whether it is code: `false` inside comments, string literals and
/// character literals (Rust lifetimes such as `'a` are code).
pub(super) fn code_mask(text: &str, syntax: Syntax) -> Vec<bool> {
    let b = text.as_bytes();
    let mut mask = vec![true; b.len()];
    let mut i = 0;
    let mark = |from: usize, to: usize, mask: &mut Vec<bool>| {
        for m in &mut mask[from..to.min(b.len())] {
            *m = false;
        }
    };
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = text[i..].find('\n').map_or(b.len(), |n| i + n);
                mark(i, end, &mut mask);
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..].find("*/").map_or(b.len(), |n| i + 2 + n + 2);
                mark(i, end, &mut mask);
                i = end;
            }
            b'"' => {
                let end = literal_end(b, i, b'"');
                mark(i, end, &mut mask);
                i = end;
            }
            b'\'' => {
                let is_char = match syntax {
                    Syntax::Cpp => true,
                    // `'x'`, `'\n'`: a character; `'a` (no closing quote after one character):
                    // a lifetime.
                    Syntax::Rust => {
                        b.get(i + 1) == Some(&b'\\')
                            || text[i + 1..]
                                .chars()
                                .next()
                                .is_some_and(|c| text[i + 1 + c.len_utf8()..].starts_with('\''))
                    }
                };
                if is_char {
                    let end = literal_end(b, i, b'\'');
                    mark(i, end, &mut mask);
                    i = end;
                } else {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    mask
}

/// Where the literal opened by `quote` at `start` ends (one past its closing quote, or the end
/// of a line for one left open).
fn literal_end(b: &[u8], start: usize, quote: u8) -> usize {
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            c if c == quote => return i + 1,
            b'\n' => return i,
            _ => i += 1,
        }
    }
    b.len()
}

/// How many braces of `text` are left open at its end (negative: more closed than opened).
pub(super) fn open_braces(text: &str, syntax: Syntax) -> i64 {
    let mask = code_mask(text, syntax);
    text.bytes()
        .zip(mask)
        .filter(|(_, code)| *code)
        .map(|(c, _)| match c {
            b'{' => 1,
            b'}' => -1,
            _ => 0,
        })
        .sum()
}

/// One top-level piece of a file: the text before a top-level `{` (its head) and, when the
/// block closes, the block with its braces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Piece<'a> {
    /// From the end of the previous piece to the `{` (preprocessor lines, `use` lines and the
    /// item's signature).
    pub head: &'a str,
    /// `{ ... }`; `None` when the block is still open at the end of the text.
    pub block: Option<&'a str>,
}

/// The top-level brace blocks of `text` with what precedes each, and what follows the last one.
pub(super) fn pieces(text: &str, syntax: Syntax) -> (Vec<Piece<'_>>, &str) {
    let mask = code_mask(text, syntax);
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    let mut i = 0;
    while i < b.len() {
        if mask[i] && b[i] == b'{' {
            let mut depth = 0i64;
            let mut end = None;
            for j in i..b.len() {
                if !mask[j] {
                    continue;
                }
                match b[j] {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = Some(j + 1);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let head = &text[from..i];
            match end {
                Some(e) => {
                    out.push(Piece {
                        head,
                        block: Some(&text[i..e]),
                    });
                    from = e;
                    i = e;
                }
                None => {
                    out.push(Piece { head, block: None });
                    return (out, "");
                }
            }
        } else {
            i += 1;
        }
    }
    (out, &text[from..])
}

/// The name of the C++ function whose signature ends `head` (`bool f(vector<int> v)` → `f`),
/// if `head` ends with a function's signature. (Rust is read by its own grammar:
/// `rust_source.rs`.)
pub(super) fn cpp_function_name(head: &str) -> Option<String> {
    // The signature: after the last statement, without preprocessor lines.
    let head = head.rsplit(';').next().unwrap_or(head);
    let kept: Vec<&str> = head
        .split('\n')
        .filter(|l| !l.trim_start().starts_with('#'))
        .collect();
    let joined = kept.join("\n");
    let head = joined.trim_end();
    let open = head.find('(')?;
    let before = head[..open].trim_end();
    let name: String = before
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let last_line = head[..open].rsplit('\n').next().unwrap_or("");
    (!last_line.trim().is_empty()
        && !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit()))
    .then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_strings_and_characters_are_not_code_but_lifetimes_are() {
        let t = "a /* { */ \"}\" '{' // }\nb";
        let code: String = t
            .chars()
            .zip(code_mask(t, Syntax::Cpp))
            .filter(|(_, c)| *c)
            .map(|(ch, _)| ch)
            .collect();
        assert_eq!(code, "a    \nb");
        assert_eq!(open_braces("fn f<'a>(x: &'a str) { '{' }", Syntax::Rust), 0);
        assert_eq!(open_braces("int main(){\n  if (x) {\n", Syntax::Cpp), 2);
    }

    #[test]
    fn pieces_split_at_top_level_blocks_and_keep_an_open_one() {
        let t = "#include<x>\nint h(int a){ return {a}; }\nint f(int b){\n";
        let (p, rest) = pieces(t, Syntax::Cpp);
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].head, "#include<x>\nint h(int a)");
        assert_eq!(p[0].block, Some("{ return {a}; }"));
        assert_eq!(p[1].block, None);
        assert_eq!(rest, "");
        assert_eq!(cpp_function_name(p[0].head).as_deref(), Some("h"));
        assert_eq!(cpp_function_name(p[1].head).as_deref(), Some("f"));
        assert_eq!(cpp_function_name("struct S"), None);
    }
}
