//! XLA's `TileAssignment`: the array of device ids over the tile grid, either
//! an explicit list or an iota (`<=[reshape dims]T(perm)`) kept symbolic.

use std::fmt;

use crate::error::{ErrorKind, ShardingError};

/// The most devices a tile assignment may name (`i32::MAX`, the range of
/// XLA's device ordinals). Larger claims are errors at once, before anything
/// is allocated.
pub const MAX_DEVICES: i64 = i32::MAX as i64;

/// The largest iota that canonicalization may write out as an explicit list
/// (XLA materializes an iota that no longer fits the iota form, and so do we,
/// up to this many devices).
pub const MAX_MATERIALIZED: i64 = 1 << 20;

/// An iota tile assignment: the device ids `0..n` reshaped to `reshape`,
/// transposed by `perm`, read row-major over the tile grid.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Iota {
    reshape: Vec<i64>,
    perm: Vec<usize>,
    /// The stride in device ids of each reshape dimension.
    strides: Vec<i64>,
}

/// Where each tile's device comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Devices {
    /// `<=[reshape]T(perm)`, never materialized to answer a query.
    Iota(Iota),
    /// The device of every tile in row-major order of the grid (ids as
    /// written: negative or repeated ids are kept, and rejected by
    /// [`crate::HloSharding::validate`]).
    List(Vec<i64>),
}

/// The tile grid and the device of each tile (XLA's `TileAssignment`).
///
/// ```
/// use sharding_util::TileAssignment;
///
/// let tiles = TileAssignment::iota(vec![2, 4], vec![4, 2], vec![1, 0]).unwrap();
/// assert_eq!(tiles.to_string(), "devices=[2,4]<=[4,2]T(1,0)");
/// assert_eq!(tiles.device_at(&[1, 0]).unwrap(), 1);
/// assert_eq!(tiles.tile_of(6).unwrap(), Some(vec![0, 3]));
/// ```
///
/// Two tile assignments are equal when their grids and devices are, as
/// XLA's `TileAssignment::operator==` has it: an iota equals the explicit
/// list of its devices (two iotas compare by their canonical form).
///
/// ```
/// use sharding_util::TileAssignment;
///
/// let iota = TileAssignment::iota(vec![2, 2], vec![2, 2], vec![1, 0]).unwrap();
/// let list = TileAssignment::list(vec![2, 2], vec![0, 2, 1, 3]).unwrap();
/// assert_eq!(iota, list);
/// assert_ne!(iota.to_string(), list.to_string());
/// ```
#[derive(Debug, Clone)]
pub struct TileAssignment {
    dims: Vec<i64>,
    devices: Devices,
}

impl PartialEq for TileAssignment {
    fn eq(&self, other: &Self) -> bool {
        if self.dims != other.dims {
            return false;
        }
        match (&self.devices, &other.devices) {
            (Devices::Iota(a), Devices::Iota(b)) => a == b,
            (Devices::List(a), Devices::List(b)) => a == b,
            // An explicit list is in memory: comparing it is linear in its
            // length.
            _ => self.iter().eq(other.iter()),
        }
    }
}

impl Eq for TileAssignment {}

/// The devices an equal assignment also has first.
const HASHED_DEVICES: i64 = 16;

impl std::hash::Hash for TileAssignment {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // Equal assignments have the same grid and the same devices, in
        // whatever form: the grid and the first devices, never a whole iota.
        self.dims.hash(state);
        for flat in 0..self.num_elements().min(HASHED_DEVICES) {
            self.device_at_flat(flat).hash(state);
        }
    }
}

/// The product of `dims`, every one positive, at most [`MAX_DEVICES`].
pub(crate) fn checked_count(dims: &[i64], what: &str) -> Result<i64, ShardingError> {
    let mut count: i64 = 1;
    for &d in dims {
        if d <= 0 {
            return Err(ShardingError::new(
                ErrorKind::Invalid,
                format!("{what} dimension {d} is not positive"),
            ));
        }
        count = count
            .checked_mul(d)
            .filter(|&c| c <= MAX_DEVICES)
            .ok_or_else(|| {
                ShardingError::new(
                    ErrorKind::TooLarge,
                    format!(
                        "{what} dimensions {} name more than {MAX_DEVICES} devices",
                        join(dims)
                    ),
                )
            })?;
    }
    Ok(count)
}

