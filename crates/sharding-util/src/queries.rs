//! XLA's `HloSharding` predicates and device queries: what kind of sharding
//! it is (tuple-recursive, as XLA's `IsReplicated`, `IsTileMaximal`,
//! `IsManual`, `IsUnknown` are), shard groups, and which devices it uses.

use std::collections::BTreeMap;

use crate::error::{ErrorKind, ShardingError};
use crate::sharding::{HloSharding, Kind, ShardGroup, SubgroupType};

impl HloSharding {
    /// XLA's `IsTuple`: whether this is a sharding per tuple element.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let s: HloSharding = "{{replicated}, {maximal device=1}}".parse().unwrap();
    /// assert!(s.is_tuple());
    /// ```
    pub fn is_tuple(&self) -> bool {
        matches!(self.kind, Kind::Tuple(_))
    }

    /// XLA's `tuple_elements`: the shardings of the tuple's leaves in
    /// pre-order; empty for a sharding that is not a tuple.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let s: HloSharding = "{{replicated}, {maximal device=1}}".parse().unwrap();
    /// assert_eq!(s.tuple_elements()[1].to_string(), "{maximal device=1}");
    /// ```
    pub fn tuple_elements(&self) -> &[HloSharding] {
        match &self.kind {
            Kind::Tuple(elements) => elements,
            _ => &[],
        }
    }

    /// Whether `leaf` holds for this sharding, or for every element of a
    /// tuple.
    fn all_leaves(&self, leaf: impl Fn(&Kind) -> bool + Copy) -> bool {
        match &self.kind {
            Kind::Tuple(elements) => elements.iter().all(|e| e.all_leaves(leaf)),
            kind => leaf(kind),
        }
    }

    /// XLA's `IsReplicated`: every device holds the whole array (for a
    /// tuple: every element is replicated).
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let yes: HloSharding = "{{replicated}, {replicated}}".parse().unwrap();
    /// let no: HloSharding = "{{replicated}, {maximal device=1}}".parse().unwrap();
    /// assert!(yes.is_replicated() && !no.is_replicated());
    /// ```
    pub fn is_replicated(&self) -> bool {
        self.all_leaves(|k| matches!(k, Kind::Replicated))
    }

    /// XLA's `IsMaximal`: the whole array on one device (for a tuple:
    /// every element on one device, not necessarily the same).
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let s: HloSharding = "{{maximal device=1}, {maximal device=2}}".parse().unwrap();
    /// assert!(s.is_maximal());
    /// assert!(!"{replicated}".parse::<HloSharding>().unwrap().is_maximal());
    /// ```
    pub fn is_maximal(&self) -> bool {
        self.all_leaves(|k| matches!(k, Kind::Maximal(_)))
    }

    /// XLA's `IsTileMaximal` (jax's `HloSharding.is_maximal`): one tile,
    /// the whole array: [`Self::is_replicated`] or [`Self::is_maximal`]. A
    /// tuple mixing replicated and maximal elements is neither (and so is
    /// tiled), as jaxlib 0.12 answers.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// assert!("{replicated}".parse::<HloSharding>().unwrap().is_tile_maximal());
    /// let mixed: HloSharding = "{{replicated}, {maximal device=1}}".parse().unwrap();
    /// assert!(!mixed.is_tile_maximal() && mixed.is_tiled());
    /// assert!(!"{manual}".parse::<HloSharding>().unwrap().is_tile_maximal());
    /// ```
    pub fn is_tile_maximal(&self) -> bool {
        self.is_replicated() || self.is_maximal()
    }

    /// XLA's `IsManual`: partitioned by the user (for a tuple, every
    /// element).
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// assert!("{{manual}, {manual}}".parse::<HloSharding>().unwrap().is_manual());
    /// ```
    pub fn is_manual(&self) -> bool {
        self.all_leaves(|k| matches!(k, Kind::Manual))
    }

    /// XLA's `IsUnknown`: a placeholder sharding (for a tuple, every
    /// element).
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// assert!(!"{{unknown}, {replicated}}".parse::<HloSharding>().unwrap().is_unknown());
    /// ```
    pub fn is_unknown(&self) -> bool {
        self.all_leaves(|k| matches!(k, Kind::Unknown))
    }

