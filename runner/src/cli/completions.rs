//! `dixit completions SHELL`: a completion script for the shell, written from the same argument
//! definitions the parser uses, so it never falls behind a new command or flag.

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::exit::{self, CliResult};
use super::Cli;

/// The arguments of `dixit completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: Shell,
}

pub(super) fn run(a: &CompletionsArgs) -> CliResult {
    clap_complete::generate(a.shell, &mut public(), "dixit", &mut std::io::stdout());
    Ok(exit::OK)
}

/// The command line without its hidden (internal) subcommands, which shells would otherwise
/// offer: clap can hide a subcommand from help but not from the generators.
pub(super) fn public() -> clap::Command {
    let full = Cli::command();
    let mut cmd = clap::Command::new("dixit")
        .version(env!("CARGO_PKG_VERSION"))
        .propagate_version(true)
        .args(full.get_arguments().cloned())
        .subcommands(full.get_subcommands().filter(|s| !s.is_hide_set()).cloned());
    if let Some(about) = full.get_about() {
        cmd = cmd.about(about.clone());
    }
    cmd
}
