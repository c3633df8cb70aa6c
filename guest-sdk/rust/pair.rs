// dixit's runtime for the two generated glue crates of a Rust unit test (included as the module
// `dixit_rt`): what the bindings generator's code calls (`Cleanup`, `run_ctors_once`,
// `maybe_link_cabi_realloc`, and the `cabi_realloc` export the canonical ABI allocates with),
// and `Wire`, which turns the interface's Rust types into the types of its WIT world and back.
// Only dixit's glue uses `unsafe`; the coder's crate and the tester's file are compiled with
// unsafe code forbidden.

use std::alloc::Layout;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::hash::Hash;

/// A block the bindings allocated to lower a value, freed when dropped.
pub struct Cleanup {
    ptr: *mut u8,
    layout: Layout,
}

impl Cleanup {
    /// A block of `layout` (none for size 0) and what frees it.
    pub fn new(layout: Layout) -> (*mut u8, Option<Cleanup>) {
        if layout.size() == 0 {
            return (std::ptr::null_mut(), None);
        }
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout)
        }
        (ptr, Some(Cleanup { ptr, layout }))
    }

    /// Keeps the block (its ownership passed to the other side).
    pub fn forget(self) {
        std::mem::forget(self)
    }
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) }
    }
}

/// Constructors run once, at instantiation (`_initialize` on the solution's side, `_start` on
/// the test's): nothing to do per call.
pub fn run_ctors_once() {}

/// `cabi_realloc` below is exported by name, so nothing needs to pull it into the link.
pub fn maybe_link_cabi_realloc() {}

/// The allocator the canonical ABI calls to copy a string or a list into this side's memory.
///
/// # Safety
/// Called by the host with a block this allocator returned (or null) and its size and alignment.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cabi_realloc(
    old: *mut u8,
    old_len: usize,
    align: usize,
    new_len: usize,
) -> *mut u8 {
    if new_len == 0 {
        return align as *mut u8;
    }
    let Ok(layout) = Layout::from_size_align(new_len, align) else {
        std::process::abort()
    };
    // SAFETY: `old` was returned by this function with `old_len` and `align`.
    let p = unsafe {
        if old.is_null() || old_len == 0 {
            std::alloc::alloc(layout)
        } else {
            std::alloc::realloc(
                old,
                Layout::from_size_align_unchecked(old_len, align),
                new_len,
            )
        }
    };
    if p.is_null() {
        std::process::abort()
    }
    p
}

unsafe extern "C" {
    fn __real__Exit(code: i32) -> !;
}

/// The C library's `_Exit` on either side (linked with `--wrap=_Exit`): WASI preview 2's exit
/// carries only success or failure, so an exit code other than 0 and 1 would reach the host as
/// 1 (a failed check); as in one module, it is a crash: the code on stderr, then a trap.
#[unsafe(no_mangle)]
pub extern "C" fn __wrap__Exit(code: i32) -> ! {
    if code != 0 && code != 1 {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "exit code {code}");
        std::process::abort();
    }
    // SAFETY: the C library's own `_Exit`.
    unsafe { __real__Exit(code) }
}

/// A type of the interface as its WIT type carries it: `to_wire` on the sending side,
/// `from_wire` on the receiving side, each in its own memory.
pub trait Wire: Sized {
    /// The type the bindings use for it (owned).
    type W;
    fn to_wire(self) -> Self::W;
    /// `to_wire` of a borrowed value (a `&T` parameter), without needing `T: Clone`.
    fn ref_to_wire(&self) -> Self::W;
    fn from_wire(w: Self::W) -> Self;
}

macro_rules! same {
    ($($t:ty),*) => {$(
        impl Wire for $t {
            type W = $t;
            fn to_wire(self) -> $t { self }
            fn ref_to_wire(&self) -> $t { self.clone() }
            fn from_wire(w: $t) -> $t { w }
        }
    )*};
}
same!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, bool, char, String);

impl Wire for usize {
    type W = u64;
    fn to_wire(self) -> u64 {
        self as u64
    }
    fn ref_to_wire(&self) -> u64 {
        *self as u64
    }
    fn from_wire(w: u64) -> usize {
        w as usize
    }
}

impl Wire for isize {
    type W = i64;
    fn to_wire(self) -> i64 {
        self as i64
    }
    fn ref_to_wire(&self) -> i64 {
        *self as i64
    }
    fn from_wire(w: i64) -> isize {
        w as isize
    }
}

impl Wire for () {
    type W = ();
    fn to_wire(self) {}
    fn ref_to_wire(&self) {}
    fn from_wire(_: ()) {}
}

// Borrowed values arrive as copies the receiving side keeps for the rest of the run.
impl<'a> Wire for &'a str {
    type W = String;
    fn to_wire(self) -> String {
        self.to_string()
    }
    fn ref_to_wire(&self) -> String {
        self.to_string()
    }
    fn from_wire(w: String) -> &'a str {
        Box::leak(w.into_boxed_str())
    }
}

