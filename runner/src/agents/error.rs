//! Why an agent's backend cannot be made (its settings), and why a model's reply cannot be
//! read: typed, with the agent or the reply's own words, so the run's error names the cause.

/// Why an agent's backend could not be made from its settings.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// The project names a backend this build does not have.
    #[error("{agent}: unknown backend `{backend}`")]
    UnknownBackend {
        /// The agent.
        agent: String,
        /// The backend named (`(none)` when none is).
        backend: String,
    },
    /// A `command` agent without its command.
    #[error("{0}: no command")]
    NoCommand(String),
    /// An API agent without a model.
    #[error("{0}: no model")]
    NoModel(String),
    /// The environment variable that should hold the API key is not set.
    #[error("{agent}: the API key variable `{variable}` is not set")]
    NoKey {
        /// The agent.
        agent: String,
        /// The variable.
        variable: String,
    },
    /// The HTTP client could not be made.
    #[error("cannot create an HTTP client: {0}")]
    HttpClient(String),
    /// A script of replies cannot be read or is not TOML of the script's shape.
    #[error("{path}: {message}")]
    Script {
        /// The script's path.
        path: String,
        /// What is wrong (the parser's words, with line and column).
        message: String,
    },
}

/// Why a model's reply could not be had or read.
#[derive(Debug, thiserror::Error)]
pub enum ReplyError {
    /// Every attempt to POST the request failed; the last one's reason.
    #[error("POST {url} failed after {attempts} attempt(s): {last}")]
    Post {
        /// The endpoint.
        url: String,
        /// Attempts made.
        attempts: u32,
        /// Why the last one failed.
        last: String,
    },
    /// The reply has no content where the API puts it.
    #[error("no {what} in the response: {reply}")]
    Shape {
        /// The missing part (`content`, `choices`).
        what: &'static str,
        /// The reply, clipped.
        reply: String,
    },
}
