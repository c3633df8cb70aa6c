//! The strategies by name ([`Strategy`]) and what each picks: the unique solutions a uniform
//! draw is made among. `dixit eval` scores a pick as expected pass@1
//! ([`ProblemMatrix::draw_among`]); a live run ships the first of it.

use serde::{Deserialize, Serialize};

use super::{
    b4::b4_pick_over, band::band_pick, band_front, codet, maxpass, mbr_exec, srank, B4Priors,
    ProblemMatrix,
};
use crate::classify::DEFAULT_MINORITY;

/// The unique solutions (indices, ascending) a strategy draws among.
pub type Pick = Vec<usize>;

/// What a strategy needs besides the matrix: the band's minority and B4's priors.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SelectionConfig {
    /// The band's minority: more than this share of solutions failing a test makes it TOO_HARD.
    pub minority: f64,
    /// B4's priors.
    pub b4: B4Priors,
}

impl Default for SelectionConfig {
    fn default() -> Self {
        SelectionConfig {
            minority: DEFAULT_MINORITY,
            b4: B4Priors::default(),
        }
    }
}

/// A selection strategy, by the name config and reports use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// A uniform draw among every solution (the baseline).
    Random,
    /// Most tests passed.
    MaxPass,
    /// CodeT's dual agreement (test samples counted).
    Codet,
    /// MBR-exec: the largest group answering every call alike (needs answers).
    MbrExec,
    /// B4's posterior over the pass matrix.
    B4,
    /// SRank: answer clusters weighted by the others' agreement (needs answers).
    Srank,
    /// The Dixit band: most IDEAL tests passed (test samples counted).
    Band,
    /// CodeT's dual agreement over the IDEAL tests only.
    CodetIdealTests,
    /// B4 over the IDEAL tests only.
    B4IdealTests,
    /// SRank with the IDEAL tests as its pass rate (needs answers).
    SrankIdealTests,
    /// CodeT's dual agreement among the solutions passing every IDEAL test.
    CodetIdealPassers,
    /// B4 among the solutions passing every IDEAL test.
    B4IdealPassers,
    /// SRank among the solutions passing every IDEAL test (needs answers).
    SrankIdealPassers,
}

impl Strategy {
    /// Every strategy, in the order reports list them.
    pub const ALL: &'static [Strategy] = &[
        Strategy::Random,
        Strategy::MaxPass,
        Strategy::Codet,
        Strategy::MbrExec,
        Strategy::B4,
        Strategy::Srank,
        Strategy::Band,
        Strategy::CodetIdealTests,
        Strategy::B4IdealTests,
        Strategy::SrankIdealTests,
        Strategy::CodetIdealPassers,
        Strategy::B4IdealPassers,
        Strategy::SrankIdealPassers,
    ];

    /// Its name in config and reports.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Random => "random",
            Strategy::MaxPass => "max_pass",
            Strategy::Codet => "codet",
            Strategy::MbrExec => "mbr_exec",
            Strategy::B4 => "b4",
            Strategy::Srank => "srank",
            Strategy::Band => "band",
            Strategy::CodetIdealTests => "codet_ideal_tests",
            Strategy::B4IdealTests => "b4_ideal_tests",
            Strategy::SrankIdealTests => "srank_ideal_tests",
            Strategy::CodetIdealPassers => "codet_ideal_passers",
            Strategy::B4IdealPassers => "b4_ideal_passers",
            Strategy::SrankIdealPassers => "srank_ideal_passers",
        }
    }

    /// What it follows, in a phrase for people.
    pub fn describe(self) -> &'static str {
        match self {
            Strategy::Random => "a uniform draw among every implementation",
            Strategy::MaxPass => "the implementations passing the most tests",
            Strategy::Codet => {
                "CodeT's dual agreement: the group passing the same tests, scored tests × \
                 √implementations"
            }
            Strategy::MbrExec => "MBR-exec: the largest group answering every call alike",
            Strategy::B4 => "B4: the most probable group under its Beta-Bernoulli prior",
            Strategy::Srank => {
                "SRank: the answer cluster the other clusters agree with most, weighted by tests \
                 passed"
            }
            Strategy::Band => "the Dixit band: the implementations passing the most IDEAL tests",
            Strategy::CodetIdealTests => "CodeT's dual agreement over the IDEAL tests",
            Strategy::B4IdealTests => "B4 over the IDEAL tests",
            Strategy::SrankIdealTests => "SRank weighted by the IDEAL tests",
            Strategy::CodetIdealPassers => {
                "CodeT's dual agreement among the implementations passing every IDEAL test"
            }
            Strategy::B4IdealPassers => "B4 among the implementations passing every IDEAL test",
            Strategy::SrankIdealPassers => {
                "SRank among the implementations passing every IDEAL test"
            }
        }
    }

    /// Whether it compares answers (and so picks nothing without [`super::Outputs`]).
    pub fn needs_answers(self) -> bool {
        matches!(
            self,
            Strategy::MbrExec
                | Strategy::Srank
                | Strategy::SrankIdealTests
                | Strategy::SrankIdealPassers
        )
    }

    /// The solutions a uniform draw is made among; `None` when it needs answers the matrix
    /// does not have.
    pub fn pick(self, m: &ProblemMatrix, c: &SelectionConfig) -> Option<Pick> {
        let all = || (0..m.solution_counts.len()).collect::<Vec<_>>();
        Some(match self {
            Strategy::Random => all(),
            Strategy::MaxPass => maxpass::max_pass_pick(m),
            Strategy::Codet => codet::dual_agreement_pick(m, true),
            Strategy::MbrExec => mbr_exec::mbr_exec_pick(m)?,
            Strategy::B4 => b4_pick_over(m, &(0..m.test_counts.len()).collect::<Vec<_>>(), c.b4),
            Strategy::Srank => srank::srank_pick(m, &vec![1.0; m.test_counts.len()])?,
            Strategy::Band => band_pick(m, c.minority, true),
            Strategy::CodetIdealTests => band_front::codet_ideal_tests_pick(m, c.minority),
            Strategy::B4IdealTests => {
                b4_pick_over(m, &band_front::ideal_tests(m, c.minority), c.b4)
            }
            Strategy::SrankIdealTests => band_front::srank_ideal_tests_pick(m, c.minority)?,
            Strategy::CodetIdealPassers => {
                band_front::among_ideal_passers_pick(m, c.minority, |m| {
                    Some(codet::dual_agreement_pick(m, true))
                })?
            }
            Strategy::B4IdealPassers => band_front::among_ideal_passers_pick(m, c.minority, |m| {
                Some(b4_pick_over(
                    m,
                    &(0..m.test_counts.len()).collect::<Vec<_>>(),
                    c.b4,
                ))
            })?,
            Strategy::SrankIdealPassers => {
                band_front::among_ideal_passers_pick(m, c.minority, |m| {
                    srank::srank_pick(m, &vec![1.0; m.test_counts.len()])
                })?
            }
        })
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Strategy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Strategy::ALL
            .iter()
            .copied()
            .find(|x| x.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown strategy `{s}` (expected one of {})",
                    Strategy::ALL
                        .iter()
                        .map(|x| x.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
    }
}
