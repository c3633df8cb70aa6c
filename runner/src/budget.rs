//! Budget: every call's tokens and price are recorded per agent and per run; caps are checked
//! before every call. Once spending reaches a cap no further call starts (calls already in
//! flight finish, so a run overshoots by at most one call per agent) and the run stops,
//! resumably. Prices come from `[prices]` in the config, never from guesses.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use serde::Serialize;

use crate::agents::Usage;
use crate::config::{BudgetSection, Price};

/// What one agent (or the whole run) has spent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Spent {
    /// Agent calls answered.
    pub calls: u64,
    /// Tokens in the prompts sent.
    pub prompt_tokens: u64,
    /// Tokens in the replies.
    pub completion_tokens: u64,
    /// Cost in US dollars.
    pub usd: f64,
}

impl Spent {
    /// All tokens, prompts and replies together.
    pub fn tokens(&self) -> u64 {
        self.prompt_tokens + self.completion_tokens
    }

    fn add(&mut self, usage: Usage, usd: f64) {
        self.calls += 1;
        self.prompt_tokens += usage.prompt_tokens;
        self.completion_tokens += usage.completion_tokens;
        self.usd += usd;
    }
}

/// Caps, prices and what has been spent.
pub struct Budget {
    caps: BudgetSection,
    prices: BTreeMap<String, Price>,
    spent: Mutex<(Spent, BTreeMap<String, Spent>)>,
    /// Replay: refuse exactly the calls the recording refused, whatever the caps say.
    recorded_refusals: Option<HashMap<(String, u64), String>>,
}

impl Budget {
    /// A budget with these caps and prices, nothing spent.
    pub fn new(caps: BudgetSection, prices: BTreeMap<String, Price>) -> Self {
        Budget {
            caps,
            prices,
            spent: Mutex::new(Default::default()),
            recorded_refusals: None,
        }
    }

    /// A budget that reproduces a recording's refusals instead of checking caps.
    pub fn replaying(refusals: HashMap<(String, u64), String>) -> Self {
        Budget {
            caps: BudgetSection::default(),
            prices: BTreeMap::new(),
            spent: Mutex::new(Default::default()),
            recorded_refusals: Some(refusals),
        }
    }

    /// `Err(cap)` if `agent`'s call `call` may not start.
    pub fn check(&self, agent: &str, call: u64) -> Result<(), String> {
        if let Some(r) = &self.recorded_refusals {
            return match r.get(&(agent.to_string(), call)) {
                Some(cap) => Err(cap.clone()),
                None => Ok(()),
            };
        }
        let g = self.spent.lock().unwrap_or_else(|e| e.into_inner());
        let (run, per) = &*g;
        let mine = per.get(agent).copied().unwrap_or_default();
        let c = &self.caps;
        if c.max_usd.is_some_and(|m| run.usd >= m) {
            return Err(format!(
                "budget.max_usd = {} (spent {:.4})",
                c.max_usd.unwrap_or(0.0),
                run.usd
            ));
        }
        if c.max_tokens.is_some_and(|m| run.tokens() >= m) {
            return Err(format!(
                "budget.max_tokens = {} (spent {})",
                c.max_tokens.unwrap_or(0),
                run.tokens()
            ));
        }
        if c.per_agent_usd.is_some_and(|m| mine.usd >= m) {
            return Err(format!(
                "budget.per_agent_usd = {} ({agent} spent {:.4})",
                c.per_agent_usd.unwrap_or(0.0),
                mine.usd
            ));
        }
        if c.per_agent_tokens.is_some_and(|m| mine.tokens() >= m) {
            return Err(format!(
                "budget.per_agent_tokens = {} ({agent} spent {})",
                c.per_agent_tokens.unwrap_or(0),
                mine.tokens()
            ));
        }
        Ok(())
    }

    /// The price of `usage` on `model` (0 for models without a price, e.g. scripts).
    pub fn price(&self, model: &str, usage: Usage) -> f64 {
        self.prices
            .get(model)
            .map(|p| {
                (usage.prompt_tokens as f64 * p.input + usage.completion_tokens as f64 * p.output)
                    / 1e6
            })
            .unwrap_or(0.0)
    }

    /// Records a finished call.
    pub fn record(&self, agent: &str, usage: Usage, usd: f64) {
        let mut g = self.spent.lock().unwrap_or_else(|e| e.into_inner());
        g.0.add(usage, usd);
        g.1.entry(agent.to_string()).or_default().add(usage, usd);
    }

    /// Totals for the run and per agent.
    pub fn totals(&self) -> (Spent, BTreeMap<String, Spent>) {
        self.spent.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_refuse_once_reached() {
        let caps = BudgetSection {
            max_tokens: Some(100),
            per_agent_usd: Some(0.5),
            ..Default::default()
        };
        let mut prices = BTreeMap::new();
        prices.insert(
            "m".to_string(),
            Price {
                input: 1000.0,
                output: 2000.0,
            },
        );
        let b = Budget::new(caps, prices);
        assert!(b.check("a", 0).is_ok());
        let u = Usage {
            prompt_tokens: 40,
            completion_tokens: 10,
        };
        let usd = b.price("m", u);
        assert!((usd - 0.06).abs() < 1e-12);
        b.record("a", u, usd);
        assert!(b.check("a", 1).is_ok());
        b.record("b", u, usd);
        let e = b.check("a", 2).unwrap_err();
        assert!(e.contains("max_tokens"), "{e}");
    }

    #[test]
    fn replay_refuses_what_was_refused() {
        let b = Budget::replaying(
            [(("a".to_string(), 3), "cap".to_string())]
                .into_iter()
                .collect(),
        );
        assert!(b.check("a", 2).is_ok());
        assert!(b.check("a", 3).is_err());
    }
}
