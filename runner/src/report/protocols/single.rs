//! single on the page: what its one coder wrote is what the run ships.

use maud::{html, Markup};

use super::ProtocolRenderer;
use crate::journal::Open;
use crate::report::run_report::RunView;

/// single's renderer.
pub(super) struct Renderer;

impl ProtocolRenderer for Renderer {
    fn explain(&self, _stop: &Open, v: &RunView) -> Markup {
        html! {
            @if !v.hidden_tests.is_empty() {
                p { "What each coder wrote is what the run ships: " a href="#hidden" { "the hidden tests" } " say how it fares." }
            } @else {
                p { "What each coder wrote is what the run ships, and no test checked it: read the code below." }
            }
        }
    }
}
