//! A limit a person may raise at a stop: what both a protocol's stops ([`super::ProtocolData`])
//! and the common ones ([`super::offer`]) offer.

/// A limit a person may raise at a stop (`dixit decide … raise KEY=VALUE`): its `table.key` in
/// `dixit.toml` and its value now. Any larger value goes; the page suggests twice it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Room {
    /// The limit's `table.key` in `dixit.toml`.
    pub key: String,
    /// Its value now.
    pub now: i64,
}

impl Room {
    /// Limit `key`, `now` at `now`.
    pub fn new(key: &str, now: impl Into<i64>) -> Room {
        Room {
            key: key.to_string(),
            now: now.into(),
        }
    }

    /// The value a command suggests: twice the limit (at least one more).
    pub fn suggested(&self) -> i64 {
        self.now.saturating_mul(2).max(self.now.saturating_add(1))
    }
}
