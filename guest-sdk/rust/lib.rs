//! dixit's guest crate for Rust tests (linked into every Rust test as `dixit`).
//!
//! On wasm32-wasip1 a panic aborts the program, which a judge would report as a crash. This
//! crate installs [`install`] before `main` (a static constructor: the test itself is compiled
//! with unsafe code forbidden, so it cannot), so a panic in a test (a failed `assert!`,
//! `assert_eq!`, or [`check!`]) prints its message and exits with code 1: `wrong_answer`.

use std::io::Write;

extern "C" fn install_before_main() {
    install()
}

#[used]
#[unsafe(link_section = ".init_array.00099")]
static INSTALL: extern "C" fn() = install_before_main;

/// Exported by name, so the linker keeps this crate's one object (and its constructor above)
/// in every test, whatever the test uses of it.
#[unsafe(no_mangle)]
pub extern "C" fn dixit_guest_linked() {}

/// Makes panics exit with code 1 after printing where and why. Called before the test's `main`.
pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        let mut err = std::io::stderr();
        let _ = writeln!(err, "test failed: {info}");
        let _ = err.flush();
        let _ = std::io::stdout().flush();
        std::process::exit(1);
    }));
}

/// `check!(cond)` / `check!(cond, "message {}", x)`: like `assert!`, spelled for dixit tests.
#[macro_export]
macro_rules! check {
    ($cond:expr $(,)?) => { assert!($cond) };
    ($cond:expr, $($arg:tt)+) => { assert!($cond, $($arg)+) };
}

/// `check_eq!(left, right)`: like `assert_eq!`.
#[macro_export]
macro_rules! check_eq {
    ($a:expr, $b:expr $(,)?) => { assert_eq!($a, $b) };
    ($a:expr, $b:expr, $($arg:tt)+) => { assert_eq!($a, $b, $($arg)+) };
}

/// `check_near!(left, right, eps)`: floats within `eps` of each other.
#[macro_export]
macro_rules! check_near {
    ($a:expr, $b:expr, $eps:expr $(,)?) => {{
        let (a, b, e): (f64, f64, f64) = ($a as f64, $b as f64, $eps as f64);
        assert!((a - b).abs() <= e, "{} ~= {} failed: left {a}, right {b}, eps {e}", stringify!($a), stringify!($b));
    }};
}
