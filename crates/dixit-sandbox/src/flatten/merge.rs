//! Merging core modules that are instantiated together into one module: every import that
//! another of the modules satisfies becomes a direct reference, the rest stay imports, and each
//! module's definitions keep their order, so running the merged module does what instantiating
//! the modules one after another did (see [`super`] for why and when).

use std::collections::{BTreeMap, HashMap};

use wasm_encoder::reencode::{self, Reencode};
use wasm_encoder::{
    CodeSection, ConstExpr, DataCountSection, DataSection, ElementSection, EntityType, ExportKind,
    ExportSection, FunctionSection, GlobalSection, ImportSection, IndirectNameMap, MemorySection,
    Module, NameMap, NameSection, TableSection, TypeSection,
};
use wasmparser::{
    DataSectionReader, ElementSectionReader, Export, ExternalKind, FunctionBody, Global, Import,
    MemoryType, Operator, Parser, Payload, Table, TypeRef, TypeSectionReader,
};

use super::FlattenError;

/// What one module's import is bound to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Target {
    /// The export `name` of the module at this position in the list being merged.
    Part(usize, String),
    /// Something outside the modules being merged, by an identifier of the caller's; the merged
    /// module imports it as `x`.`{id}`.
    Outside(u32),
}

/// The merged module.
pub(super) struct Merged {
    /// Its bytes.
    pub wasm: Vec<u8>,
    /// The imports it kept, by the caller's identifier, in order (all from module `x`).
    pub outside: Vec<(u32, ExternalKind)>,
}

/// The kinds of index space a module defines things in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Kind {
    Func,
    Table,
    Memory,
    Global,
}

impl Kind {
    fn of(k: ExternalKind) -> Result<Kind, FlattenError> {
        Ok(match k {
            ExternalKind::Func => Kind::Func,
            ExternalKind::Table => Kind::Table,
            ExternalKind::Memory => Kind::Memory,
            ExternalKind::Global => Kind::Global,
            other => return Err(FlattenError::unsupported(format!("a {other:?} import"))),
        })
    }

    fn of_ref(t: &TypeRef) -> Result<Kind, FlattenError> {
        Ok(match t {
            TypeRef::Func(_) => Kind::Func,
            TypeRef::Table(_) => Kind::Table,
            TypeRef::Memory(_) => Kind::Memory,
            TypeRef::Global(_) => Kind::Global,
            other => return Err(FlattenError::unsupported(format!("a {other:?} import"))),
        })
    }

    fn external(self) -> ExternalKind {
        match self {
            Kind::Func => ExternalKind::Func,
            Kind::Table => ExternalKind::Table,
            Kind::Memory => ExternalKind::Memory,
            Kind::Global => ExternalKind::Global,
        }
    }
}

/// One module, read.
#[derive(Default)]
struct Part<'a> {
    types: Option<TypeSectionReader<'a>>,
    type_count: u32,
    imports: Vec<Import<'a>>,
    funcs: Vec<u32>,
    tables: Vec<Table<'a>>,
    memories: Vec<MemoryType>,
    globals: Vec<Global<'a>>,
    exports: Vec<Export<'a>>,
    elements: Option<ElementSectionReader<'a>>,
    element_count: u32,
    data: Option<DataSectionReader<'a>>,
    data_count: u32,
    has_data_count: bool,
    code: Vec<FunctionBody<'a>>,
    func_names: Vec<(u32, &'a str)>,
}

