//! Shardy's verifier: the checks of `sdy.mesh` and of a tensor sharding
//! against its mesh, with Shardy's messages.

use std::collections::{HashMap, HashSet};

use crate::sdy::mesh_index::MeshIndex;

use crate::error::ShardingError;
use crate::sdy::error::invalid;
use crate::sdy::mesh::SdyMesh;
use crate::sdy::sharding::{SdyAxisRef, SdySharding};
use crate::tile_assignment::MAX_DEVICES;

impl SdyMesh {
    /// The device count: the product of the axis sizes (1 for no axes).
    ///
    /// # Errors
    ///
    /// A product beyond [`crate::MAX_DEVICES`].
    pub fn device_count(&self) -> Result<i64, ShardingError> {
        let mut total: i64 = 1;
        for (name, size) in &self.axes {
            total = total
                .checked_mul(*size)
                .filter(|t| (0..=MAX_DEVICES).contains(t))
                .ok_or_else(|| {
                    ShardingError::new(
                        crate::ErrorKind::TooLarge,
                        format!(
                            "the mesh names more than {MAX_DEVICES} devices (axis {}={size})",
                            super::print::quoted(name)
                        ),
                    )
                })?;
        }
        Ok(total)
    }

    /// Checks what Shardy's verifier checks of a `sdy.mesh`: sizes at least
    /// 1, unique names, device ids non-negative, as many as the mesh has
    /// devices and a permutation of `0..n`.
    ///
    /// ```
    /// use sharding_util::sdy::SdyMesh;
    ///
    /// let mesh: SdyMesh = r#"<["a"=2], device_ids=[1, 1]>"#.parse().unwrap();
    /// assert_eq!(
    ///     mesh.verify().unwrap_err().to_string(),
    ///     "sorted device ids must be iota(product(axes)), got: 1, 1"
    /// );
    /// ```
    ///
    /// # Errors
    ///
    /// Shardy's message for the first check that fails.
    pub fn verify(&self) -> Result<(), ShardingError> {
        self.verify_indexed(&MeshIndex::new(self))
    }

    /// [`Self::verify`] with the mesh's index.
    pub(crate) fn verify_indexed(&self, index: &MeshIndex) -> Result<(), ShardingError> {
        for (k, (name, size)) in self.axes.iter().enumerate() {
            if *size < 1 {
                return Err(invalid(format!(
                    "axis size must be at least 1, got: {size}"
                )));
            }
            if index.duplicate == Some(k) {
                return Err(invalid(format!(
                    "duplicate axis name: {}",
                    super::print::quoted(name)
                )));
            }
        }
        let total = self.device_count()?;
        let Some(ids) = &self.device_ids else {
            return Ok(());
        };
        if let Some(id) = ids.iter().find(|&&id| id < 0) {
            return Err(invalid(format!(
                "device id must be non-negative, got: {id}"
            )));
        }
        if i64::try_from(ids.len()).ok() != Some(total) {
            return Err(invalid(format!(
                "total product of axis sizes must match total number of device ids, got: {total} != {}",
                ids.len()
            )));
        }
        if self.axes.is_empty() {
            return Ok(());
        }
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        if sorted.iter().zip(0..).any(|(&id, k)| id != k) {
            let text: Vec<String> = sorted.iter().map(ToString::to_string).collect();
            return Err(invalid(format!(
                "sorted device ids must be iota(product(axes)), got: {}",
                text.join(", ")
            )));
        }
        Ok(())
    }
}

/// The span of an axis reference within its axis, in pre-size space.
fn span(r: &SdyAxisRef, size: i64) -> (i64, i64) {
    r.sub
        .map_or((1, size), |(pre, s)| (pre, pre.saturating_mul(s)))
}

impl SdySharding {
    /// Checks what Shardy's verifier checks of a sharding against its mesh
    /// (`mesh`, verified): the rank when given, priorities, known axes,
    /// no axis used twice, sub-axes that fit their axis, `replicated` and
    /// `unreduced` in mesh order, and a maximal mesh's rank 0.
    ///
    /// ```
    /// use sharding_util::sdy::{SdyMesh, SdySharding};
    ///
    /// let mesh: SdyMesh = r#"<["a"=2, "b"=4]>"#.parse().unwrap();
    /// let s: SdySharding = r#"#sdy.sharding<@mesh, [{"b":(1)3}]>"#.parse().unwrap();
    /// assert_eq!(
    ///     s.verify(&mesh, Some(1)).unwrap_err().to_string(),
    ///     r#"sub-axis next pre-size 3 doesn't divide the size of the full axis 4: "b":(1)3"#
    /// );
    /// ```
    ///
    /// # Errors
    ///
    /// Shardy's message for the first check that fails.
    pub fn verify(&self, mesh: &SdyMesh, rank: Option<usize>) -> Result<(), ShardingError> {
        self.verify_indexed(&MeshIndex::new(mesh), rank)
    }

