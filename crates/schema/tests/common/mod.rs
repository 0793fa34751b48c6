//! Helpers shared by the schema crate's integration tests.

/// Runs `f` on a thread with a 2 MiB stack (the default for test threads),
/// so that a test proves its input cannot overflow an ordinary stack.
#[allow(clippy::unwrap_used)]
pub fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}
