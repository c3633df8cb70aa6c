//! `dixit toolchain doctor`: what is present, what is missing, and the exact command to install it.

use serde::Serialize;

use super::{CCompiler, RustCompiler, Toolchains};

/// One line of the doctor's report.
#[derive(Clone, Debug, Serialize)]
pub struct DoctorCheck {
    /// What was checked (`python`, `c/c++`, `rust`, ...).
    pub name: String,
    pub ok: bool,
    /// What was found, or why it failed.
    pub detail: String,
    /// The command that installs it, when missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

/// Checks every toolchain by really building and running something with it.
pub fn doctor(tc: &Toolchains) -> Vec<DoctorCheck> {
    let setup = "toolchains/setup".to_string();
    let mut out = Vec::new();
    let sandbox = format!(
        "wasmtime {} (Cranelift, fuel, epochs, pooling allocator)",
        crate::sandbox::wasmtime_version()
    );
    out.push(DoctorCheck {
        name: "sandbox".into(),
        ok: true,
        detail: sandbox,
        fix: None,
    });

    let py = match super::find_componentize_py() {
        None => DoctorCheck {
            name: "python".into(),
            ok: false,
            detail: "componentize-py not found".into(),
            fix: Some(setup.clone()),
        },
        Some(tool) => match tc.python_runtime() {
            Ok(p) => DoctorCheck {
                name: "python".into(),
                ok: true,
                detail: format!(
                    "pre-initialised CPython component {} (componentize-py {}: {})",
                    &p.id[..12],
                    super::COMPONENTIZE_PY_VERSION,
                    tool.display()
                ),
                fix: None,
            },
            Err(e) => DoctorCheck {
                name: "python".into(),
                ok: false,
                detail: e,
                fix: Some(setup.clone()),
            },
        },
    };
    out.push(py);

    out.push(match CCompiler::discover() {
        Ok(c) => DoctorCheck { name: "c/c++".into(), ok: true, detail: format!("{} ({})", c.version, c.flavor), fix: None },
        Err(e) => DoctorCheck {
            name: "c/c++".into(),
            ok: false,
            detail: e,
            fix: Some("sudo apt-get install clang lld wasi-libc libclang-rt-dev-wasm32 libc++-dev-wasm32 libc++abi-14-dev-wasm32  (or toolchains/setup)".into()),
        },
    });
    out.push(match RustCompiler::discover() {
        Ok(r) => DoctorCheck {
            name: "rust".into(),
            ok: true,
            detail: format!("{} (wasm32-wasip1)", r.version),
            fix: None,
        },
        Err(e) => DoctorCheck {
            name: "rust".into(),
            ok: false,
            detail: e,
            fix: Some("rustup target add wasm32-wasip1".into()),
        },
    });
    out
}
