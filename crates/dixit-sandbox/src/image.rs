//! Moving a component's initial memory out of its data segments, so dixit's own memories
//! ([`super::memory`]) can start every instance from it and reset it afterwards.
//!
//! A pre-initialised CPython component (componentize-py) defines one linear memory, in a small
//! core module that holds nothing but that memory and the snapshot of the interpreter's heap as
//! ~2,800 active data segments at constant offsets (~16 MB); every other core module imports it.
//! [`strip_memory_image`] applies those segments to a zeroed buffer (the *image*: the memory's
//! contents right after instantiation) and returns the component without them. Instantiating the
//! stripped component in memory that already holds the image is then equivalent to instantiating
//! the original: the segments only ever wrote those bytes, once, before any code ran.
//!
//! Only that exact shape is rewritten (one defined memory in the whole component, 32-bit, not
//! shared, not imported by its module; every segment of that module active with an `i32.const`
//! offset inside the minimum size; no data-count section, so no code can name a segment); for
//! anything else the component is used as it is.

use wasmparser::{BinaryReader, DataKind, DataSectionReader, MemorySectionReader, Operator};

/// One WebAssembly page.
const WASM_PAGE: u64 = 65_536;

/// A component without its memory's data segments, and what they wrote.
#[derive(Debug)]
pub(crate) struct Stripped {
    /// The component to compile.
    pub wasm: Vec<u8>,
    /// The memory's contents after instantiation: its whole minimum size (the length identifies
    /// the memory when it is created).
    pub image: Vec<u8>,
}

/// One section of a component or module: its id, the byte range of the whole section (id, size
/// and payload) and of the payload.
#[derive(Clone, Copy, Debug)]
struct Section {
    id: u8,
    whole: (usize, usize),
    payload: (usize, usize),
}

/// The sections after the 8-byte header, or `None` if the bytes are malformed.
fn sections(bytes: &[u8]) -> Option<Vec<Section>> {
    let mut out = Vec::new();
    let mut at = 8;
    while at < bytes.len() {
        let start = at;
        let id = bytes[at];
        at += 1;
        let (size, n) = leb_u32(bytes.get(at..)?)?;
        at += n;
        let end = at.checked_add(size as usize)?;
        if end > bytes.len() {
            return None;
        }
        out.push(Section {
            id,
            whole: (start, end),
            payload: (at, end),
        });
        at = end;
    }
    Some(out)
}

fn leb_u32(bytes: &[u8]) -> Option<(u32, usize)> {
    let mut value: u64 = 0;
    for (i, b) in bytes.iter().enumerate().take(5) {
        value |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return u32::try_from(value).ok().map(|v| (v, i + 1));
        }
    }
    None
}

fn push_leb_u32(out: &mut Vec<u8>, mut v: u32) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

const COMPONENT_HEADER: [u8; 8] = [0, b'a', b's', b'm', 0x0d, 0, 1, 0];
const MODULE_HEADER: [u8; 8] = [0, b'a', b's', b'm', 1, 0, 0, 0];
/// Section ids: in a component, a core module and a nested component; in a module, memories,
/// data and the data count.
const CORE_MODULE: u8 = 1;
const NESTED_COMPONENT: u8 = 4;
const MEMORY: u8 = 5;
const DATA: u8 = 11;
const DATA_COUNT: u8 = 12;

/// Memories defined by the core modules of a component, recursively; `None` if malformed.
fn defined_memories(component: &[u8]) -> Option<usize> {
    let mut n = 0;
    for s in sections(component)? {
        let payload = &component[s.payload.0..s.payload.1];
        match s.id {
            CORE_MODULE => {
                if payload.get(..8)? != MODULE_HEADER {
                    return None;
                }
                for m in sections(payload)? {
                    if m.id == MEMORY {
                        let r = MemorySectionReader::new(BinaryReader::new(
                            &payload[m.payload.0..m.payload.1],
                            0,
                        ))
                        .ok()?;
                        n += r.count() as usize;
                    }
                }
            }
            NESTED_COMPONENT => n += defined_memories(payload)?,
            _ => {}
        }
    }
    Some(n)
}

/// Strips the data segments of a component's one memory; `None` when the component does not
/// have the shape described in the module documentation (it is then used unchanged).
pub(crate) fn strip_memory_image(component: &[u8]) -> Option<Stripped> {
    if component.get(..8)? != COMPONENT_HEADER || defined_memories(component)? != 1 {
        return None;
    }
    let top = sections(component)?;
    for s in top.iter().filter(|s| s.id == CORE_MODULE) {
        let module = &component[s.payload.0..s.payload.1];
        let inner = sections(module)?;
        let Some(mem) = inner.iter().find(|m| m.id == MEMORY) else {
            continue;
        };
        // This is the module that defines the memory.
        if inner.iter().any(|m| m.id == DATA_COUNT) {
            return None;
        }
        let mut mems =
            MemorySectionReader::new(BinaryReader::new(&module[mem.payload.0..mem.payload.1], 0))
                .ok()?
                .into_iter();
        let ty = mems.next()?.ok()?;
        if ty.memory64 || ty.shared || ty.page_size_log2.is_some() {
            return None;
        }
        let min_bytes = ty.initial.checked_mul(WASM_PAGE)?;
        if imports_a_memory(module, &inner)? {
            return None;
        }
        let data = inner.iter().find(|m| m.id == DATA)?;
        let image = apply_segments(&module[data.payload.0..data.payload.1], min_bytes)?;
        let mut new_module = Vec::with_capacity(module.len() - (data.whole.1 - data.whole.0));
        new_module.extend_from_slice(&module[..data.whole.0]);
        new_module.extend_from_slice(&module[data.whole.1..]);
        let mut wasm = Vec::with_capacity(component.len());
        wasm.extend_from_slice(&component[..s.whole.0]);
        wasm.push(CORE_MODULE);
        push_leb_u32(&mut wasm, u32::try_from(new_module.len()).ok()?);
        wasm.extend_from_slice(&new_module);
        wasm.extend_from_slice(&component[s.whole.1..]);
        return Some(Stripped { wasm, image });
    }
    None
}

