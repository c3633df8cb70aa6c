//! How a program is entered ([`Entry`]): a core module's `_start`, or a call of a component's
//! `run` export in one of the guest runtime's modes ([`RuntimeMode`]). Data only, so the live
//! instances (`session.rs`) can hold a served solution's call without its program.

use std::sync::Arc;

/// How dixit's guest runtime is entered: the `mode` argument of its `run` export (the keys of
/// `_MODES` in `guest-sdk/python/dixit_runtime.py`). One variant per mode, so no caller names a
/// mode as a string; its name on the wire is the variant's in kebab case (`ServePair` →
/// `serve-pair`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuntimeMode {
    /// Runs `target` as `__main__`, a program (its exit code is the run's).
    Main,
    /// Runs the unit test `target`, which calls its solution across the bridge.
    Test,
    /// Serves the solution at `target` to a test (the partner of a `Test` run).
    Serve,
    /// Runs a recorded task's test in the reference's namespace, its entry point bound to the
    /// solution across the bridge (`dixit eval`).
    Pair,
    /// Serves a recorded sample's code to a `Pair` run.
    ServePair,
    /// Compile-checks a side's files and emits their marshalled code.
    Check,
    /// Compile-checks many sources in one call (`dixit eval`).
    Compile,
    /// Builds many programs in one call: compiled and marshalled (`dixit eval`).
    Build,
    /// Takes the code out of models' raw answers, running none of it (`dixit eval --samples`).
    Sanitize,
}

impl RuntimeMode {
    /// Every mode, for checks that the runtime knows each.
    pub const ALL: [RuntimeMode; 9] = [
        RuntimeMode::Main,
        RuntimeMode::Test,
        RuntimeMode::Serve,
        RuntimeMode::Pair,
        RuntimeMode::ServePair,
        RuntimeMode::Check,
        RuntimeMode::Compile,
        RuntimeMode::Build,
        RuntimeMode::Sanitize,
    ];

    /// The name the runtime's `run` export receives: the variant's, in kebab case.
    pub fn wire_name(self) -> String {
        let mut out = String::new();
        for (i, c) in format!("{self:?}").chars().enumerate() {
            if c.is_ascii_uppercase() {
                if i > 0 {
                    out.push('-');
                }
                out.push(c.to_ascii_lowercase());
            } else {
                out.push(c);
            }
        }
        out
    }
}

/// How the program is entered.
#[derive(Clone, Debug)]
pub enum Entry {
    /// A core module's `_start` with these `argv` (argv\[0\] included).
    Start {
        /// The arguments, argv\[0\] included.
        argv: Vec<String>,
    },
    /// A component's `run: func(mode: string, target: string, args: list<string>) -> s32` export
    /// (the contract of dixit's guest runtimes, e.g. the Python one).
    Call {
        /// The runtime's mode.
        mode: RuntimeMode,
        /// The `target` argument of `run` (what the mode runs or serves).
        target: String,
        /// Further arguments for the runtime.
        args: Vec<String>,
        /// What the runtime's `bridge.code` import returns during the call: the run's files'
        /// compiled code, cached when they were checked (empty: none, the files are compiled).
        code: Arc<[u8]>,
    },
}

/// The arguments of a call of a component's `run` (mode, target, args) and the code its
/// `bridge.code` import returns meanwhile (see [`Entry::Call`]).
pub type CallArgs<'a> = (RuntimeMode, &'a str, &'a [String], &'a Arc<[u8]>);

impl Entry {
    /// The arguments of the `run` call this entry makes; `None` for a core module's `_start`.
    pub fn call_args(&self) -> Option<CallArgs<'_>> {
        match self {
            Entry::Call {
                mode,
                target,
                args,
                code,
            } => Some((*mode, target, args, code)),
            Entry::Start { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RuntimeMode;

    /// Each mode's wire name is one the Python runtime dispatches on, and no two share one.
    #[test]
    fn every_mode_is_one_the_runtime_knows() {
        let runtime = include_str!("../../../guest-sdk/python/dixit_runtime.py");
        let table = &runtime[runtime
            .find("_MODES = {")
            .expect("the runtime's mode table")..];
        let table = &table[..table.find('}').unwrap()];
        let names: Vec<String> = RuntimeMode::ALL.iter().map(|m| m.wire_name()).collect();
        for n in &names {
            assert!(
                table.contains(&format!("\"{n}\": _mode_")),
                "{n} not in {table}"
            );
        }
        assert_eq!(table.matches(": _mode_").count(), names.len(), "{table}");
    }
}
