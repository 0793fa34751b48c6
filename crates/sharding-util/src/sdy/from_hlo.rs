//! An `HloSharding` written as a Shardy sharding over a given mesh, where
//! one of whole mesh axes converts back to it.

use crate::error::{ErrorKind, ShardingError};
use crate::sdy::mesh::SdyMesh;
use crate::sdy::sharding::{MeshRef, SdyAxisRef, SdyDim, SdySharding};
use crate::sharding::{HloSharding, Kind, SubgroupType};

/// The most mesh axes [`SdySharding::from_hlo`] searches over.
const MAX_SEARCHED_AXES: usize = 8;

/// The search state: the axes placed on each dimension (in order) and as
/// unreduced.
struct Search<'a> {
    mesh: &'a SdyMesh,
    target: String,
    tiles: Vec<i64>,
    unreduced_tiles: i64,
    dims: Vec<Vec<usize>>,
    unreduced: Vec<usize>,
}

impl Search<'_> {
    fn candidate(&self) -> SdySharding {
        let axis = |k: &usize| SdyAxisRef::axis(self.mesh.axes[*k].0.clone());
        SdySharding {
            mesh: MeshRef::Symbol(self.mesh.name.clone().unwrap_or_else(|| "mesh".into())),
            dims: self
                .dims
                .iter()
                .map(|d| SdyDim {
                    axes: d.iter().map(axis).collect(),
                    closed: true,
                    priority: None,
                })
                .collect(),
            replicated: Vec::new(),
            unreduced: self.unreduced.iter().map(axis).collect(),
        }
    }

    fn product(&self, axes: &[usize]) -> i64 {
        axes.iter().map(|&k| self.mesh.axes[k].1).product()
    }

    /// Places axes `k..` (whole axes of size above 1) and returns the first
    /// candidate that converts to the target.
    fn place(&mut self, order: &[usize]) -> Option<SdySharding> {
        let Some((&k, rest)) = order.split_first() else {
            let fits = self
                .dims
                .iter()
                .zip(&self.tiles)
                .all(|(d, &t)| self.product(d) == t)
                && self.product(&self.unreduced) == self.unreduced_tiles;
            let candidate = self.candidate();
            let same = fits
                && candidate
                    .to_hlo(Some(self.mesh))
                    .is_ok_and(|h| h.to_string() == self.target);
            return same.then_some(candidate);
        };
        let size = self.mesh.axes[k].1;
        if let Some(found) = self.place(rest) {
            return Some(found);
        }
        if self.unreduced_tiles % (self.product(&self.unreduced) * size) == 0 {
            self.unreduced.push(k);
            let found = self.place(rest);
            self.unreduced.pop();
            if found.is_some() {
                return found;
            }
        }
        for d in 0..self.dims.len() {
            if self.tiles[d] % (self.product(&self.dims[d]) * size) != 0 {
                continue;
            }
            for at in 0..=self.dims[d].len() {
                self.dims[d].insert(at, k);
                let found = self.place(rest);
                self.dims[d].remove(at);
                if found.is_some() {
                    return found;
                }
            }
        }
        None
    }
}

impl SdySharding {
    /// A Shardy sharding of whole axes of `mesh` (named by the mesh's
    /// name, `@mesh` without one) that converts to `hlo` for an array of
    /// rank `rank`, if there is one: axes used nowhere are left out
    /// (replicated), sub-axes are not tried.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// use sharding_util::sdy::{SdyMesh, SdySharding};
    ///
    /// let mesh: SdyMesh = r#"sdy.mesh @mesh = <["a"=2, "b"=4]>"#.parse().unwrap();
    /// let hlo: HloSharding = "{devices=[8,1]<=[2,4]T(1,0)}".parse().unwrap();
    /// let s = SdySharding::from_hlo(&hlo, &mesh, 2).unwrap().unwrap();
    /// assert_eq!(s.to_string(), r#"#sdy.sharding<@mesh, [{"b", "a"}, {}]>"#);
    /// let none: HloSharding = "{devices=[3,1]<=[3]}".parse().unwrap();
    /// assert_eq!(SdySharding::from_hlo(&none, &mesh, 2).unwrap(), None);
    /// ```
    ///
    /// # Errors
    ///
    /// A mesh Shardy rejects, a mesh of more than 8 axes, or a tiled
    /// sharding whose data rank is not `rank`.
    pub fn from_hlo(
        hlo: &HloSharding,
        mesh: &SdyMesh,
        rank: usize,
    ) -> Result<Option<Self>, ShardingError> {
        mesh.verify()?;
        if mesh.axes.len() > MAX_SEARCHED_AXES {
            return Err(ShardingError::new(
                ErrorKind::TooLarge,
                format!(
                    "a mesh of {} axes: at most {MAX_SEARCHED_AXES} are searched",
                    mesh.axes.len()
                ),
            ));
        }
        let hlo = hlo.v3_to_v2();
        let target = hlo.to_string();
        let (tiles, unreduced_tiles) = match hlo.kind() {
            Kind::Replicated => (vec![1; rank], 1),
            Kind::Unreduced => (vec![1; rank], mesh.device_count()?),
            Kind::Maximal(_) => (Vec::new(), 1),
            Kind::Tiled {
                tiles, subgroups, ..
            } => {
                let dims = tiles.dimensions();
                let data = dims.len().saturating_sub(hlo.subgroup_dims());
                if data != rank {
                    return Err(ShardingError::new(
                        ErrorKind::Mismatch,
                        format!("{target} tiles {data} dimensions, not {rank}"),
                    ));
                }
                let unreduced = subgroups
                    .iter()
                    .position(|&t| t == SubgroupType::Unreduced)
                    .map_or(1, |k| dims[data + k]);
                (dims[..data].to_vec(), unreduced)
            }
            _ => return Ok(None),
        };
        if let Kind::Maximal(_) = hlo.kind() {
            let candidate = Self {
                mesh: MeshRef::Symbol(mesh.name.clone().unwrap_or_else(|| "mesh".into())),
                dims: Vec::new(),
                replicated: Vec::new(),
                unreduced: Vec::new(),
            };
            let same = candidate
                .to_hlo(Some(mesh))
                .is_ok_and(|h| h.to_string() == target);
            return Ok(same.then_some(candidate));
        }
        let order: Vec<usize> = (0..mesh.axes.len())
            .filter(|&k| mesh.axes[k].1 > 1)
            .collect();
        let mut search = Search {
            mesh,
            target,
            dims: vec![Vec::new(); tiles.len()],
            tiles,
            unreduced_tiles,
            unreduced: Vec::new(),
        };
        Ok(search.place(&order))
    }
}
