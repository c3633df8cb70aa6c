//! Flattening a component's core modules into one, so wasmtime can instantiate it cheaply.
//!
//! componentize-py links CPython dynamically: its component holds 14 core modules (libc,
//! libpython, …), and instantiating it writes 5,756 functions into a table that libc and the
//! others import, through element segments whose offsets are imported globals. wasmtime then
//! builds every one of those function references eagerly, at every instantiation, and wires
//! ~1,200 imports between the modules; that was most of a fresh Python instance's cost. A table
//! that a module *defines*, filled by segments at constant offsets, wasmtime fills lazily (on
//! first use), and calls inside one module are direct.
//!
//! [`flatten`] merges every core instance of the component that can be merged into one module
//! ([`merge`]): the modules' definitions are concatenated in instantiation order (so segments
//! are written in the same order as before), each import another merged module provides
//! becomes a direct reference, constant globals are folded into segment offsets, and what
//! remains outside (functions lowered from the host) stays an import. An instance cannot be
//! merged when something it imports depends on the merged ones (wit-component's "fixup"
//! instance, which fills a table with host functions that need the merged module's memory);
//! it is instantiated after the merged module, as before. The component around it is written
//! again with the same imports, exports, types and canonical functions, its items reordered only
//! as far as the merged instance requires and renumbered accordingly.
//!
//! Nothing executes differently: the same function bodies run with the same fuel, the memory
//! starts the same, and the table holds the same functions at the same places. Anything the
//! flattener does not understand is an error, and the caller uses the component unchanged.

mod merge;

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};

use wasm_encoder::reencode::{self, Reencode, ReencodeComponent};
use wasm_encoder::{
    CanonicalFunctionSection, Component, ComponentAliasSection, ComponentExportSection,
    ComponentImportSection, ComponentInstanceSection, ComponentSectionId, ComponentTypeSection,
    CoreTypeSection, ExportKind, InstanceSection, ModuleArg, RawSection,
};
use wasmparser::{
    CanonicalFunction, ComponentAlias, ComponentExternalKind, ComponentOuterAliasKind,
    ComponentTypeRef, ExternalKind, Instance, Parser, Payload,
};

/// Why a component was not flattened.
#[derive(Debug, thiserror::Error)]
pub enum FlattenError {
    /// The bytes do not parse, or do not fit together.
    #[error("malformed: {0}")]
    Malformed(String),
    /// A shape this flattener does not handle.
    #[error("not handled: {0}")]
    Unsupported(String),
}

impl FlattenError {
    fn malformed(m: impl Into<String>) -> Self {
        FlattenError::Malformed(m.into())
    }
    fn unsupported(m: impl Into<String>) -> Self {
        FlattenError::Unsupported(m.into())
    }
}

impl From<wasmparser::BinaryReaderError> for FlattenError {
    fn from(e: wasmparser::BinaryReaderError) -> Self {
        FlattenError::Malformed(e.to_string())
    }
}

impl From<reencode::Error<FlattenError>> for FlattenError {
    fn from(e: reencode::Error<FlattenError>) -> Self {
        match e {
            reencode::Error::UserError(e) => e,
            other => FlattenError::Malformed(other.to_string()),
        }
    }
}

/// The index spaces of a component (core and component level).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Space {
    CoreFunc,
    CoreTable,
    CoreMemory,
    CoreGlobal,
    CoreTag,
    CoreType,
    CoreModule,
    CoreInstance,
    Func,
    Value,
    Type,
    Instance,
    Component,
}

impl Space {
    fn core(k: ExternalKind) -> Space {
        match k {
            ExternalKind::Func | ExternalKind::FuncExact => Space::CoreFunc,
            ExternalKind::Table => Space::CoreTable,
            ExternalKind::Memory => Space::CoreMemory,
            ExternalKind::Global => Space::CoreGlobal,
            ExternalKind::Tag => Space::CoreTag,
        }
    }

