//! Heap headroom for compiled guests: room for `malloc` in the memory a module starts with.
//!
//! wasm-ld sizes a module's initial memory to its stack and data, so the C library's first
//! `malloc` of every run grows the memory by a page. In wasmtime's pooling allocator a grown
//! memory is made accessible with `mprotect`, and when its slot is reused the growth is made
//! inaccessible again: a page-table change per run, whose TLB shootdown interrupts every core
//! running a thread of dixit. On 2 threads that made the system time of a C classification
//! match its user time and the second thread buy nothing (docs/measured.md). A
//! module that starts with [`HEADROOM`] more bytes serves a typical test's allocations without
//! growing. Untouched pages cost nothing: a pooled memory maps them copy-on-write, and only
//! pages a run wrote are reset.
//!
//! C and C++ modules (linked by clang 14's wasm-ld, which has no `--initial-heap`) get their
//! memory's minimum raised after linking ([`with_heap_headroom`]); wasi-libc's allocator then
//! finds the room above `__heap_base`. Rust modules are linked with `--initial-heap`
//! ([`RUST_LINK_ARG`]).

use wasm_encoder::reencode::{self, Reencode};

/// Bytes of heap a compiled module starts with beyond its stack and data.
pub(super) const HEADROOM: u64 = 1 << 20;

/// rustc's link argument for the same headroom (rust-lld's `--initial-heap`).
pub(super) const RUST_LINK_ARG: &str = "link-arg=--initial-heap=1048576";

/// A linked module whose memory could not be given its headroom (it does not parse as wasm).
#[derive(Debug, thiserror::Error)]
#[error("adding heap headroom to the linked module: {0}")]
pub struct HeadroomError(reencode::Error<std::convert::Infallible>);

/// A Wasm page.
const PAGE: u64 = 1 << 16;

/// `module` with its defined memory's minimum raised by [`HEADROOM`] (within its maximum, if
/// it has one). A module that imports its memory, or whose memory is 64-bit or shared, is
/// returned unchanged.
pub(super) fn with_heap_headroom(module: &[u8]) -> Result<Vec<u8>, HeadroomError> {
    struct Headroom;
    impl Reencode for Headroom {
        type Error = std::convert::Infallible;
        fn parse_memory_section(
            &mut self,
            memories: &mut wasm_encoder::MemorySection,
            section: wasmparser::MemorySectionReader<'_>,
        ) -> Result<(), reencode::Error<Self::Error>> {
            for memory in section {
                let mut ty = self.memory_type(memory?)?;
                if !ty.memory64 && !ty.shared && ty.page_size_log2.is_none() {
                    let wanted = ty.minimum + HEADROOM / PAGE;
                    ty.minimum = ty.maximum.map_or(wanted, |max| wanted.min(max));
                }
                memories.memory(ty);
            }
            Ok(())
        }
    }
    let mut out = wasm_encoder::Module::new();
    Headroom
        .parse_core_module(&mut out, wasmparser::Parser::new(0), module)
        .map_err(HeadroomError)?;
    Ok(out.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defined_memory_starts_larger_within_its_maximum() {
        let min = |bytes: &[u8]| {
            wasmparser::Parser::new(0)
                .parse_all(bytes)
                .find_map(|p| match p.unwrap() {
                    wasmparser::Payload::MemorySection(r) => {
                        Some(r.into_iter().next().unwrap().unwrap())
                    }
                    _ => None,
                })
                .unwrap()
        };
        let m = min(&with_heap_headroom(&module(129, None)).unwrap());
        assert_eq!(m.initial, 129 + 16);
        let m = min(&with_heap_headroom(&module(3, Some(5))).unwrap());
        assert_eq!((m.initial, m.maximum), (5, Some(5)));
    }

    /// A module with one memory and one exported function.
    fn module(minimum: u64, maximum: Option<u64>) -> Vec<u8> {
        let mut m = wasm_encoder::Module::new();
        let mut types = wasm_encoder::TypeSection::new();
        types.ty().function([], []);
        m.section(&types);
        let mut funcs = wasm_encoder::FunctionSection::new();
        funcs.function(0);
        m.section(&funcs);
        let mut mems = wasm_encoder::MemorySection::new();
        mems.memory(wasm_encoder::MemoryType {
            minimum,
            maximum,
            memory64: false,
            shared: false,
            page_size_log2: None,
        });
        m.section(&mems);
        let mut exports = wasm_encoder::ExportSection::new();
        exports.export("f", wasm_encoder::ExportKind::Func, 0);
        m.section(&exports);
        let mut code = wasm_encoder::CodeSection::new();
        let mut f = wasm_encoder::Function::new([]);
        f.instructions().end();
        code.function(&f);
        m.section(&code);
        m.finish()
    }
}
