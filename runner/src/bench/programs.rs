//! The benchmark programs (`fixtures/bench/`, embedded in the binary), written to a temporary
//! directory and built both as sandbox guests and natively.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::error::BenchError;
use crate::toolchain::{Runnable, StatedInterface, Toolchains};

const FILES: &[(&str, &str)] = &[
    (
        "c/solution/solution.c",
        include_str!("../../../fixtures/bench/c/solution/solution.c"),
    ),
    (
        "c/solution/solution.h",
        include_str!("../../../fixtures/bench/c/solution/solution.h"),
    ),
    (
        "c/interface/solution.h",
        include_str!("../../../fixtures/bench/c/interface/solution.h"),
    ),
    ("c/test.c", include_str!("../../../fixtures/bench/c/test.c")),
    (
        "rust/solution/lib.rs",
        include_str!("../../../fixtures/bench/rust/solution/lib.rs"),
    ),
    (
        "rust/test.rs",
        include_str!("../../../fixtures/bench/rust/test.rs"),
    ),
    (
        "python/test.py",
        include_str!("../../../fixtures/bench/python/test.py"),
    ),
    (
        "python/solutions/nested_loops/solution.py",
        include_str!("../../../fixtures/bench/python/solutions/nested_loops/solution.py"),
    ),
    (
        "python/solutions/sorted_pairs/solution.py",
        include_str!("../../../fixtures/bench/python/solutions/sorted_pairs/solution.py"),
    ),
    (
        "python/solutions/combinations/solution.py",
        include_str!("../../../fixtures/bench/python/solutions/combinations/solution.py"),
    ),
    (
        "python/solutions/bisect_window/solution.py",
        include_str!("../../../fixtures/bench/python/solutions/bisect_window/solution.py"),
    ),
    (
        "python/solutions/le_threshold/solution.py",
        include_str!("../../../fixtures/bench/python/solutions/le_threshold/solution.py"),
    ),
    (
        "python/solutions/adjacent_unsorted/solution.py",
        include_str!("../../../fixtures/bench/python/solutions/adjacent_unsorted/solution.py"),
    ),
    (
        "python/solutions/first_pair_only/solution.py",
        include_str!("../../../fixtures/bench/python/solutions/first_pair_only/solution.py"),
    ),
];

/// The Python the native baseline runs: the solution importable, then the test as `__main__`,
/// exactly what the guest runtime does.
const PYTHON_DRIVER: &str = "import sys; sys.path.insert(0, sys.argv[1]); p = sys.argv[2]; \
     exec(compile(open(p).read(), p, 'exec'), {'__name__': '__main__'})";

/// Everything the benchmark runs, built.
pub struct Programs {
    _dir: tempfile::TempDir,
    /// The C unit test and its solution, built for the sandbox.
    pub c_guest: Runnable,
    /// The Rust unit test and its solution, built for the sandbox.
    pub rust_guest: Runnable,
    /// The Python unit test and its solution, for the sandbox.
    pub python_guest: Runnable,
    /// argv of the native C build (system `cc`).
    pub c_native: Vec<String>,
    /// argv of `python3 -I -S` running the same test.
    pub python_native: Vec<String>,
    /// The interpreter the native baseline uses (a shim resolved to the real binary).
    pub python: String,
    /// The Python test the classification runs.
    pub classify_test: PathBuf,
    /// The solutions it is classified against.
    pub classify_solutions: Vec<PathBuf>,
    /// What the classification's test may call of its solutions.
    pub python_interface: std::sync::Arc<crate::toolchain::LoadedInterface>,
}