    fn component(k: ComponentExternalKind) -> Space {
        match k {
            ComponentExternalKind::Module => Space::CoreModule,
            ComponentExternalKind::Func => Space::Func,
            ComponentExternalKind::Value => Space::Value,
            ComponentExternalKind::Type => Space::Type,
            ComponentExternalKind::Instance => Space::Instance,
            ComponentExternalKind::Component => Space::Component,
        }
    }
}

/// One definition of the outer component, in order.
enum Def<'a> {
    Module(&'a [u8]),
    Component(&'a [u8]),
    CoreType(wasmparser::CoreType<'a>),
    Type(wasmparser::ComponentType<'a>),
    Import(wasmparser::ComponentImport<'a>),
    Alias(ComponentAlias<'a>),
    CoreInstance(Instance<'a>),
    Instance(wasmparser::ComponentInstance<'a>),
    Canon(CanonicalFunction),
    Export(wasmparser::ComponentExport<'a>),
}

impl Def<'_> {
    /// The index space this definition adds an entry to.
    fn space(&self) -> Space {
        match self {
            Def::Module(_) => Space::CoreModule,
            Def::Component(_) => Space::Component,
            Def::CoreType(_) => Space::CoreType,
            Def::Type(_) => Space::Type,
            Def::Import(i) => match i.ty {
                ComponentTypeRef::Module(_) => Space::CoreModule,
                ComponentTypeRef::Func(_) => Space::Func,
                ComponentTypeRef::Value(_) => Space::Value,
                ComponentTypeRef::Type(_) => Space::Type,
                ComponentTypeRef::Instance(_) => Space::Instance,
                ComponentTypeRef::Component(_) => Space::Component,
            },
            Def::Alias(a) => match a {
                ComponentAlias::InstanceExport { kind, .. } => Space::component(*kind),
                ComponentAlias::CoreInstanceExport { kind, .. } => Space::core(*kind),
                ComponentAlias::Outer { kind, .. } => match kind {
                    ComponentOuterAliasKind::CoreModule => Space::CoreModule,
                    ComponentOuterAliasKind::CoreType => Space::CoreType,
                    ComponentOuterAliasKind::Type => Space::Type,
                    ComponentOuterAliasKind::Component => Space::Component,
                },
            },
            Def::CoreInstance(_) => Space::CoreInstance,
            Def::Instance(_) => Space::Instance,
            Def::Canon(CanonicalFunction::Lift { .. }) => Space::Func,
            Def::Canon(_) => Space::CoreFunc,
            Def::Export(e) => Space::component(e.kind),
        }
    }
}

/// A definition with its place in its index space and what it refers to.
struct Item<'a> {
    def: Def<'a>,
    index: u32,
    refs: Vec<(Space, u32)>,
}

/// Reads the outer component's definitions (nested modules and components whole).
fn read(component: &[u8]) -> Result<Vec<Item<'_>>, FlattenError> {
    let mut defs = Vec::new();
    let mut depth = 0usize;
    for payload in Parser::new(0).parse_all(component) {
        let payload = payload?;
        if depth > 0 {
            match payload {
                Payload::ModuleSection { .. } | Payload::ComponentSection { .. } => depth += 1,
                Payload::ComponentAliasSection(r) => {
                    for a in r {
                        if let ComponentAlias::Outer {
                            kind:
                                ComponentOuterAliasKind::CoreModule | ComponentOuterAliasKind::Component,
                            ..
                        } = a?
                        {
                            return Err(FlattenError::unsupported(
                                "a nested component aliasing an outer module or component",
                            ));
                        }
                    }
                }
                Payload::End(_) => depth -= 1,
                _ => {}
            }
            continue;
        }
        match payload {
            Payload::Version { encoding, .. } => {
                if encoding != wasmparser::Encoding::Component {
                    return Err(FlattenError::unsupported("not a component"));
                }
            }
            Payload::ModuleSection {
                unchecked_range, ..
            } => {
                defs.push(Def::Module(&component[unchecked_range]));
                depth += 1;
            }
            Payload::ComponentSection {
                unchecked_range, ..
            } => {
                defs.push(Def::Component(&component[unchecked_range]));
                depth += 1;
            }
            Payload::CoreTypeSection(r) => {
                for t in r {
                    defs.push(Def::CoreType(t?));
                }
            }
            Payload::ComponentTypeSection(r) => {
                for t in r {
                    defs.push(Def::Type(t?));
                }
            }
            Payload::ComponentImportSection(r) => {
                for i in r {
                    defs.push(Def::Import(i?));
                }
            }
            Payload::ComponentAliasSection(r) => {
                for a in r {
                    defs.push(Def::Alias(a?));
                }
            }
            Payload::InstanceSection(r) => {
                for i in r {
                    defs.push(Def::CoreInstance(i?));
                }
            }
            Payload::ComponentInstanceSection(r) => {
                for i in r {
                    defs.push(Def::Instance(i?));
                }
            }
            Payload::ComponentCanonicalSection(r) => {
                for c in r {
                    defs.push(Def::Canon(c?));
                }
            }
            Payload::ComponentExportSection(r) => {
                for e in r {
                    defs.push(Def::Export(e?));
                }
            }
            Payload::ComponentStartSection { .. } => {
                return Err(FlattenError::unsupported("a start function"))
            }
            // Names and producers: the names would be stale after renumbering.
            Payload::CustomSection(_) | Payload::End(_) => {}
            other => {
                return Err(FlattenError::unsupported(format!(
                    "a component section {other:?}"
                )))
            }
        }
    }
    let mut counts: HashMap<Space, u32> = HashMap::new();
    let mut items = Vec::with_capacity(defs.len());
    for def in defs {
        let n = counts.entry(def.space()).or_default();
        let index = *n;
        *n += 1;
        let mut collect = Indices::collecting();
        emit(&mut Component::new(), &mut collect, &def, None)?;
        items.push(Item {
            def,
            index,
            refs: collect.refs,
        });
    }
    Ok(items)
}

/// Renumbers (or, collecting, records) the outer component's indices; nested scopes (types,
/// modules and components inside) are left alone.
struct Indices {
    depth: usize,
    collecting: bool,
    refs: Vec<(Space, u32)>,
    map: HashMap<(Space, u32), u32>,
    missing: Option<(Space, u32)>,
}

impl Indices {
    fn collecting() -> Indices {
        Indices {
            depth: 0,
            collecting: true,
            refs: Vec::new(),
            map: HashMap::new(),
            missing: None,
        }
    }

    fn index(&mut self, space: Space, i: u32) -> u32 {
        if self.depth > 0 {
            return i;
        }
        if self.collecting {
            self.refs.push((space, i));
            return i;
        }
        match self.map.get(&(space, i)) {
            Some(n) => *n,
            None => {
                self.missing.get_or_insert((space, i));
                i
            }
        }
    }
}

impl Reencode for Indices {
    type Error = FlattenError;
    fn function_index(&mut self, i: u32) -> Result<u32, reencode::Error<FlattenError>> {
        Ok(self.index(Space::CoreFunc, i))
    }
    fn table_index(&mut self, i: u32) -> Result<u32, reencode::Error<FlattenError>> {
        Ok(self.index(Space::CoreTable, i))
    }
    fn memory_index(&mut self, i: u32) -> Result<u32, reencode::Error<FlattenError>> {
        Ok(self.index(Space::CoreMemory, i))
    }
    fn global_index(&mut self, i: u32) -> Result<u32, reencode::Error<FlattenError>> {
        Ok(self.index(Space::CoreGlobal, i))
    }
    fn tag_index(&mut self, i: u32) -> Result<u32, reencode::Error<FlattenError>> {
        Ok(self.index(Space::CoreTag, i))
    }
    fn type_index(&mut self, i: u32) -> Result<u32, reencode::Error<FlattenError>> {
        Ok(self.index(Space::CoreType, i))
    }
}

impl ReencodeComponent for Indices {
    fn component_type_index(&mut self, i: u32) -> u32 {
        self.index(Space::Type, i)
    }
    fn component_instance_index(&mut self, i: u32) -> u32 {
        self.index(Space::Instance, i)
    }
    fn component_func_index(&mut self, i: u32) -> u32 {
        self.index(Space::Func, i)
    }
    fn component_index(&mut self, i: u32) -> u32 {
        self.index(Space::Component, i)
    }
    fn module_index(&mut self, i: u32) -> u32 {
        self.index(Space::CoreModule, i)
    }
    fn instance_index(&mut self, i: u32) -> u32 {
        self.index(Space::CoreInstance, i)
    }
    fn component_value_index(&mut self, i: u32) -> u32 {
        self.index(Space::Value, i)
    }
    fn outer_type_index(
        &mut self,
        _count: u32,
        i: u32,
    ) -> Result<u32, reencode::Error<FlattenError>> {
        Ok(i)
    }
    fn outer_component_type_index(&mut self, _count: u32, i: u32) -> u32 {
        i
    }
    fn outer_component_index(&mut self, _count: u32, i: u32) -> u32 {
        i
    }
    fn outer_module_index(&mut self, _count: u32, i: u32) -> u32 {
        i
    }
    fn push_depth(&mut self) {
        self.depth += 1;
    }
    fn pop_depth(&mut self) {
        self.depth -= 1;
    }
}

/// Writes one definition as a section of its own, its indices through `ix`. `merged`, for an
/// alias of an export of a merged instance, is the merged instance's index and the export's
/// name in the merged module.
fn emit(
    out: &mut Component,
    ix: &mut Indices,
    def: &Def,
    merged: Option<(u32, &str)>,
) -> Result<(), FlattenError> {
    match def {
        Def::Module(bytes) => {
            out.section(&RawSection {
                id: ComponentSectionId::CoreModule.into(),
                data: bytes,
            });
        }
        Def::Component(bytes) => {
            out.section(&RawSection {
                id: ComponentSectionId::Component.into(),
                data: bytes,
            });
        }
        Def::CoreType(t) => {
            let mut s = CoreTypeSection::new();
            ix.parse_component_core_type(s.ty(), t.clone())?;
            out.section(&s);
        }
        Def::Type(t) => {
            let mut s = ComponentTypeSection::new();
            ix.parse_component_type(s.ty(), t.clone())?;
            out.section(&s);
        }
        Def::Import(i) => {
            let mut s = ComponentImportSection::new();
            s.import(i.name, ix.component_type_ref(i.ty)?);
            out.section(&s);
        }
        Def::Alias(a) => {
            let mut s = ComponentAliasSection::new();
            match (a, merged) {
                (ComponentAlias::CoreInstanceExport { kind, .. }, Some((instance, name))) => {
                    s.alias(wasm_encoder::Alias::CoreInstanceExport {
                        instance,
                        kind: (*kind).into(),
                        name,
                    });
                }
                _ => {
                    s.alias(ix.component_alias(a.clone())?);
                }
            }
            out.section(&s);
        }
        Def::CoreInstance(i) => {
            let mut s = InstanceSection::new();
            ix.parse_instance(&mut s, i.clone())?;
            out.section(&s);
        }
        Def::Instance(i) => {
            let mut s = ComponentInstanceSection::new();
            ix.parse_component_instance(&mut s, i.clone())?;
            out.section(&s);
        }
        Def::Canon(c) => {
            let mut s = CanonicalFunctionSection::new();
            ix.parse_component_canonical(&mut s, c.clone())?;
            out.section(&s);
        }
        Def::Export(e) => {
            let mut s = ComponentExportSection::new();
            ix.parse_component_export(&mut s, e.clone())?;
            out.section(&s);
        }
    }
    Ok(())
}

/// The component with as many of its core instances as possible merged into one module (see
/// the module documentation), validated.
pub fn flatten(component: &[u8]) -> Result<Vec<u8>, FlattenError> {
    let items = read(component)?;
    let mut def_of: HashMap<(Space, u32), usize> = HashMap::new();
    for (at, item) in items.iter().enumerate() {
        def_of.insert((item.def.space(), item.index), at);
    }
    let item_of = |space: Space, i: u32| -> Result<usize, FlattenError> {
        def_of
            .get(&(space, i))
            .copied()
            .ok_or_else(|| FlattenError::malformed(format!("{space:?} {i} is not defined")))
    };
    let instantiated = |at: usize| -> Option<(u32, &[wasmparser::InstantiationArg])> {
        match &items[at].def {
            Def::CoreInstance(Instance::Instantiate { module_index, args }) => {
                Some((*module_index, args))
            }
            _ => None,
        }
    };
    let module_bytes = |m: u32| -> Result<&[u8], FlattenError> {
        match &items[item_of(Space::CoreModule, m)?].def {
            Def::Module(bytes) => Ok(bytes),
            _ => Err(FlattenError::unsupported("an imported or aliased module")),
        }
    };

    // Start from every instantiation and drop those whose imports depend on the others.
    let mut merged: BTreeSet<usize> = (0..items.len())
        .filter(|at| instantiated(*at).is_some())
        .collect();
    let outside = RefCell::new(Vec::<(Space, u32)>::new());
    loop {
        let positions: Vec<usize> = merged.iter().copied().collect();
        let reaches = reaching(&items, &def_of, &merged);
        let mut dropped = Vec::new();
        let bind = binder(&items, &def_of, &positions, &merged, &outside);
        for (p, at) in positions.iter().enumerate() {
            let (m, _) = instantiated(*at).expect("an instantiation");
            for (module, name) in imports_of(module_bytes(m)?)? {
                if let merge::Target::Outside(id) = bind(p, &module, &name)? {
                    let (space, i) = outside.borrow()[id as usize];
                    if reaches[item_of(space, i)?] {
                        dropped.push(*at);
                        break;
                    }
                }
            }
        }
        drop(bind);
        if dropped.is_empty() {
            break;
        }
        for at in dropped {
            merged.remove(&at);
        }
    }
    if merged.len() < 2 {
        return Err(FlattenError::unsupported(
            "fewer than two instances to merge",
        ));
    }
    outside.borrow_mut().clear();
    let positions: Vec<usize> = merged.iter().copied().collect();
    let position = |at: usize| positions.iter().position(|p| *p == at);
    let reaches = reaching(&items, &def_of, &merged);

    // The exports of merged instances the rest of the component uses.
    let mut wanted: Vec<(usize, String)> = Vec::new();
    for item in &items {
        if let Def::Alias(ComponentAlias::CoreInstanceExport {
            instance_index,
            name,
            ..
        }) = &item.def
        {
            let at = item_of(Space::CoreInstance, *instance_index)?;
            if let Some(p) = position(at) {
                let w = (p, name.to_string());
                if !wanted.contains(&w) {
                    wanted.push(w);
                }
            }
        }
    }
    let modules = positions
        .iter()
        .map(|at| module_bytes(instantiated(*at).expect("an instantiation").0))
        .collect::<Result<Vec<_>, _>>()?;
    let bind = binder(&items, &def_of, &positions, &merged, &outside);
    let one = merge::merge(&modules, &bind, &wanted)?;
    drop(bind);
    let outside = outside.into_inner();

    // Modules only the merged instances instantiated are dropped.
    let mut used_modules: BTreeSet<u32> = BTreeSet::new();
    for at in 0..items.len() {
        if let Some((m, _)) = instantiated(at) {
            if !merged.contains(&at) {
                used_modules.insert(m);
            }
        }
    }
    let dropped_modules: BTreeSet<u32> = positions
        .iter()
        .map(|at| instantiated(*at).expect("an instantiation").0)
        .filter(|m| !used_modules.contains(m))
        .collect();
    let keep = |at: usize| -> bool {
        let item = &items[at];
        let dropped_module =
            matches!(item.def, Def::Module(_)) && dropped_modules.contains(&item.index);
        !merged.contains(&at) && !dropped_module
    };

    // The new order: what does not depend on the merged instances, then the merged module, its
    // outside imports and its instance, then the rest; each in the original order.
    enum New {
        Old(usize),
        Module,
        Outside,
        Instance,
    }
    let mut order: Vec<New> = Vec::new();
    order.extend(
        (0..items.len())
            .filter(|at| keep(*at) && !reaches[*at])
            .map(New::Old),
    );
    order.push(New::Module);
    if !one.outside.is_empty() {
        order.push(New::Outside);
    }
    order.push(New::Instance);
    order.extend(
        (0..items.len())
            .filter(|at| keep(*at) && reaches[*at])
            .map(New::Old),
    );

    let mut ix = Indices {
        depth: 0,
        collecting: false,
        refs: Vec::new(),
        map: HashMap::new(),
        missing: None,
    };
    let mut counts: HashMap<Space, u32> = HashMap::new();
    let mut next = |space: Space| {
        let n = counts.entry(space).or_default();
        *n += 1;
        *n - 1
    };
    let (mut module_at, mut outside_at, mut instance_at) = (0, 0, 0);
    for o in &order {
        match o {
            New::Old(at) => {
                let item = &items[*at];
                let space = item.def.space();
                let n = next(space);
                let unchanged = matches!(space, Space::Type | Space::CoreType | Space::Value);
                if unchanged && n != item.index {
                    return Err(FlattenError::unsupported("types would be renumbered"));
                }
                ix.map.insert((space, item.index), n);
            }
            New::Module => module_at = next(Space::CoreModule),
            New::Outside => outside_at = next(Space::CoreInstance),
            New::Instance => instance_at = next(Space::CoreInstance),
        }
    }

    let mut out = Component::new();
    for o in &order {
        match o {
            New::Old(at) => {
                let item = &items[*at];
                let alias = match &item.def {
                    Def::Alias(ComponentAlias::CoreInstanceExport {
                        instance_index,
                        name,
                        ..
                    }) => position(item_of(Space::CoreInstance, *instance_index)?)
                        .map(|p| format!("{p}:{name}")),
                    _ => None,
                };
                emit(
                    &mut out,
                    &mut ix,
                    &item.def,
                    alias.as_deref().map(|n| (instance_at, n)),
                )?;
            }
            New::Module => {
                out.section(&RawSection {
                    id: ComponentSectionId::CoreModule.into(),
                    data: &one.wasm,
                });
            }
            New::Outside => {
                let mut s = InstanceSection::new();
                let mut exports = Vec::new();
                for (id, kind) in &one.outside {
                    let (space, i) = outside[*id as usize];
                    let n = ix.index(space, i);
                    let kind = match kind {
                        ExternalKind::Table => ExportKind::Table,
                        ExternalKind::Memory => ExportKind::Memory,
                        ExternalKind::Global => ExportKind::Global,
                        _ => ExportKind::Func,
                    };
                    exports.push((id.to_string(), kind, n));
                }
                s.export_items(exports.iter().map(|(n, k, i)| (n.as_str(), *k, *i)));
                out.section(&s);
            }
            New::Instance => {
                let mut s = InstanceSection::new();
                if one.outside.is_empty() {
                    s.instantiate(module_at, std::iter::empty::<(&str, ModuleArg)>());
                } else {
                    s.instantiate(module_at, [("x", ModuleArg::Instance(outside_at))]);
                }
                out.section(&s);
            }
        }
        if let Some((space, i)) = ix.missing {
            return Err(FlattenError::unsupported(format!(
                "{space:?} {i} refers to a merged instance directly"
            )));
        }
    }
    let wasm = out.finish();
    let mut features = wasmparser::WasmFeatures::default();
    features.insert(wasmparser::WasmFeatures::COMPONENT_MODEL);
    wasmparser::Validator::new_with_features(features)
        .validate_all(&wasm)
        .map_err(|e| FlattenError::malformed(format!("the flattened component: {e}")))?;
    Ok(wasm)
}

/// Whether each item is, or depends on, one of the `merged` instances.
fn reaching(
    items: &[Item],
    def_of: &HashMap<(Space, u32), usize>,
    merged: &BTreeSet<usize>,
) -> Vec<bool> {
    let mut reaches = vec![false; items.len()];
    for (at, item) in items.iter().enumerate() {
        reaches[at] = merged.contains(&at)
            || item
                .refs
                .iter()
                .any(|r| def_of.get(r).is_some_and(|d| *d < at && reaches[*d]));
    }
    reaches
}

/// The names a module imports, in order.
fn imports_of(module: &[u8]) -> Result<Vec<(String, String)>, FlattenError> {
    let mut out = Vec::new();
    for payload in Parser::new(0).parse_all(module) {
        if let Payload::ImportSection(r) = payload? {
            for i in r.into_imports() {
                let i = i?;
                out.push((i.module.to_string(), i.name.to_string()));
            }
        }
    }
    Ok(out)
}

/// What an import of the merged instance at each position is bound to: an export of another
/// merged instance, or (through bags of exports and aliases) an item outside, numbered in
/// `outside` by first use.
fn binder<'x>(
    items: &'x [Item],
    def_of: &'x HashMap<(Space, u32), usize>,
    positions: &'x [usize],
    merged: &'x BTreeSet<usize>,
    outside: &'x RefCell<Vec<(Space, u32)>>,
) -> impl Fn(usize, &str, &str) -> Result<merge::Target, FlattenError> + 'x {
    let item_of = move |space: Space, i: u32| -> Result<usize, FlattenError> {
        def_of
            .get(&(space, i))
            .copied()
            .ok_or_else(|| FlattenError::malformed(format!("{space:?} {i} is not defined")))
    };
    let position = move |at: usize| positions.iter().position(|p| *p == at);
    let intern = move |space: Space, i: u32| -> merge::Target {
        let mut o = outside.borrow_mut();
        let id = match o.iter().position(|x| *x == (space, i)) {
            Some(id) => id,
            None => {
                o.push((space, i));
                o.len() - 1
            }
        };
        merge::Target::Outside(id as u32)
    };
    // An export `name` of the core instance `instance`, followed through bags of exports and
    // aliases of them.
    let export = move |instance: u32, name: &str| -> Result<merge::Target, FlattenError> {
        let mut instance = instance;
        let mut name = name.to_string();
        for _ in 0..=items.len() {
            let at = item_of(Space::CoreInstance, instance)?;
            if merged.contains(&at) {
                return Ok(merge::Target::Part(position(at).expect("merged"), name));
            }
            let Def::CoreInstance(Instance::FromExports(exports)) = &items[at].def else {
                return Err(FlattenError::unsupported(
                    "an import bound to an instance that is not merged",
                ));
            };
            let e = exports
                .iter()
                .find(|e| e.name == name)
                .ok_or_else(|| FlattenError::malformed(format!("no export `{name}`")))?;
            let space = Space::core(e.kind);
            let def = item_of(space, e.index)?;
            let Def::Alias(ComponentAlias::CoreInstanceExport {
                instance_index,
                name: n,
                ..
            }) = &items[def].def
            else {
                return Ok(intern(space, e.index));
            };
            let from = item_of(Space::CoreInstance, *instance_index)?;
            let bag = matches!(items[from].def, Def::CoreInstance(Instance::FromExports(_)));
            if !merged.contains(&from) && !bag {
                return Ok(intern(space, e.index));
            }
            instance = *instance_index;
            name = n.to_string();
        }
        Err(FlattenError::malformed("aliases in a circle"))
    };
    move |p: usize, module: &str, name: &str| {
        let at = positions[p];
        let Def::CoreInstance(Instance::Instantiate { args, .. }) = &items[at].def else {
            return Err(FlattenError::malformed("not an instantiation"));
        };
        let arg = args
            .iter()
            .find(|a| a.name == module)
            .ok_or_else(|| FlattenError::malformed(format!("no argument `{module}`")))?;
        export(arg.index, name)
    }
}

/// How many core modules the outer component holds (what [`flatten`] reduces).
pub fn core_modules(component: &[u8]) -> usize {
    read(component)
        .map(|items| {
            items
                .iter()
                .filter(|i| matches!(i.def, Def::Module(_)))
                .count()
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests;
