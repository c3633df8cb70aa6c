//! `dixit toolchain doctor`.

use super::exit::{self, CliResult};
use super::{toolchains, GlobalArgs};
use crate::toolchain::doctor;

pub(super) fn run(g: &GlobalArgs, json: bool) -> CliResult {
    let tc = toolchains(g)?;
    let checks = doctor(&tc);
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&checks).map_err(anyhow::Error::from)?
        );
    } else {
        for c in &checks {
            let mark = match (c.ok, c.required) {
                (true, _) => "ok     ",
                (false, true) => "MISSING",
                (false, false) => "absent ",
            };
            println!("{mark}  {:8} {}", c.name, c.detail);
            if let Some(f) = &c.fix {
                println!("         {:8} install: {f}", "");
            }
        }
    }
    Ok(if checks.iter().all(|c| c.ok || !c.required) {
        exit::OK
    } else {
        exit::ENVIRONMENT
    })
}