impl<'a> Part<'a> {
    fn read(bytes: &'a [u8]) -> Result<Part<'a>, FlattenError> {
        let mut p = Part::default();
        for payload in Parser::new(0).parse_all(bytes) {
            match payload? {
                Payload::TypeSection(r) => {
                    p.type_count = 0;
                    for g in r.clone() {
                        p.type_count += g?.types().len() as u32;
                    }
                    p.types = Some(r);
                }
                Payload::ImportSection(r) => {
                    for i in r.into_imports() {
                        p.imports.push(i?);
                    }
                }
                Payload::FunctionSection(r) => {
                    for f in r {
                        p.funcs.push(f?);
                    }
                }
                Payload::TableSection(r) => {
                    for t in r {
                        p.tables.push(t?);
                    }
                }
                Payload::MemorySection(r) => {
                    for m in r {
                        p.memories.push(m?);
                    }
                }
                Payload::GlobalSection(r) => {
                    for g in r {
                        p.globals.push(g?);
                    }
                }
                Payload::ExportSection(r) => {
                    for e in r {
                        p.exports.push(e?);
                    }
                }
                Payload::ElementSection(r) => {
                    p.element_count = r.count();
                    p.elements = Some(r);
                }
                Payload::DataCountSection { .. } => p.has_data_count = true,
                Payload::DataSection(r) => {
                    p.data_count = r.count();
                    p.data = Some(r);
                }
                Payload::CodeSectionEntry(body) => p.code.push(body),
                Payload::StartSection { .. } => {
                    return Err(FlattenError::unsupported("a module with a start function"))
                }
                Payload::TagSection(_) => {
                    return Err(FlattenError::unsupported("a module with tags"))
                }
                Payload::CustomSection(c) => {
                    if let wasmparser::KnownCustom::Name(names) = c.as_known() {
                        for n in names {
                            if let wasmparser::Name::Function(map) = n? {
                                for naming in map {
                                    let naming = naming?;
                                    p.func_names.push((naming.index, naming.name));
                                }
                            }
                        }
                    }
                }
                Payload::ModuleSection { .. } | Payload::ComponentSection { .. } => {
                    return Err(FlattenError::unsupported("a nested module"))
                }
                _ => {}
            }
        }
        if p.code.len() != p.funcs.len() {
            return Err(FlattenError::malformed("function and code counts differ"));
        }
        Ok(p)
    }

    fn imported(&self, kind: Kind) -> impl Iterator<Item = (usize, &Import<'a>)> {
        self.imports
            .iter()
            .enumerate()
            .filter(move |(_, i)| Kind::of_ref(&i.ty).ok() == Some(kind))
    }

    fn defined(&self, kind: Kind) -> u32 {
        (match kind {
            Kind::Func => self.funcs.len(),
            Kind::Table => self.tables.len(),
            Kind::Memory => self.memories.len(),
            Kind::Global => self.globals.len(),
        }) as u32
    }
}

/// Where an item of a part ends up: defined by some part (its merged index is known once every
/// part is counted), or imported from outside.
#[derive(Clone, Copy, Debug)]
enum Final {
    Defined { part: usize, local: u32 },
    Outside(u32),
}

/// Merges `modules` (in instantiation order). `bind` says what each import of each module is
/// bound to; `exports` lists the (module position, export name) pairs the merged module must
/// export, as `{position}:{name}`.
pub(super) fn merge(
    modules: &[&[u8]],
    bind: &dyn Fn(usize, &str, &str) -> Result<Target, FlattenError>,
    exports: &[(usize, String)],
) -> Result<Merged, FlattenError> {
    let parts = modules
        .iter()
        .map(|m| Part::read(m))
        .collect::<Result<Vec<_>, _>>()?;

    // What every import finally is, following re-exports of imports.
    let mut finals: Vec<Vec<Final>> = Vec::with_capacity(parts.len());
    let mut outside: Vec<(u32, ExternalKind)> = Vec::new();
    let mut outside_ty: HashMap<u32, (usize, TypeRef)> = HashMap::new();
    for (p, part) in parts.iter().enumerate() {
        let mut row = Vec::with_capacity(part.imports.len());
        for imp in &part.imports {
            let kind = Kind::of_ref(&imp.ty)?;
            let f = follow(&parts, bind, p, imp.module, imp.name, kind, 0)?;
            if let Final::Outside(id) = f {
                if let std::collections::hash_map::Entry::Vacant(v) = outside_ty.entry(id) {
                    v.insert((p, imp.ty));
                    outside.push((id, kind.external()));
                }
            }
            row.push(f);
        }
        finals.push(row);
    }

    // Index spaces: imports from outside first, then each part's definitions in order.
    let kinds = [Kind::Func, Kind::Table, Kind::Memory, Kind::Global];
    let mut outside_index: HashMap<u32, u32> = HashMap::new();
    let mut next: BTreeMap<Kind, u32> = kinds.iter().map(|k| (*k, 0)).collect();
    for (id, k) in &outside {
        let kind = Kind::of(*k)?;
        let n = next.get_mut(&kind).expect("every kind");
        outside_index.insert(*id, *n);
        *n += 1;
    }
    let mut first_defined: Vec<BTreeMap<Kind, u32>> = Vec::with_capacity(parts.len());
    for part in &parts {
        let mut row = BTreeMap::new();
        for k in kinds {
            let n = next.get_mut(&k).expect("every kind");
            row.insert(k, *n);
            *n += part.defined(k);
        }
        first_defined.push(row);
    }
    if next[&Kind::Memory] > 1 {
        return Err(FlattenError::unsupported("more than one memory"));
    }
    let resolve = |f: Final, kind: Kind| -> u32 {
        match f {
            Final::Defined { part, local } => first_defined[part][&kind] + local,
            Final::Outside(id) => outside_index[&id],
        }
    };
    // Each part's maps from its own indices to the merged module's.
    let mut maps: Vec<PartMap> = Vec::with_capacity(parts.len());
    let (mut types_at, mut elems_at, mut data_at) = (0u32, 0u32, 0u32);
    for (p, part) in parts.iter().enumerate() {
        let mut m = PartMap {
            types_at,
            elems_at,
            data_at,
            ..PartMap::default()
        };
        for k in kinds {
            let space = m.space_mut(k);
            for (i, imp) in part.imported(k) {
                let _ = imp;
                space.push(resolve(finals[p][i], k));
            }
            let first = first_defined[p][&k];
            space.extend(first..first + part.defined(k));
        }
        types_at += part.type_count;
        elems_at += part.element_count;
        data_at += part.data_count;
        maps.push(m);
    }

    // Immutable globals whose value is a constant, folded into the expressions that use them
    // (segment offsets above all: a table whose segments have constant offsets is initialised
    // lazily by wasmtime).
    let mut constants: HashMap<u32, i64> = HashMap::new();
    loop {
        let before = constants.len();
        for (p, part) in parts.iter().enumerate() {
            for (i, g) in part.globals.iter().enumerate() {
                let at = first_defined[p][&Kind::Global] + i as u32;
                let i32 = g.ty.content_type == wasmparser::ValType::I32;
                if g.ty.mutable || !i32 || constants.contains_key(&at) {
                    continue;
                }
                if let Some(v) = evaluate(&g.init_expr, &maps[p], &constants) {
                    constants.insert(at, v);
                }
            }
        }
        if constants.len() == before {
            break;
        }
    }

    let mut module = Module::new();
    let mut types = TypeSection::new();
    for (p, part) in parts.iter().enumerate() {
        if let Some(r) = &part.types {
            let mut re = maps[p].with(&constants);
            re.parse_type_section(&mut types, r.clone())?;
        }
    }
    module.section(&types);

    let mut imports = ImportSection::new();
    for (id, _) in &outside {
        let (p, ty) = outside_ty[id];
        let mut re = maps[p].with(&constants);
        let ty: EntityType = re.entity_type(ty)?;
        imports.import("x", &id.to_string(), ty);
    }
    module.section(&imports);

    let mut funcs = FunctionSection::new();
    for (p, part) in parts.iter().enumerate() {
        for t in &part.funcs {
            funcs.function(maps[p].types_at + t);
        }
    }
    module.section(&funcs);

    let mut tables = TableSection::new();
    for (p, part) in parts.iter().enumerate() {
        let mut re = maps[p].with(&constants);
        for t in &part.tables {
            re.parse_table(&mut tables, t.clone())?;
        }
    }
    module.section(&tables);

    let mut memories = MemorySection::new();
    for (p, part) in parts.iter().enumerate() {
        let mut re = maps[p].with(&constants);
        for m in &part.memories {
            memories.memory(re.memory_type(*m)?);
        }
    }
    module.section(&memories);

    let mut globals = GlobalSection::new();
    for (p, part) in parts.iter().enumerate() {
        let mut re = maps[p].with(&constants);
        for g in &part.globals {
            re.parse_global(&mut globals, g.clone())?;
        }
    }
    module.section(&globals);

    let mut out = ExportSection::new();
    for (p, name) in exports {
        let part = parts
            .get(*p)
            .ok_or_else(|| FlattenError::malformed("an export of no module"))?;
        let e = part
            .exports
            .iter()
            .find(|e| e.name == name)
            .ok_or_else(|| FlattenError::malformed(format!("module {p} exports no `{name}`")))?;
        let kind = Kind::of(e.kind)?;
        let index = maps[*p].space(kind)[e.index as usize];
        let kind = match kind {
            Kind::Func => ExportKind::Func,
            Kind::Table => ExportKind::Table,
            Kind::Memory => ExportKind::Memory,
            Kind::Global => ExportKind::Global,
        };
        out.export(&format!("{p}:{name}"), kind, index);
    }
    module.section(&out);

    let mut elements = ElementSection::new();
    for (p, part) in parts.iter().enumerate() {
        if let Some(r) = &part.elements {
            let mut re = maps[p].with(&constants);
            re.parse_element_section(&mut elements, r.clone())?;
        }
    }
    module.section(&elements);

    if parts.iter().any(|p| p.has_data_count) {
        module.section(&DataCountSection { count: data_at });
    }

    let mut code = CodeSection::new();
    for (p, part) in parts.iter().enumerate() {
        let mut re = maps[p].with(&constants);
        for body in &part.code {
            re.parse_function_body(&mut code, body.clone())?;
        }
    }
    module.section(&code);

    let mut data = DataSection::new();
    for (p, part) in parts.iter().enumerate() {
        if let Some(r) = &part.data {
            let mut re = maps[p].with(&constants);
            re.parse_data_section(&mut data, r.clone())?;
        }
    }
    module.section(&data);

    // Function names, so a trap's backtrace names the same functions as before.
    let mut names = NameMap::new();
    let mut named: BTreeMap<u32, &str> = BTreeMap::new();
    for (p, part) in parts.iter().enumerate() {
        let imported = part.imported(Kind::Func).count() as u32;
        for (i, name) in &part.func_names {
            if *i >= imported {
                named.entry(maps[p].funcs[*i as usize]).or_insert(name);
            }
        }
    }
    for (i, name) in named {
        names.append(i, name);
    }
    let mut section = NameSection::new();
    section.functions(&names);
    section.locals(&IndirectNameMap::new());
    module.section(&section);

    Ok(Merged {
        wasm: module.finish(),
        outside,
    })
}

/// Follows the import `module`.`name` of part `p` to what finally defines it.
fn follow(
    parts: &[Part],
    bind: &dyn Fn(usize, &str, &str) -> Result<Target, FlattenError>,
    p: usize,
    module: &str,
    name: &str,
    kind: Kind,
    depth: usize,
) -> Result<Final, FlattenError> {
    if depth > parts.len() {
        return Err(FlattenError::malformed("imports bound in a circle"));
    }
    match bind(p, module, name)? {
        Target::Outside(id) => Ok(Final::Outside(id)),
        Target::Part(q, export) => {
            let part = parts
                .get(q)
                .ok_or_else(|| FlattenError::malformed("an import bound to no module"))?;
            let e = part
                .exports
                .iter()
                .find(|e| e.name == export)
                .ok_or_else(|| {
                    FlattenError::malformed(format!("module {q} exports no `{export}`"))
                })?;
            if Kind::of(e.kind)? != kind {
                return Err(FlattenError::malformed(format!(
                    "`{module}`.`{name}` bound to an export of another kind"
                )));
            }
            let imported: Vec<_> = part.imported(kind).collect();
            match imported.get(e.index as usize) {
                Some((_, imp)) => follow(parts, bind, q, imp.module, imp.name, kind, depth + 1),
                None => Ok(Final::Defined {
                    part: q,
                    local: e.index - imported.len() as u32,
                }),
            }
        }
    }
}

/// The value of a constant expression made of `i32.const`, `global.get` of an `i32` global
/// known to be constant, and `i32.add`, `i32.sub` and `i32.mul`; `None` for anything else.
fn evaluate(
    e: &wasmparser::ConstExpr,
    map: &PartMap,
    constants: &HashMap<u32, i64>,
) -> Option<i64> {
    let mut stack: Vec<i64> = Vec::new();
    let mut ops = e.get_operators_reader();
    while !ops.eof() {
        match ops.read().ok()? {
            Operator::I32Const { value } => stack.push(i64::from(value)),
            Operator::GlobalGet { global_index } => {
                let g = *map.globals.get(global_index as usize)?;
                stack.push(*constants.get(&g)?);
            }
            op @ (Operator::I32Add | Operator::I32Sub | Operator::I32Mul) => {
                let b = stack.pop()? as i32;
                let a = stack.pop()? as i32;
                stack.push(i64::from(match op {
                    Operator::I32Add => a.wrapping_add(b),
                    Operator::I32Sub => a.wrapping_sub(b),
                    _ => a.wrapping_mul(b),
                }));
            }
            Operator::End => {}
            _ => return None,
        }
    }
    match stack.as_slice() {
        [v] => Some(*v),
        _ => None,
    }
}

/// One part's indices in the merged module.
#[derive(Default)]
struct PartMap {
    types_at: u32,
    elems_at: u32,
    data_at: u32,
    funcs: Vec<u32>,
    tables: Vec<u32>,
    memories: Vec<u32>,
    globals: Vec<u32>,
}

impl PartMap {
    fn space(&self, k: Kind) -> &Vec<u32> {
        match k {
            Kind::Func => &self.funcs,
            Kind::Table => &self.tables,
            Kind::Memory => &self.memories,
            Kind::Global => &self.globals,
        }
    }

