//! What a person may do at a stop, as commands: each choice of the stop's [`Offer`] as the
//! copyable command that makes it, with one line on what it will do. The page and the terminal
//! show the same list.

use crate::journal::Choice;
use crate::outcome::Offer;

/// Each choice of `offer` as the command that makes it at run `run`, with what it will do.
pub(super) fn commands(offer: &Offer, run: &str) -> Vec<(String, String)> {
    let decide = |c: &Choice| format!("dixit decide {run} {} --why \"…\"", c.command());
    let mut out: Vec<(String, String)> = offer
        .choices
        .iter()
        .filter(|c| **c != Choice::Accept)
        .map(|c| (decide(c), effect(c)))
        .collect();
    for r in &offer.room {
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
    if offer.choices.contains(&Choice::Accept) {
        out.push((decide(&Choice::Accept), effect(&Choice::Accept)));
    }
    out
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
    use crate::outcome::Room;

    #[test]
    fn a_raise_suggests_twice_the_limit_and_accept_comes_last() {
        let o = Offer {
            choices: vec![Choice::Accept],
            room: vec![Room::new("repair.max_attempts", 5)],
        };
        let commands = commands(&o, "runs/x");
        assert_eq!(
            commands[0].0,
            "dixit decide runs/x raise repair.max_attempts=10 --why \"…\""
        );
        assert_eq!(commands[1].0, "dixit decide runs/x accept --why \"…\"");
    }
}
