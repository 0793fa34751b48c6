//! A function the harness measures, and the casts the peers' closures
//! use to see the byte buffers as elements.

use std::time::Duration;

/// A function measured: `run(src, dst)` writes the relayout (or the copy)
/// of `src` into `dst`.
pub struct Function<'a> {
    /// Its name in the JSON and the table.
    pub name: &'static str,
    /// The call.
    pub run: Run<'a>,
    /// How long the harness sleeps after each of its measurements: the
    /// threads an OpenMP peer leaves spinning (libgomp's default wait
    /// policy spins for milliseconds before it sleeps) would otherwise
    /// take the CPUs of whatever is measured next (on 16 threads of a
    /// 16-CPU machine, a pooled copy measured after hptt took 2.0–5.5
    /// times its time on 8 threads in five of the six cases).
    pub settle: Duration,
}

impl<'a> Function<'a> {
    /// A function measured with no pause after it.
    pub fn new(name: &'static str, run: Run<'a>) -> Self {
        Function {
            name,
            run,
            settle: Duration::ZERO,
        }
    }
}

/// A call from source bytes to destination bytes.
pub type Run<'a> = Box<dyn FnMut(&[u8], &mut [u8]) -> Result<(), String> + 'a>;

/// Casts bytes to elements (every buffer here is at least 16-byte aligned).
pub fn cast<T: bytemuck::Pod>(bytes: &[u8]) -> Result<&[T], String> {
    bytemuck::try_cast_slice(bytes).map_err(|e| format!("cast: {e:?}"))
}

/// The same, mutable.
pub fn cast_mut<T: bytemuck::Pod>(bytes: &mut [u8]) -> Result<&mut [T], String> {
    bytemuck::try_cast_slice_mut(bytes).map_err(|e| format!("cast: {e:?}"))
}
