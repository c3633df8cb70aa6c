//! repair's own event and stop, as its journal keeps them (open entries: see
//! [`crate::journal::Open`]).

use serde::{Deserialize, Serialize};

use crate::journal::{Named, Standing};

/// A reviewer's verdict on a coder's first attempt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reviewed {
    /// The coder whose first attempt was reviewed.
    pub coder: String,
    /// Whether the reviewer found nothing (`CLEAN`).
    pub clean: bool,
}

impl Named for Reviewed {
    const NAME: &'static str = "reviewed";
}

/// Every coder shipped its best attempt; `standings` against the acceptance suite.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Repaired {
    /// Each coder's standing against the acceptance suite.
    pub standings: Vec<Standing>,
}

impl Named for Repaired {
    const NAME: &'static str = "repaired";
}
