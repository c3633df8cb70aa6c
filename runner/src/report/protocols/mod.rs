//! Each protocol's own part of the report, rendered here from the data its folder keeps (its
//! part of the summary, its stops, its events): its lines of the terminal summary, the facts of
//! the page's headline, the evidence under one of its decisions, and its section of the page.
//! The protocols render nothing; the report finds a protocol's renderer by the protocol's name.

mod blind;
mod codet;
mod debate;
mod dixit;
mod repair;
mod single;

use maud::{html, Markup};

use super::html::Section;
use super::run_report::RunView;
use crate::journal::Open;
use crate::outcome::Summary;
use crate::protocol;

/// What the report renders of one protocol's own data. By default nothing: the shared parts of
/// the page and the terminal summary say everything about its runs.
pub(super) trait ProtocolRenderer: Sync {
    /// Its lines of the terminal summary (each ends with a newline), from its part of `s`.
    fn text(&self, _s: &Summary) -> String {
        String::new()
    }

    /// Facts for the page's headline box (label, value), from its part of `s`.
    fn facts(&self, _s: &Summary) -> Vec<(&'static str, String)> {
        Vec::new()
    }

    /// The page's paragraphs under the headline of one of its decisions: the evidence to read.
    fn explain(&self, _stop: &Open, _v: &RunView) -> Markup {
        html! {}
    }

    /// Its own section of the run's page, from its part of the summary (`v.summary.part`).
    fn section(&self, _v: &RunView) -> Option<Section> {
        None
    }
}

/// A protocol this version does not know: the shared parts only.
struct Plain;

impl ProtocolRenderer for Plain {}

/// The renderer of the protocol named `name` (a protocol this version does not know: the shared
/// parts only).
pub(super) fn renderer(name: &str) -> &'static dyn ProtocolRenderer {
    known(name).unwrap_or(&Plain)
}

/// The renderer of a protocol of this version.
fn known(name: &str) -> Option<&'static dyn ProtocolRenderer> {
    Some(match name {
        protocol::dixit::NAME => &dixit::Renderer,
        protocol::debate::NAME => &debate::Renderer,
        protocol::repair::NAME => &repair::Renderer,
        protocol::blind::NAME => &blind::Renderer,
        protocol::single::NAME => &single::Renderer,
        protocol::codet::NAME => &codet::Renderer,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    /// Every protocol of the registry has its renderer (none falls back to the shared parts).
    #[test]
    fn every_protocol_is_rendered() {
        for p in crate::protocol::REGISTRY {
            assert!(
                super::known(p.name()).is_some(),
                "{} has no renderer",
                p.name()
            );
        }
    }
}
