//! XLA's `HloSharding` constructors and tuple shardings: the plain kinds, a
//! tuple's sharding per leaf, the sharding of a tuple element
//! (`GetSubSharding`), and a tuple's one common sharding.

use schema::Shape;
use shape_util::leaf_count;

use crate::error::{ErrorKind, ShardingError};
use crate::sharding::{HloSharding, Kind};
use crate::tile_assignment::TileAssignment;

impl HloSharding {
    /// XLA's `Replicate`: `{replicated}`.
    ///
    /// ```
    /// assert_eq!(sharding_util::HloSharding::replicate().to_string(), "{replicated}");
    /// ```
    pub fn replicate() -> Self {
        Self::new(Kind::Replicated)
    }

    /// XLA's `Manual`: `{manual}`.
    ///
    /// ```
    /// assert_eq!(sharding_util::HloSharding::manual().to_string(), "{manual}");
    /// ```
    pub fn manual() -> Self {
        Self::new(Kind::Manual)
    }

    /// XLA's `Unknown`: `{unknown}`.
    ///
    /// ```
    /// assert_eq!(sharding_util::HloSharding::unknown().to_string(), "{unknown}");
    /// ```
    pub fn unknown() -> Self {
        Self::new(Kind::Unknown)
    }

    /// XLA's `Unreduced`: `{unreduced}`.
    ///
    /// ```
    /// assert_eq!(sharding_util::HloSharding::unreduced().to_string(), "{unreduced}");
    /// ```
    pub fn unreduced() -> Self {
        Self::new(Kind::Unreduced)
    }

    /// XLA's `AssignDevice`: the whole array on `device`.
    ///
    /// ```
    /// assert_eq!(sharding_util::HloSharding::assign_device(3).to_string(), "{maximal device=3}");
    /// ```
    pub fn assign_device(device: i64) -> Self {
        Self::new(Kind::Maximal(device))
    }

    /// XLA's `Tile`: tiles over `tiles`, one tile per device.
    ///
    /// ```
    /// use sharding_util::{HloSharding, TileAssignment};
    /// let tiles = TileAssignment::iota(vec![2, 2], vec![4], vec![0]).unwrap();
    /// assert_eq!(HloSharding::tile(tiles).to_string(), "{devices=[2,2]<=[4]}");
    /// ```
    pub fn tile(tiles: TileAssignment) -> Self {
        Self::new(Kind::Tiled {
            tiles,
            replicate_on_last_tile_dim: false,
            subgroups: Vec::new(),
        })
    }

    /// XLA's `IotaTile`: [`Self::tile`] over the devices `0..n` in order.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// assert_eq!(HloSharding::iota_tile(vec![2, 4]).unwrap().to_string(), "{devices=[2,4]<=[8]}");
    /// ```
    ///
    /// # Errors
    ///
    /// A dimension that is not positive, or more than
    /// [`crate::MAX_DEVICES`] devices.
    pub fn iota_tile(dims: Vec<i64>) -> Result<Self, ShardingError> {
        let n = crate::tile_assignment::checked_count(&dims, "tile assignment")?;
        Ok(Self::tile(TileAssignment::iota(dims, vec![n], vec![0])?))
    }

    /// XLA's `Tile1D`: a rank-1 `shape` split in `num_tiles` tiles.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let s = HloSharding::tile_1d(&"f32[16]".parse().unwrap(), 4).unwrap();
    /// assert_eq!(s.to_string(), "{devices=[4]<=[4]}");
    /// ```
    ///
    /// # Errors
    ///
    /// A shape that is not of rank 1 or `num_tiles < 2` (XLA CHECK-fails).
    pub fn tile_1d(shape: &Shape, num_tiles: i64) -> Result<Self, ShardingError> {
        if shape.dimensions.len() != 1 || num_tiles <= 1 {
            return Err(ShardingError::new(
                ErrorKind::Mismatch,
                format!(
                    "Tile1D needs a rank-1 shape and more than one tile, not {} in {num_tiles} tiles",
                    shape.human_string()
                ),
            ));
        }
        Self::iota_tile(vec![num_tiles])
    }

