//! Python: a pre-initialised CPython component built once by componentize-py from
//! `guest-sdk/python/dixit_runner.py`, then cached like any other artifact. Solutions and tests
//! are plain files the runtime reads from read-only preopened directories.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use super::process::{run_tool, which};
use super::sdk;
use crate::sandbox::{dixit_home, hash_parts, Program, Sandbox, SandboxError};

/// The componentize-py version `toolchains/setup` installs; part of the runtime's cache key.
pub const COMPONENTIZE_PY_VERSION: &str = "0.25.1";

/// Finds componentize-py: `$DIXIT_COMPONENTIZE_PY`, the venv `toolchains/setup` makes, or `PATH`.
pub fn find_componentize_py() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("DIXIT_COMPONENTIZE_PY") {
        return Some(PathBuf::from(p));
    }
    let venv = dixit_home()
        .join("venv")
        .join("bin")
        .join("componentize-py");
    if venv.is_file() {
        return Some(venv);
    }
    which("componentize-py")
}

/// The cache key of the Python runtime: the runner source, its WIT world, componentize-py.
pub fn runtime_key() -> String {
    hash_parts([
        b"dixit-python-runtime-v1".as_slice(),
        sdk::file("python/dixit_runner.py").as_bytes(),
        sdk::file("python/wit/world.wit").as_bytes(),
        COMPONENTIZE_PY_VERSION.as_bytes(),
    ])
}

/// Loads the Python runtime, building it with componentize-py only if no compiled copy is cached.
pub fn load_runtime(sandbox: &Sandbox) -> Result<Program, String> {
    sandbox
        .load_keyed(&runtime_key(), || {
            build_runtime(sandbox).map_err(|message| SandboxError::Invalid { message })
        })
        .map_err(|e| format!("python runtime: {e}"))
}

fn build_runtime(sandbox: &Sandbox) -> Result<Vec<u8>, String> {
    let tool = find_componentize_py().ok_or_else(|| {
        "componentize-py not found (run toolchains/setup, or set DIXIT_COMPONENTIZE_PY)".to_string()
    })?;
    let sdk = sdk::Sdk::materialize(sandbox.cache())?;
    let work = tempfile::tempdir().map_err(|e| format!("temp dir: {e}"))?;
    let out = work.path().join("runtime.wasm");
    tracing::info!("building the Python runtime with {} (once)", tool.display());
    let mut cmd = Command::new(&tool);
    cmd.current_dir(work.path())
        .arg("-q")
        .arg("-d")
        .arg(sdk.path("python/wit"))
        .args(["-w", "runner", "componentize", "-p"])
        .arg(sdk.path("python"))
        .arg("dixit_runner")
        .arg("-o")
        .arg(&out)
        .env("PYTHONDONTWRITEBYTECODE", "1");
    let o = run_tool(&mut cmd, Duration::from_secs(600))?;
    if !o.success {
        return Err(format!("componentize-py failed:\n{}{}", o.stdout, o.stderr));
    }
    std::fs::read(&out).map_err(|e| format!("{}: {e}", out.display()))
}
