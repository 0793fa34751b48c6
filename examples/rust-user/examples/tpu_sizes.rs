//! The bytes XLA allocates for TPU's tiled layouts: `ByteSizeOf` (the data)
//! against `ArraySize` (the buffer, tile padding included), and how much of
//! each buffer is padding.

use schema::Shape;

/// A shape, its data bytes and the bytes XLA allocates for it.
const SIZES: [(&str, i64, i64); 4] = [
    // f32 in (8,128) tiles: 10 rows fill two tiles of 8, 200 columns two of 128.
    ("f32[10,200]{1,0:T(8,128)}", 8000, 16384),
    // bf16 pairs of rows packed into 32-bit words: (8,128) tiles, then (2,1).
    ("bf16[10,200]{1,0:T(8,128)(2,1)}", 4000, 8192),
    // A narrow minor dimension: 4 columns of 128 used.
    ("s32[1000,4]{1,0:T(8,128)}", 16000, 512000),
    // Already a whole number of tiles: no padding.
    ("f32[16,256]{1,0:T(8,128)}", 16384, 16384),
];

fn main() -> anyhow::Result<()> {
    println!(
        "{:<34} {:>6} {:>9} {:>7}",
        "shape", "bytes", "allocated", "padding"
    );
    for (text, data, allocated) in SIZES {
        let shape: Shape = text.parse()?;
        let bytes = shape_util::byte_size_of(&shape, None)?;
        let buffer = shape_util::array_size(&shape)?;
        let padding = buffer.checked_sub(bytes).unwrap_or_default();
        println!("{text:<34} {bytes:>6} {buffer:>9} {padding:>7}");
        assert_eq!((bytes, buffer), (data, allocated), "{text}");
        // The buffer's own reckoning agrees.
        let layout = index_util::TiledLayout::new(&shape)?;
        assert_eq!(layout.buffer_size_in_bytes(), allocated, "{text}");
    }
    // Without tiles, XLA allocates exactly the data.
    let plain: Shape = "bf16[10,200]".parse()?;
    assert_eq!(shape_util::array_size(&plain)?, 4000);
    Ok(())
}

rust_user::test_main!();
