//! The boundary between a unit test and the solution it checks: what may cross, read and
//! written by the host. Only data crosses (DESIGN, Execution: "Only data crosses").
//!
//! - `value.rs`: [`Value`], the one grammar of values (scalars, strings, bytes, lists, tuples,
//!   dicts, sets, and handles of declared objects), read within [`Bounds`], written in one
//!   canonical form, compared as Python's `==` compares and shown as Python source.
//! - `message.rs`: a test's [`Call`] and a solution's [`Answer`], each read from the sender's
//!   bytes ([`read_call`], [`read_answer`]), checked against the [`Interface`] and the run's
//!   [`Handles`], and written again for the other side.
//! - `interface.rs`: [`Interface`], the functions and declared classes a Python test may call.
//!
//! The guest's side of the same grammar is `guest-sdk/python/dixit_bridge.py`; the bridge that
//! carries the messages is `sandbox/bridge.rs`.

mod interface;
mod message;
mod value;

pub use interface::{is_public_name, EntryError, Interface, SPECIAL_METHODS};
pub use message::{
    raise, read_answer, read_call, Answer, Argument, Call, CallError, Callee, Handles, EXCEPTIONS,
    MAX_EXCEPTION_MESSAGE,
};
pub use value::{py_float, py_str, Bounds, Value, ValueError};
