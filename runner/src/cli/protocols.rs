//! `dixit protocols`: the registry, a line each.

use super::exit::{self, CliResult};

pub(super) fn run() -> CliResult {
    let width = crate::protocol::names()
        .iter()
        .map(|n| n.len())
        .max()
        .unwrap_or(0);
    for p in crate::protocol::REGISTRY {
        println!("{:width$}  {}", p.name(), p.about());
    }
    Ok(exit::OK)
}
