//! The intermediates a thread keeps between relayouts: each module that
//! goes through one has its own thread-local buffer, taken for a relayout
//! and given back after it, grown as needed and kept only up to a size of
//! the module's choosing (so that a relayout allocates and faults in no
//! pages for it, and a thread holds no array-sized buffer).

use std::cell::RefCell;
use std::thread::LocalKey;

/// A thread's intermediate (`thread_local!`).
pub(crate) type Scratch = RefCell<Vec<u8>>;

/// Runs `f` on `bytes` bytes of the thread's intermediate `key` (a fresh
/// one if it is in use, as in a nested relayout), keeping it afterwards if
/// it is at most `keep` bytes.
pub(crate) fn with_scratch<T>(
    key: &'static LocalKey<Scratch>,
    bytes: usize,
    keep: usize,
    f: impl FnOnce(&mut [u8]) -> T,
) -> T {
    key.with(|cell| {
        let mut buffer = cell.take();
        if buffer.len() < bytes {
            buffer.resize(bytes, 0);
        }
        let out = f(&mut buffer[..bytes]);
        if buffer.len() <= keep {
            cell.replace(buffer);
        }
        out
    })
}
