//! The end-to-end tests: one binary driving the real `dixit`.

mod protocol;
