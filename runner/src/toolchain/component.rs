//! A compiled unit test and its solution as two components: the bindings generator's C for each
//! side's world, and a linked core module made a component (its WIT world embedded, WASI
//! preview 1 adapted to preview 2). The host links the two at run time (`sandbox/pair.rs`):
//! each has its own memory, and every argument and result is copied by the canonical ABI.

use wasi_preview1_component_adapter_provider::{
    WASI_SNAPSHOT_PREVIEW1_ADAPTER_NAME, WASI_SNAPSHOT_PREVIEW1_COMMAND_ADAPTER,
    WASI_SNAPSHOT_PREVIEW1_REACTOR_ADAPTER,
};
use wit_bindgen_core::WorldGenerator;
use wit_parser::Resolve;

use super::wit::Side;

/// Why the glue or a component could not be made (dixit's failure, not the code's: the world
/// was checked when the interface was read).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum ComponentError {
    /// The WIT world did not parse or resolve.
    #[error("the interface's WIT world: {0}")]
    World(String),
    /// The bindings generator failed.
    #[error("generating the bindings: {0}")]
    Bindings(String),
    /// The linked module could not be made a component.
    #[error("making a component: {0}")]
    Encode(String),
}

fn resolve(wit: &str, side: Side) -> Result<(Resolve, wit_parser::WorldId), ComponentError> {
    let mut r = Resolve::default();
    let pkg = r
        .push_str("dixit-unit.wit", wit)
        .map_err(|e| ComponentError::World(format!("{e:#}")))?;
    let world = r
        .select_world(&[pkg], Some(side.world()))
        .map_err(|e| ComponentError::World(format!("{e:#}")))?;
    Ok((r, world))
}

/// The C bindings of `side`'s world of `wit`: `(file name, contents)` for `dixit_test.c`/`dixit_test.h`
/// or `dixit_solution.c`/`dixit_solution.h` (no type object: the world is embedded after linking).
pub(super) fn c_bindings(wit: &str, side: Side) -> Result<Vec<(String, Vec<u8>)>, ComponentError> {
    let opts = wit_bindgen_c::Opts {
        no_object_file: true,
        ..Default::default()
    };
    let files = generate(&mut *opts.build(), wit, side)?;
    Ok(files
        .iter()
        .map(|(name, bytes)| (name.to_string(), bytes.to_vec()))
        .collect())
}

/// The Rust bindings of `side`'s world of `wit`, their runtime at `crate::dixit_rt` (dixit's
/// `guest-sdk/rust/pair.rs`, included by the glue).
pub(super) fn rust_bindings(wit: &str, side: Side) -> Result<String, ComponentError> {
    let opts = wit_bindgen_rust::Opts {
        runtime_path: Some("crate::dixit_rt".into()),
        generate_all: true,
        ..Default::default()
    };
    let files = generate(&mut opts.build(), wit, side)?;
    Ok(files
        .iter()
        .map(|(_, bytes)| String::from_utf8_lossy(bytes).into_owned())
        .collect())
}

/// The files a bindings generator writes for `side`'s world of `wit`.
fn generate(
    generator: &mut dyn WorldGenerator,
    wit: &str,
    side: Side,
) -> Result<wit_bindgen_core::Files, ComponentError> {
    let (mut r, world) = resolve(wit, side)?;
    let mut files = wit_bindgen_core::Files::default();
    generator
        .generate(&mut r, world, &mut files)
        .map_err(|e| ComponentError::Bindings(format!("{e:#}")))?;
    Ok(files)
}

/// `module` (a linked wasm32-wasi reactor: the test's entry is its glue's `_start`) as a
/// component of `side`'s world, its WASI calls adapted to preview 2 (the command adapter for
/// the test, the reactor adapter for the solution); `_initialize` runs at instantiation.
pub(super) fn componentize(
    module: &[u8],
    wit: &str,
    side: Side,
) -> Result<Vec<u8>, ComponentError> {
    let (r, world) = resolve(wit, side)?;
    let mut bytes = module.to_vec();
    wit_component::embed_component_metadata(
        &mut bytes,
        &r,
        world,
        wit_component::StringEncoding::UTF8,
    )
    .map_err(|e| ComponentError::Encode(format!("{e:#}")))?;
    let adapter = match side {
        Side::Test => WASI_SNAPSHOT_PREVIEW1_COMMAND_ADAPTER,
        Side::Solution => WASI_SNAPSHOT_PREVIEW1_REACTOR_ADAPTER,
    };
    wit_component::ComponentEncoder::default()
        .module(&bytes)
        .and_then(|e| e.adapter(WASI_SNAPSHOT_PREVIEW1_ADAPTER_NAME, adapter))
        .map(|e| e.validate(true))
        .and_then(|mut e| e.encode())
        .map_err(|e| ComponentError::Encode(format!("{e:#}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toolchain::wit::{c_glue, world, Signature};

    #[test]
    fn both_worlds_have_bindings_and_glue() {
        let sigs = Signature::parse_header(
            "int answer(void);\nint count(const double *a, int n, double t);\n\
             char *upper(const char *s);\n",
        )
        .unwrap();
        let wit = world(&sigs);
        for side in [Side::Test, Side::Solution] {
            let files = c_bindings(&wit, side).unwrap();
            let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
            let w = side.c_prefix();
            assert!(names.contains(&format!("{w}.c").as_str()), "{names:?}");
            assert!(names.contains(&format!("{w}.h").as_str()), "{names:?}");
            let glue = c_glue(&sigs, side, &["solution.h".into()]);
            assert!(glue.contains(&format!("#include \"{w}.h\"")));
            if std::env::var_os("DIXIT_DUMP_GLUE").is_some() {
                let dir = std::path::Path::new("/tmp/dixit-glue");
                std::fs::create_dir_all(dir).unwrap();
                for (n, b) in &files {
                    std::fs::write(dir.join(n), b).unwrap();
                }
                std::fs::write(dir.join(format!("{w}_glue.c")), glue).unwrap();
                std::fs::write(dir.join("dixit-unit.wit"), &wit).unwrap();
            }
        }
    }
}