    /// XLA's `IsUnreduced`: every device holds a partial result (for a
    /// tuple, every element).
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// assert!("{unreduced}".parse::<HloSharding>().unwrap().is_unreduced());
    /// ```
    pub fn is_unreduced(&self) -> bool {
        self.all_leaves(|k| matches!(k, Kind::Unreduced))
    }

    /// XLA's `IsTiled`: not tile-maximal, manual, unknown or unreduced;
    /// a tuple is tiled unless all its elements are replicated, or all
    /// maximal, or all manual, all unknown or all unreduced.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// assert!("{devices=[2,2]<=[4]}".parse::<HloSharding>().unwrap().is_tiled());
    /// assert!("{{replicated}, {manual}}".parse::<HloSharding>().unwrap().is_tiled());
    /// assert!(!"{{replicated}, {replicated}}".parse::<HloSharding>().unwrap().is_tiled());
    /// assert!(!"{unreduced}".parse::<HloSharding>().unwrap().is_tiled());
    /// ```
    pub fn is_tiled(&self) -> bool {
        !self.is_tile_maximal() && !self.is_manual() && !self.is_unknown() && !self.is_unreduced()
    }

    /// XLA's `IsManualSubgroup`: the grid has a manual subgroup dimension
    /// (for a tuple, every element has).
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let s: HloSharding = "{devices=[2,2,2]<=[8] last_tile_dims={manual, replicated}}".parse().unwrap();
    /// assert!(s.is_manual_subgroup());
    /// ```
    pub fn is_manual_subgroup(&self) -> bool {
        self.all_leaves(
            |k| matches!(k, Kind::Tiled { subgroups, .. } if subgroups.contains(&SubgroupType::Manual)),
        )
    }

    /// XLA's `ReplicateOnLastTileDim`: `last_tile_dim_replicate`.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let s: HloSharding = "{devices=[2,1,4]<=[8] last_tile_dim_replicate}".parse().unwrap();
    /// assert!(s.replicate_on_last_tile_dim());
    /// ```
    pub fn replicate_on_last_tile_dim(&self) -> bool {
        matches!(
            self.kind,
            Kind::Tiled {
                replicate_on_last_tile_dim: true,
                ..
            }
        )
    }

    /// XLA's `subgroup_types`: the meaning of the trailing grid dimensions
    /// (`last_tile_dims={...}`); empty otherwise.
    ///
    /// ```
    /// use sharding_util::{HloSharding, SubgroupType};
    /// let s: HloSharding = "{devices=[2,2,2]<=[8] last_tile_dims={manual, replicated}}".parse().unwrap();
    /// assert_eq!(s.subgroup_types(), [SubgroupType::Manual, SubgroupType::Replicated]);
    /// ```
    pub fn subgroup_types(&self) -> &[SubgroupType] {
        match &self.kind {
            Kind::Tiled { subgroups, .. } => subgroups,
            _ => &[],
        }
    }

    /// XLA's `HasPartialReplication`: `last_tile_dim_replicate` or a
    /// replicated subgroup (false for a tuple, as in XLA).
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let s: HloSharding = "{devices=[2,2,2]<=[8] last_tile_dims={manual, replicated}}".parse().unwrap();
    /// assert!(s.has_partial_replication());
    /// ```
    pub fn has_partial_replication(&self) -> bool {
        self.replicate_on_last_tile_dim()
            || self.subgroup_types().contains(&SubgroupType::Replicated)
    }

    /// Whether `leaf` holds for this sharding, or for every element of a
    /// non-empty tuple (XLA's shard-group predicates).
    fn all_grouped(&self, leaf: impl Fn(Option<ShardGroup>) -> bool + Copy) -> bool {
        match &self.kind {
            Kind::Tuple(elements) => {
                !elements.is_empty() && elements.iter().all(|e| e.all_grouped(leaf))
            }
            _ => leaf(self.shard_group),
        }
    }

    /// XLA's `IsShardGroup`: in a shard group (`shard_as`/`shard_like`; for
    /// a tuple, every element of a non-empty tuple).
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// assert!("{replicated shard_like 1}".parse::<HloSharding>().unwrap().is_shard_group());
    /// ```
    pub fn is_shard_group(&self) -> bool {
        self.all_grouped(|g| g.is_some())
    }

