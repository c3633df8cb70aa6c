//! Commands dixit prints for a person to copy (resume a run, decide at a stop, `dixit exec` a
//! failing cell), one word at a time, quoted for a POSIX shell where a word must be.

/// `s` as one word of a POSIX shell command: as it is when it holds only safe characters, else
/// in single quotes.
pub fn shell_word(s: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "._/-:=+,@%".contains(c);
    if !s.is_empty() && s.chars().all(safe) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_are_quoted_when_they_must_be() {
        assert_eq!(shell_word("suite/test_001.py"), "suite/test_001.py");
        assert_eq!(shell_word("a b"), "'a b'");
        assert_eq!(shell_word("it's; rm -rf ~"), "'it'\\''s; rm -rf ~'");
        assert_eq!(shell_word(""), "''");
    }
}
