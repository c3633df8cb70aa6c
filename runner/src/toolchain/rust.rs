//! Rust: rustup's `wasm32-wasip1` target. A solution is a library crate named `solution`
//! (`lib.rs` or `src/lib.rs`); a test is a binary that uses it. Tests are compiled inside a small
//! generated crate root that links dixit's guest crate and installs its panic hook before `main`,
//! so a failed `assert!` is a wrong answer rather than a crash.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::process::{run_tool, which};
use crate::sandbox::hash_parts;

const TARGET: &str = "wasm32-wasip1";
const STACK_ARG: &str = "link-arg=-zstack-size=8388608";

/// rustc with the wasm32-wasip1 standard library installed.
#[derive(Clone, Debug)]
pub struct RustCompiler {
    rustc: PathBuf,
    /// `rustc --version`; part of every cache key.
    pub version: String,
}

impl RustCompiler {
    /// Finds rustc and checks that the wasm32-wasip1 target is installed.
    pub fn discover() -> Result<RustCompiler, String> {
        let rustc = std::env::var_os("DIXIT_RUSTC")
            .map(PathBuf::from)
            .or_else(|| which("rustc"))
            .ok_or("rustc not found (install rustup)")?;
        let o = run_tool(
            Command::new(&rustc).arg("--version"),
            Duration::from_secs(30),
        )?;
        let version = o.stdout.trim().to_string();
        let o = run_tool(
            Command::new(&rustc).args(["--print", "sysroot"]),
            Duration::from_secs(30),
        )?;
        let sysroot = PathBuf::from(o.stdout.trim());
        if !sysroot.join("lib/rustlib").join(TARGET).is_dir() {
            return Err(format!(
                "the {TARGET} target is not installed (rustup target add {TARGET})"
            ));
        }
        Ok(RustCompiler { rustc, version })
    }

    fn rustc(&self) -> Command {
        let mut c = Command::new(&self.rustc);
        c.args([
            "--edition",
            "2021",
            "--target",
            TARGET,
            "-C",
            "opt-level=2",
            "-C",
            "debuginfo=0",
        ]);
        c.env_remove("RUSTFLAGS");
        c
    }

    /// Compiles a library crate `name` from `root` into `out_dir` (cached by `key`).
    pub fn rlib(
        &self,
        root: &Path,
        name: &str,
        key_parts: &[&[u8]],
        out_dir: &Path,
    ) -> Result<PathBuf, String> {
        let mut parts: Vec<&[u8]> = vec![b"rust-rlib-v2", self.version.as_bytes(), name.as_bytes()];
        parts.extend_from_slice(key_parts);
        let key = hash_parts(parts);
        let dir = out_dir.join(&key[..2]).join(&key);
        let out = dir.join(format!("lib{name}.rlib"));
        if out.is_file() {
            return Ok(out);
        }
        std::fs::create_dir_all(out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
        let tmp = tempfile::tempdir_in(out_dir).map_err(|e| e.to_string())?;
        let mut c = self.rustc();
        c.args([
            "--crate-type",
            "rlib",
            "--crate-name",
            name,
            "--cap-lints",
            "allow",
        ])
        .arg(remap(root))
        .arg(root)
        .arg("-o")
        .arg(tmp.path().join(format!("lib{name}.rlib")));
        let o = run_tool(&mut c, Duration::from_secs(300))?;
        if !o.success {
            return Err(trim(&o.stderr));
        }
        std::fs::create_dir_all(dir.parent().unwrap_or(out_dir)).map_err(|e| e.to_string())?;
        let kept = tmp.keep();
        if std::fs::rename(&kept, &dir).is_err() {
            let _ = std::fs::remove_dir_all(&kept);
        }
        Ok(out)
    }

    /// Compiles a binary from `root` with the given `--extern name=rlib` crates. `sources` is the
    /// directory of the user's file, stripped from paths in messages.
    pub fn binary(
        &self,
        root: &Path,
        sources: &Path,
        externs: &[(&str, &Path)],
    ) -> Result<Vec<u8>, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let out = dir.path().join("bin.wasm");
        let mut c = self.rustc();
        c.args(["-C", STACK_ARG, "--cap-lints", "allow"])
            .arg(remap(&sources.join("x")));
        for (name, rlib) in externs {
            c.arg("--extern").arg(format!("{name}={}", rlib.display()));
            if let Some(d) = rlib.parent() {
                c.arg("-L").arg(d);
            }
        }
        c.arg(root).arg("-o").arg(&out);
        let o = run_tool(&mut c, Duration::from_secs(300))?;
        if !o.success {
            return Err(trim(&o.stderr));
        }
        std::fs::read(&out).map_err(|e| e.to_string())
    }
}

/// The generated crate root for a test: the test's own source (spans still point at its file),
/// dixit's guest crate linked, and its panic hook installed before `main` by a static
/// constructor (`.init_array`, which wasm-ld turns into a call from `_start`).
pub fn test_root(test_path: &Path) -> String {
    format!(
        "extern crate dixit;\n\
         include!({path:?});\n\
         #[used]\n\
         #[link_section = \".init_array.00099\"]\n\
         static __DIXIT_INSTALL: extern \"C\" fn() = {{ extern \"C\" fn install() {{ dixit::install() }} install }};\n",
        path = test_path.display().to_string()
    )
}

/// Which side a failed test build is: a Rust test only builds together with the solution crate,
/// so a failure is the pair's, except for syntax errors in the test file (rustc gives parse
/// errors no error code), which no solution could fix.
pub fn failed_side(log: &str, test_file: &str) -> crate::sandbox::CompileSide {
    let at_test = format!("--> {test_file}:");
    let mut lines = log.lines().peekable();
    while let Some(line) = lines.next() {
        let uncoded = line.starts_with("error: ") && !line.starts_with("error: aborting");
        if uncoded
            && lines
                .peek()
                .is_some_and(|l| l.trim_start().starts_with(&at_test))
        {
            return crate::sandbox::CompileSide::Test;
        }
    }
    crate::sandbox::CompileSide::Link
}

/// `--remap-path-prefix DIR/=`: diagnostics and panic messages name `lib.rs:3`, not a cache path.
fn remap(file: &Path) -> String {
    let dir = file
        .parent()
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    format!("--remap-path-prefix={dir}/=")
}

fn trim(stderr: &str) -> String {
    let s: String = stderr.lines().take(60).collect::<Vec<_>>().join("\n");
    if s.trim().is_empty() {
        "rustc failed without a message".into()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::CompileSide;

    #[test]
    fn parse_errors_are_the_tests_type_errors_the_pairs() {
        let parse = "error: expected `;`, found `println`\n --> t.rs:2:39\n  |\nerror: aborting due to 1 previous error\n";
        assert_eq!(failed_side(parse, "t.rs"), CompileSide::Test);
        assert_eq!(failed_side(parse, "other.rs"), CompileSide::Link);
        let types = "error[E0308]: mismatched types\n --> t.rs:4:21\n";
        assert_eq!(failed_side(types, "t.rs"), CompileSide::Link);
        let link = "error: linking with `rust-lld` failed: exit status: 1\n  |\n";
        assert_eq!(failed_side(link, "t.rs"), CompileSide::Link);
    }
}
