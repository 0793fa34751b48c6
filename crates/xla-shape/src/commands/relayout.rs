//! `relayout`: the raw bytes of a buffer of one XLA layout rewritten in
//! another layout of the same array (tiled, untiled, classically padded,
//! packed `E(n)`).

use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;

use relayout::{FromTo, RelayoutError, RelayoutPlan, output_buffer, rayon, same_array};
use schema::Shape;
use serde_json::json;

use super::{Outcome, shape};
use crate::cli::RelayoutArgs;

/// The bytes of a buffer of `shape`: what XLA allocates
/// ([`index_util::TiledLayout::array_size`]), and that size as the length
/// of the slice that holds it.
fn buffer_size(shape: &Shape) -> Result<(i64, usize), String> {
    let bytes = index_util::TiledLayout::array_size(shape).map_err(|e| e.to_string())?;
    let len = usize::try_from(bytes).map_err(|_| {
        format!(
            "a buffer of {} has {bytes} bytes, more than this machine addresses",
            shape.human_string_with_layout()
        )
    })?;
    Ok((bytes, len))
}

/// Reads the source buffer, relayouts it (on `--threads` threads) and
/// writes the destination buffer; nothing is written unless everything
/// succeeded. The plain line and JSON fields describe what was written
/// (reported only with `--output`, as standard output otherwise carries
/// the bytes).
pub fn run(args: &RelayoutArgs) -> Outcome {
    let (src_shape, dst_shape) = (shape(&args.src)?, shape(&args.dst)?);
    if !same_array(&src_shape, &dst_shape) {
        return Err(format!(
            "source {} and destination {} are not the same array: element types and dimensions must match",
            src_shape.human_string_with_layout(),
            dst_shape.human_string_with_layout()
        ));
    }
    let err = |e: RelayoutError| e.to_string();
    let (src_bytes, src_len) = buffer_size(&src_shape)?;
    let src = read_input(args.input.as_deref(), src_len, &args.src)?;
    let shapes = FromTo {
        from: &src_shape,
        to: &dst_shape,
    };
    // Sized and checked against the input (and a cap) before it is allocated.
    let mut dst = output_buffer(shapes, src_bytes).map_err(err)?;
    let dst_bytes = dst.len();
    let plan = RelayoutPlan::xla(shapes).map_err(err)?;
    match args.threads.get().min(max_threads()) {
        1 => plan.run(&src, &mut dst).map_err(err)?,
        threads => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .map_err(|e| format!("cannot start {threads} threads: {e}"))?;
            plan.run_in(&pool, &src, &mut dst).map_err(err)?;
        }
    }
    drop(src);
    match &args.output {
        Some(path) => write_file(path, &dst)?,
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(&dst)
                .and_then(|()| stdout.flush())
                .map_err(|e| format!("cannot write standard output: {e}"))?;
        }
    }
    let output = args.output.as_ref().map(|p| p.display().to_string());
    Ok((
        format!(
            "wrote {dst_bytes} bytes of {} to {}",
            dst_shape.human_string_with_layout(),
            output.as_deref().unwrap_or("standard output")
        ),
        json!({
            "source": src_shape.human_string_with_layout(),
            "destination": dst_shape.human_string_with_layout(),
            "bytes_read": src_bytes,
            "bytes_written": dst_bytes,
            "output": output,
        }),
    ))
}

/// How many threads each CPU may run: `--threads` above this times the
/// machine's parallelism runs on that many (more would only wait for a
/// CPU, and starting a million threads takes longer than any copy).
const THREADS_PER_CPU: usize = 4;

/// The most threads a relayout runs on: [`THREADS_PER_CPU`] times the
/// parallelism the system offers this process (1 if it cannot say).
fn max_threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .saturating_mul(THREADS_PER_CPU)
}

/// The most bytes reserved before an input's bytes arrive.
const INITIAL_READ_CAPACITY: usize = 64 << 20;

/// Exactly `expected` bytes from `path` or standard input.
pub(super) fn read_input(
    path: Option<&Path>,
    expected: usize,
    src: &str,
) -> Result<Vec<u8>, String> {
    let wrong_size = |name: &str, actual: String| {
        format!("{name} has {actual} bytes but a buffer of {src} has {expected}")
    };
    let (name, reader): (String, Box<dyn Read>) = match path {
        Some(path) => {
            let file = File::open(path)
                .map_err(|e| format!("cannot open input {}: {e}", path.display()))?;
            let name = path.display().to_string();
            // A regular file of the wrong size is refused before reading.
            if let Ok(meta) = file.metadata()
                && meta.is_file()
                && usize::try_from(meta.len()).ok() != Some(expected)
            {
                return Err(wrong_size(&name, meta.len().to_string()));
            }
            (name, Box::new(file))
        }
        None => (
            "standard input".to_owned(),
            Box::new(std::io::stdin().lock()),
        ),
    };
    // Grown as the bytes arrive: a stream shorter than a huge shape costs
    // only what it holds.
    let mut bytes = Vec::with_capacity(expected.min(INITIAL_READ_CAPACITY));
    // One byte more than expected tells a long input from an exact one.
    let limit = u64::try_from(expected)
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    reader
        .take(limit)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {name}: {e}"))?;
    if bytes.len() != expected {
        let actual = if bytes.len() > expected {
            format!("more than {expected}")
        } else {
            bytes.len().to_string()
        };
        return Err(wrong_size(&name, actual));
    }
    Ok(bytes)
}

/// Writes `bytes` where `path` points ([`super::files::write_output`]): a
/// regular file is left as it was on failure.
pub(super) fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    super::files::write_output(path, bytes)
        .map_err(|e| format!("cannot write output {}: {e}", path.display()))
}
