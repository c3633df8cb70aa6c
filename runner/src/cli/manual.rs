//! `dixit manual --out DIR`: the command-line reference, written from the same argument
//! definitions the parser uses (as `--help` prints them), so it cannot drift from the binary: a
//! Markdown page per command for the book (`DIR/dixit-run.md`, …, and `DIR/README.md`, the
//! index) and a man page per command (`DIR/man/dixit-run.1`, …).

use std::path::{Path, PathBuf};

use clap::Args;

use super::exit::{self, CliError, CliResult};

/// The arguments of `dixit manual`.
#[derive(Debug, Args)]
pub struct ManualArgs {
    /// The folder to write the pages into (created if missing; pages of the same names are
    /// replaced).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

pub(super) fn run(a: &ManualArgs) -> CliResult {
    let mut root = super::completions::public();
    root.build();
    let mut commands = vec![root.clone()];
    collect(&root, &mut commands);
    let man = a.out.join("man");
    std::fs::create_dir_all(&man).map_err(|e| write_error(&man, e))?;
    let mut index = String::from(
        "# Command-line reference\n\nOne page per command, written by `dixit manual --out \
         docs/cli` from the definitions `--help` prints (so do not edit them by hand; \
         `scripts/book` checks that they match the binary). The same pages as man pages: \
         `dixit manual --out DIR`, then `man DIR/man/dixit-run.1`.\n\n| command | what it does \
         |\n|---|---|\n",
    );
    for cmd in &commands {
        let name = file_stem(cmd);
        let title = cmd.get_bin_name().unwrap_or("dixit").to_string();
        let about = cmd
            .get_about()
            .map(|s| s.to_string())
            .unwrap_or_default()
            .replace('|', "\\|");
        index.push_str(&format!("| [`{title}`]({name}.md) | {about} |\n"));
        let help = cmd.clone().render_help().to_string();
        let page = format!("# `{title}`\n\n```text\n{}\n```\n", help.trim_end());
        write(&a.out.join(format!("{name}.md")), page.as_bytes())?;
        let mut roff = Vec::new();
        clap_mangen::Man::new(cmd.clone())
            .title(name.clone())
            .render(&mut roff)
            .map_err(|e| write_error(&man, e))?;
        write(&man.join(format!("{name}.1")), &roff)?;
    }
    write(&a.out.join("README.md"), index.as_bytes())?;
    println!(
        "{} commands: {} and {}",
        commands.len(),
        a.out.display(),
        man.display()
    );
    Ok(exit::OK)
}

/// Every visible subcommand below `cmd`, depth first, in the order `--help` lists them.
fn collect(cmd: &clap::Command, out: &mut Vec<clap::Command>) {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        if sub.get_name() == "help" {
            continue;
        }
        out.push(sub.clone());
        collect(sub, out);
    }
}

/// `dixit toolchain doctor` → `dixit-toolchain-doctor`.
fn file_stem(cmd: &clap::Command) -> String {
    cmd.get_bin_name()
        .unwrap_or(cmd.get_name())
        .replace(' ', "-")
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    std::fs::write(path, bytes).map_err(|e| write_error(path, e))
}

fn write_error(path: &Path, e: std::io::Error) -> CliError {
    CliError::usage(format!("cannot write {}: {e}", path.display()))
}
