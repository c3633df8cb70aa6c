//! The `dixit` binary: parses the command line and dispatches (see `dixit::cli`).

fn main() -> std::process::ExitCode {
    dixit::cli::main()
}
