//! Why a benchmark's record does not become a task: the reason the import report gives beside
//! the record's line. Each kind of defect is a variant, so a caller (or a test) can tell them
//! apart without reading the sentence.

/// Why a record (or its task) was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The line is not UTF-8.
    #[error("not UTF-8 ({0})")]
    NotUtf8(String),
    /// The line is not a record of the benchmark's format.
    #[error("not a {format} record: {error}")]
    NotRecord {
        /// The benchmark's name.
        format: String,
        /// The JSON error.
        error: String,
    },
    /// An earlier line holds the same task id.
    #[error("task id {id:?} is already the task of line {first}")]
    Repeated {
        /// The task id.
        id: String,
        /// The earlier line.
        first: usize,
    },
    /// A HumanEval-X task id names neither language.
    #[error("task id {0:?} is neither a C++ (`CPP/…`) nor a Rust (`Rust/…`) task")]
    UnknownLanguage(String),
    /// The entry point is not a Python function name.
    #[error("entry point {0:?} is not a Python function name")]
    EntryNotAName(String),
    /// The prompt does not define the entry point.
    #[error("the prompt does not define the entry point (no line starts with `def {0}(`)")]
    EntryNotDefined(String),
    /// HumanEval's test has no `check(candidate)`.
    #[error("the test does not define `check(candidate)`")]
    NoCheck,
    /// The reference is empty.
    #[error("the canonical solution is empty")]
    EmptyReference,
    /// The test leaves braces open (it was cut off).
    #[error("the test is cut off: {open} brace{} left open at its end", if *open == 1 { "" } else { "s" })]
    CutOff {
        /// Braces left open.
        open: i64,
    },
    /// The test closes braces it never opened.
    #[error("the test closes {0} more braces than it opens")]
    Overclosed(i64),
    /// A C++ test without `main`.
    #[error("the test has no `main`: nothing runs it")]
    NoMain,
    /// A Rust test module without a `#[test]` function.
    #[error("the test has no `#[test]` function outside comments: it checks nothing")]
    NoTestFunction,
    /// The example test has the defect.
    #[error("example_test: {0}")]
    Example(Box<Refusal>),
    /// The declaration declares no function.
    #[error("the declaration has no function signature")]
    NoSignature,
    /// The declaration does not leave its entry point open.
    #[error("the declaration does not end with the entry function's signature and `{{`")]
    NotOpen,
    /// A Rust declaration that does not parse as Rust once its entry point is closed.
    #[error("the declaration does not read as Rust ending with the entry function's signature and `{{` (line {line}, column {column}: {error})")]
    DeclarationSyntax {
        /// 1-based.
        line: usize,
        /// 1-based.
        column: usize,
        /// The parser's message.
        error: String,
    },
    /// Rust source that does not parse.
    #[error("line {line}, column {column}: {error}")]
    Syntax {
        /// 1-based.
        line: usize,
        /// 1-based.
        column: usize,
        /// The parser's message.
        error: String,
    },
    /// The test calls a function only the reference defines.
    #[error("the test calls `{called}`, which only the reference defines: the declaration (what the spec shows) declares {}", declared.iter().map(|i| format!("`{i}`")).collect::<Vec<_>>().join(", "))]
    CallsReferenceOnly {
        /// The function the test calls.
        called: String,
        /// The functions the declaration declares.
        declared: Vec<String>,
    },
    /// A generic function cannot be called across two components.
    #[error("`{name}` is generic (`{generics}`): a generic function cannot be called across two components")]
    Generic {
        /// The function.
        name: String,
        /// Its generics as written.
        generics: String,
    },
    /// A method (it takes `self`).
    #[error("`{0}` takes `self`")]
    TakesSelf(String),
    /// A piece of the signature has no source text to read it from.
    #[error("a {0} without source")]
    NoSource(&'static str),
    /// The interface cannot carry the function's signature.
    #[error("the interface cannot carry `{name}`: {error}")]
    NotCarried {
        /// The function.
        name: String,
        /// Why.
        error: String,
    },
    /// The task id is empty.
    #[error("an empty task id names no folder")]
    EmptyId,
    /// The task id holds a control character.
    #[error("the task id {0:?} holds a control character: it names no folder")]
    ControlInId(String),
    /// The task id is too long for a folder name.
    #[error("the task id is longer than {0} characters: it names no folder")]
    LongId(usize),
    /// Two task ids give the same folder name.
    #[error("task ids {first:?} ({at}) and {second:?} both become the folder name {name}")]
    SameFolder {
        /// The earlier task.
        first: String,
        /// Where it is.
        at: String,
        /// The later task.
        second: String,
        /// The folder name.
        name: String,
    },
}