impl<'a, T: Wire + 'a> Wire for &'a [T] {
    type W = Vec<T::W>;
    fn to_wire(self) -> Vec<T::W> {
        self.iter().map(T::ref_to_wire).collect()
    }
    fn ref_to_wire(&self) -> Vec<T::W> {
        self.iter().map(T::ref_to_wire).collect()
    }
    fn from_wire(w: Vec<T::W>) -> &'a [T] {
        Box::leak(w.into_iter().map(T::from_wire).collect::<Box<[T]>>())
    }
}

impl<'a, T: Wire + 'a> Wire for &'a T {
    type W = T::W;
    fn to_wire(self) -> T::W {
        T::ref_to_wire(self)
    }
    fn ref_to_wire(&self) -> T::W {
        T::ref_to_wire(self)
    }
    fn from_wire(w: T::W) -> &'a T {
        Box::leak(Box::new(T::from_wire(w)))
    }
}

impl<T: Wire> Wire for Vec<T> {
    type W = Vec<T::W>;
    fn to_wire(self) -> Vec<T::W> {
        self.into_iter().map(T::to_wire).collect()
    }
    fn ref_to_wire(&self) -> Vec<T::W> {
        self.iter().map(T::ref_to_wire).collect()
    }
    fn from_wire(w: Vec<T::W>) -> Vec<T> {
        w.into_iter().map(T::from_wire).collect()
    }
}

impl<T: Wire> Wire for Option<T> {
    type W = Option<T::W>;
    fn to_wire(self) -> Option<T::W> {
        self.map(T::to_wire)
    }
    fn ref_to_wire(&self) -> Option<T::W> {
        self.as_ref().map(T::ref_to_wire)
    }
    fn from_wire(w: Option<T::W>) -> Option<T> {
        w.map(T::from_wire)
    }
}

impl<T: Wire, E: Wire> Wire for Result<T, E> {
    type W = Result<T::W, E::W>;
    fn to_wire(self) -> Self::W {
        self.map(T::to_wire).map_err(E::to_wire)
    }
    fn ref_to_wire(&self) -> Self::W {
        self.as_ref().map(T::ref_to_wire).map_err(E::ref_to_wire)
    }
    fn from_wire(w: Self::W) -> Self {
        w.map(T::from_wire).map_err(E::from_wire)
    }
}

macro_rules! tuple {
    ($($t:ident $i:tt),*) => {
        impl<$($t: Wire),*> Wire for ($($t,)*) {
            type W = ($($t::W,)*);
            fn to_wire(self) -> Self::W { ($(self.$i.to_wire(),)*) }
            fn ref_to_wire(&self) -> Self::W { ($(self.$i.ref_to_wire(),)*) }
            fn from_wire(w: Self::W) -> Self { ($($t::from_wire(w.$i),)*) }
        }
    };
}
tuple!(A 0);
tuple!(A 0, B 1);
tuple!(A 0, B 1, C 2);
tuple!(A 0, B 1, C 2, D 3);
tuple!(A 0, B 1, C 2, D 3, E 4);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5);

// Maps and sets cross as lists, in the order the sender iterates them.
macro_rules! map {
    ($map:ident, $($bound:tt)+) => {
        impl<K: Wire + $($bound)+, V: Wire> Wire for $map<K, V> {
            type W = Vec<(K::W, V::W)>;
            fn to_wire(self) -> Self::W {
                self.into_iter()
                    .map(|(k, v)| (k.to_wire(), v.to_wire()))
                    .collect()
            }
            fn ref_to_wire(&self) -> Self::W {
                self.iter()
                    .map(|(k, v)| (k.ref_to_wire(), v.ref_to_wire()))
                    .collect()
            }
            fn from_wire(w: Self::W) -> Self {
                w.into_iter()
                    .map(|(k, v)| (K::from_wire(k), V::from_wire(v)))
                    .collect()
            }
        }
    };
}
map!(HashMap, Eq + Hash);
map!(BTreeMap, Ord);

macro_rules! set {
    ($set:ident, $($bound:tt)+) => {
        impl<T: Wire + $($bound)+> Wire for $set<T> {
            type W = Vec<T::W>;
            fn to_wire(self) -> Vec<T::W> {
                self.into_iter().map(T::to_wire).collect()
            }
            fn ref_to_wire(&self) -> Vec<T::W> {
                self.iter().map(T::ref_to_wire).collect()
            }
            fn from_wire(w: Vec<T::W>) -> Self {
                w.into_iter().map(T::from_wire).collect()
            }
        }
    };
}
set!(HashSet, Eq + Hash);
set!(BTreeSet, Ord);