/// `a,b,c`.
pub(crate) fn join<T: fmt::Display>(values: &[T]) -> String {
    values
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// The error for an iota transpose `perm` that is not a permutation of
/// `0..rank`, naming its entries as given (negative ones too).
pub(crate) fn not_a_permutation<T: fmt::Display>(perm: &[T], rank: usize) -> ShardingError {
    ShardingError::new(
        ErrorKind::Invalid,
        format!(
            "iota_transpose_perm ({}) is not a permutation of 0..{rank}",
            join(perm)
        ),
    )
}

/// An iota's dimensions split to fit a list of cuts: the pieces of each
/// original dimension (major first), the pieces in transposed order as
/// (dimension, piece), and how many pieces fall in each cut.
type Refinement = (Vec<Vec<i64>>, Vec<(usize, usize)>, Vec<usize>);

impl Iota {
    /// The canonical iota: size-1 dimensions dropped and dimensions that stay
    /// adjacent after the transpose merged (as XLA's `IotaTileAssignment`).
    fn canonical(reshape: &[i64], perm: &[usize]) -> Iota {
        // Drop size-1 dimensions, renumbering the rest.
        let kept: Vec<usize> = (0..reshape.len()).filter(|&d| reshape[d] != 1).collect();
        let renumber = |d: usize| kept.iter().position(|&k| k == d);
        let perm: Vec<usize> = perm.iter().filter_map(|&d| renumber(d)).collect();
        let reshape: Vec<i64> = kept.iter().map(|&d| reshape[d]).collect();
        // Merge runs d, d+1, ... that stay consecutive in the transposed order.
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for &d in &perm {
            match groups.last_mut() {
                Some(g) if g.last() == Some(&(d.wrapping_sub(1))) && d > 0 => g.push(d),
                _ => groups.push(vec![d]),
            }
        }
        let mut order: Vec<usize> = (0..groups.len()).collect();
        order.sort_by_key(|&g| groups[g][0]);
        let mut new_reshape = vec![0; groups.len()];
        let mut new_perm = vec![0; groups.len()];
        for (new_dim, &g) in order.iter().enumerate() {
            new_reshape[new_dim] = groups[g].iter().map(|&d| reshape[d]).product();
            new_perm[g] = new_dim;
        }
        if new_reshape.is_empty() {
            new_reshape.push(1);
            new_perm.push(0);
        }
        let mut strides = vec![1; new_reshape.len()];
        for d in (0..new_reshape.len().saturating_sub(1)).rev() {
            strides[d] = strides[d + 1] * new_reshape[d + 1];
        }
        Iota {
            reshape: new_reshape,
            perm: new_perm,
            strides,
        }
    }

    /// The reshape dimensions.
    pub fn reshape_dims(&self) -> &[i64] {
        &self.reshape
    }

    /// The transpose permutation.
    pub fn transpose_perm(&self) -> &[usize] {
        &self.perm
    }

    /// The sizes of the transposed dimensions, with their original dimension.
    fn transposed(&self) -> impl Iterator<Item = (usize, i64)> + '_ {
        self.perm.iter().map(|&d| (d, self.reshape[d]))
    }

    /// The device at flat (row-major) position `flat` of the grid.
    fn device_at_flat(&self, mut flat: i64) -> i64 {
        let mut device = 0;
        for &d in self.perm.iter().rev() {
            let size = self.reshape[d];
            device += (flat % size) * self.strides[d];
            flat /= size;
        }
        device
    }

    /// The flat grid position of `device` (in range).
    pub(crate) fn flat_of(&self, device: i64) -> i64 {
        let mut flat = 0;
        for &d in &self.perm {
            let index = (device / self.strides[d]) % self.reshape[d];
            flat = flat * self.reshape[d] + index;
        }
        flat
    }

    /// Splits the dimensions so that the transposed sizes refine `cuts`
    /// (sizes whose product is the device count); returns the pieces as
    /// (original dimension, piece within it) per transposed position, and
    /// how many pieces fall in each cut, or `None` when some cut does not
    /// fall on a factor boundary.
    fn refine(&self, cuts: &[i64]) -> Option<Refinement> {
        let mut pieces: Vec<Vec<i64>> = vec![Vec::new(); self.reshape.len()];
        let mut order: Vec<(usize, usize)> = Vec::new();
        let mut per_cut = Vec::new();
        let mut transposed = self.transposed();
        let (mut dim, mut left) = transposed.next()?;
        for &cut in cuts {
            let mut need = cut;
            let mut count = 0;
            while need > 1 {
                if left == 1 {
                    (dim, left) = transposed.next()?;
                    continue;
                }
                let take = if left <= need {
                    if need % left != 0 {
                        return None;
                    }
                    left
                } else {
                    if left % need != 0 {
                        return None;
                    }
                    need
                };
                pieces[dim].push(take);
                order.push((dim, pieces[dim].len() - 1));
                count += 1;
                need /= take;
                left /= take;
            }
            per_cut.push(count);
        }
        Some((pieces, order, per_cut))
    }

    /// Rebuilds an iota from pieces of the original dimensions read in
    /// `order` (transposed order).
    fn from_pieces(pieces: &[Vec<i64>], order: &[(usize, usize)]) -> Iota {
        let mut reshape = Vec::new();
        let mut first = Vec::with_capacity(pieces.len());
        for p in pieces {
            first.push(reshape.len());
            reshape.extend_from_slice(p);
        }
        let perm: Vec<usize> = order.iter().map(|&(d, k)| first[d] + k).collect();
        Iota::canonical(&reshape, &perm)
    }
}

