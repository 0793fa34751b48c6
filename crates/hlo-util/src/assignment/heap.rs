//! XLA's replay of the heap simulator's events (`ComputePeakMemoryImpl`):
//! reference counts per logical buffer, SHARE_WITH linking a buffer to the
//! root of the one whose storage it takes.

use super::bytes::add_bytes;

/// A heap event with its buffers resolved to value indices (32 bits: a
/// dump, at most 2 GiB, numbers fewer values), 12 bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Event {
    /// ALLOC of a value.
    Alloc(u32),
    /// FREE of a value.
    Free(u32),
    /// SHARE_WITH: a value takes the storage of another.
    ShareWith(u32, u32),
}

/// A value index of an [`Event`] as an index.
pub(crate) fn index(v: u32) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

/// Why an event could not be replayed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HeapFault {
    /// The live bytes pass `i64::MAX`.
    Overflow,
    /// A FREE of a buffer whose storage is not allocated.
    FreeUnallocated,
    /// SHARE_WITH links that go round in a circle.
    Cycle,
}

/// The live bytes and each buffer's reference count and link.
#[derive(Debug, Clone)]
pub(crate) struct Heap {
    sizes: Vec<u64>,
    refs: Vec<u64>,
    under: Vec<Option<usize>>,
    memory: u64,
}

impl Heap {
    /// A heap over buffers of `sizes` bytes where `live` (the static
    /// baseline's buffers, `baseline` bytes) are allocated.
    pub fn new(sizes: Vec<u64>, baseline: u64, live: &[usize]) -> Self {
        let mut refs = vec![0; sizes.len()];
        for &b in live {
            if let Some(r) = refs.get_mut(b) {
                *r = 1;
            }
        }
        let under = vec![None; sizes.len()];
        Self {
            sizes,
            refs,
            under,
            memory: baseline,
        }
    }

    /// The live bytes.
    pub fn memory(&self) -> u64 {
        self.memory
    }

    /// ALLOC: one more reference; the bytes count from the first. The
    /// buffer whose storage this allocates, if any.
    pub fn alloc(&mut self, b: usize) -> Result<Option<usize>, HeapFault> {
        self.take(b)
    }

    /// FREE: the buffer leaves its root's storage; the bytes go with the
    /// root's last reference. The root whose storage this frees, if any.
    pub fn free(&mut self, b: usize) -> Result<Option<usize>, HeapFault> {
        let root = self.root(b)?;
        if let Some(link) = self.under.get_mut(b) {
            *link = None;
        }
        let refs = self.refs.get_mut(root).ok_or(HeapFault::FreeUnallocated)?;
        *refs = refs.checked_sub(1).ok_or(HeapFault::FreeUnallocated)?;
        if *refs > 0 {
            return Ok(None);
        }
        let size = self.sizes.get(root).copied().unwrap_or(0);
        self.memory = self
            .memory
            .checked_sub(size)
            .ok_or(HeapFault::FreeUnallocated)?;
        Ok(Some(root))
    }

    /// SHARE_WITH: the buffer takes the storage of `canonical`'s root. The
    /// root, if this allocates its storage again.
    pub fn share(&mut self, b: usize, canonical: usize) -> Result<Option<usize>, HeapFault> {
        let root = self.root(canonical)?;
        if root == b {
            return Err(HeapFault::Cycle);
        }
        if let Some(link) = self.under.get_mut(b) {
            *link = Some(root);
        }
        self.take(root)
    }

    /// The buffers whose storage is allocated (reference count above 0).
    pub fn live(&self) -> impl Iterator<Item = usize> + '_ {
        self.refs
            .iter()
            .enumerate()
            .filter(|&(_, &r)| r > 0)
            .map(|(b, _)| b)
    }

    /// One more reference to `b`; `b` when its storage is allocated by it.
    fn take(&mut self, b: usize) -> Result<Option<usize>, HeapFault> {
        let refs = self.refs.get_mut(b).ok_or(HeapFault::Overflow)?;
        *refs = refs.checked_add(1).ok_or(HeapFault::Overflow)?;
        if *refs > 1 {
            return Ok(None);
        }
        let size = self.sizes.get(b).copied().unwrap_or(0);
        self.memory = add_bytes(self.memory, size).ok_or(HeapFault::Overflow)?;
        Ok(Some(b))
    }

    /// The end of `b`'s links, found without recursion; a circle is a fault.
    fn root(&self, b: usize) -> Result<usize, HeapFault> {
        let mut at = b;
        for _ in 0..=self.under.len() {
            match self.under.get(at).copied().flatten() {
                Some(next) => at = next,
                None => return Ok(at),
            }
        }
        Err(HeapFault::Cycle)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_storage_counts_once_and_leaves_with_its_last_user() {
        let mut heap = Heap::new(vec![10, 20, 30], 10, &[0]);
        assert_eq!(heap.alloc(1), Ok(Some(1)));
        assert_eq!(heap.memory(), 30);
        assert_eq!(heap.share(2, 1), Ok(None));
        assert_eq!(heap.memory(), 30);
        assert_eq!(heap.free(1), Ok(None));
        assert_eq!(heap.memory(), 30);
        assert_eq!(heap.live().collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!(heap.free(2), Ok(Some(1)));
        assert_eq!(heap.memory(), 10);
        assert_eq!(heap.free(2), Err(HeapFault::FreeUnallocated));
        assert_eq!(heap.share(1, 1), Err(HeapFault::Cycle));
    }

    #[test]
    fn overflow_is_a_fault() {
        let mut heap = Heap::new(vec![super::super::bytes::MAX_BYTES, 1], 0, &[]);
        heap.alloc(0).unwrap();
        assert_eq!(heap.alloc(1), Err(HeapFault::Overflow));
    }
}
