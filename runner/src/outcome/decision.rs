//! What a shipped implementation rests on: the rule that picked it among the run's final
//! implementations and what separated it from them. The comparison page states it per problem,
//! so one can see whether a protocol's tests or its selection earned each result.

use serde::{Deserialize, Serialize};

/// What separated the shipped implementation from the others the rule chose among.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// There was one implementation to ship: nothing was chosen.
    Only,
    /// Tests separated them: the shipped implementation passes more of the tests the rule read
    /// than another does (the IDEAL suite, CodeT's test cases).
    Tests,
    /// The tests did not (each passes as many), the rule's agreement over their answers did.
    Answers,
    /// Nothing separated them: the pick tied with others and the first in agent order ships.
    Tie,
    /// The protocol's own rule (a debate's judge, a repair's best attempt).
    Protocol,
}

impl Basis {
    /// Every basis, in the order reports list them.
    pub const ALL: [Basis; 5] = [
        Basis::Tests,
        Basis::Answers,
        Basis::Tie,
        Basis::Only,
        Basis::Protocol,
    ];

    /// In a few words, for a table's header.
    pub fn words(self) -> &'static str {
        match self {
            Basis::Only => "one implementation",
            Basis::Tests => "tests separated them",
            Basis::Answers => "agreement of answers",
            Basis::Tie => "a tie (agent order)",
            Basis::Protocol => "the protocol's rule",
        }
    }
}

/// How a run chose what it ships: the rule, what separated the pick, in words.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// The rule that ran: a selection strategy's name (`srank_ideal_passers`), `dual_agreement`,
    /// or the protocol's name where the protocol decides by a rule of its own.
    pub rule: String,
    /// What separated the shipped implementation from the others.
    pub basis: Basis,
    /// The decision in a sentence: what the rule read and who tied.
    pub words: String,
}

impl Basis {
    /// What separated the coder a shipping event names from the others it was chosen among.
    pub fn of_shipping(ship: &crate::journal::Shipping) -> Basis {
        let shipped = ship
            .among
            .iter()
            .position(|c| *c == ship.coder)
            .and_then(|k| ship.passes.get(k).copied());
        let fewest = ship.passes.iter().copied().min();
        if ship.among.len() <= 1 {
            Basis::Only
        } else if matches!((shipped, fewest), (Some(s), Some(f)) if s > f) {
            Basis::Tests
        } else if ship.tied.len() < ship.among.len() {
            Basis::Answers
        } else {
            Basis::Tie
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::Shipping;

    fn ship(passes: &[usize], tied: &[&str]) -> Shipping {
        let among: Vec<String> = (1..=passes.len()).map(|k| format!("coder-{k}")).collect();
        Shipping {
            coder: tied[0].into(),
            strategy: "srank_ideal_passers".into(),
            fallback_from: None,
            tied: tied.iter().map(|s| s.to_string()).collect(),
            among,
            tests: 3,
            calls: 5,
            passes: passes.to_vec(),
        }
    }

    #[test]
    fn the_basis_says_what_separated_the_pick() {
        let of = |p: &[usize], t: &[&str]| Basis::of_shipping(&ship(p, t));
        assert_eq!(of(&[3, 1, 3], &["coder-1", "coder-3"]), Basis::Tests);
        assert_eq!(of(&[3, 3, 3], &["coder-2"]), Basis::Answers);
        assert_eq!(
            of(&[3, 3, 3], &["coder-1", "coder-2", "coder-3"]),
            Basis::Tie
        );
        assert_eq!(of(&[2], &["coder-1"]), Basis::Only);
        // The shipped one passes fewer than another: the tests did not pick it.
        assert_eq!(of(&[1, 3, 3], &["coder-1"]), Basis::Answers);
    }
}
