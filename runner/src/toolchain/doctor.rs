//! `dixit toolchain doctor`: what is present, what is missing, and the exact command to install it.

use std::time::Duration;

use serde::Serialize;

use super::{CCompiler, RustCompiler, Toolchains};
use crate::sandbox::dixit_home;

/// One line of the doctor's report.
#[derive(Clone, Debug, Serialize)]
pub struct DoctorCheck {
    /// What was checked (`python`, `c/c++`, `rust`, `model`).
    pub name: String,
    /// Whether it is usable.
    pub ok: bool,
    /// What was found, or why it failed.
    pub detail: String,
    /// The command that installs it, when missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
    /// Whether sandbox runs need it (the local model only serves live agent runs).
    pub required: bool,
}

/// The line for `name`: what was found, or why it failed and `fix`.
fn check<E: std::fmt::Display>(
    name: &str,
    result: Result<String, E>,
    fix: &str,
    required: bool,
) -> DoctorCheck {
    let ok = result.is_ok();
    DoctorCheck {
        name: name.into(),
        ok,
        detail: result.unwrap_or_else(|e| e.to_string()),
        fix: (!ok).then(|| fix.to_string()),
        required,
    }
}

/// Checks every toolchain by really building and running something with it, and the local
/// model server by asking it for its models.
pub fn doctor(tc: &Toolchains) -> Vec<DoctorCheck> {
    let sandbox = format!(
        "wasmtime {} (Cranelift, fuel, epochs, pooling allocator)",
        crate::sandbox::wasmtime_version()
    );
    let python = match super::find_componentize_py() {
        None => Err("componentize-py not found".to_string()),
        Some(tool) => tc
            .python_runtime()
            .map(|p| {
                format!(
                    "pre-initialised CPython component {} (componentize-py {}: {})",
                    &p.id[..12],
                    super::COMPONENTIZE_PY_VERSION,
                    tool.display()
                )
            })
            .map_err(|e| e.to_string()),
    };
    vec![
        check("sandbox", Ok::<_, String>(sandbox), "", true),
        check(
            "confine",
            super::process::confinement_check(),
            "a Linux kernel ≥ 6.2 with Landlock enabled (CONFIG_SECURITY_LANDLOCK, `lsm=landlock,...`)",
            true,
        ),
        check("python", python, "toolchains/setup", true),
        check(
            "c/c++",
            CCompiler::discover(tc.sandbox().cache().root())
                .map(|c| format!("{} ({})", c.version, c.flavor)),
            "sudo apt-get install clang lld wasi-libc libclang-rt-dev-wasm32 libc++-dev-wasm32 libc++abi-14-dev-wasm32 (or toolchains/setup)",
            true,
        ),
        check(
            "rust",
            RustCompiler::discover()
                .map(|r| format!("{} (wasm32-wasip1)", r.version))
                .map_err(|e| e.to_string()),
            "rustup target add wasm32-wasip1",
            true,
        ),
        model_check(),
    ]
}

/// The local model: installed (weights verified, server built) and answering?
fn model_check() -> DoctorCheck {
    let dir = dixit_home().join("model");
    let weights = std::fs::read_dir(&dir)
        .ok()
        .and_then(|rd| {
            rd.flatten()
                .find(|e| e.path().to_string_lossy().ends_with(".gguf.ok"))
        })
        .is_some();
    let server = dir.join("venv/bin/python").is_file();
    let port = std::env::var("DIXIT_MODEL_PORT").unwrap_or_else(|_| "8080".into());
    let url = format!("http://127.0.0.1:{port}/v1/models");
    // A server busy generating may not answer at once; an open port is enough to say it runs.
    let answering = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(3))
        .build()
        .ok()
        .and_then(|c| c.get(&url).send().ok())
        .is_some_and(|r| r.status().is_success())
        || format!("127.0.0.1:{port}").parse().is_ok_and(|a| {
            std::net::TcpStream::connect_timeout(&a, Duration::from_secs(1)).is_ok()
        });
    let result = match (weights, server, answering) {
        (_, _, true) => Ok(format!("Qwen2.5-Coder-1.5B-Instruct served at http://127.0.0.1:{port}/v1 (optional: live runs)")),
        (true, true, false) => Err("installed but not running (optional: live runs)".to_string()),
        _ => Err(format!("not installed under {} (optional: live runs)", dir.display())),
    };
    let fix = if weights && server {
        "toolchains/model start"
    } else {
        "toolchains/model start   (installs from PyPI first)"
    };
    check("model", result, fix, false)
}
