//! An interface's functions as C or C++ reads them, and the WIT world and glue of each: C's
//! from `wit.rs`, C++'s from `wit_cpp.rs`.

use super::wit::{c_glue, world, CInterface, Side};
use super::wit_cpp::{cpp_glue, cpp_world, CppInterface};

/// An interface's functions as C or C++ reads them.
#[derive(Clone, Debug)]
pub(crate) enum Signatures {
    C(CInterface),
    Cpp(CppInterface),
}

impl Signatures {
    /// The WIT world (see [`world`]).
    pub(crate) fn world(&self) -> String {
        match self {
            Signatures::C(s) => world(s),
            Signatures::Cpp(s) => cpp_world(s),
        }
    }

    /// The glue of `side` (see [`c_glue`]); C++ glue for a C++ interface.
    pub(crate) fn glue(&self, side: Side, headers: &[String]) -> String {
        match self {
            Signatures::C(s) => c_glue(s, side, headers),
            Signatures::Cpp(s) => cpp_glue(s, side, headers),
        }
    }

    /// Whether the glue is C++.
    pub(crate) fn is_cpp(&self) -> bool {
        matches!(self, Signatures::Cpp(_))
    }
}
