//! Protocol `blind` (in progress).
use super::Stop;
#[allow(unused_imports)]
use crate::engine::Inputs;
use crate::engine::{Ctx, Halt, ProtocolError, Team};

pub const TEMPLATES: &[(&str, &str)] = &[];
pub const FORBIDDEN: &[&str] = &["game"];

#[allow(unused_variables)]
pub async fn run(ctx: &Ctx, team: &mut Team, inputs: &Inputs) -> Result<Stop, Halt> {
    Err(Halt::Fatal(ProtocolError::Setup("blind: not yet".into())))
}
