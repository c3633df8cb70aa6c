//! The end-to-end tests: one binary driving the real `dixit`.

mod fault_server;
mod live_agents;
mod protocol;