    /// XLA's `IsShardAs`: in a `shard_as` group.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// assert!("{replicated shard_as 1}".parse::<HloSharding>().unwrap().is_shard_as());
    /// ```
    pub fn is_shard_as(&self) -> bool {
        self.all_grouped(|g| matches!(g, Some(ShardGroup::As(_))))
    }

    /// XLA's `IsShardLike`: in a `shard_like` group.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// assert!(!"{replicated shard_as 1}".parse::<HloSharding>().unwrap().is_shard_like());
    /// ```
    pub fn is_shard_like(&self) -> bool {
        self.all_grouped(|g| matches!(g, Some(ShardGroup::Like(_))))
    }

    /// XLA's `UsesDevice`: whether `device` takes part (every device does
    /// in a replicated or manual sharding; for a tuple, in any element).
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let s: HloSharding = "{{maximal device=1}, {devices=[2]4,5}}".parse().unwrap();
    /// assert!(s.uses_device(5) && s.uses_device(1) && !s.uses_device(0));
    /// ```
    pub fn uses_device(&self, device: i64) -> bool {
        match &self.kind {
            Kind::Tuple(elements) => elements.iter().any(|e| e.uses_device(device)),
            Kind::Replicated | Kind::Manual => true,
            Kind::Maximal(d) => *d == device,
            Kind::Tiled { tiles, .. } => tiles.uses_device(device),
            Kind::Unknown | Kind::Unreduced => false,
        }
    }

    /// XLA's `UniqueDevice`: the one device of a maximal sharding, or of a
    /// non-empty tuple whose every element is maximal on that same device.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let one: HloSharding = "{{maximal device=1}, {maximal device=1}}".parse().unwrap();
    /// let two: HloSharding = "{{maximal device=1}, {maximal device=2}}".parse().unwrap();
    /// assert_eq!((one.unique_device(), two.unique_device()), (Some(1), None));
    /// ```
    pub fn unique_device(&self) -> Option<i64> {
        match &self.kind {
            Kind::Tuple(elements) => {
                let first = elements.first()?.unique_device()?;
                elements
                    .iter()
                    .all(|e| e.unique_device() == Some(first))
                    .then_some(first)
            }
            Kind::Maximal(d) => Some(*d),
            _ => None,
        }
    }

    /// XLA's `HasUniqueDevice`: whether [`Self::unique_device`] has one.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// assert!("{maximal device=3}".parse::<HloSharding>().unwrap().has_unique_device());
    /// assert!(!"{replicated}".parse::<HloSharding>().unwrap().has_unique_device());
    /// ```
    pub fn has_unique_device(&self) -> bool {
        self.unique_device().is_some()
    }

    /// XLA's `GetUniqueDevice`: [`Self::unique_device`] or an error.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let s: HloSharding = "{replicated}".parse().unwrap();
    /// assert_eq!(s.get_unique_device().unwrap_err().to_string(),
    ///     "Sharding does not have a unique device: {replicated}");
    /// ```
    ///
    /// # Errors
    ///
    /// XLA's message (where XLA's CHECK fails) when there is no unique
    /// device.
    pub fn get_unique_device(&self) -> Result<i64, ShardingError> {
        self.unique_device().ok_or_else(|| {
            ShardingError::new(
                ErrorKind::Unsupported,
                format!("Sharding does not have a unique device: {self}"),
            )
        })
    }

    /// XLA's `UsedDevices` (Rust form: the histogram and the element count
    /// returned together): how many leaves have each unique device, and
    /// the number of leaves (1 for a sharding that is not a tuple).
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let s: HloSharding = "{{maximal device=1}, {replicated}, {maximal device=1}}".parse().unwrap();
    /// let (devices, count) = s.used_devices();
    /// assert_eq!(devices.into_iter().collect::<Vec<_>>(), [(1, 2)]);
    /// assert_eq!(count, 3);
    /// ```
    pub fn used_devices(&self) -> (BTreeMap<i64, i64>, usize) {
        let mut devices = BTreeMap::new();
        let leaves: &[HloSharding] = match &self.kind {
            Kind::Tuple(elements) => elements,
            _ => std::slice::from_ref(self),
        };
        for leaf in leaves {
            if let Some(d) = leaf.unique_device() {
                *devices.entry(d).or_insert(0) += 1;
            }
        }
        (devices, leaves.len())
    }
}
