//! C and C++: clang targeting `wasm32-wasi`. Found in this order: `$DIXIT_CC` (a clang that can
//! target wasm32-wasi), Debian's clang with wasi-libc (no sysroot flag needed), wasi-sdk
//! (`$WASI_SDK_PATH`), then `zig cc`. Objects are compiled once each and linked per pair.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::process::{first_error_line, run_tool, which};
use crate::sandbox::hash_parts;

/// Linear-memory stack for C/C++ guests (wasm-ld's default is 64 KiB), placed first so an
/// overflow faults instead of silently corrupting data.
const STACK_LINK_ARGS: [&str; 2] = ["-Wl,-z,stack-size=8388608", "-Wl,--stack-first"];

/// A working C/C++ → wasm32-wasi compiler.
#[derive(Clone, Debug)]
pub struct CCompiler {
    /// How it was found (`debian-clang`, `wasi-sdk`, `zig`, `DIXIT_CC`).
    pub flavor: &'static str,
    cc: Vec<String>,
    cxx: Vec<String>,
    /// `clang --version` first line; part of every cache key.
    pub version: String,
}

impl CCompiler {
    /// Finds a compiler and proves it by building a tiny C program.
    pub fn discover() -> Result<CCompiler, String> {
        let mut tried = Vec::new();
        for cand in candidates() {
            let flavor = cand.flavor;
            match cand.probe() {
                Ok(c) => return Ok(c),
                Err(e) => tried.push(format!("{flavor}: {e}")),
            }
        }
        Err(if tried.is_empty() {
            "no clang, wasi-sdk or zig found".into()
        } else {
            tried.join("; ")
        })
    }

    fn probe(mut self) -> Result<CCompiler, String> {
        let mut v = Command::new(&self.cc[0]);
        v.args(&self.cc[1..]).arg("--version");
        let o = run_tool(&mut v, Duration::from_secs(30))?;
        self.version = o.stdout.lines().next().unwrap_or("").trim().to_string();
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let src = dir.path().join("probe.c");
        std::fs::write(
            &src,
            "#include <stdio.h>\nint main(void){puts(\"ok\");return 0;}\n",
        )
        .map_err(|e| e.to_string())?;
        let out = dir.path().join("probe.wasm");
        let mut c = self.command(false);
        c.arg(&src).arg("-o").arg(&out);
        let o = run_tool(&mut c, Duration::from_secs(300))?;
        if !o.success || !out.is_file() {
            return Err(first_error_line(&o.stderr));
        }
        Ok(self)
    }

    fn command(&self, cxx: bool) -> Command {
        let argv = if cxx { &self.cxx } else { &self.cc };
        let mut c = Command::new(&argv[0]);
        c.args(&argv[1..]).arg("-O2");
        if cxx {
            c.arg("-fno-exceptions");
        }
        c
    }

    /// Compiles one source file to an object in `out_dir`, named by the hash of its inputs.
    /// `include_dirs` come first on the include path; `extra_key` are further inputs (headers).
    pub fn compile(
        &self,
        src: &Path,
        include_dirs: &[&Path],
        extra_key: &[&[u8]],
        out_dir: &Path,
    ) -> Result<PathBuf, String> {
        let cxx = is_cxx(src);
        let source = std::fs::read(src).map_err(|e| format!("{}: {e}", src.display()))?;
        let mut parts: Vec<&[u8]> = vec![b"c-object-v2", self.version.as_bytes(), &source];
        let name = src
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        parts.push(name.as_bytes());
        let incs: Vec<String> = include_dirs
            .iter()
            .map(|d| d.display().to_string())
            .collect();
        parts.extend(incs.iter().map(|s| s.as_bytes()));
        parts.extend_from_slice(extra_key);
        let key = hash_parts(parts);
        let out = out_dir.join(&key[..2]).join(format!("{key}.o"));
        if out.is_file() {
            return Ok(out);
        }
        std::fs::create_dir_all(out.parent().unwrap_or(out_dir)).map_err(|e| e.to_string())?;
        let tmp = out.with_extension(format!("tmp{}", std::process::id()));
        let mut c = self.command(cxx);
        for d in include_dirs {
            c.arg("-I").arg(d);
        }
        // Compile from the file's own directory with a relative name, so diagnostics and
        // assertion messages say `test_add.c:4`, not a cache path.
        let (dir, file) = match (src.parent(), src.file_name()) {
            (Some(d), Some(f)) => (d, Path::new(f)),
            _ => (Path::new("."), src),
        };
        c.current_dir(dir).arg("-c").arg(file).arg("-o").arg(&tmp);
        let o = run_tool(&mut c, Duration::from_secs(120))?;
        if !o.success {
            let _ = std::fs::remove_file(&tmp);
            return Err(trim_diagnostics(&o.stderr));
        }
        std::fs::rename(&tmp, &out).map_err(|e| e.to_string())?;
        Ok(out)
    }

