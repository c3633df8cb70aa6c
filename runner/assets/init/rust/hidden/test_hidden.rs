// Hidden tests: never shown to any agent; run against every final implementation.
use solution::is_palindrome;

fn main() {
    assert!(is_palindrome(""));
    assert!(is_palindrome("Was it a car or a cat I saw?"));
    assert!(is_palindrome("12321"));
    assert!(!is_palindrome("palindrome"));
    assert!(!is_palindrome("ab"));
}
