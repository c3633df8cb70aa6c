//! English for messages and reports, one way everywhere: a list reads `1, 2 and 3` and a count
//! `2 tests` in the CLI's errors, a scale-out merge's, a protocol's stop and every report. It
//! sits below all of them, so each layer that writes one takes it from here.

use std::fmt::Display;

/// `1, 2 and 3`: the items joined with commas, the last with "and"; empty for none.
pub fn and_list<T: Display>(items: impl IntoIterator<Item = T>) -> String {
    let items: Vec<String> = items.into_iter().map(|x| x.to_string()).collect();
    match items.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// `n` and the noun's form for it: `1 test was`, `2 tests were`.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", n, if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists() {
        assert_eq!(and_list::<u32>([]), "");
        assert_eq!(and_list([1]), "1");
        assert_eq!(and_list([3, 7]), "3 and 7");
        assert_eq!(and_list(["a", "b", "c"]), "a, b and c");
        assert_eq!(plural(1, "test was", "tests were"), "1 test was");
        assert_eq!(plural(2, "test", "tests"), "2 tests");
    }
}