/// Whether the module's import section imports a memory (the defined one would then not be
/// memory 0).
fn imports_a_memory(module: &[u8], inner: &[Section]) -> Option<bool> {
    let Some(imports) = inner.iter().find(|m| m.id == 2) else {
        return Some(false);
    };
    let r = wasmparser::ImportSectionReader::new(BinaryReader::new(
        &module[imports.payload.0..imports.payload.1],
        0,
    ))
    .ok()?;
    for imp in r.into_imports() {
        if matches!(imp.ok()?.ty, wasmparser::TypeRef::Memory(_)) {
            return Some(true);
        }
    }
    Some(false)
}

/// The memory image the data section writes: every segment active, into memory 0, at an
/// `i32.const` offset, within `min_bytes`.
fn apply_segments(section: &[u8], min_bytes: u64) -> Option<Vec<u8>> {
    let reader = DataSectionReader::new(BinaryReader::new(section, 0)).ok()?;
    let mut segments = Vec::new();
    for d in reader {
        let d = d.ok()?;
        let DataKind::Active {
            memory_index: 0,
            offset_expr,
        } = d.kind
        else {
            return None;
        };
        let mut ops = offset_expr.get_operators_reader();
        let Operator::I32Const { value } = ops.read().ok()? else {
            return None;
        };
        if !matches!(ops.read().ok()?, Operator::End) || !ops.eof() {
            return None;
        }
        let offset = u64::from(value as u32);
        let seg_end = offset.checked_add(d.data.len() as u64)?;
        if seg_end > min_bytes {
            return None;
        }
        segments.push((offset as usize, d.data));
    }
    let mut image = vec![0u8; usize::try_from(min_bytes).ok()?];
    for (offset, bytes) in segments {
        image[offset..offset + bytes.len()].copy_from_slice(bytes);
    }
    Some(image)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(id: u8, payload: &[u8]) -> Vec<u8> {
        let mut s = vec![id];
        push_leb_u32(&mut s, payload.len() as u32);
        s.extend_from_slice(payload);
        s
    }

    fn i32_const(v: u32) -> Vec<u8> {
        // i32.const with a signed LEB128 immediate, then end.
        let mut out = vec![0x41];
        let mut v = i64::from(v as i32);
        loop {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            let done = (v == 0 && b & 0x40 == 0) || (v == -1 && b & 0x40 != 0);
            out.push(if done { b } else { b | 0x80 });
            if done {
                break;
            }
        }
        out.push(0x0b);
        out
    }

    /// A module defining `(memory pages)` with active segments at the given offsets.
    fn memory_module(pages: u8, segments: &[(u32, &[u8])]) -> Vec<u8> {
        let mut m = MODULE_HEADER.to_vec();
        m.extend(section(MEMORY, &[1, 0x00, pages]));
        let mut data = vec![segments.len() as u8];
        for (offset, bytes) in segments {
            data.push(0);
            data.extend(i32_const(*offset));
            data.push(bytes.len() as u8);
            data.extend_from_slice(bytes);
        }
        m.extend(section(DATA, &data));
        m
    }

    fn component(modules: &[Vec<u8>]) -> Vec<u8> {
        let mut c = COMPONENT_HEADER.to_vec();
        for m in modules {
            c.extend(section(CORE_MODULE, m));
        }
        c
    }

    #[test]
    fn the_image_holds_what_the_segments_wrote_and_the_module_loses_them() {
        let module = memory_module(2, &[(8, b"abc"), (70_000, b"xyz"), (9, b"Z")]);
        let other = MODULE_HEADER.to_vec();
        let c = component(&[other.clone(), module, other.clone()]);
        let s = strip_memory_image(&c).expect("strippable");
        assert_eq!(s.image.len(), 2 * 65_536, "the whole minimum size");
        assert_eq!(
            &s.image[8..11],
            b"aZc",
            "later segments overwrite earlier ones"
        );
        assert_eq!(&s.image[70_000..70_003], b"xyz");
        assert!(s.image[..8].iter().all(|&b| b == 0));
        assert!(s.image[70_003..].iter().all(|&b| b == 0));
        let expected = component(&[
            other.clone(),
            {
                let mut m = MODULE_HEADER.to_vec();
                m.extend(section(MEMORY, &[1, 0x00, 2]));
                m
            },
            other,
        ]);
        assert_eq!(s.wasm, expected);
    }

    #[test]
    fn other_shapes_are_left_alone() {
        // Two memories.
        let m = memory_module(1, &[(0, b"a")]);
        assert!(strip_memory_image(&component(&[m.clone(), m.clone()])).is_none());
        // A segment past the minimum size.
        assert!(strip_memory_image(&component(&[memory_module(1, &[(65_535, b"ab")])])).is_none());
        // A data-count section.
        let mut with_count = MODULE_HEADER.to_vec();
        with_count.extend(section(MEMORY, &[1, 0x00, 1]));
        with_count.extend(section(DATA_COUNT, &[1]));
        with_count.extend(section(DATA, &[1, 0, 0x41, 0, 0x0b, 1, b'a']));
        assert!(strip_memory_image(&component(&[with_count])).is_none());
        // Not a component.
        assert!(strip_memory_image(&memory_module(1, &[(0, b"a")])).is_none());
    }
}
