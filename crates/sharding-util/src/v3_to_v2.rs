//! Named (mesh-axes) shardings in XLA's tile-assignment form (XLA's
//! `v3_to_v2_sharding`).

use schema::OpMetadata;

use crate::error::ShardingError;
use crate::named::{AxisRef, MeshDevices, NamedSharding, cut_points};
use crate::reduction::push_reduction;
use crate::sharding::{HloSharding, Kind, SubgroupType};
use crate::tile_assignment::TileAssignment;

impl HloSharding {
    /// A named (mesh-axes) sharding: printed and encoded in its named form,
    /// answering every query through its tile-assignment form
    /// ([`Self::v3_to_v2`]), where XLA aborts on tile queries.
    ///
    /// # Errors
    ///
    /// What [`NamedSharding::validate`] rejects.
    pub fn from_named(
        named: NamedSharding,
        metadata: Vec<OpMetadata>,
    ) -> Result<Self, ShardingError> {
        let mut s = tile_form(&named, metadata)?;
        s.named = Some(Box::new(named));
        Ok(s)
    }

    /// The tile-assignment form (XLA's `v3_to_v2_sharding`): a named
    /// sharding as `{devices=...}`, with its reduction written into the
    /// metadata as a tile-assignment sharding keeps it (for an unreduced
    /// form, or a reduction other than a sum), tuple elements (nested ones too)
    /// converted, anything else unchanged.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    ///
    /// let s: HloSharding = "{mesh['x'=2,'y'=4], [{'x'}, {}]}".parse().unwrap();
    /// assert_eq!(s.v3_to_v2().to_string(), "{devices=[2,1,4]<=[8] last_tile_dim_replicate}");
    ///
    /// let max: HloSharding = "{mesh['x'=8], unreduced=max}".parse().unwrap();
    /// let v2 = max.v3_to_v2();
    /// assert_eq!(v2.to_string(), "{unreduced}");
    /// assert_eq!(v2.metadata()[0].op_name, "MAX");
    /// ```
    pub fn v3_to_v2(&self) -> Self {
        let mut s = self.clone();
        s.drop_named();
        s
    }

    /// Leaves the named form (here and in tuple elements), moving its
    /// reduction into the metadata.
    fn drop_named(&mut self) {
        if let Kind::Tuple(elements) = &mut self.kind {
            elements.iter_mut().for_each(Self::drop_named);
        }
        if let Some(named) = self.named.take() {
            let unreduced = self.has_unreduced();
            push_reduction(&mut self.metadata, named.reduction, unreduced);
        }
    }
}

/// The tile-assignment form, as XLA's `v3_to_v2_sharding`: the mesh's
/// devices split into the pieces the sub-axes cut, transposed to
/// dimension order then unreduced, manual and replicated axes, and
/// brought to XLA's normal form.
///
/// # Errors
///
/// What [`NamedSharding::validate`] rejects, or a normal form too large to write
/// out.
fn tile_form(
    named: &NamedSharding,
    metadata: Vec<OpMetadata>,
) -> Result<HloSharding, ShardingError> {
    named.validate()?;
    let total = named.total();
    let refs: Vec<AxisRef> = named.all_refs().copied().collect();
    // The pieces of every axis, major first, as (axis, pre-size, size).
    let mut pieces: Vec<(usize, i64, i64)> = Vec::new();
    for (axis, (_, size)) in named.mesh.axes.iter().enumerate() {
        let cuts = cut_points(*size, &refs, axis);
        for w in cuts.windows(2) {
            pieces.push((axis, w[0], w[1] / w[0]));
        }
    }
    let mut used = vec![false; pieces.len()];
    let mut perm: Vec<usize> = Vec::new();
    let mut take = |r: &AxisRef, perm: &mut Vec<usize>| -> i64 {
        let size = named.mesh.axes[r.axis].1;
        let (lo, hi) = r.sub.map_or((1, size), |(pre, s)| (pre, pre * s));
        let mut product = 1;
        for (k, &(axis, pre, s)) in pieces.iter().enumerate() {
            if axis == r.axis && pre >= lo && pre * s <= hi {
                used[k] = true;
                perm.push(k);
                product *= s;
            }
        }
        product
    };
    let mut tile_dims: Vec<i64> = Vec::new();
    for d in &named.dims {
        tile_dims.push(d.axes.iter().map(|r| take(r, &mut perm)).product());
    }
    let mut types = Vec::new();
    for (t, list) in [
        (SubgroupType::Unreduced, &named.unreduced),
        (SubgroupType::Manual, &named.manual),
    ] {
        if !list.is_empty() {
            tile_dims.push(list.iter().map(|r| take(r, &mut perm)).product());
            types.push(t);
        }
    }
    let rest: Vec<usize> = (0..pieces.len()).filter(|&k| !used[k]).collect();
    let replicated: i64 = rest.iter().map(|&k| pieces[k].2).product();
    perm.extend(rest);
    if replicated > 1 {
        tile_dims.push(replicated);
        types.push(SubgroupType::Replicated);
    }
    if tile_dims.iter().all(|&d| d == 1) {
        return Ok(HloSharding::new(Kind::Replicated).with_metadata(metadata));
    }
    let mesh = match &named.mesh.devices {
        MeshDevices::Iota => TileAssignment::iota(vec![total], vec![total], vec![0])?,
        MeshDevices::Transposed { reshape, perm } => {
            TileAssignment::iota(vec![total], reshape.clone(), perm.clone())?
        }
        MeshDevices::List(ids) => TileAssignment::list(vec![total], ids.clone())?,
    };
    let tiles = mesh
        .reshaped(pieces.iter().map(|p| p.2).collect())
        .transposed(&perm)?
        .reshaped(tile_dims);
    Ok(HloSharding::subgroup(tiles, &types)?.with_metadata(metadata))
}
