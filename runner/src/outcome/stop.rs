//! A stop as data: what it says in words ([`describe_stop`]), how the CLI exits on it
//! ([`exit_class`]), and what a person may choose at it ([`Offer`]: the protocol's choices and
//! the limits they may raise, each with its value now). The engine checks a decision against
//! the offer and `dixit decide` refuses what it lacks; the report shows the same offer as
//! commands.

use super::protocol::ProtocolData;
use super::room::Room;
use crate::config::{Config, ConfigError};
use crate::english::plural;
use crate::journal::{Choice, ExitClass, JournalFile, StopReason};

/// A stop in words: what happened and what it asks of the person (a decision is the protocol's
/// to describe).
pub fn describe_stop(protocol: &dyn ProtocolData, s: &StopReason) -> String {
    match s {
        StopReason::Decided(d) => protocol.describe(d),
        StopReason::RoundCap { rounds } => {
            format!(
                "{} cap reached ({}); resumable",
                protocol.round_word(),
                plural(
                    *rounds as usize,
                    protocol.round_word(),
                    &format!("{}s", protocol.round_word())
                )
            )
        }
        StopReason::Budget { agent, cap } => {
            format!("budget cap reached before a call of {agent}: {cap}; resumable")
        }
        StopReason::Error { agent, message } => format!("{agent} failed: {message}; resumable"),
        StopReason::Accepted { by } if crate::config::PolicyName::is_decider(by) => {
            format!("accepted by {by}: the run ships what its evidence picks")
        }
        StopReason::Accepted { by } => {
            format!("accepted by {by}: the implementations ship as they are")
        }
        StopReason::Interrupted => "interrupted; resumable".into(),
    }
}

/// How the CLI exits on a stop (a decision's class is the protocol's to say).
pub fn exit_class(protocol: &dyn ProtocolData, s: &StopReason) -> ExitClass {
    match s {
        StopReason::Decided(d) => protocol.exit_class(d),
        other => other.shared_exit_class().unwrap_or(ExitClass::Failed),
    }
}

/// What a person may choose at a stop.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Offer {
    /// Drop a test, leave a coder behind, accept: as the stop offers them.
    pub choices: Vec<Choice>,
    /// The limits whose raise lets the run go on from the stop.
    pub room: Vec<Room>,
}

impl Offer {
    /// Nothing to decide.
    pub fn is_empty(&self) -> bool {
        self.choices.is_empty() && self.room.is_empty()
    }

    /// Whether `choice` is one of the offer (a raise: of an offered limit, above its value now).
    pub fn allows(&self, choice: &Choice) -> bool {
        match choice {
            Choice::Raise { key, value } => {
                self.room.iter().any(|r| &r.key == key && *value > r.now)
            }
            other => self.choices.contains(other),
        }
    }

    /// The offer in words, for an error message.
    pub fn listed(&self) -> String {
        let mut out: Vec<String> = self.choices.iter().map(Choice::command).collect();
        out.extend(
            self.room
                .iter()
                .map(|r| format!("raise {}=N (N > {})", r.key, r.now)),
        );
        out.join(", ")
    }
}

/// What a person may choose at `stop` of a run of `protocol` whose settings, with the limits
/// already raised, are `config` (none: the limits cannot be read, and none is offered).
pub fn offer(protocol: &dyn ProtocolData, stop: &StopReason, config: Option<&Config>) -> Offer {
    let accept = vec![Choice::Accept];
    match stop {
        StopReason::Decided(o) => Offer {
            choices: protocol.choices(o),
            room: config.map(|c| protocol.room(o, c)).unwrap_or_default(),
        },
        StopReason::RoundCap { rounds } => Offer {
            choices: accept,
            room: protocol
                .round_limit()
                .map(|key| Room::new(key, *rounds))
                .into_iter()
                .collect(),
        },
        StopReason::Budget { cap, .. } => Offer {
            choices: accept,
            room: budget_room(cap).into_iter().collect(),
        },
        StopReason::Error { .. } | StopReason::Interrupted => Offer {
            choices: accept,
            room: Vec::new(),
        },
        StopReason::Accepted { .. } => Offer::default(),
    }
}

/// The offer at the last stop of a recorded run (its own settings, limits raised since).
pub fn offer_of(protocol: &dyn ProtocolData, journal: &JournalFile) -> Offer {
    match journal.stop() {
        Some((stop, _)) => offer(protocol, &stop, recorded_config(journal).ok().as_ref()),
        None => Offer::default(),
    }
}

/// The settings a recorded run runs on now: its `dixit.toml` as recorded, with the limits a
/// person raised at its stops.
pub fn recorded_config(journal: &JournalFile) -> Result<Config, ConfigError> {
    let config = Config::parse(&journal.project.config, &journal.path)?
        .with_protocol(journal.protocol.clone());
    journal
        .raised()
        .into_iter()
        .try_fold(config, |c, (key, value)| c.with_raised(key, value))
}

/// A budget stop's cap (`budget.max_tokens = 100 (spent 120)`) as a limit to raise.
fn budget_room(cap: &str) -> Option<Room> {
    let (key, rest) = cap.split_once(" = ")?;
    let value = rest.split_whitespace().next()?;
    let now = value
        .parse::<i64>()
        .ok()
        .or_else(|| value.parse::<f64>().ok().map(|f| f.ceil() as i64))?;
    Some(Room::new(key, now))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A protocol with nothing of its own.
    struct Plain;

    impl ProtocolData for Plain {
        fn name(&self) -> &'static str {
            "plain"
        }

        fn describe(&self, _stop: &crate::journal::Open) -> String {
            String::new()
        }

        fn exit_class(&self, _stop: &crate::journal::Open) -> ExitClass {
            ExitClass::Done
        }

        fn suite_reason(&self) -> Option<&'static str> {
            None
        }

        fn shipped_rule(&self) -> &'static str {
            ""
        }
    }

    /// A policy's accept ships by evidence; a person's takes the implementations as they are.
    #[test]
    fn an_accept_says_what_ships() {
        let by = |by: &str| describe_stop(&Plain, &StopReason::Accepted { by: by.to_string() });
        assert_eq!(
            by("policy majority"),
            "accepted by policy majority: the run ships what its evidence picks"
        );
        assert_eq!(
            by("person ada"),
            "accepted by person ada: the implementations ship as they are"
        );
    }

    #[test]
    fn a_budget_cap_is_a_limit_to_raise() {
        assert_eq!(
            budget_room("budget.max_tokens = 100 (spent 120)"),
            Some(Room::new("budget.max_tokens", 100))
        );
        assert_eq!(
            budget_room("budget.per_agent_usd = 0.5 (coder-1 spent 0.5100)"),
            Some(Room::new("budget.per_agent_usd", 1))
        );
        assert_eq!(budget_room("something else"), None);
    }

    #[test]
    fn a_raise_must_be_of_an_offered_limit_and_above_it() {
        let o = Offer {
            choices: vec![Choice::Accept],
            room: vec![Room::new("repair.max_attempts", 5)],
        };
        let raise = |key: &str, value| Choice::Raise {
            key: key.into(),
            value,
        };
        assert!(o.allows(&raise("repair.max_attempts", 6)));
        assert!(!o.allows(&raise("repair.max_attempts", 5)));
        assert!(!o.allows(&raise("repair.coders", 9)));
        assert!(o.allows(&Choice::Accept));
        assert!(!o.allows(&Choice::DropTest { test: 1 }));
        assert_eq!(o.listed(), "accept, raise repair.max_attempts=N (N > 5)");
    }
}
