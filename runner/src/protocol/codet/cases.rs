//! Test cases from a tester's reply. Every fenced code block of the run's test kind is a test;
//! a Python test with several top-level `assert` statements is split into one case per assert,
//! because CodeT counts every assert as a test case. A compiled test (C, C++, Rust) is one
//! program whose checks share `main`'s locals, and an I/O test is one input and one expected
//! output, so those stay one case per block.

/// The test cases of one Python test: one per top-level `assert` statement, each the test with
/// every other top-level `assert` removed (imports, helpers and other statements stay where
/// they are, in order). A test with fewer than two top-level asserts is one case: itself. So is
/// a test whose asserts share a line with another statement (`assert a; x = f()`), which no
/// removal could take apart cleanly.
pub(super) fn python_cases(source: &str) -> Vec<String> {
    let lines = logical_lines(source);
    let asserts: Vec<&Logical> = lines.iter().filter(|l| l.is_assert(source)).collect();
    if asserts.len() < 2 || asserts.iter().any(|l| l.semicolon) {
        return vec![source.to_string()];
    }
    asserts
        .iter()
        .map(|keep| {
            let mut case = String::with_capacity(source.len());
            let mut at = 0;
            for other in asserts.iter().filter(|o| o.start != keep.start) {
                case.push_str(&source[at..other.start]);
                at = other.end;
            }
            case.push_str(&source[at..]);
            case
        })
        .collect()
}

/// One logical line of Python source (a statement, or a blank or comment line): bytes
/// `start..end`, its newline included.
struct Logical {
    start: usize,
    end: usize,
    /// A `;` outside brackets, strings and comments: more than one statement.
    semicolon: bool,
}

impl Logical {
    /// Whether it is an `assert` statement at the top level (column 0).
    fn is_assert(&self, source: &str) -> bool {
        let text = &source[self.start..self.end];
        text.strip_prefix("assert").is_some_and(|rest| {
            !rest
                .chars()
                .next()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
    }
}

/// Python's logical lines, as its tokenizer ends them: at a newline outside brackets and
/// strings that no backslash continues. Comments end at the newline; a string may hold quotes
/// of the other kind, escaped quotes, brackets and `#`; a triple-quoted string may hold
/// newlines.
fn logical_lines(source: &str) -> Vec<Logical> {
    let bytes = source.as_bytes();
    let mut out = Vec::new();
    let (mut start, mut depth, mut semicolon) = (0usize, 0i32, false);
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'\\' if bytes[i + 1..].starts_with(b"\n") => i += 1,
            b'\\' if bytes[i + 1..].starts_with(b"\r\n") => i += 2,
            q @ (b'\'' | b'"') => {
                let triple = bytes.get(i + 1) == Some(&q) && bytes.get(i + 2) == Some(&q);
                i += if triple { 3 } else { 1 };
                while i < bytes.len() {
                    match bytes[i] {
                        b'\\' => i += 1,
                        b'\n' if !triple => break,
                        c if c == q && !triple => break,
                        c if c == q && bytes[i..].starts_with(&[q, q, q]) => {
                            i += 2;
                            break;
                        }
                        _ => {}
                    }
                    i += 1;
                }
                if bytes.get(i) == Some(&b'\n') {
                    // An unterminated string ends at its line, as Python's error does.
                    continue;
                }
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = (depth - 1).max(0),
            b';' if depth == 0 => semicolon = true,
            b'\n' if depth == 0 => {
                out.push(Logical {
                    start,
                    end: i + 1,
                    semicolon,
                });
                (start, semicolon) = (i + 1, false);
            }
            _ => {}
        }
        i += 1;
    }
    if start < bytes.len() {
        out.push(Logical {
            start,
            end: bytes.len(),
            semicolon,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::python_cases;

    #[test]
    fn each_top_level_assert_is_a_case_with_the_rest_kept_in_place() {
        let src = "from solution import f\n\nassert f(1) == 1\nx = f(2)\nassert x == 4  # two\n";
        assert_eq!(
            python_cases(src),
            [
                "from solution import f\n\nassert f(1) == 1\nx = f(2)\n",
                "from solution import f\n\nx = f(2)\nassert x == 4  # two\n",
            ]
        );
    }

    #[test]
    fn one_assert_or_none_is_one_case() {
        for src in [
            "from solution import f\nassert f(1) == 1\n",
            "from solution import f\ntry:\n    f(-1)\nexcept ValueError:\n    pass\nelse:\n    raise AssertionError\n",
            "",
        ] {
            assert_eq!(python_cases(src), [src]);
        }
    }

    #[test]
    fn asserts_span_brackets_strings_and_continuations() {
        let src = concat!(
            "from solution import f\n",
            "assert f(\n    1,\n) == \"(\"  # a ( in a string\n",
            "assert f(2) == '''a\nassert inside a string\n'''\n",
            "assert f(3) \\\n    == 'b\\'#'\n",
            "assert f('[') == {\n1: 2}\n",
        );
        let cases = python_cases(src);
        assert_eq!(cases.len(), 4);
        assert_eq!(
            cases[0],
            "from solution import f\nassert f(\n    1,\n) == \"(\"  # a ( in a string\n"
        );
        assert_eq!(
            cases[1],
            "from solution import f\nassert f(2) == '''a\nassert inside a string\n'''\n"
        );
        assert_eq!(
            cases[2],
            "from solution import f\nassert f(3) \\\n    == 'b\\'#'\n"
        );
        assert_eq!(
            cases[3],
            "from solution import f\nassert f('[') == {\n1: 2}\n"
        );
    }

    #[test]
    fn nested_and_lookalike_asserts_stay() {
        let src = concat!(
            "from solution import f\n",
            "def check(x):\n    assert f(x) == x\n",
            "assert_equal = 1\n",
            "for x in (1, 2):\n    assert f(x) == x\n",
            "assert f(0) == 0\n",
            "assert(f(5) == 5)\n",
        );
        let cases = python_cases(src);
        assert_eq!(cases.len(), 2);
        assert!(cases[0].contains("    assert f(x) == x\n") && cases[0].contains("assert_equal"));
        assert!(cases[0].ends_with("assert f(0) == 0\n"));
        assert!(cases[1].ends_with("    assert f(x) == x\nassert(f(5) == 5)\n"));
    }

    #[test]
    fn several_statements_on_an_assert_line_keep_the_test_whole() {
        let src = "from solution import f\nassert f(1) == 1; y = f(2)\nassert y == 4\n";
        assert_eq!(python_cases(src), [src]);
        // A `;` inside a string is not a statement's end.
        let src = "from solution import f\nassert f(';') == 1\nassert f(2) == 4\n";
        assert_eq!(python_cases(src).len(), 2);
    }

    #[test]
    fn a_last_line_without_newline_and_crlf_endings() {
        let src = "from solution import f\r\nassert f(1) == 1\r\nassert f(2) == 2";
        assert_eq!(
            python_cases(src),
            [
                "from solution import f\r\nassert f(1) == 1\r\n",
                "from solution import f\r\nassert f(2) == 2",
            ]
        );
    }
}
