//! The relayout cases of the bench report, each with the bound on
//! its time over a plain copy of the same bytes.

use stride_util::StridedView;

/// The element types moved (f32 and f64 move as their bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Element {
    /// One byte.
    U8,
    /// f32.
    F32,
    /// f64.
    F64,
}

impl Element {
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Element::U8 => 1,
            Element::F32 => 4,
            Element::F64 => 8,
        }
    }
}

/// One relayout: `dst = src.transpose(perm)` copied, numpy's semantics
/// (`dst.shape[k] == src.shape[perm[k]]`), both row-major.
#[derive(Clone, Debug)]
pub struct Case {
    /// Short name for `--cases`.
    pub id: &'static str,
    /// The name in the bench report (and numpy_relayout.py).
    pub name: &'static str,
    /// The element type.
    pub element: Element,
    /// The source shape.
    pub shape: &'static [usize],
    /// The permutation.
    pub perm: &'static [usize],
    /// The `transpose` crate's split: `(batch, height, width)`, one
    /// `height × width` matrix transposed per batch entry.
    pub matrices: (usize, usize, usize),
    /// The bound on our time ÷ the copy's on 1 and 2 threads
    /// (see [`Case::bound_on`] for more).
    pub bound: f64,
}

/// The bound on 4 or more threads for the cases of 16 MiB or more.
pub const MANY_CORE_BOUND: f64 = 1.3;

/// Every case, in the bench report's order.
pub const CASES: &[Case] = &[
    Case {
        id: "f32-4096",
        name: "transpose f32[4096,4096]",
        element: Element::F32,
        shape: &[4096, 4096],
        perm: &[1, 0],
        matrices: (1, 4096, 4096),
        bound: 1.5,
    },
    Case {
        id: "f64-2048",
        name: "transpose f64[2048,2048]",
        element: Element::F64,
        shape: &[2048, 2048],
        perm: &[1, 0],
        matrices: (1, 2048, 2048),
        bound: 1.5,
    },
    Case {
        id: "u8-8192",
        name: "transpose u8[8192,8192]",
        element: Element::U8,
        shape: &[8192, 8192],
        perm: &[1, 0],
        matrices: (1, 8192, 8192),
        bound: 2.0,
    },
    Case {
        id: "permute-256",
        name: "permute (2,0,1) f32[256,256,256]",
        element: Element::F32,
        shape: &[256, 256, 256],
        perm: &[2, 0, 1],
        matrices: (1, 256 * 256, 256),
        bound: 1.5,
    },
    Case {
        id: "nchw",
        name: "NCHW->NHWC f32[32,64,56,56]",
        element: Element::F32,
        shape: &[32, 64, 56, 56],
        perm: &[0, 2, 3, 1],
        matrices: (32, 64, 56 * 56),
        bound: 1.3,
    },
    Case {
        id: "f32-1024",
        name: "transpose f32[1024,1024]",
        element: Element::F32,
        shape: &[1024, 1024],
        perm: &[1, 0],
        matrices: (1, 1024, 1024),
        bound: 2.0,
    },
];

impl Case {
    /// The destination shape.
    pub fn dst_shape(&self) -> Vec<usize> {
        self.perm.iter().map(|&p| self.shape[p]).collect()
    }

    /// Elements in the array.
    pub fn elements(&self) -> usize {
        self.shape.iter().product()
    }

    /// Bytes in either buffer.
    pub fn bytes(&self) -> usize {
        self.elements() * self.element.size()
    }

    /// The bound on our time ÷ the copy's on `threads` threads:
    /// [`Case::bound`] on 1 and 2, and on a many-core machine's 4 or more
    /// at most [`MANY_CORE_BOUND`] for every case of 16 MiB or more.
    pub fn bound_on(&self, threads: usize) -> f64 {
        if threads >= 4 && self.bytes() >= 16 << 20 {
            self.bound.min(MANY_CORE_BOUND)
        } else {
            self.bound
        }
    }

    /// Our views: the permuted row-major source, the row-major destination.
    pub fn views(&self) -> Result<(StridedView, StridedView), String> {
        let sizes = to_i64(self.shape);
        let axes = to_i64(self.perm);
        let src = StridedView::row_major(&sizes)
            .and_then(|v| v.permute(&axes))
            .map_err(|e| format!("{}: {e}", self.name))?;
        let dst = StridedView::row_major(&to_i64(&self.dst_shape()))
            .map_err(|e| format!("{}: {e}", self.name))?;
        Ok((src, dst))
    }

    /// The source bytes: element `i` is `i` (as f32/f64, exact below
    /// 2^24; `i % 251` for u8), so every misplaced element shows.
    pub fn source(&self) -> Vec<u8> {
        let n = self.elements();
        let mut bytes = Vec::with_capacity(self.bytes());
        for i in 0..n {
            match self.element {
                Element::U8 => bytes.push((i % 251) as u8),
                Element::F32 => bytes.extend_from_slice(&(i as f32).to_le_bytes()),
                Element::F64 => bytes.extend_from_slice(&(i as f64).to_le_bytes()),
            }
        }
        bytes
    }

    /// The expected destination, by a plain index loop independent of
    /// every function measured.
    pub fn expected(&self, src: &[u8]) -> Vec<u8> {
        let es = self.element.size();
        let dst_shape = self.dst_shape();
        let nd = self.shape.len();
        let mut src_strides = vec![1usize; nd];
        for d in (0..nd.saturating_sub(1)).rev() {
            src_strides[d] = src_strides[d + 1] * self.shape[d + 1];
        }
        // Stride in the source of each destination dimension.
        let strides: Vec<usize> = self.perm.iter().map(|&p| src_strides[p]).collect();
        let mut out = Vec::with_capacity(src.len());
        let mut index = vec![0usize; nd];
        let mut offset = 0usize;
        for _ in 0..self.elements() {
            out.extend_from_slice(&src[offset * es..(offset + 1) * es]);
            for d in (0..nd).rev() {
                index[d] += 1;
                offset += strides[d];
                if index[d] < dst_shape[d] {
                    break;
                }
                offset -= strides[d] * dst_shape[d];
                index[d] = 0;
            }
        }
        out
    }
}

fn to_i64(values: &[usize]) -> Vec<i64> {
    values.iter().map(|&v| v as i64).collect()
}
