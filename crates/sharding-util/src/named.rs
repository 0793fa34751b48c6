//! Named (mesh-axes, "V3") shardings, XLA's `NamedSharding`: a mesh of named
//! axes and, per array dimension, the axes that split it (a leaf: their
//! tile-assignment form is built by `HloSharding::from_named`).

use crate::error::{ErrorKind, ShardingError};
use crate::reduction::Reduction;
use crate::tile_assignment::{TileAssignment, checked_count};

/// A mesh axis, or a part of one (`'y'` or `'y':(2)2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AxisRef {
    /// The axis's position in the mesh.
    pub axis: usize,
    /// For a part of the axis, `(pre_size, size)`: the product of the sizes
    /// of the parts before it (major), and its own size.
    pub sub: Option<(i64, i64)>,
}

/// The axes that split one array dimension, major first.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DimSharding {
    /// The axes.
    pub axes: Vec<AxisRef>,
    /// Whether no more axes may be added (`{'x'}`); an open dimension
    /// prints `?` (`{'x', ?}`).
    pub closed: bool,
}

/// How the mesh orders its devices.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum MeshDevices {
    /// `0..n` in mesh order (printed as nothing).
    Iota,
    /// `device_ids=([reshape]T(perm))`: the ids `0..n` reshaped and
    /// transposed.
    Transposed {
        /// The shape the ids are reshaped to.
        reshape: Vec<i64>,
        /// The permutation applied to it.
        perm: Vec<usize>,
    },
    /// `device_ids=(7,6,...)`: a permutation of `0..n` other than the
    /// identity.
    List(Vec<i64>),
}

/// A named device mesh: its axes (name and size, major first) and device
/// order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Mesh {
    /// The axes, major first.
    pub axes: Vec<(String, i64)>,
    /// The device order.
    pub devices: MeshDevices,
}

/// XLA's `NamedSharding`: how an array is split over a named mesh.
///
/// ```
/// use sharding_util::HloSharding;
///
/// let s: HloSharding = "{mesh['x'=2,'y'=4], [{'y','x'}, {}]}".parse().unwrap();
/// assert_eq!(s.to_string(), "{mesh['x'=2,'y'=4], [{'y', 'x'}, {}]}");
/// assert_eq!(s.named().unwrap().mesh.axes.len(), 2);
/// assert_eq!(s.v3_to_v2().to_string(), "{devices=[8,1]<=[2,4]T(1,0)}");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NamedSharding {
    /// The mesh.
    pub mesh: Mesh,
    /// One entry per array dimension.
    pub dims: Vec<DimSharding>,
    /// Axes named as replicated (`replicated={...}`); axes used nowhere are
    /// replicated too.
    pub replicated: Vec<AxisRef>,
    /// Axes holding partial results (`unreduced={...}`).
    pub unreduced: Vec<AxisRef>,
    /// Manually partitioned axes (`manual={...}`).
    pub manual: Vec<AxisRef>,
    /// How the partial results on the unreduced axes combine
    /// (`unreduced=max{...}`; kept, as XLA keeps it, when no axis is
    /// unreduced).
    pub reduction: Reduction,
}