    /// XLA's `FlatTuple`: a tuple sharding of the given leaf shardings.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let s = HloSharding::flat_tuple(vec![HloSharding::replicate(), HloSharding::manual()]);
    /// assert_eq!(s.to_string(), "{{replicated}, {manual}}");
    /// ```
    pub fn flat_tuple(elements: Vec<HloSharding>) -> Self {
        Self::new(Kind::Tuple(elements))
    }

    /// XLA's `RequiredLeaves`: the leaf shardings a tuple sharding of
    /// `shape` has (an empty tuple still has one).
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// assert_eq!(HloSharding::required_leaves(&"(f32[2], (s8[], ()))".parse().unwrap()), 2);
    /// assert_eq!(HloSharding::required_leaves(&"()".parse().unwrap()), 1);
    /// ```
    pub fn required_leaves(shape: &Shape) -> usize {
        leaf_count(shape).max(1)
    }

    /// XLA's `Tuple(tuple_shape, shardings)`: the tuple sharding of
    /// `shape` from one sharding per leaf (none at all is allowed).
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let shape = "(f32[2], s8[])".parse().unwrap();
    /// let s = HloSharding::tuple(&shape, vec![HloSharding::replicate(), HloSharding::assign_device(0)]).unwrap();
    /// assert_eq!(s.to_string(), "{{replicated}, {maximal device=0}}");
    /// ```
    ///
    /// # Errors
    ///
    /// A shape that is not a tuple, a tuple element sharding, or another
    /// count than [`Self::required_leaves`] (XLA CHECK-fails).
    pub fn tuple(shape: &Shape, shardings: Vec<HloSharding>) -> Result<Self, ShardingError> {
        need_tuple_shape(shape)?;
        if let Some(t) = shardings.iter().find(|s| s.is_tuple()) {
            return Err(ShardingError::new(
                ErrorKind::Invalid,
                format!(
                    "{t}, tuple shape = {}: a leaf sharding is a tuple",
                    shape.human_string()
                ),
            ));
        }
        let required = Self::required_leaves(shape);
        if !shardings.is_empty() && shardings.len() != required {
            return Err(ShardingError::new(
                ErrorKind::Mismatch,
                format!("Flat list has {}, required {required}", shardings.len()),
            ));
        }
        Ok(Self::flat_tuple(shardings))
    }

    /// XLA's `SingleTuple`: `sharding` on every leaf of `shape`.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let s = HloSharding::single_tuple(&"(f32[2], (s8[]))".parse().unwrap(), &HloSharding::manual()).unwrap();
    /// assert_eq!(s.to_string(), "{{manual}, {manual}}");
    /// ```
    ///
    /// # Errors
    ///
    /// A shape that is not a tuple or a tuple `sharding` (XLA CHECK-fails).
    pub fn single_tuple(shape: &Shape, sharding: &HloSharding) -> Result<Self, ShardingError> {
        need_tuple_shape(shape)?;
        if sharding.is_tuple() {
            return Err(ShardingError::new(
                ErrorKind::Invalid,
                format!("SingleTuple needs a leaf sharding, not {sharding}"),
            ));
        }
        Ok(Self::flat_tuple(vec![
            sharding.clone();
            Self::required_leaves(shape)
        ]))
    }