impl Programs {
    /// Writes the programs out and builds them; every one must pass once before it is measured.
    pub fn build(tc: &Toolchains) -> Result<Programs, BenchError> {
        let dir = tempfile::tempdir().map_err(|error| BenchError::Write {
            path: std::env::temp_dir(),
            error,
        })?;
        let root = dir.path();
        for (rel, text) in FILES {
            let p = root.join(rel);
            if let Some(d) = p.parent() {
                std::fs::create_dir_all(d).map_err(|error| BenchError::Write {
                    path: d.to_path_buf(),
                    error,
                })?;
            }
            std::fs::write(&p, text).map_err(|error| BenchError::Write {
                path: p.clone(),
                error,
            })?;
        }
        // What the tests may use of their solutions, as a project would state it.
        let c_interface = StatedInterface::Headers(vec![root.join("c/interface/solution.h")]);
        let rust_interface =
            StatedInterface::Items(vec!["has_close_elements: fn(&[f64], f64) -> bool".into()]);
        let guest =
            |sol: &Path, test: &Path, stated: &StatedInterface| -> Result<Runnable, BenchError> {
                let build = |e: crate::toolchain::BuildError| BenchError::Build(e.message);
                let t = tc.test(test).map_err(build)?;
                let interface = tc
                    .interface(stated)
                    .map_err(|e| BenchError::Build(e.to_string()))?;
                let s = tc
                    .solution_for(sol, t.kind, None)
                    .map_err(build)?
                    .with_interface(std::sync::Arc::new(interface));
                tc.check_test(&t).map_err(build)?;
                tc.check_solution(&s, t.kind).map_err(build)?;
                tc.unit_runnable(&s, &t).map_err(build)
            };
        let py_solution = root.join("python/solutions/nested_loops");
        let py_test = root.join("python/test.py");
        let c_guest = guest(
            &root.join("c/solution"),
            &root.join("c/test.c"),
            &c_interface,
        )?;
        let rust_guest = guest(
            &root.join("rust/solution"),
            &root.join("rust/test.rs"),
            &rust_interface,
        )?;
        let py_interface = StatedInterface::Names(vec!["has_close_elements".into()]);
        let python_guest = guest(&py_solution, &py_test, &py_interface)?;
        let python_interface = std::sync::Arc::new(
            tc.interface(&py_interface)
                .map_err(|e| BenchError::Build(e.to_string()))?,
        );

        let c_bin = root.join("c/native-test");
        let include = tc
            .c_include_dir()
            .map_err(|e| BenchError::Build(e.to_string()))?;
        build_native_c(&include, &root.join("c"), &c_bin)?;
        let python = real_python()?;
        let python_native = vec![
            python.clone(),
            "-I".into(),
            "-S".into(),
            "-c".into(),
            PYTHON_DRIVER.into(),
            py_solution.display().to_string(),
            py_test.display().to_string(),
        ];
        let c_native = vec![c_bin.display().to_string()];
        spawn(&c_native)?;
        spawn(&python_native)?;
        let mut classify_solutions: Vec<PathBuf> = FILES
            .iter()
            .filter_map(|(rel, _)| rel.strip_prefix("python/solutions/"))
            .filter_map(|r| r.split('/').next())
            .map(|name| root.join("python/solutions").join(name))
            .collect();
        classify_solutions.dedup();
        Ok(Programs {
            c_guest,
            rust_guest,
            python_guest,
            c_native,
            python_native,
            python,
            classify_test: py_test,
            classify_solutions,
            python_interface,
            _dir: dir,
        })
    }
}

/// Builds the C check natively with the system compiler: `$CC`, else the first of `cc`, `gcc`
/// and `clang` that starts.
fn build_native_c(include: &Path, c: &Path, out: &Path) -> Result<(), BenchError> {
    let candidates: Vec<String> = match std::env::var("CC") {
        Ok(cc) => vec![cc],
        Err(_) => ["cc", "gcc", "clang"].map(String::from).to_vec(),
    };
    let mut tried = Vec::new();
    for cc in &candidates {
        let run = Command::new(cc)
            .arg("-O2")
            .arg("-I")
            .arg(include)
            .arg("-I")
            .arg(c.join("interface"))
            .arg(c.join("solution/solution.c"))
            .arg(c.join("test.c"))
            .arg("-o")
            .arg(out)
            .arg("-lm")
            .output();
        match run {
            Ok(o) if o.status.success() => return Ok(()),
            Ok(o) => {
                return Err(BenchError::NativeBuild {
                    compiler: cc.clone(),
                    stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
                })
            }
            Err(e) => tried.push(format!("{cc}: {e}")),
        }
    }
    Err(BenchError::NoCompiler { tried })
}

/// Runs a native program once (stdio discarded); it must exit 0.
pub(crate) fn spawn(argv: &[String]) -> Result<(), BenchError> {
    let status = Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|error| BenchError::Spawn {
            program: argv[0].clone(),
            error,
        })?;
    if status.success() {
        Ok(())
    } else {
        Err(BenchError::Exit {
            command: argv.join(" "),
            status,
        })
    }
}

/// `python3` on PATH, resolved to the interpreter itself when PATH holds a shim script.
fn real_python() -> Result<String, BenchError> {
    let out = Command::new("python3")
        .args(["-I", "-S", "-c", "import sys; print(sys.executable)"])
        .output()
        .map_err(|e| {
            BenchError::NoPython(format!("python3 not found for the native baseline: {e}"))
        })?;
    let exe = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if exe.is_empty() || is_shim(Path::new(&exe)) {
        return Err(BenchError::NoPython(
            "cannot find the python3 interpreter for the native baseline".into(),
        ));
    }
    Ok(exe)
}

/// Whether `path` looks like a pyenv/asdf shim (a shell script), which would add its own start-up
/// to the native baseline.
fn is_shim(path: &Path) -> bool {
    std::fs::read(path)
        .map(|b| b.starts_with(b"#!"))
        .unwrap_or(false)
}
