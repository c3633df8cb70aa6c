//! Rust: rustup's `wasm32-wasip1` target. A solution is a library crate (`lib.rs` or
//! `src/lib.rs`), compiled as `dixit_solution`; a test is a binary that uses the facade crate
//! `solution`, which re-exports only the project's interface from it (see `interface.rs`), so
//! no macro or other item of the solution's reaches the test. Tests are compiled inside a small
//! generated crate root that links dixit's guest crate and installs its panic hook before `main`,
//! so a failed `assert!` is a wrong answer rather than a crash.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::process::{
    failure_log, run_tool, shared_libraries, which, Confinement, Policy, ToolError, ToolLimits,
};
use crate::sandbox::hash_parts;

const TARGET: &str = "wasm32-wasip1";

/// The crate name a solution's own crate is compiled under. Tests never see it: they link
/// against the facade crate `solution` (see `interface.rs`), which depends on this one.
pub(crate) const SOLUTION_CRATE: &str = "dixit_solution";

/// How to compile a library crate.
pub(crate) struct RlibOptions<'a> {
    /// A coder's crate: safe Rust only (`-F unsafe_code`).
    pub solution: bool,
    /// Crates it uses (`--extern name=rlib`).
    pub externs: &'a [(&'a str, &'a Path)],
}
const STACK_ARG: &str = "link-arg=-zstack-size=8388608";

/// Seconds of wall time one rustc invocation may take (CPU time: see `ToolLimits::compiler`).
const RUSTC_SECONDS: u64 = 90;

/// rustc with the wasm32-wasip1 standard library installed.
#[derive(Clone, Debug)]
pub struct RustCompiler {
    /// The toolchain's own rustc binary (not rustup's proxy, which reads `~/.rustup`).
    rustc: PathBuf,
    /// `rustc --version`; part of every cache key.
    pub version: String,
    /// What its processes may touch: the sysroot (std for the target, the linker) and the
    /// shared libraries rustc and rust-lld load.
    confinement: Confinement,
}

