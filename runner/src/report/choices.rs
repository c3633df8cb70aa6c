//! What a person may do at a stop: the protocol's choices, the limits they may raise (each with
//! its value now), and each as a copyable command with one line on what it will do. The page,
//! the terminal and `dixit decide` read the same [`Offer`].

use super::protocol::{ProtocolReport, Room};
use crate::config::{Config, ConfigError};
use crate::journal::{Choice, JournalFile, StopReason};

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

    /// Each choice as the command that makes it, with what it will do.
    pub fn commands(&self, run: &str) -> Vec<(String, String)> {
        let decide = |c: &Choice| format!("dixit decide {run} {} --why \"…\"", c.command());
        let mut out: Vec<(String, String)> = self
            .choices
            .iter()
            .filter(|c| **c != Choice::Accept)
            .map(|c| (decide(c), effect(c)))
            .collect();
        for r in &self.room {
            let raise = Choice::Raise {
                key: r.key.clone(),
                value: r.suggested(),
            };
            out.push((
                decide(&raise),
                format!(
                    "more room: {} from {} to {} (or any larger value), and the run goes on",
                    r.key,
                    r.now,
                    r.suggested()
                ),
            ));
        }
        if self.choices.contains(&Choice::Accept) {
            out.push((decide(&Choice::Accept), effect(&Choice::Accept)));
        }
        out
    }
}

/// What a person may choose at `stop` of a run of `protocol` whose settings, with the limits
/// already raised, are `config` (none: the limits cannot be read, and none is offered).
pub fn offer(protocol: &dyn ProtocolReport, stop: &StopReason, config: Option<&Config>) -> Offer {
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
pub fn offer_of(protocol: &dyn ProtocolReport, journal: &JournalFile) -> Offer {
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

/// One line on what a choice will do.
fn effect(c: &Choice) -> String {
    match c {
        Choice::DropTest { test } => format!(
            "test {test} is wrong: it leaves the suite, and the coders are judged again without it"
        ),
        Choice::LeaveBehind { coder } => {
            format!("{coder} is wrong: it takes no further part, the others go on")
        }
        Choice::Raise { key, value } => format!("more room: {key} becomes {value}"),
        Choice::Wake { tester } => format!(
            "{tester}'s hibernated tests are right: they join the suite, the coders must pass them, and {tester} proposes again"
        ),
        Choice::Discard { tester } => format!(
            "{tester}'s hibernated tests are wrong: they are forgotten, and {tester} proposes afresh"
        ),
        Choice::Accept => "accept the implementations as they are: the run ends".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let commands = o.commands("runs/x");
        assert_eq!(
            commands[0].0,
            "dixit decide runs/x raise repair.max_attempts=10 --why \"…\""
        );
        assert_eq!(commands[1].0, "dixit decide runs/x accept --why \"…\"");
        assert_eq!(o.listed(), "accept, raise repair.max_attempts=N (N > 5)");
    }
}