    /// XLA's `Single`: [`Self::single_tuple`] for a tuple shape, `sharding`
    /// itself otherwise.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let s = HloSharding::single(&"f32[2]".parse().unwrap(), &HloSharding::manual()).unwrap();
    /// assert_eq!(s.to_string(), "{manual}");
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Self::single_tuple`] for a tuple shape.
    pub fn single(shape: &Shape, sharding: &HloSharding) -> Result<Self, ShardingError> {
        if shape_util::is_tuple(shape) {
            Self::single_tuple(shape, sharding)
        } else {
            Ok(sharding.clone())
        }
    }

    /// XLA's `CheckLeafCount`: a tuple sharding has one sharding per leaf
    /// of `shape` (or one for an empty tuple).
    fn check_leaf_count(&self, shape: &Shape) -> Result<(), ShardingError> {
        let leaves = leaf_count(shape);
        let have = self.tuple_elements().len();
        if (leaves == 0 && have == 1) || leaves == have {
            return Ok(());
        }
        Err(ShardingError::new(
            ErrorKind::Mismatch,
            format!(
                "Shape {} has {leaves} leaf nodes while this sharding has {have}",
                shape.human_string()
            ),
        ))
    }

    /// XLA's `GetSubSharding`: the sharding of the subshape of `shape` at
    /// `index`, out of this tuple sharding (a tuple sharding of its leaves
    /// when the subshape is a tuple).
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let shape = "((f32[2], s8[]), f32[4])".parse().unwrap();
    /// let s: HloSharding = "{{replicated}, {maximal device=1}, {devices=[2]0,1}}".parse().unwrap();
    /// assert_eq!(s.get_sub_sharding(&shape, &[0]).unwrap().to_string(), "{{replicated}, {maximal device=1}}");
    /// assert_eq!(s.get_sub_sharding(&shape, &[0, 1]).unwrap().to_string(), "{maximal device=1}");
    /// assert_eq!(s.get_sub_sharding(&shape, &[1]).unwrap().to_string(), "{devices=[2]0,1}");
    /// ```
    ///
    /// # Errors
    ///
    /// A sharding that is not a tuple (XLA CHECK-fails), an index that
    /// names no subshape, or a sharding with another leaf count than
    /// `shape`.
    pub fn get_sub_sharding(&self, shape: &Shape, index: &[i64]) -> Result<Self, ShardingError> {
        if !self.is_tuple() {
            return Err(ShardingError::new(
                ErrorKind::Unsupported,
                format!("GetSubSharding needs a tuple sharding, not {self}"),
            ));
        }
        self.check_leaf_count(shape)?;
        let mut start = 0;
        let mut sub = shape;
        for &i in index {
            let element = usize::try_from(i)
                .ok()
                .filter(|_| shape_util::is_tuple(sub))
                .and_then(|i| sub.tuple_shapes.get(i).map(|e| (i, e)));
            let Some((i, element)) = element else {
                return Err(ShardingError::new(
                    ErrorKind::Mismatch,
                    format!(
                        "shape index {{{}}} names no subshape of {}",
                        crate::tile_assignment::join(index),
                        shape.human_string()
                    ),
                ));
            };
            start += sub.tuple_shapes[..i].iter().map(leaf_count).sum::<usize>();
            sub = element;
        }
        let elements = self.tuple_elements();
        if shape_util::is_tuple(sub) {
            let end = start + leaf_count(sub);
            return Ok(Self::flat_tuple(
                elements.get(start..end).unwrap_or_default().to_vec(),
            ));
        }
        elements.get(start).cloned().ok_or_else(|| {
            ShardingError::new(
                ErrorKind::Mismatch,
                format!(
                    "{self} has no sharding for leaf {start} of {}",
                    shape.human_string()
                ),
            )
        })
    }

    /// XLA's `GetTupleSharding`: this sharding if it is a tuple (checked
    /// against `shape`), else it on every leaf of `shape`.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let s = HloSharding::replicate().get_tuple_sharding(&"(f32[2], s8[])".parse().unwrap()).unwrap();
    /// assert_eq!(s.to_string(), "{{replicated}, {replicated}}");
    /// ```
    ///
    /// # Errors
    ///
    /// A tuple sharding with another leaf count than `shape` (XLA's
    /// message); a shape that is not a tuple for a sharding that is not.
    pub fn get_tuple_sharding(&self, shape: &Shape) -> Result<Self, ShardingError> {
        if self.is_tuple() {
            self.check_leaf_count(shape)?;
            return Ok(self.clone());
        }
        Self::single_tuple(shape, self)
    }