    fn space_mut(&mut self, k: Kind) -> &mut Vec<u32> {
        match k {
            Kind::Func => &mut self.funcs,
            Kind::Table => &mut self.tables,
            Kind::Memory => &mut self.memories,
            Kind::Global => &mut self.globals,
        }
    }

    fn with<'m>(&'m self, constants: &'m HashMap<u32, i64>) -> Renumber<'m> {
        Renumber {
            map: self,
            constants,
        }
    }
}

/// Re-encodes one part's code and definitions with the merged module's indices.
struct Renumber<'m> {
    map: &'m PartMap,
    constants: &'m HashMap<u32, i64>,
}

fn at(space: &[u32], i: u32, what: &str) -> Result<u32, reencode::Error<FlattenError>> {
    space
        .get(i as usize)
        .copied()
        .ok_or_else(|| reencode::Error::UserError(FlattenError::malformed(format!("{what} {i}"))))
}

impl Reencode for Renumber<'_> {
    type Error = FlattenError;

    fn type_index(&mut self, ty: u32) -> Result<u32, reencode::Error<FlattenError>> {
        Ok(self.map.types_at + ty)
    }
    fn function_index(&mut self, f: u32) -> Result<u32, reencode::Error<FlattenError>> {
        at(&self.map.funcs, f, "function")
    }
    fn table_index(&mut self, t: u32) -> Result<u32, reencode::Error<FlattenError>> {
        at(&self.map.tables, t, "table")
    }
    fn memory_index(&mut self, m: u32) -> Result<u32, reencode::Error<FlattenError>> {
        at(&self.map.memories, m, "memory")
    }
    fn global_index(&mut self, g: u32) -> Result<u32, reencode::Error<FlattenError>> {
        at(&self.map.globals, g, "global")
    }
    fn element_index(&mut self, e: u32) -> Result<u32, reencode::Error<FlattenError>> {
        Ok(self.map.elems_at + e)
    }
    fn data_index(&mut self, d: u32) -> Result<u32, reencode::Error<FlattenError>> {
        Ok(self.map.data_at + d)
    }
    fn const_expr(
        &mut self,
        e: wasmparser::ConstExpr,
    ) -> Result<ConstExpr, reencode::Error<FlattenError>> {
        let mut ops = e.get_operators_reader();
        let only_i32 = matches!(
            ops.read(),
            Ok(Operator::I32Const { .. } | Operator::GlobalGet { .. })
        );
        if only_i32 {
            if let Some(v) = evaluate(&e, self.map, self.constants) {
                if let Ok(v) = i32::try_from(v) {
                    return Ok(ConstExpr::i32_const(v));
                }
            }
        }
        reencode::utils::const_expr(self, e)
    }
}