impl TileAssignment {
    /// An iota tile assignment, canonicalized as XLA does
    /// (`<=[2,4]T(0,1)` is `<=[8]`).
    ///
    /// # Errors
    ///
    /// A dimension that is not positive, more than [`MAX_DEVICES`] devices,
    /// products that differ, or a `perm` that is not a permutation.
    pub fn iota(
        dims: Vec<i64>,
        reshape: Vec<i64>,
        perm: Vec<usize>,
    ) -> Result<Self, ShardingError> {
        let count = checked_count(&dims, "tile assignment")?;
        let size = checked_count(&reshape, "iota reshape")?;
        if size != count {
            return Err(ShardingError::new(
                ErrorKind::Invalid,
                format!(
                    "iota tile assignment size {size} does not match the tile assignment dimensions product {count}"
                ),
            ));
        }
        let mut seen = vec![false; reshape.len()];
        if perm.len() != reshape.len() {
            return Err(ShardingError::new(
                ErrorKind::Invalid,
                format!(
                    "iota_transpose_perm should have the same rank as iota_reshape_dims : expected {}, saw {}.",
                    reshape.len(),
                    perm.len()
                ),
            ));
        }
        for &p in &perm {
            if p >= reshape.len() || std::mem::replace(&mut seen[p], true) {
                return Err(not_a_permutation(&perm, reshape.len()));
            }
        }
        Ok(Self {
            dims,
            devices: Devices::Iota(Iota::canonical(&reshape, &perm)),
        })
    }

    /// An explicit tile assignment: `devices` in row-major order of `dims`.
    ///
    /// # Errors
    ///
    /// A dimension that is not positive, or a device count that does not
    /// match the grid (XLA's "sharding device count 2 does not match the
    /// tile assignment size 3").
    pub fn list(dims: Vec<i64>, devices: Vec<i64>) -> Result<Self, ShardingError> {
        let count = checked_count(&dims, "tile assignment")?;
        if i64::try_from(devices.len()).ok() != Some(count) {
            return Err(ShardingError::new(
                ErrorKind::Invalid,
                format!(
                    "sharding device count {} does not match the tile assignment size {count}",
                    devices.len()
                ),
            ));
        }
        Ok(Self {
            dims,
            devices: Devices::List(devices),
        })
    }

    /// The tile grid's dimensions (including subgroup dimensions).
    pub fn dimensions(&self) -> &[i64] {
        &self.dims
    }

    /// Where the devices come from.
    pub fn devices(&self) -> &Devices {
        &self.devices
    }

    /// How many tiles the grid has (the product of its dimensions).
    pub fn num_elements(&self) -> i64 {
        self.dims.iter().product()
    }

    /// The flat row-major position of a grid index.
    fn flat(&self, index: &[i64]) -> Result<i64, ShardingError> {
        if index.len() != self.dims.len() {
            return Err(ShardingError::new(
                ErrorKind::Mismatch,
                format!(
                    "tile index [{}] has {} entries, the tile grid [{}] has {}",
                    join(index),
                    index.len(),
                    join(&self.dims),
                    self.dims.len()
                ),
            ));
        }
        let mut flat = 0;
        for (&i, &d) in index.iter().zip(&self.dims) {
            if !(0..d).contains(&i) {
                return Err(ShardingError::new(
                    ErrorKind::Mismatch,
                    format!(
                        "tile index [{}] is outside the tile grid [{}]",
                        join(index),
                        join(&self.dims)
                    ),
                ));
            }
            flat = flat * d + i;
        }
        Ok(flat)
    }