/// The pieces of one mesh axis: the cut points in "pre-size" space, from 1 to
/// the axis size, ascending (major pieces first).
pub(crate) fn cut_points(size: i64, refs: &[AxisRef], axis: usize) -> Vec<i64> {
    let mut cuts = vec![1, size];
    for r in refs.iter().filter(|r| r.axis == axis) {
        if let Some((pre, sub)) = r.sub {
            cuts.push(pre);
            cuts.push(pre * sub);
        }
    }
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

impl NamedSharding {
    /// The name of axis `r` as XLA prints it (`'y'`, `'y':(2)2`).
    pub fn axis_text(&self, r: &AxisRef) -> String {
        let name = self
            .mesh
            .axes
            .get(r.axis)
            .map_or_else(|| r.axis.to_string(), |(n, _)| n.clone());
        match r.sub {
            Some((pre, size)) => format!("'{name}':({pre}){size}"),
            None => format!("'{name}'"),
        }
    }

    /// The number of devices axis reference `r` spans (1 for an axis the
    /// mesh lacks, which [`Self::validate`] refuses).
    pub(crate) fn ref_size(&self, r: &AxisRef) -> i64 {
        match r.sub {
            Some((_, size)) => size,
            None => self.mesh.axes.get(r.axis).map_or(1, |(_, size)| *size),
        }
    }

    /// Every axis reference, in dimensions, then replicated, unreduced,
    /// manual order.
    pub(crate) fn all_refs(&self) -> impl Iterator<Item = &AxisRef> {
        self.dims
            .iter()
            .flat_map(|d| d.axes.iter())
            .chain(&self.replicated)
            .chain(&self.unreduced)
            .chain(&self.manual)
    }

    /// Checks what XLA's `NamedSharding` checks (XLA aborts where these
    /// fail), in XLA's order: positive axis sizes, unique axis names, the
    /// device order; then the axes of each dimension, and the `replicated`,
    /// `unreduced` and `manual` lists, each first checked sorted by axis
    /// and sub-axis, every reference checked in range, splitting its axis,
    /// overlapping no reference before it and not mergeable with the one
    /// before it in its list; last, that the sub-axes of each axis nest.
    ///
    /// # Errors
    ///
    /// A message naming the offending axis.
    pub fn validate(&self) -> Result<(), ShardingError> {
        let axes = &self.mesh.axes;
        if let Some((name, size)) = axes.iter().find(|(_, size)| *size <= 0) {
            return Err(ShardingError::new(
                ErrorKind::Invalid,
                format!("mesh axis '{name}' has size {size}, not positive"),
            ));
        }
        for (i, (name, _)) in axes.iter().enumerate() {
            if axes[..i].iter().any(|(n, _)| n == name) {
                return Err(ShardingError::new(
                    ErrorKind::Invalid,
                    format!("mesh axis name '{name}' is not unique (XLA aborts)"),
                ));
            }
        }
        let sizes: Vec<i64> = axes.iter().map(|(_, s)| *s).collect();
        let total = checked_count(&sizes, "mesh axis")?;
        match &self.mesh.devices {
            MeshDevices::Iota => {}
            MeshDevices::Transposed { reshape, perm } => {
                TileAssignment::iota(vec![total], reshape.clone(), perm.clone())?;
            }
            MeshDevices::List(ids) => check_device_list(ids, total)?,
        }
        let mut seen: Vec<AxisRef> = Vec::new();
        for d in &self.dims {
            self.check_refs("dimension sharding", &d.axes, &mut seen)?;
        }
        for (what, list) in [
            ("Replicated", &self.replicated),
            ("Unreduced", &self.unreduced),
            ("Manual", &self.manual),
        ] {
            if !self.is_sorted(list) {
                return Err(unsorted(what));
            }
            self.check_refs(&format!("{what} axes"), list, &mut seen)?;
        }
        // Sub-axes of one axis must nest: every cut divides the next.
        for (axis, &size) in sizes.iter().enumerate() {
            let cuts = cut_points(size, &seen, axis);
            if cuts.windows(2).any(|w| w[1] % w[0] != 0) {
                return Err(ShardingError::new(
                    ErrorKind::Invalid,
                    format!(
                        "the sub-axes of axis '{}' do not nest (XLA aborts)",
                        axes[axis].0
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Whether `list` is sorted as XLA wants `replicated`, `unreduced` and
    /// `manual`: by axis, then sub-axis pre-size, then size (equal entries
    /// are left to the overlap check).
    fn is_sorted(&self, list: &[AxisRef]) -> bool {
        let key = |r: &AxisRef| (r.axis, r.sub.map_or(1, |s| s.0), self.ref_size(r));
        list.windows(2).all(|w| key(&w[0]) <= key(&w[1]))
    }

    /// Checks the references of one list (`what` names it in messages) in
    /// order, each against those `seen` before it, and adds them to `seen`.
    fn check_refs(
        &self,
        what: &str,
        list: &[AxisRef],
        seen: &mut Vec<AxisRef>,
    ) -> Result<(), ShardingError> {
        for (k, r) in list.iter().enumerate() {
            self.check_ref(r)?;
            if seen.iter().any(|other| overlap(r, other)) {
                return Err(ShardingError::new(
                    ErrorKind::Invalid,
                    format!("axis {} is used twice (XLA aborts)", self.axis_text(r)),
                ));
            }
            if let Some(before) = k.checked_sub(1).and_then(|b| list.get(b))
                && mergeable(before, r)
            {
                return Err(ShardingError::new(
                    ErrorKind::Invalid,
                    format!(
                        "Adjacent axes in {what} can be merged: {}, {} (XLA aborts)",
                        self.axis_text(before),
                        self.axis_text(r)
                    ),
                ));
            }
            seen.push(*r);
        }
        Ok(())
    }

    /// Checks that `r` names an axis of the mesh and, for a sub-axis, that
    /// it splits that axis (XLA's checks, in XLA's order).
    fn check_ref(&self, r: &AxisRef) -> Result<(), ShardingError> {
        let axes = &self.mesh.axes;
        let Some((_, size)) = axes.get(r.axis) else {
            return Err(ShardingError::new(
                ErrorKind::Invalid,
                format!(
                    "axis index {} is not in a mesh of {} axes",
                    r.axis,
                    axes.len()
                ),
            ));
        };
        let Some((pre, sub)) = r.sub else {
            return Ok(());
        };
        let text = self.axis_text(r);
        if let Some(error) = sub_axis_shape_error(&text, pre, sub) {
            return Err(error);
        }
        let problem = if pre.checked_mul(sub).is_none_or(|next| size % next != 0) {
            format!("sub-axis {text} does not split axis of size {size}")
        } else if sub >= *size {
            format!("sub-axis {text}: its size must be less than the axis size {size}")
        } else {
            return Ok(());
        };
        Err(ShardingError::new(
            ErrorKind::Invalid,
            format!("{problem} (XLA aborts)"),
        ))
    }

    /// The device count of the mesh (checked by [`Self::validate`]).
    pub(crate) fn total(&self) -> i64 {
        self.mesh.axes.iter().map(|(_, s)| *s).product()
    }
}

/// The error for a sub-axis (`text` as printed) of pre-size below 1 or
/// size below 2, which XLA checks (and aborts on) as it reads the axis.
pub(crate) fn sub_axis_shape_error(text: &str, pre: i64, size: i64) -> Option<ShardingError> {
    let problem = if pre <= 0 {
        "its pre-size must be at least 1"
    } else if size <= 1 {
        "its size must be more than 1"
    } else {
        return None;
    };
    Some(ShardingError::new(
        ErrorKind::Invalid,
        format!("sub-axis {text}: {problem} (XLA aborts)"),
    ))
}

/// Whether two references to one axis overlap: a whole axis overlaps
/// anything else on it, sub-axes where their pre-size ranges meet.
fn overlap(a: &AxisRef, b: &AxisRef) -> bool {
    if a.axis != b.axis {
        return false;
    }
    match (a.sub, b.sub) {
        (Some((a_pre, a_size)), Some((b_pre, b_size))) => {
            a_pre < b_pre.saturating_mul(b_size) && b_pre < a_pre.saturating_mul(a_size)
        }
        _ => true,
    }
}

/// Whether sub-axis `b` directly follows sub-axis `a` of the same axis, so
/// that XLA would have them written as one.
fn mergeable(a: &AxisRef, b: &AxisRef) -> bool {
    a.axis == b.axis
        && matches!((a.sub, b.sub), (Some((p0, s0)), Some((p1, _))) if p0.checked_mul(s0) == Some(p1))
}

/// XLA's error for a `replicated`, `unreduced` or `manual` list (`what`)
/// out of order.
pub(crate) fn unsorted(what: &str) -> ShardingError {
    ShardingError::new(
        ErrorKind::Invalid,
        format!("{what} axes must be sorted by mesh axis index and sub-axis pre-size (XLA aborts)"),
    )
}

/// A mesh's explicit device ids: a permutation of `0..total`, not the
/// identity (XLA aborts on either).
fn check_device_list(ids: &[i64], total: i64) -> Result<(), ShardingError> {
    if i64::try_from(ids.len()).ok() != Some(total) {
        return Err(ShardingError::new(
            ErrorKind::Invalid,
            format!(
                "Expected {total} device_ids based on mesh axes, but got {}",
                ids.len()
            ),
        ));
    }
    if let Some(id) = ids.iter().find(|&&id| id < 0) {
        return Err(ShardingError::new(
            ErrorKind::Invalid,
            format!("mesh device id {id} is negative (XLA aborts)"),
        ));
    }
    let mut seen = vec![false; ids.len()];
    for &id in ids {
        let slot = usize::try_from(id).ok().and_then(|i| seen.get_mut(i));
        match slot {
            Some(s) if !*s => *s = true,
            _ => {
                return Err(ShardingError::new(
                    ErrorKind::Invalid,
                    format!(
                        "mesh device id {id} makes device_ids not a permutation of 0..{total} (XLA aborts)"
                    ),
                ));
            }
        }
    }
    if ids.iter().zip(0..).all(|(&id, k)| id == k) {
        return Err(ShardingError::new(
            ErrorKind::Invalid,
            "mesh device_ids 0..n in order must be left out (XLA aborts on an explicit iota list)",
        ));
    }
    Ok(())
}
