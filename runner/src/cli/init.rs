//! `dixit init`: scaffolds a working example project (spec, config, scripted agents, hidden
//! tests) that `dixit run` completes offline.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use super::exit::{self, CliError, CliResult};
use super::GlobalArgs;

/// The example to scaffold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum InitLanguage {
    Python,
    C,
    Rust,
    Io,
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Where to create the project [default: the current directory].
    pub dir: Option<PathBuf>,
    /// The example's language (`io`: a Python program with stdin/stdout tests).
    #[arg(long, value_enum, default_value_t = InitLanguage::Python)]
    pub language: InitLanguage,
    /// Overwrite an existing dixit.toml, spec.md or script.toml.
    #[arg(long)]
    pub force: bool,
}

macro_rules! files {
    ($dir:literal: $($f:literal),* $(,)?) => {
        &[$(($f, include_str!(concat!("../../assets/init/", $dir, "/", $f)))),*]
    };
}

const PYTHON: &[(&str, &str)] =
    files!("python": "dixit.toml", "spec.md", "script.toml", "hidden/test_hidden.py");
const C: &[(&str, &str)] = files!("c": "dixit.toml", "spec.md", "script.toml", "interface/solution.h", "hidden/test_hidden.c");
const RUST: &[(&str, &str)] =
    files!("rust": "dixit.toml", "spec.md", "script.toml", "hidden/test_hidden.rs");
const IO: &[(&str, &str)] =
    files!("io": "dixit.toml", "spec.md", "script.toml", "hidden/hidden_1.toml");

pub(super) fn run(_g: &GlobalArgs, a: &InitArgs) -> CliResult {
    let dir = a.dir.clone().unwrap_or_else(|| PathBuf::from("."));
    let files = match a.language {
        InitLanguage::Python => PYTHON,
        InitLanguage::C => C,
        InitLanguage::Rust => RUST,
        InitLanguage::Io => IO,
    };
    for (name, _) in files {
        let p = dir.join(name);
        if p.exists() && !a.force {
            return Err(CliError::usage(format!("{} already exists", p.display()))
                .hint("use --force to overwrite it"));
        }
    }
    for (name, text) in files {
        write(&dir.join(name), text)?;
    }
    println!(
        "created {} ({:?} example: spec.md, dixit.toml, script.toml, hidden/)",
        dir.display(),
        a.language
    );
    println!("run it with:  dixit run {}", shell_path(&dir));
    Ok(exit::OK)
}

fn write(p: &Path, text: &str) -> Result<(), CliError> {
    if let Some(d) = p.parent() {
        std::fs::create_dir_all(d).map_err(|e| CliError::usage(format!("{}: {e}", d.display())))?;
    }
    std::fs::write(p, text).map_err(|e| CliError::usage(format!("{}: {e}", p.display())))
}

fn shell_path(p: &Path) -> String {
    let s = p.display().to_string();
    if s.contains(' ') {
        format!("'{s}'")
    } else {
        s
    }
}