    /// The grid index of a flat position.
    pub(crate) fn unflat(&self, mut flat: i64) -> Vec<i64> {
        let mut index = vec![0; self.dims.len()];
        for (slot, &d) in index.iter_mut().zip(&self.dims).rev() {
            *slot = flat % d;
            flat /= d;
        }
        index
    }

    /// The device at flat (row-major) position `flat` of the grid, `0 <=
    /// flat < num_elements()`: O(rank) on an iota (XLA's `array()[flat]`,
    /// never materialized). A position outside the grid gives -1.
    ///
    /// ```
    /// use sharding_util::TileAssignment;
    /// let tiles = TileAssignment::iota(vec![2, 4], vec![4, 2], vec![1, 0]).unwrap();
    /// assert_eq!((0..8).map(|f| tiles.device_at_flat(f)).collect::<Vec<_>>(), [0, 2, 4, 6, 1, 3, 5, 7]);
    /// ```
    pub fn device_at_flat(&self, flat: i64) -> i64 {
        if !(0..self.num_elements()).contains(&flat) {
            return -1;
        }
        match &self.devices {
            Devices::Iota(iota) => iota.device_at_flat(flat),
            Devices::List(list) => usize::try_from(flat)
                .ok()
                .and_then(|f| list.get(f).copied())
                .unwrap_or(-1),
        }
    }

