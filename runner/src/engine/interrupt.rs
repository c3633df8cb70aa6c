//! A request from outside a run to stop it (a person's Ctrl-C, a scheduler's SIGTERM).

use std::sync::Arc;

use tokio::sync::watch;

/// A request to stop a run at its next safe point. Once it is raised the engine starts no agent
/// call, abandons the calls in flight (their replies are never journaled), and the run stops with
/// [`StopReason::Interrupted`](crate::journal::StopReason::Interrupted), which `--resume`
/// continues. The library installs no signal handler: its caller (the CLI) raises it.
#[derive(Clone, Debug)]
pub struct Interrupt(Arc<watch::Sender<bool>>);

impl Default for Interrupt {
    fn default() -> Self {
        Interrupt::new()
    }
}

impl Interrupt {
    /// A request not raised yet.
    pub fn new() -> Interrupt {
        Interrupt(Arc::new(watch::Sender::new(false)))
    }

    /// Asks the run to stop (again: no effect).
    pub fn raise(&self) {
        self.0.send_replace(true);
    }

    /// Whether the run was asked to stop.
    pub fn is_raised(&self) -> bool {
        *self.0.borrow()
    }

    /// Completes once the request is raised.
    pub async fn raised(&self) {
        let mut rx = self.0.subscribe();
        if rx.wait_for(|raised| *raised).await.is_err() {
            // The sender lives in `self`, so this does not happen; never a false alarm.
            std::future::pending::<()>().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Interrupt;

    #[tokio::test]
    async fn a_raised_interrupt_wakes_its_waiters_and_stays_raised() {
        let i = Interrupt::new();
        assert!(!i.is_raised());
        let waiter = tokio::spawn({
            let i = i.clone();
            async move { i.raised().await }
        });
        i.raise();
        waiter.await.unwrap();
        assert!(i.is_raised());
        // Raised before anyone waits: the wait ends at once.
        i.raised().await;
    }
}