impl RustCompiler {
    /// Finds rustc and checks that the wasm32-wasip1 target is installed.
    pub fn discover() -> Result<RustCompiler, String> {
        let trusted = || Policy::Trusted {
            timeout: Duration::from_secs(30),
        };
        let proxy = std::env::var_os("DIXIT_RUSTC")
            .map(PathBuf::from)
            .or_else(|| which("rustc"))
            .ok_or("rustc not found (install rustup)")?;
        let o = run_tool(Command::new(&proxy).arg("--version"), trusted())?;
        let version = o.stdout.trim().to_string();
        let o = run_tool(Command::new(&proxy).args(["--print", "sysroot"]), trusted())?;
        let sysroot = PathBuf::from(o.stdout.trim());
        if !sysroot.join("lib/rustlib").join(TARGET).is_dir() {
            return Err(format!(
                "the {TARGET} target is not installed (rustup target add {TARGET})"
            ));
        }
        let rustc = sysroot.join("bin/rustc");
        if !rustc.is_file() {
            return Err(format!("{}: not found", rustc.display()));
        }
        // The shared libraries, and the dynamic loader, which the kernel opens for execution.
        let mut exec = vec![sysroot.clone()];
        exec.extend(shared_libraries(&rustc));
        let host_bin = sysroot.join("lib/rustlib");
        if let Ok(rd) = std::fs::read_dir(&host_bin) {
            for e in rd.flatten() {
                let lld = e.path().join("bin/rust-lld");
                if lld.is_file() {
                    exec.extend(shared_libraries(&lld));
                }
            }
        }
        exec.sort();
        exec.dedup();
        Ok(RustCompiler {
            rustc,
            version,
            confinement: Confinement {
                exec,
                read: Vec::new(),
                write: Vec::new(),
                env: vec![("LC_ALL".into(), "C".into())],
            },
        })
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
            // Warnings are noise in a build log; deny-by-default lints stay errors, and the
            // const-evaluation limit cannot be switched off by the code itself.
            "-A",
            "warnings",
            "-F",
            "long_running_const_eval",
        ]);
        c
    }

    fn run(
        &self,
        c: &mut Command,
        reads: &[&Path],
        work: &Path,
    ) -> Result<(bool, String), ToolError> {
        let confinement = self
            .confinement
            .reading(reads.iter().copied())
            .writing([work]);
        let limits = ToolLimits::compiler(RUSTC_SECONDS);
        c.env("TMPDIR", work);
        run_tool(
            c,
            Policy::Confined {
                confinement: &confinement,
                limits,
            },
        )
        .map(|o| {
            (
                o.success,
                trim(&failure_log(&o, &limits, &confinement.scrubs())),
            )
        })
        .map_err(|e| match e {
            ToolError::TimedOut(m) => ToolError::TimedOut(format!("{m}\n{}", limits.explain())),
            other => other,
        })
    }

    /// Compiles a library crate `name` from `root` into `out_dir` (cached by `key_parts`). A
    /// solution is safe Rust: `unsafe_code` is forbidden, which also forbids `#[no_mangle]`,
    /// `#[export_name]` and `#[link_section]`, so it cannot replace a symbol the test or the C
    /// runtime defines, nor run code before `main`.
    pub(crate) fn rlib(
        &self,
        root: &Path,
        name: &str,
        key_parts: &[&[u8]],
        out_dir: &Path,
        opts: &RlibOptions,
    ) -> Result<PathBuf, String> {
        let kind = [u8::from(opts.solution)];
        let mut parts: Vec<&[u8]> = vec![
            b"rust-rlib-v5",
            self.version.as_bytes(),
            name.as_bytes(),
            &kind,
        ];
        for (n, p) in opts.externs {
            parts.push(n.as_bytes());
            parts.push(p.as_os_str().as_encoded_bytes());
        }
        parts.extend_from_slice(key_parts);
        let key = hash_parts(parts);
        let dir = out_dir.join(&key[..2]).join(&key);
        let out = dir.join(format!("lib{name}.rlib"));
        if out.is_file() {
            return Ok(out);
        }
        let failed = out_dir.join(&key[..2]).join(format!("{key}.failed"));
        if let Ok(log) = std::fs::read_to_string(&failed) {
            return Err(log);
        }
        std::fs::create_dir_all(out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
        let tmp = tempfile::tempdir_in(out_dir).map_err(|e| e.to_string())?;
        let mut c = self.rustc();
        c.args(["--crate-type", "rlib", "--crate-name", name]);
        if opts.solution {
            c.args(["-F", "unsafe_code"]);
        }
        let src_dir = root.parent().unwrap_or(Path::new("/"));
        let mut reads: Vec<&Path> = vec![src_dir];
        for (n, rlib) in opts.externs {
            c.arg("--extern").arg(format!("{n}={}", rlib.display()));
            reads.extend(rlib.parent());
        }
        c.arg(remap(root))
            .arg(root)
            .arg("-o")
            .arg(tmp.path().join(format!("lib{name}.rlib")));
        match self.run(&mut c, &reads, tmp.path()) {
            Ok((true, _)) => {}
            Ok((false, log)) | Err(ToolError::TimedOut(log)) => {
                let _ = std::fs::create_dir_all(failed.parent().unwrap_or(out_dir));
                let _ = std::fs::write(&failed, &log);
                return Err(log);
            }
            Err(ToolError::Setup(m)) => return Err(m),
        }
        std::fs::create_dir_all(dir.parent().unwrap_or(out_dir)).map_err(|e| e.to_string())?;
        let kept = tmp.keep();
        if std::fs::rename(&kept, &dir).is_err() {
            let _ = std::fs::remove_dir_all(&kept);
        }
        Ok(out)
    }

    /// Compiles a binary from `root` with the given `--extern name=rlib` crates and `deps`, the
    /// rlibs those crates depend on (found by rustc only as dependencies: code cannot name
    /// them). `sources` is the directory of the user's file, stripped from paths in messages. A
    /// build that fails or runs out of time is recorded in `failed` and not tried again.
    pub fn binary(
        &self,
        root: &Path,
        sources: &Path,
        externs: &[(&str, &Path)],
        deps: &[&Path],
        failed: &Path,
    ) -> Result<Vec<u8>, String> {
        if let Ok(log) = std::fs::read_to_string(failed) {
            return Err(log);
        }
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let out = dir.path().join("bin.wasm");
        let mut c = self.rustc();
        c.args(["-C", STACK_ARG]).arg(remap(&sources.join("x")));
        let mut reads: Vec<&Path> = vec![sources];
        if let Some(d) = root.parent() {
            reads.push(d);
        }
        for (name, rlib) in externs {
            c.arg("--extern").arg(format!("{name}={}", rlib.display()));
            if let Some(d) = rlib.parent() {
                c.arg("-L").arg(format!("dependency={}", d.display()));
                reads.push(d);
            }
        }
        for rlib in deps {
            if let Some(d) = rlib.parent() {
                c.arg("-L").arg(format!("dependency={}", d.display()));
                reads.push(d);
            }
        }
        c.arg(root).arg("-o").arg(&out);
        match self.run(&mut c, &reads, dir.path()) {
            Ok((true, _)) => std::fs::read(&out).map_err(|e| e.to_string()),
            Ok((false, log)) | Err(ToolError::TimedOut(log)) => {
                if let Some(d) = failed.parent() {
                    let _ = std::fs::create_dir_all(d);
                }
                let _ = std::fs::write(failed, &log);
                Err(log)
            }
            Err(ToolError::Setup(m)) => Err(m),
        }
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

fn trim(log: &str) -> String {
    if log == "the compiler failed without a message" {
        "rustc failed without a message".into()
    } else {
        log.to_string()
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
