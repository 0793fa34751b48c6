//! Buffers placed at a chosen distance past a 64-byte line, or as `Vec`
//! allocates them.

/// Where a configuration's two buffers start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// `src` and `dst` start this many bytes past a 64-byte line.
    Line {
        /// Source offset in bytes (0, 16, 32 or 48 in the issue).
        src: usize,
        /// Destination offset in bytes.
        dst: usize,
    },
    /// Two plain `Vec<u8>`s as the allocator returns them.
    Vec,
}

impl Placement {
    /// `"line"` or `"vec"`, the JSON `placement` field.
    pub fn kind(self) -> &'static str {
        match self {
            Placement::Line { .. } => "line",
            Placement::Vec => "vec",
        }
    }
}

/// Parses `--offsets`: `all` (every pair of 0, 16, 32, 48, then `vec`) or a
/// comma list of `SRC:DST` byte offsets (below 64) and `vec`.
pub fn parse_offsets(text: &str) -> Result<Vec<Placement>, String> {
    if text == "all" {
        let mut all = Vec::new();
        for src in [0, 16, 32, 48] {
            for dst in [0, 16, 32, 48] {
                all.push(Placement::Line { src, dst });
            }
        }
        all.push(Placement::Vec);
        return Ok(all);
    }
    text.split(',')
        .map(|item| {
            if item == "vec" {
                return Ok(Placement::Vec);
            }
            let (src, dst) = item
                .split_once(':')
                .ok_or_else(|| format!("--offsets: {item:?} is not SRC:DST or vec"))?;
            let parse = |v: &str| -> Result<usize, String> {
                match v.parse::<usize>() {
                    Ok(n) if n < 64 => Ok(n),
                    _ => Err(format!("--offsets: {v:?} is not a byte offset below 64")),
                }
            };
            Ok(Placement::Line {
                src: parse(src)?,
                dst: parse(dst)?,
            })
        })
        .collect()
}

/// A buffer of `len` bytes with 64 bytes of slack before, so that a slice
/// can start at any offset past a line.
pub struct Slack {
    bytes: Vec<u8>,
    len: usize,
}

impl Slack {
    /// A zeroed buffer for slices of `len` bytes.
    pub fn new(len: usize) -> Self {
        Slack {
            bytes: vec![0; len + 128],
            len,
        }
    }

    fn start(&self, offset: usize) -> usize {
        let misalign = self.bytes.as_ptr() as usize % 64;
        (64 - misalign) % 64 + offset
    }

    /// The `len` bytes starting `offset` bytes past a 64-byte line.
    pub fn at(&self, offset: usize) -> &[u8] {
        let start = self.start(offset);
        &self.bytes[start..start + self.len]
    }

    /// The same, mutable.
    pub fn at_mut(&mut self, offset: usize) -> &mut [u8] {
        let start = self.start(offset);
        let len = self.len;
        &mut self.bytes[start..start + len]
    }
}

/// The destinations of `count` functions at `placement`, `len` bytes
/// each: slices of `slacks` at the placement's offset, or plain `Vec`s in
/// `vecs` (both grown to `count` as needed, so that later calls reuse them).
pub fn destinations<'a>(
    placement: Placement,
    count: usize,
    len: usize,
    slacks: &'a mut Vec<Slack>,
    vecs: &'a mut Vec<Vec<u8>>,
) -> Vec<&'a mut [u8]> {
    match placement {
        Placement::Line { dst, .. } => {
            slacks.resize_with(slacks.len().max(count), || Slack::new(len));
            slacks
                .iter_mut()
                .take(count)
                .map(|s| s.at_mut(dst))
                .collect()
        }
        Placement::Vec => {
            vecs.resize_with(vecs.len().max(count), || vec![0; len]);
            vecs.iter_mut().take(count).map(Vec::as_mut_slice).collect()
        }
    }
}

/// Bytes past the last 64-byte line of a slice's start.
pub fn line_offset(bytes: &[u8]) -> usize {
    bytes.as_ptr() as usize % 64
}