    /// [`Self::verify`] over the index of the mesh.
    pub(crate) fn verify_indexed(
        &self,
        axes: &MeshIndex,
        rank: Option<usize>,
    ) -> Result<(), ShardingError> {
        if axes.maximal.is_some() {
            if !self.dims.is_empty() || !self.replicated.is_empty() || !self.unreduced.is_empty() {
                return Err(invalid(
                    "a single-device sharding can only have a sharding with rank 0 and no replicated or unreduced axes.",
                ));
            }
            return Ok(());
        }
        if let Some(rank) = rank.filter(|&r| r != self.dims.len()) {
            return Err(invalid(format!(
                "sharding doesn't match tensor rank: {} != {rank}",
                self.dims.len()
            )));
        }
        let mut seen = Seen::default();
        for (d, dim) in self.dims.iter().enumerate() {
            if let Some(p) = dim.priority {
                if p < 0 {
                    return Err(invalid(format!("dim {d} has a negative priority")));
                }
                if dim.closed && dim.axes.is_empty() {
                    return Err(invalid(format!(
                        "dim {d} is empty and closed but has a priority"
                    )));
                }
            }
            axis_list(&dim.axes, axes, &mut seen)?;
        }
        for (word, list) in [
            ("replicated", &self.replicated),
            ("unreduced", &self.unreduced),
        ] {
            let key = |r: &SdyAxisRef| {
                let (index, size) = axes.get(&r.name).map_or((None, 1), |(k, s)| (Some(k), s));
                let (pre, _) = span(r, size);
                (index, pre, r.sub.map_or(size, |s| s.1))
            };
            if list.windows(2).any(|w| key(&w[0]) > key(&w[1])) {
                return Err(invalid(format!("{word} axes are not ordered w.r.t. mesh")));
            }
            axis_list(list, axes, &mut seen)?;
        }
        sub_axes(&seen, axes)
    }
}

/// The sub-axes of each axis, in mesh order (the first axis with a
/// conflict is the one reported): never beside the full axis, and each
/// axis's sub-axes within it and apart.
fn sub_axes(seen: &Seen<'_>, axes: &MeshIndex) -> Result<(), ShardingError> {
    let mut by_axis: Vec<(usize, &str, i64)> = seen
        .by_name
        .keys()
        .filter_map(|name| axes.get(name).map(|(k, size)| (k, *name, size)))
        .collect();
    by_axis.sort_unstable();
    for (_, name, size) in by_axis {
        let refs = &seen.by_name[name];
        let mut subs: Vec<&SdyAxisRef> = refs.iter().copied().filter(|r| r.sub.is_some()).collect();
        if subs.is_empty() {
            continue;
        }
        if refs.iter().any(|r| r.sub.is_none()) {
            return Err(invalid(format!(
                "both sub-axis and full-axis are used for axis name: {}",
                super::print::quoted(name)
            )));
        }
        subs.sort_by_key(|r| r.sub);
        let mut previous: Option<&SdyAxisRef> = None;
        for r in subs {
            sub_axis(r, size)?;
            if let Some(p) = previous.filter(|p| span(p, size).1 > r.sub.map_or(0, |s| s.0)) {
                return Err(invalid(format!("overlapping sub-axes: {p}, {r}")));
            }
            previous = Some(r);
        }
    }
    Ok(())
}

/// One sub-axis `r` of an axis of `size` devices: its sizes fit the axis.
fn sub_axis(r: &SdyAxisRef, size: i64) -> Result<(), ShardingError> {
    let Some((pre, sub)) = r.sub else {
        return Ok(());
    };
    if pre < 1 {
        return Err(invalid(format!(
            "sub-axis pre-size must be at least 1: {r}"
        )));
    }
    if sub <= 1 {
        return Err(invalid(format!(
            "sub-axis sizes must be greater than 1: {r}"
        )));
    }
    let next = pre.checked_mul(sub);
    if next.is_none_or(|n| size % n != 0) {
        let next = next.map_or_else(|| format!("{pre}*{sub}"), |n| n.to_string());
        return Err(invalid(format!(
            "sub-axis next pre-size {next} doesn't divide the size of the full axis {size}: {r}"
        )));
    }
    if sub == size {
        return Err(invalid(format!(
            "sub-axis size is equal to the full axis size: {r}"
        )));
    }
    Ok(())
}

/// The references seen so far: each once, grouped by axis name.
#[derive(Default)]
struct Seen<'a> {
    all: HashSet<&'a SdyAxisRef>,
    by_name: HashMap<&'a str, Vec<&'a SdyAxisRef>>,
}

/// Shardy's checks of one list of axis references: known names, no
/// reference seen before, no two consecutive sub-axes that merge.
fn axis_list<'a>(
    list: &'a [SdyAxisRef],
    axes: &MeshIndex,
    seen: &mut Seen<'a>,
) -> Result<(), ShardingError> {
    let mut previous: Option<&SdyAxisRef> = None;
    for r in list {
        if axes.get(&r.name).is_none() {
            return Err(invalid(format!(
                "unknown axis name: {}",
                super::print::quoted(&r.name)
            )));
        }
        if !seen.all.insert(r) {
            return Err(invalid(format!("duplicate axis ref: {r}")));
        }
        seen.by_name.entry(r.name.as_str()).or_default().push(r);
        if let (Some(p), Some((pre, _))) = (previous, r.sub) {
            let merges = p.name == r.name
                && p.sub
                    .is_some_and(|(p_pre, p_size)| p_pre.checked_mul(p_size) == Some(pre));
            if merges {
                return Err(invalid(format!(
                    "two consecutive sub-axes can be merged: {p}, {r}"
                )));
            }
        }
        previous = Some(r);
    }
    Ok(())
}