    /// Links objects into a command module (`_start`).
    pub fn link(&self, objects: &[PathBuf], cxx: bool) -> Result<Vec<u8>, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let out = dir.path().join("a.wasm");
        let mut c = self.command(cxx);
        c.args(objects).args(STACK_LINK_ARGS).arg("-o").arg(&out);
        let o = run_tool(&mut c, Duration::from_secs(120))?;
        if !o.success {
            return Err(trim_diagnostics(&o.stderr));
        }
        std::fs::read(&out).map_err(|e| e.to_string())
    }
}

/// Whether a file is C++ by its extension.
pub fn is_cxx(p: &Path) -> bool {
    matches!(
        p.extension().and_then(|e| e.to_str()),
        Some("cc" | "cpp" | "cxx" | "C" | "c++")
    )
}

/// Whether a file is a C or C++ source file.
pub fn is_c_source(p: &Path) -> bool {
    matches!(p.extension().and_then(|e| e.to_str()), Some("c")) || is_cxx(p)
}

fn trim_diagnostics(stderr: &str) -> String {
    let s: String = stderr.lines().take(40).collect::<Vec<_>>().join("\n");
    if s.trim().is_empty() {
        "the compiler failed without a message".into()
    } else {
        s
    }
}

fn candidates() -> Vec<CCompiler> {
    let mk = |flavor, cc: Vec<String>, cxx: Vec<String>| CCompiler {
        flavor,
        cc,
        cxx,
        version: String::new(),
    };
    let target = "--target=wasm32-wasi".to_string();
    let mut out = Vec::new();
    if let Ok(cc) = std::env::var("DIXIT_CC") {
        let cxx = std::env::var("DIXIT_CXX").unwrap_or_else(|_| cc.replace("clang", "clang++"));
        out.push(mk(
            "DIXIT_CC",
            vec![cc, target.clone()],
            vec![cxx, target.clone()],
        ));
    }
    if Path::new("/usr/lib/wasm32-wasi").is_dir() || Path::new("/usr/include/wasm32-wasi").is_dir()
    {
        for v in ["", "-19", "-18", "-17", "-16", "-15", "-14"] {
            if let (Some(cc), Some(cxx)) =
                (which(&format!("clang{v}")), which(&format!("clang++{v}")))
            {
                out.push(mk(
                    "debian-clang",
                    vec![cc.display().to_string(), target.clone()],
                    vec![cxx.display().to_string(), target.clone()],
                ));
                break;
            }
        }
    }
    if let Ok(sdk) = std::env::var("WASI_SDK_PATH") {
        let sdk = PathBuf::from(sdk);
        let sysroot = format!("--sysroot={}", sdk.join("share/wasi-sysroot").display());
        out.push(mk(
            "wasi-sdk",
            vec![
                sdk.join("bin/clang").display().to_string(),
                target.clone(),
                sysroot.clone(),
            ],
            vec![
                sdk.join("bin/clang++").display().to_string(),
                target.clone(),
                sysroot,
            ],
        ));
    }
    let zig_target = "-target".to_string();
    if let Some(zig) = which("zig") {
        let z = zig.display().to_string();
        out.push(mk(
            "zig",
            vec![
                z.clone(),
                "cc".into(),
                zig_target.clone(),
                "wasm32-wasi".into(),
            ],
            vec![z, "c++".into(), zig_target.clone(), "wasm32-wasi".into()],
        ));
    }
    out
}
