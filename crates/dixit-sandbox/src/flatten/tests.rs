use wasmtime::component::{Component as Compiled, Linker};
use wasmtime::{Config, Engine, Store};

use super::*;

/// A dynamically linked component in miniature: `$lib` defines the memory, the table and the
/// base its segment is written at (an immutable global, as `__table_base` is), `$user` imports
/// them and calls through the table and into the host, and `$late` needs a host function
/// lowered with `$lib`'s memory, so it can only be instantiated after `$lib` (wit-component's
/// "fixup" is such an instance) and writes that function into the table. Like wit-component,
/// it passes what `$late` needs from `$lib` in a bag of aliased exports, not `$lib` itself (an
/// instance that is not merged and takes a merged one whole is not handled).
const LINKED: &str = r#"
(component
  (import "double" (func $double (param "x" s32) (result s32)))
  (import "length" (func $length (param "s" string) (result u32)))
  (core module $lib
    (memory (export "memory") 1)
    (table (export "table") 8 funcref)
    (global (export "base") i32 (i32.const 2))
    (global (export "counter") (mut i32) (i32.const 40))
    (data (i32.const 16) "hello")
    (func (export "seven") (result i32) i32.const 7)
    (func (export "realloc") (param i32 i32 i32 i32) (result i32) i32.const 256)
  )
  (core module $user
    (import "a" "table" (table 8 funcref))
    (import "a" "base" (global $base i32))
    (import "a" "counter" (global $counter (mut i32)))
    (import "a" "seven" (func $seven (result i32)))
    (import "host" "double" (func $double (param i32) (result i32)))
    (type $t (func (result i32)))
    (type $l (func (param i32 i32) (result i32)))
    (func $eight (result i32) i32.const 8)
    (elem (table 0) (global.get $base) func $seven $eight)
    (func (export "run") (param i32) (result i32)
      global.get $counter
      i32.const 1
      i32.add
      global.set $counter
      local.get 0
      i32.const 3
      i32.eq
      if (result i32)
        ;; the host's `length` of the 5 bytes at 16, through the slot `$late` filled
        i32.const 16
        i32.const 5
        i32.const 5
        call_indirect (type $l)
      else
        local.get 0
        global.get $base
        i32.add
        call_indirect (type $t)
      end
      call $double
      global.get $counter
      i32.add)
  )
  (core module $late
    (import "a" "table" (table 8 funcref))
    (import "host" "length" (func $length (param i32 i32) (result i32)))
    (elem (table 0) (i32.const 5) func $length)
  )
  (core func $double_lowered (canon lower (func $double)))
  (core instance $lib (instantiate $lib))
  (core instance $host (export "double" (func $double_lowered)))
  (core instance $user (instantiate $user (with "a" (instance $lib)) (with "host" (instance $host))))
  (alias core export $lib "memory" (core memory $memory))
  (alias core export $lib "realloc" (core func $realloc))
  (core func $length_lowered (canon lower (func $length) (memory $memory) (realloc $realloc)))
  (core instance $late_host (export "length" (func $length_lowered)))
  (alias core export $lib "table" (core table $table))
  (core instance $late_lib (export "table" (table $table)))
  (core instance $late (instantiate $late (with "a" (instance $late_lib)) (with "host" (instance $late_host))))
  (func (export "run") (param "i" s32) (result s32) (canon lift (core func $user "run")))
)
"#;

fn engine() -> Engine {
    let mut c = Config::new();
    c.wasm_component_model(true);
    Engine::new(&c).unwrap()
}

/// `run(i)` for each `i` in a fresh instance of `wasm`, with the host doubling and measuring.
fn runs(wasm: &[u8], inputs: &[i32]) -> Vec<i32> {
    let engine = engine();
    let component = Compiled::new(&engine, wasm).unwrap();
    let mut linker = Linker::<()>::new(&engine);
    linker
        .root()
        .func_wrap("double", |_, (x,): (i32,)| Ok((x * 2,)))
        .unwrap();
    linker
        .root()
        .func_wrap("length", |_, (s,): (String,)| Ok((s.len() as u32 * 100,)))
        .unwrap();
    let mut store = Store::new(&engine, ());
    let instance = linker.instantiate(&mut store, &component).unwrap();
    let run = instance
        .get_typed_func::<(i32,), (i32,)>(&mut store, "run")
        .unwrap();
    inputs
        .iter()
        .map(|i| {
            let (r,) = run.call(&mut store, (*i,)).unwrap();
            r
        })
        .collect()
}

/// The core modules of a component and, for each, whether it defines a table and the offsets
/// of its active element segments (`None` where not a constant).
fn modules(component: &[u8]) -> Vec<(bool, Vec<Option<i32>>)> {
    let items = read(component).unwrap();
    let mut out = Vec::new();
    for item in &items {
        let Def::Module(bytes) = item.def else {
            continue;
        };
        let (mut table, mut offsets) = (false, Vec::new());
        for p in Parser::new(0).parse_all(bytes) {
            match p.unwrap() {
                Payload::TableSection(r) => table |= r.count() > 0,
                Payload::ElementSection(r) => {
                    for e in r {
                        if let wasmparser::ElementKind::Active { offset_expr, .. } = e.unwrap().kind
                        {
                            let mut ops = offset_expr.get_operators_reader();
                            offsets.push(match ops.read().unwrap() {
                                wasmparser::Operator::I32Const { value } => Some(value),
                                _ => None,
                            });
                        }
                    }
                }
                _ => {}
            }
        }
        out.push((table, offsets));
    }
    out
}

#[test]
fn merged_instances_run_as_before_with_one_table_filled_at_constant_offsets() {
    let original = wat::parse_str(LINKED).unwrap();
    let flat = flatten(&original).unwrap();
    // Same answers, same state carried between calls: 7·2+41, 8·2+42, the host's 500·2+43.
    assert_eq!(runs(&original, &[0, 1, 3]), vec![55, 58, 1043]);
    assert_eq!(runs(&flat, &[0, 1, 3]), runs(&original, &[0, 1, 3]));
    // Before: three modules, the user's segment at an imported global. After: `$lib` and
    // `$user` are one module that defines the table and writes it at the constant 2; `$late`
    // is still apart (its host function needs the merged module's memory).
    assert_eq!(
        modules(&original),
        vec![(true, vec![]), (false, vec![None]), (false, vec![Some(5)])]
    );
    assert_eq!(
        modules(&flat),
        vec![(false, vec![Some(5)]), (true, vec![Some(2)])]
    );
}

#[test]
fn what_it_does_not_handle_is_an_error_not_a_different_component() {
    // A module alone: nothing to merge.
    let one =
        wat::parse_str(r#"(component (core module $m) (core instance (instantiate $m)))"#).unwrap();
    assert!(matches!(flatten(&one), Err(FlattenError::Unsupported(_))));
    // A core module, not a component.
    let module = wat::parse_str("(module)").unwrap();
    assert!(flatten(&module).is_err());
    // Garbage.
    assert!(matches!(
        flatten(b"\0asm\x0d\0\x01\0\xff"),
        Err(FlattenError::Malformed(_))
    ));
    // Two instances with start functions: merging would change when they run.
    let started = wat::parse_str(
        r#"(component
            (core module $a (func $s) (start $s) (func (export "f")))
            (core module $b (import "a" "f" (func)))
            (core instance $a (instantiate $a))
            (core instance (instantiate $b (with "a" (instance $a)))))"#,
    )
    .unwrap();
    assert!(matches!(
        flatten(&started),
        Err(FlattenError::Unsupported(_))
    ));
}