    /// Every device in row-major grid order (XLA's `Each`/`array()`, Rust
    /// form: an iterator, O(rank) per device on an iota).
    ///
    /// ```
    /// use sharding_util::TileAssignment;
    /// let tiles = TileAssignment::iota(vec![2, 2], vec![2, 2], vec![1, 0]).unwrap();
    /// assert_eq!(tiles.iter().collect::<Vec<_>>(), [0, 2, 1, 3]);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = i64> + '_ {
        (0..self.num_elements()).map(|f| self.device_at_flat(f))
    }

    /// XLA's `TileAssignment::first`: the device of the first tile.
    ///
    /// ```
    /// use sharding_util::TileAssignment;
    /// assert_eq!(TileAssignment::list(vec![2], vec![5, 4]).unwrap().first(), 5);
    /// ```
    pub fn first(&self) -> i64 {
        self.device_at_flat(0)
    }

    /// XLA's `TileAssignment::UsesDevice`: whether some tile has `device`
    /// (O(1) on an iota, a scan of the list otherwise).
    ///
    /// ```
    /// use sharding_util::TileAssignment;
    /// let tiles = TileAssignment::iota(vec![2, 4], vec![8], vec![0]).unwrap();
    /// assert!(tiles.uses_device(7) && !tiles.uses_device(8));
    /// ```
    pub fn uses_device(&self, device: i64) -> bool {
        match &self.devices {
            Devices::Iota(_) => (0..self.num_elements()).contains(&device),
            Devices::List(list) => list.contains(&device),
        }
    }

    /// The device of the tile at `index` (one entry per grid dimension):
    /// O(rank) on an iota.
    ///
    /// # Errors
    ///
    /// An index of the wrong rank or outside the grid.
    pub fn device_at(&self, index: &[i64]) -> Result<i64, ShardingError> {
        Ok(self.device_at_flat(self.flat(index)?))
    }

    /// The grid index of `device`'s tile, `None` if no tile has it: O(rank)
    /// on an iota, a scan of the list otherwise.
    ///
    /// # Errors
    ///
    /// None today; kept fallible for symmetry with [`Self::device_at`].
    pub fn tile_of(&self, device: i64) -> Result<Option<Vec<i64>>, ShardingError> {
        let flat = match &self.devices {
            Devices::Iota(iota) => {
                if !(0..self.num_elements()).contains(&device) {
                    return Ok(None);
                }
                iota.flat_of(device)
            }
            Devices::List(list) => match list.iter().position(|&d| d == device) {
                Some(p) => i64::try_from(p).unwrap_or(i64::MAX),
                None => return Ok(None),
            },
        };
        Ok(Some(self.unflat(flat)))
    }

    /// The same devices over another grid of the same size (XLA's `Reshape`).
    pub(crate) fn reshaped(&self, dims: Vec<i64>) -> Self {
        Self {
            dims,
            devices: self.devices.clone(),
        }
    }

    /// Every device in row-major grid order, for at most
    /// [`MAX_MATERIALIZED`] devices.
    pub(crate) fn materialize(&self) -> Result<Vec<i64>, ShardingError> {
        let n = self.num_elements();
        match &self.devices {
            Devices::List(list) => Ok(list.clone()),
            Devices::Iota(_) if n > MAX_MATERIALIZED => Err(ShardingError::new(
                ErrorKind::TooLarge,
                format!(
                    "the canonical form of {self} is an explicit list of {n} devices, more than {MAX_MATERIALIZED}"
                ),
            )),
            Devices::Iota(_) => Ok((0..n).map(|f| self.device_at_flat(f)).collect()),
        }
    }

    /// The grid transposed by `perm` (XLA's `Transpose`): symbolic when the
    /// iota's factors line up with the grid (or `perm` is the identity),
    /// else written out.
    pub(crate) fn transposed(&self, perm: &[usize]) -> Result<Self, ShardingError> {
        if perm.iter().enumerate().all(|(i, &p)| i == p) {
            // XLA's `Transpose` keeps a no-op as it is, iota or not.
            return Ok(self.clone());
        }
        let dims: Vec<i64> = perm.iter().map(|&p| self.dims[p]).collect();
        if let Devices::Iota(iota) = &self.devices
            && let Some((pieces, order, per_cut)) = iota.refine(&self.dims)
        {
            let mut starts = Vec::with_capacity(per_cut.len());
            let mut at = 0;
            for &c in &per_cut {
                starts.push(at);
                at += c;
            }
            let new_order: Vec<(usize, usize)> = perm
                .iter()
                .flat_map(|&p| order[starts[p]..starts[p] + per_cut[p]].iter().copied())
                .collect();
            return Ok(Self {
                dims,
                devices: Devices::Iota(Iota::from_pieces(&pieces, &new_order)),
            });
        }
        let list = self.materialize()?;
        let old = self.clone();
        let n = self.num_elements();
        let mut out = Vec::with_capacity(list.len());
        let new = Self {
            dims: dims.clone(),
            devices: Devices::List(Vec::new()),
        };
        for f in 0..n {
            let index = new.unflat(f);
            let mut source = vec![0; index.len()];
            for (k, &p) in perm.iter().enumerate() {
                source[p] = index[k];
            }
            out.push(old.device_at_flat(old.flat(&source)?));
        }
        Self::list(dims, out)
    }

    /// The same grid with the devices of every group along the last
    /// dimension sorted ascending (XLA's `PartialTile` normal form).
    pub(crate) fn sorted_last_groups(&self) -> Result<Self, ShardingError> {
        let group = self.dims.last().copied().unwrap_or(1);
        if let Devices::Iota(iota) = &self.devices {
            let n = self.num_elements();
            if let Some((pieces, mut order, per_cut)) = iota.refine(&[n / group, group]) {
                let tail = per_cut[0];
                order[tail..].sort_unstable();
                return Ok(Self {
                    dims: self.dims.clone(),
                    devices: Devices::Iota(Iota::from_pieces(&pieces, &order)),
                });
            }
        }
        let mut list = self.materialize()?;
        let size = usize::try_from(group).unwrap_or(1).max(1);
        for chunk in list.chunks_mut(size) {
            chunk.sort_unstable();
        }
        Self::list(self.dims.clone(), list)
    }
}

impl fmt::Display for TileAssignment {
    /// `devices=[2,4]<=[8]`, `devices=[2,4]<=[4,2]T(1,0)` or
    /// `devices=[2]0,1`, as XLA's `TileAssignment::ToString`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "devices=[{}]", join(&self.dims))?;
        match &self.devices {
            Devices::Iota(iota) if iota.reshape.len() == 1 => {
                write!(f, "<={}", Brackets(&iota.reshape))
            }
            Devices::Iota(iota) => {
                write!(f, "<={}T({})", Brackets(&iota.reshape), join(&iota.perm))
            }
            Devices::List(list) => f.write_str(&join(list)),
        }
    }
}

/// `[a,b]`.
struct Brackets<'a>(&'a [i64]);

impl fmt::Display for Brackets<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}]", join(self.0))
    }
}