    /// XLA's `NormalizeTupleSharding`: for a tuple `shape` and a sharding
    /// that is not a tuple, the sharding on every leaf; else unchanged.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let s = HloSharding::manual().normalize_tuple_sharding(&"(f32[2])".parse().unwrap());
    /// assert_eq!(s.to_string(), "{{manual}}");
    /// ```
    pub fn normalize_tuple_sharding(&self, shape: &Shape) -> Self {
        if shape_util::is_tuple(shape) && !self.is_tuple() {
            return Self::flat_tuple(vec![self.clone(); Self::required_leaves(shape)]);
        }
        self.clone()
    }

    /// XLA's `ExtractSingleSharding`: this sharding if it is not a tuple,
    /// the one sharding of a non-empty tuple whose elements are all equal,
    /// else `None`.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let same: HloSharding = "{{maximal device=1}, {maximal device=1}}".parse().unwrap();
    /// assert_eq!(same.extract_single_sharding().unwrap().to_string(), "{maximal device=1}");
    /// let mixed: HloSharding = "{{maximal device=1}, {replicated}}".parse().unwrap();
    /// assert_eq!(mixed.extract_single_sharding(), None);
    /// ```
    pub fn extract_single_sharding(&self) -> Option<Self> {
        let Kind::Tuple(elements) = &self.kind else {
            return Some(self.clone());
        };
        let first = elements.first()?;
        elements.iter().all(|e| e == first).then(|| first.clone())
    }

    /// XLA's `WithMetadata(metadata, overwrite)`: the same sharding with
    /// `metadata` on it (on each element of a tuple) where it has none, or
    /// everywhere when `overwrite`. ([`Self::with_metadata`] sets it on the
    /// sharding itself, always.)
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let a = vec![schema::OpMetadata { op_name: "a".into(), ..Default::default() }];
    /// let b = vec![schema::OpMetadata { op_name: "b".into(), ..Default::default() }];
    /// let s = HloSharding::assign_device(7).with_metadata(a.clone());
    /// assert_eq!(s.with_metadata_overwrite(&b, false).metadata(), a.as_slice());
    /// assert_eq!(s.with_metadata_overwrite(&b, true).metadata(), b.as_slice());
    /// ```
    pub fn with_metadata_overwrite(
        &self,
        metadata: &[schema::OpMetadata],
        overwrite: bool,
    ) -> Self {
        let assign = |s: &mut HloSharding| {
            if s.metadata.is_empty() || overwrite {
                s.metadata = metadata.to_vec();
            }
        };
        let mut out = self.clone();
        match &mut out.kind {
            Kind::Tuple(elements) => elements.iter_mut().for_each(assign),
            _ => assign(&mut out),
        }
        out
    }

    /// XLA's `IsReservedDevice`: a negative device number (the host, or
    /// an unassigned device), which has its own meaning.
    ///
    /// ```
    /// assert!(sharding_util::HloSharding::is_reserved_device(-1));
    /// assert!(!sharding_util::HloSharding::is_reserved_device(0));
    /// ```
    pub fn is_reserved_device(device: i64) -> bool {
        device < 0
    }

    /// XLA's `WithoutMetadata`: the same sharding with no metadata, on it
    /// or on any tuple element.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let s = HloSharding::replicate().with_metadata(vec![Default::default()]);
    /// assert!(s.without_metadata().metadata().is_empty());
    /// ```
    pub fn without_metadata(&self) -> Self {
        let mut out = self.clone();
        out.metadata.clear();
        if let Kind::Tuple(elements) = &mut out.kind {
            for e in elements {
                *e = e.without_metadata();
            }
        }
        out
    }
}

fn need_tuple_shape(shape: &Shape) -> Result<(), ShardingError> {
    if shape_util::is_tuple(shape) {
        Ok(())
    } else {
        Err(ShardingError::new(
            ErrorKind::Mismatch,
            format!("{} is not a tuple shape", shape.human_string()),
        ))
    }
}
