//! Shardy shardings as XLA's `HloSharding`, as XLA's Shardy export converts
//! them (`sharding={...}` beside `xla.sdy.sharding` in HLO text).

use crate::error::ShardingError;
use crate::named::{DimSharding, NamedSharding};
use crate::reduction::Reduction;
use crate::sdy::error::{ShardyError, invalid};
use crate::sdy::mesh::SdyMesh;
use crate::sdy::mesh_index::MeshIndex;
use crate::sdy::sharding::{MeshRef, SdyAxisRef, SdySharding};
use crate::sharding::{HloSharding, Kind};

impl SdySharding {
    /// The mesh the sharding names: its inline mesh, or `mesh` when the
    /// sharding names a symbol (and `mesh`, if it has a name, has that
    /// name).
    ///
    /// # Errors
    ///
    /// `unknown mesh: @name` when no mesh fits.
    pub fn resolve_mesh<'a>(
        &'a self,
        mesh: Option<&'a SdyMesh>,
    ) -> Result<&'a SdyMesh, ShardingError> {
        match (&self.mesh, mesh) {
            (MeshRef::Inline(m), _) => Ok(m),
            (MeshRef::Symbol(name), Some(m)) if m.name.as_ref().is_none_or(|n| n == name) => Ok(m),
            (MeshRef::Symbol(name), _) => Err(invalid(format!("unknown mesh: @{name}"))),
        }
    }

    /// XLA's `HloSharding` of this sharding over `mesh` (used when the
    /// sharding names its mesh by symbol), as XLA's Shardy export gives it:
    /// the mesh's devices split at the sub-axes, transposed into dimension
    /// order, then unreduced axes (`last_tile_dims={unreduced}`), then the
    /// axes used nowhere or named replicated (`last_tile_dim_replicate`),
    /// in XLA's normal form. Open dimensions and priorities do not change
    /// it; a maximal mesh gives `{maximal device=N}`.
    ///
    /// ```
    /// use sharding_util::sdy::{SdyMesh, SdySharding};
    ///
    /// let mesh: SdyMesh = r#"<["a"=2, "b"=4], device_ids=[7, 6, 5, 4, 3, 2, 1, 0]>"#.parse().unwrap();
    /// let s: SdySharding = r#"#sdy.sharding<@mesh, [{"b"}, {?}], unreduced={"a"}>"#.parse().unwrap();
    /// assert_eq!(
    ///     s.to_hlo(Some(&mesh)).unwrap().to_string(),
    ///     "{devices=[4,1,2]7,3,6,2,5,1,4,0 last_tile_dims={unreduced}}"
    /// );
    /// ```
    ///
    /// # Errors
    ///
    /// What [`SdyMesh::verify`] and [`Self::verify`] reject, with Shardy's
    /// messages, or a mesh too large to convert.
    pub fn to_hlo(&self, mesh: Option<&SdyMesh>) -> Result<HloSharding, ShardingError> {
        let mesh = self.resolve_mesh(mesh)?;
        let index = MeshIndex::new(mesh);
        mesh.verify_indexed(&index)?;
        self.verify_indexed(&index, None)?;
        self.to_hlo_verified(&index)
    }

    /// [`Self::to_hlo`] over the index of `mesh`, which the sharding
    /// resolves to, both already verified.
    pub(crate) fn to_hlo_verified(&self, mesh: &MeshIndex) -> Result<HloSharding, ShardingError> {
        if let Some(device) = mesh.maximal {
            return Ok(HloSharding::new(Kind::Maximal(device)));
        }
        let refs = |list: &[SdyAxisRef]| {
            list.iter()
                .filter_map(|r| mesh.split_ref(r))
                .collect::<Vec<_>>()
        };
        let named = NamedSharding {
            mesh: mesh.split_mesh(),
            dims: self
                .dims
                .iter()
                .map(|d| DimSharding {
                    axes: refs(&d.axes),
                    closed: true,
                })
                .collect(),
            replicated: refs(&self.replicated),
            unreduced: refs(&self.unreduced),
            manual: Vec::new(),
            reduction: Reduction::Sum,
        };
        Ok(HloSharding::from_named(named, Vec::new())?.v3_to_v2())
    }
}

impl HloSharding {
    /// Reads a Shardy sharding (`#sdy.sharding<...>`) with its mesh (any
    /// form [`SdyMesh`] reads) and converts it as [`SdySharding::to_hlo`]
    /// does.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    ///
    /// let s = HloSharding::from_shardy(
    ///     r#"#sdy.sharding<@mesh, [{"a"}, {}]>"#,
    ///     r#"sdy.mesh @mesh = <["a"=2, "b"=4]>"#,
    /// )
    /// .unwrap();
    /// assert_eq!(s.to_string(), "{devices=[2,1,4]<=[8] last_tile_dim_replicate}");
    /// ```
    ///
    /// # Errors
    ///
    /// Text that does not parse, or what [`SdySharding::to_hlo`] rejects.
    pub fn from_shardy(sharding: &str, mesh: &str) -> Result<Self, ShardyError> {
        let sharding: SdySharding = sharding.parse()?;
        let mesh: SdyMesh = mesh.parse()?;
        Ok(sharding.to_hlo(Some(&mesh))?)
    }
}
