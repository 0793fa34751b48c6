//! Arbitrary chains of view operations on arbitrary base views.
//!
//! Beside the library's `StridedView`, a naive reference keeps every
//! element's buffer offset in a row-major array and applies each operation
//! element by element, with numpy's rules written out plainly. After every
//! operation the two must agree on success or failure (a reshape may also
//! fail where numpy would copy), on the sizes, and on every offset, and
//! every offset must lie inside the base buffer.

#![no_main]

mod common;

use arbitrary::Arbitrary;
use common::for_each_index;
use libfuzzer_sys::fuzz_target;
use stride_util::{IndexItem, NumpyOrder, Order, StridedView, ViewError};

/// The reference is kept for views of at most this many elements.
const MAX_ELEMENTS: usize = 256;

#[derive(Arbitrary, Debug)]
enum Base {
    RowMajor(Vec<u8>),
    ColumnMajor(Vec<u8>),
    /// `as_strided` over a buffer of `len` elements, small strides.
    Strided {
        len: u8,
        sizes: Vec<u8>,
        strides: Vec<i8>,
        offset: u8,
    },
    /// Any values at all: most are rejected, the rest may be huge.
    Raw {
        sizes: Vec<i64>,
        strides: Vec<i64>,
        offset: i64,
    },
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Item {
    Slice(Option<i64>, Option<i64>, Option<i64>),
    SmallSlice(Option<i8>, Option<i8>, Option<i8>),
    Index(i64),
    SmallIndex(i8),
    NewAxis,
    Ellipsis,
}

#[derive(Arbitrary, Debug)]
enum Op {
    Transpose,
    Permute(Vec<i8>),
    Swapaxes(i8, i8),
    Moveaxis(Vec<i8>, Vec<i8>),
    ExpandDims(Vec<i8>),
    Squeeze,
    SqueezeAxes(Vec<i8>),
    BroadcastTo(Vec<u8>),
    Flip,
    FlipAxes(Vec<i8>),
    Index(Vec<Item>),
    Select(i8, i64),
    Reshape(Vec<i8>),
    ReshapeF(Vec<i8>),
    /// `reshape(shape, order)`: C, F, A or K.
    ReshapeNumpy(Vec<i8>, u8),
    /// `ravel(order)`: C, F, A or K.
    Ravel(u8),
}

const ORDERS: [NumpyOrder; 4] = [NumpyOrder::C, NumpyOrder::F, NumpyOrder::A, NumpyOrder::K];

#[derive(Arbitrary, Debug)]
struct Input {
    base: Base,
    ops: Vec<Op>,
}

/// Every element's buffer offset, in row-major order of `shape`.
#[derive(Debug, Clone, PartialEq)]
struct Reference {
    shape: Vec<usize>,
    data: Vec<i64>,
}

fn small<T: Copy + Into<i64>>(values: &[T], limit: usize) -> Vec<i64> {
    values.iter().take(limit).map(|&v| v.into()).collect()
}

/// Whether the reference follows views of this shape: at most
/// `MAX_ELEMENTS` elements, no dimension longer (a zero-size view may have
/// huge dimensions, which slicing would enumerate), at most 32 dimensions.
fn tracked(shape: &[usize]) -> bool {
    shape.len() <= 32
        && shape.iter().all(|&s| s <= MAX_ELEMENTS)
        && shape
            .iter()
            .try_fold(1usize, |count, &s| count.checked_mul(s))
            .is_some_and(|count| count <= MAX_ELEMENTS)
}

impl Reference {
    fn build(shape: Vec<usize>, f: impl Fn(&[usize]) -> i64) -> Option<Self> {
        if !tracked(&shape) {
            return None;
        }
        let mut data = Vec::with_capacity(shape.iter().product());
        for_each_index(&shape, |i| data.push(f(i)));
        Some(Self { shape, data })
    }

    fn at(&self, index: &[usize]) -> i64 {
        let mut linear = 0;
        for (&i, &s) in index.iter().zip(&self.shape) {
            linear = linear * s + i;
        }
        self.data[linear]
    }

    fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// Dimension `i` of the result is dimension `order[i]` of `self`
    /// (dimensions left out must have size 1).
    fn permuted(&self, order: &[usize]) -> Option<Self> {
        let shape = order.iter().map(|&a| self.shape[a]).collect();
        Self::build(shape, |out| {
            let mut index = vec![0; self.ndim()];
            for (i, &a) in order.iter().enumerate() {
                index[a] = out[i];
            }
            self.at(&index)
        })
    }
}

/// numpy's `normalize_axis_index`.
fn axis(a: i64, ndim: usize) -> Option<usize> {
    let n = ndim as i64;
    let a = if a < 0 { a + n } else { a };
    (0..n).contains(&a).then_some(a as usize)
}

/// numpy's `normalize_axis_tuple`: in range, no repeats.
fn axes(values: &[i64], ndim: usize) -> Option<Vec<usize>> {
    let mut out: Vec<usize> = Vec::new();
    for &v in values {
        let a = axis(v, ndim)?;
        if out.contains(&a) {
            return None;
        }
        out.push(a);
    }
    Some(out)
}

/// The positions `start:stop:step` selects in `0..len`, by Python's rules.
fn slice_positions(
    len: usize,
    start: Option<i64>,
    stop: Option<i64>,
    step: Option<i64>,
) -> Option<Vec<usize>> {
    let step = i128::from(step.unwrap_or(1));
    if step == 0 {
        return None;
    }
    let len = len as i128;
    let resolve = |bound: Option<i64>, default: i128| {
        let Some(b) = bound else { return default };
        let b = i128::from(b);
        let b = if b < 0 { b + len } else { b };
        if step > 0 {
            b.clamp(0, len)
        } else {
            b.clamp(-1, len - 1)
        }
    };
    let mut positions = Vec::new();
    if step > 0 {
        let (mut p, stop) = (resolve(start, 0), resolve(stop, len));
        while p < stop {
            positions.push(p as usize);
            p += step;
        }
    } else {
        let (mut p, stop) = (resolve(start, len - 1), resolve(stop, -1));
        while p > stop {
            positions.push(p as usize);
            p += step;
        }
    }
    Some(positions)
}

enum OutDim {
    New,
    Positions(usize, Vec<usize>),
}

fn reference_index(r: &Reference, items: &[IndexItem]) -> Option<Reference> {
    let ellipses = items.iter().filter(|i| **i == IndexItem::Ellipsis).count();
    let consumed = items
        .iter()
        .filter(|i| matches!(i, IndexItem::Index(_) | IndexItem::Slice { .. }))
        .count();
    if ellipses > 1 || consumed > r.ndim() {
        return None;
    }
    let mut items = items.to_vec();
    if ellipses == 0 {
        items.push(IndexItem::Ellipsis);
    }
    let mut fixed = vec![0usize; r.ndim()];
    let mut outs = Vec::new();
    let mut a = 0;
    for item in items {
        match item {
            IndexItem::NewAxis => outs.push(OutDim::New),
            IndexItem::Ellipsis => {
                for _ in 0..r.ndim() - consumed {
                    outs.push(OutDim::Positions(a, (0..r.shape[a]).collect()));
                    a += 1;
                }
            }
            IndexItem::Index(i) => {
                let size = r.shape[a] as i128;
                let p = if i < 0 {
                    i128::from(i) + size
                } else {
                    i128::from(i)
                };
                if !(0..size).contains(&p) {
                    return None;
                }
                fixed[a] = p as usize;
                a += 1;
            }
            IndexItem::Slice { start, stop, step } => {
                outs.push(OutDim::Positions(
                    a,
                    slice_positions(r.shape[a], start, stop, step)?,
                ));
                a += 1;
            }
        }
    }
    let shape = outs
        .iter()
        .map(|o| match o {
            OutDim::New => 1,
            OutDim::Positions(_, p) => p.len(),
        })
        .collect();
    Reference::build(shape, |out| {
        let mut index = fixed.clone();
        for (o, &i) in outs.iter().zip(out) {
            if let OutDim::Positions(a, p) = o {
                index[*a] = p[i];
            }
        }
        r.at(&index)
    })
}

/// The shape numpy's reshape gives `new` for `count` elements, or `None`.
fn reshape_target(count: usize, new: &[i64]) -> Option<Vec<usize>> {
    // numpy takes any negative size as the unknown one.
    let unknown = new.iter().filter(|&&d| d < 0).count();
    if unknown > 1 {
        return None;
    }
    // numpy rejects a shape whose nonzero sizes overflow ("array is too
    // big"), even when another size is 0.
    let known = new
        .iter()
        .filter(|&&d| d > 0)
        .try_fold(1usize, |acc, &d| acc.checked_mul(d as usize))?
        * usize::from(!new.contains(&0));
    if unknown == 1 {
        if known == 0 || count % known != 0 {
            return None;
        }
        return Some(
            new.iter()
                .map(|&d| if d < 0 { count / known } else { d as usize })
                .collect(),
        );
    }
    (known == count).then(|| new.iter().map(|&d| d as usize).collect())
}

/// The elements of `r` in column-major order.
fn fortran_order(r: &Reference) -> Vec<i64> {
    let reversed: Vec<usize> = r.shape.iter().rev().copied().collect();
    let mut out = Vec::with_capacity(r.data.len());
    for_each_index(&reversed, |i| {
        let index: Vec<usize> = i.iter().rev().copied().collect();
        out.push(r.at(&index));
    });
    out
}

fn reference_reshape(r: &Reference, new: &[i64], order: Order) -> Option<Reference> {
    let shape = reshape_target(r.data.len(), new)?;
    match order {
        Order::C => Reference::build(shape, |_| 0).map(|mut out| {
            out.data.clone_from(&r.data);
            out
        }),
        Order::F => {
            let flat = fortran_order(r);
            let reversed: Vec<usize> = shape.iter().rev().copied().collect();
            let mut position = Vec::new();
            for_each_index(&reversed, |i| {
                position.push(i.iter().rev().copied().collect::<Vec<_>>())
            });
            let mut out = Reference::build(shape, |_| 0)?;
            for (index, value) in position.iter().zip(flat) {
                let mut linear = 0;
                for (&i, &s) in index.iter().zip(&out.shape) {
                    linear = linear * s + i;
                }
                out.data[linear] = value;
            }
            Some(out)
        }
    }
}

/// Whether `elements` (in some index order) sit at consecutive offsets:
/// numpy's contiguity in that order (an empty array is contiguous).
fn consecutive(elements: &[i64]) -> bool {
    elements.windows(2).all(|w| w[1] == w[0] + 1)
}

/// numpy's resolution of `order='A'`: F for an F- and not C-contiguous
/// array, else C.
fn any_order(r: &Reference) -> Order {
    if consecutive(&fortran_order(r)) && !consecutive(&r.data) {
        Order::F
    } else {
        Order::C
    }
}

/// numpy's `ravel(order)` as a view, or `None` where numpy copies: C or F
/// (A resolved) when the elements are contiguous in that order; K in C or
/// F order when contiguous so, else in memory order when the elements fill
/// `offset..offset + n` with the first element lowest (numpy copies for a
/// negative stride).
fn reference_ravel(r: &Reference, order: NumpyOrder) -> Option<Reference> {
    let flat = |data: Vec<i64>| Reference::build(vec![data.len()], |i| data[i[0]]);
    let (c, f) = (r.data.clone(), fortran_order(r));
    match order {
        NumpyOrder::C => consecutive(&c).then(|| flat(c))?,
        NumpyOrder::F => consecutive(&f).then(|| flat(f))?,
        NumpyOrder::A => match any_order(r) {
            Order::C => consecutive(&c).then(|| flat(c))?,
            Order::F => consecutive(&f).then(|| flat(f))?,
        },
        NumpyOrder::K if consecutive(&c) => flat(c),
        NumpyOrder::K if consecutive(&f) => flat(f),
        NumpyOrder::K => {
            let mut sorted = c.clone();
            sorted.sort_unstable();
            (consecutive(&sorted) && sorted.first() == c.first()).then(|| flat(sorted))?
        }
    }
}

fn reference_moveaxis(r: &Reference, source: &[i64], destination: &[i64]) -> Option<Reference> {
    let source = axes(source, r.ndim())?;
    let destination = axes(destination, r.ndim())?;
    if source.len() != destination.len() {
        return None;
    }
    let mut order: Vec<Option<usize>> = vec![None; r.ndim()];
    for (&s, &d) in source.iter().zip(&destination) {
        order[d] = Some(s);
    }
    let mut rest = (0..r.ndim()).filter(|a| !source.contains(a));
    let order: Vec<usize> = order
        .into_iter()
        .map(|o| o.or_else(|| rest.next()).unwrap_or(0))
        .collect();
    r.permuted(&order)
}

fn reference_expand_dims(r: &Reference, new: &[i64]) -> Option<Reference> {
    let out_ndim = r.ndim() + new.len();
    let new = axes(new, out_ndim)?;
    let kept: Vec<usize> = (0..out_ndim).filter(|a| !new.contains(a)).collect();
    let mut old = r.shape.iter();
    let shape = (0..out_ndim)
        .map(|a| {
            if new.contains(&a) {
                1
            } else {
                old.next().copied().unwrap_or(1)
            }
        })
        .collect();
    Reference::build(shape, |out| {
        let index: Vec<usize> = kept.iter().map(|&a| out[a]).collect();
        r.at(&index)
    })
}

fn reference_broadcast(r: &Reference, target: &[usize]) -> Option<Reference> {
    let lead = target.len().checked_sub(r.ndim())?;
    for (a, &s) in r.shape.iter().enumerate() {
        if s != 1 && s != target[lead + a] {
            return None;
        }
    }
    Reference::build(target.to_vec(), |out| {
        let index: Vec<usize> = r
            .shape
            .iter()
            .enumerate()
            .map(|(a, &s)| if s == 1 { 0 } else { out[lead + a] })
            .collect();
        r.at(&index)
    })
}

fn reference_flip(r: &Reference, flipped: &[usize]) -> Option<Reference> {
    Reference::build(r.shape.clone(), |out| {
        let index: Vec<usize> = out
            .iter()
            .enumerate()
            .map(|(a, &i)| {
                if flipped.contains(&a) {
                    r.shape[a] - 1 - i
                } else {
                    i
                }
            })
            .collect();
        r.at(&index)
    })
}

fn item(i: Item) -> IndexItem {
    match i {
        Item::Slice(a, b, c) => IndexItem::slice(a, b, c),
        Item::SmallSlice(a, b, c) => {
            IndexItem::slice(a.map(i64::from), b.map(i64::from), c.map(i64::from))
        }
        Item::Index(i) => IndexItem::Index(i),
        Item::SmallIndex(i) => IndexItem::Index(i64::from(i)),
        Item::NewAxis => IndexItem::NewAxis,
        Item::Ellipsis => IndexItem::Ellipsis,
    }
}

/// Applies `op` to the view and to the reference (`None` when the reference
/// says numpy rejects it). `Err(true)` marks a reshape numpy would copy.
fn apply(
    view: &StridedView,
    r: &Reference,
    op: &Op,
) -> (Result<StridedView, ViewError>, Option<Reference>) {
    let n = r.ndim();
    match op {
        Op::Transpose => (
            Ok(view.transpose()),
            r.permuted(&(0..n).rev().collect::<Vec<_>>()),
        ),
        Op::Permute(a) => {
            let a = small(a, 10);
            let reference = if a.len() == n {
                axes(&a, n).and_then(|o| r.permuted(&o))
            } else {
                None
            };
            (view.permute(&a), reference)
        }
        Op::Swapaxes(x, y) => {
            let (x, y) = (i64::from(*x), i64::from(*y));
            let reference = axis(x, n).zip(axis(y, n)).and_then(|(x, y)| {
                let mut order: Vec<usize> = (0..n).collect();
                order.swap(x, y);
                r.permuted(&order)
            });
            (view.swapaxes(x, y), reference)
        }
        Op::Moveaxis(s, d) => {
            let (s, d) = (small(s, 10), small(d, 10));
            (view.moveaxis(&s, &d), reference_moveaxis(r, &s, &d))
        }
        Op::ExpandDims(a) => {
            let a = small(a, 6);
            (view.expand_dims(&a), reference_expand_dims(r, &a))
        }
        Op::Squeeze => {
            let keep: Vec<usize> = (0..n).filter(|&a| r.shape[a] != 1).collect();
            (Ok(view.squeeze()), r.permuted(&keep))
        }
        Op::SqueezeAxes(a) => {
            let a = small(a, 10);
            let reference = axes(&a, n)
                .filter(|a| a.iter().all(|&d| r.shape[d] == 1))
                .and_then(|a| {
                    let keep: Vec<usize> = (0..n).filter(|d| !a.contains(d)).collect();
                    r.permuted(&keep)
                });
            (view.squeeze_axes(&a), reference)
        }
        Op::BroadcastTo(t) => {
            let t: Vec<usize> = t.iter().take(10).map(|&s| usize::from(s % 6)).collect();
            let t64: Vec<i64> = t.iter().map(|&s| s as i64).collect();
            (view.broadcast_to(&t64), reference_broadcast(r, &t))
        }
        Op::Flip => (view.flip(), reference_flip(r, &(0..n).collect::<Vec<_>>())),
        Op::FlipAxes(a) => {
            let a = small(a, 10);
            (
                view.flip_axes(&a),
                axes(&a, n).and_then(|a| reference_flip(r, &a)),
            )
        }
        Op::Index(items) => {
            let items: Vec<IndexItem> = items.iter().take(12).map(|&i| item(i)).collect();
            (view.index(&items), reference_index(r, &items))
        }
        Op::Select(a, i) => {
            let a = i64::from(*a);
            let reference = axis(a, n).and_then(|a| {
                let mut items = vec![IndexItem::full(); a];
                items.push(IndexItem::Index(*i));
                reference_index(r, &items)
            });
            (view.select(a, *i), reference)
        }
        Op::Reshape(s) => {
            let s = small(s, 10);
            (view.reshape(&s), reference_reshape(r, &s, Order::C))
        }
        Op::ReshapeF(s) => {
            let s = small(s, 10);
            (
                view.reshape_with_order(&s, Order::F),
                reference_reshape(r, &s, Order::F),
            )
        }
        Op::ReshapeNumpy(s, order) => {
            let (s, order) = (small(s, 10), ORDERS[usize::from(*order) % 4]);
            let got = view.reshape_numpy(&s, order);
            let reference = match order {
                NumpyOrder::C => reference_reshape(r, &s, Order::C),
                NumpyOrder::F => reference_reshape(r, &s, Order::F),
                NumpyOrder::A => reference_reshape(r, &s, any_order(r)),
                NumpyOrder::K => {
                    assert!(matches!(got, Err(ViewError::ReshapeKeepOrder)), "{got:?}");
                    None
                }
            };
            (got, reference)
        }
        Op::Ravel(order) => {
            let order = ORDERS[usize::from(*order) % 4];
            let got = view.ravel(order);
            let reference = reference_ravel(r, order);
            if reference.is_none() {
                assert!(
                    matches!(&got, Err(ViewError::RavelNeedsCopy { order: o, .. }) if *o == order.letter()),
                    "ravel({order:?}) of {view:?} must need a copy: {got:?}"
                );
            }
            (got, reference)
        }
    }
}

/// The view's own account of its elements agrees with the reference.
fn check(view: &StridedView, r: &Reference, low: i64, high: i64) {
    let shape: Vec<i64> = r.shape.iter().map(|&s| s as i64).collect();
    assert_eq!(view.sizes(), shape.as_slice(), "sizes");
    let offsets: Vec<i64> = view.offsets().collect();
    assert_eq!(offsets, r.data, "offsets of {view:?}");
    let mut seen = Vec::with_capacity(r.data.len());
    view.for_each_offset(|o| seen.push(o));
    assert_eq!(seen, r.data, "for_each_offset of {view:?}");
    assert_eq!(view.num_elements(), r.data.len() as i64);
    for &o in &r.data {
        assert!(
            (low..=high).contains(&o),
            "offset {o} outside the base's [{low}, {high}]"
        );
    }
    let range = r
        .data
        .iter()
        .min()
        .copied()
        .zip(r.data.iter().max().copied());
    assert_eq!(view.offset_range(), range);
    let mut k = 0;
    for_each_index(&r.shape, |i| {
        let index: Vec<i64> = i.iter().map(|&x| x as i64).collect();
        assert_eq!(view.element_offset(&index).ok(), Some(r.data[k]));
        k += 1;
    });
}

fn base(base: &Base) -> Option<(StridedView, Reference, i64, i64)> {
    let sizes_of = |s: &[u8]| -> Vec<i64> { s.iter().take(6).map(|&v| i64::from(v % 5)).collect() };
    let (view, buffer) = match base {
        Base::RowMajor(s) => (StridedView::row_major(&sizes_of(s)).ok()?, None),
        Base::ColumnMajor(s) => (StridedView::column_major(&sizes_of(s)).ok()?, None),
        Base::Strided {
            len,
            sizes,
            strides,
            offset,
        } => {
            let sizes = sizes_of(sizes);
            let strides: Vec<i64> = strides
                .iter()
                .take(sizes.len())
                .map(|&v| i64::from(v))
                .collect();
            let (len, offset) = (i64::from(*len), i64::from(*offset));
            let view = StridedView::as_strided(len, &sizes, &strides, offset);
            if sizes.len() == strides.len() {
                let inside = naive_range(&sizes, &strides, offset)
                    .is_none_or(|(lo, hi)| lo >= 0 && hi < i128::from(len));
                assert_eq!(
                    view.is_ok(),
                    inside,
                    "as_strided({len}, {sizes:?}, {strides:?}, {offset})"
                );
            }
            (view.ok()?, Some(len))
        }
        Base::Raw {
            sizes,
            strides,
            offset,
        } => {
            let sizes: Vec<i64> = sizes.iter().take(8).copied().collect();
            let strides: Vec<i64> = strides.iter().take(8).copied().collect();
            let view = StridedView::new(&sizes, &strides, *offset);
            if sizes.len() == strides.len() && sizes.iter().all(|&s| s >= 0) {
                let fits = |v: i128| i64::try_from(v).is_ok();
                let count = sizes.iter().try_fold(1i128, |n, &s| {
                    n.checked_mul(i128::from(s)).filter(|&n| fits(n))
                });
                // Offsets stay in i64 in the library: each axis's extent
                // `(size - 1) * stride` must fit as well as the offsets.
                let extents_fit = sizes.contains(&0)
                    || sizes
                        .iter()
                        .zip(&strides)
                        .all(|(&s, &st)| fits(i128::from(s - 1) * i128::from(st)));
                let ok = count.is_some()
                    && extents_fit
                    && naive_range(&sizes, &strides, *offset)
                        .is_none_or(|(lo, hi)| fits(lo) && fits(hi));
                assert_eq!(
                    view.is_ok(),
                    ok,
                    "new({sizes:?}, {strides:?}, {offset}) = {view:?}"
                );
            }
            (view.ok()?, None)
        }
    };
    let shape: Vec<usize> = view
        .sizes()
        .iter()
        .map(|&s| usize::try_from(s).unwrap_or(usize::MAX))
        .collect();
    let r = Reference::build(shape, |i| {
        let mut o = i128::from(view.offset());
        for (&x, &s) in i.iter().zip(view.strides()) {
            o += x as i128 * i128::from(s);
        }
        i64::try_from(o).unwrap_or_else(|_| panic!("{view:?} addresses {o}"))
    })?;
    let (low, high) = match buffer {
        Some(len) => (0, len - 1),
        None => (i64::MIN, i64::MAX),
    };
    check(&view, &r, low, high);
    let (low, high) = view.offset_range().unwrap_or((low, high));
    Some((view, r, low, high))
}

/// The smallest and largest offsets of a non-empty view, in i128.
fn naive_range(sizes: &[i64], strides: &[i64], offset: i64) -> Option<(i128, i128)> {
    if sizes.contains(&0) {
        return None;
    }
    let (mut lo, mut hi) = (i128::from(offset), i128::from(offset));
    for (&s, &st) in sizes.iter().zip(strides) {
        let extent = i128::from(s - 1) * i128::from(st);
        if extent < 0 {
            lo += extent
        } else {
            hi += extent
        }
    }
    Some((lo, hi))
}

fuzz_target!(|input: Input| {
    let Some((mut view, mut r, low, high)) = base(&input.base) else {
        return;
    };
    for op in input.ops.iter().take(16) {
        let (got, expected) = apply(&view, &r, op);
        match (got, expected) {
            (Ok(v), Some(e)) => {
                check(&v, &e, low, high);
                (view, r) = (v, e);
            }
            // A reshape that needs a copy fails where numpy would copy.
            (Err(ViewError::ReshapeNeedsCopy { .. }), Some(_))
                if matches!(op, Op::Reshape(_) | Op::ReshapeF(_) | Op::ReshapeNumpy(..)) => {}
            (Err(_), None) => {}
            // The result is too big for the reference: stop the chain.
            (Ok(v), None)
                if !tracked(&v.sizes().iter().map(|&s| s as usize).collect::<Vec<_>>()) =>
            {
                return;
            }
            (got, expected) => panic!(
                "{op:?} on {view:?}: library {got:?}, reference {:?}",
                expected.map(|e| e.shape)
            ),
        }
    }
});
