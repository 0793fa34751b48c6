//! The text form of an [`Explanation`]: one `name: words` line per fact.

use std::fmt;

use index_util::dimension_list as list;

use crate::explain::{ArrayDetails, Details, Explanation, Padding, TileSize, Tiling};

impl fmt::Display for TileSize {
    /// The size, or `*`; padded as one word (left-aligned unless the format
    /// says otherwise, a size too).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Size(d) if f.width().is_none() && f.precision().is_none() => write!(f, "{d}"),
            Self::Size(d) => f.pad(&d.to_string()),
            Self::Combined => f.pad("*"),
        }
    }
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "shape: {}", self.shape)?;
        match &self.details {
            Details::Array(array) => self.fmt_array(f, array),
            Details::Other { tuple_elements } => {
                writeln!(f, "kind: {}", self.element_type)?;
                if let Some(count) = tuple_elements {
                    writeln!(f, "elements: {count}")?;
                }
                write!(f, "byte size: {} (8-byte pointers)", self.byte_size)
            }
        }
    }
}

impl Explanation {
    fn fmt_array(&self, f: &mut fmt::Formatter<'_>, array: &ArrayDetails) -> fmt::Result {
        let elements = self.element_count.unwrap_or_default();
        writeln!(
            f,
            "element type: {} ({} bits)",
            self.element_type, array.bits
        )?;
        writeln!(
            f,
            "rank: {} (true rank {})",
            self.rank.unwrap_or_default(),
            self.true_rank.unwrap_or_default()
        )?;
        writeln!(f, "elements: {elements}")?;
        writeln!(f, "byte size: {}", self.byte_size)?;
        writeln!(f, "layout: {}", self.layout_words(array))?;
        let buffer_size = self.buffer_size.unwrap_or_default();
        if let Some(tiling) = &array.tiling {
            writeln!(f, "tiles: {}", self.tile_words(tiling))?;
            writeln!(
                f,
                "buffer size: {buffer_size} bytes ({} positions for {elements} elements, {} bits each)",
                tiling.buffer_len, tiling.element_size_in_bits,
            )?;
            writeln!(f, "strides: none (a tiled buffer has no strides)")?;
        } else {
            writeln!(f, "buffer size: {buffer_size} bytes")?;
        }
        if let (Some(strides), Some(byte_strides)) = (&self.strides, &self.byte_strides) {
            writeln!(
                f,
                "strides: {} elements, {} bytes",
                list(strides),
                list(byte_strides)
            )?;
        }
        match &array.padding {
            Padding::Classic { value, positions } => write!(
                f,
                "padding: padded to {} with {} ({positions} positions for {elements} elements)",
                list(self.padded_dimensions.as_deref().unwrap_or_default()),
                value.as_str_name(),
            )?,
            Padding::Tiles { positions } => write!(
                f,
                "padding: {positions} positions of tile and tail padding (any value)"
            )?,
            Padding::None => write!(f, "padding: none")?,
        }
        if let Some(memory) = &array.memory {
            write!(f, "\nmemory: {}", memory.join(" "))?;
        }
        Ok(())
    }

    /// `major to minor: dim 1 (size 3), dim 0 (size 2)`.
    fn layout_words(&self, array: &ArrayDetails) -> String {
        let major_to_minor = self.major_to_minor.as_deref().unwrap_or_default();
        if major_to_minor.is_empty() {
            return "none needed (a scalar)".to_owned();
        }
        let dims: Vec<String> = major_to_minor
            .iter()
            .map(|&d| {
                let size = usize::try_from(d)
                    .ok()
                    .and_then(|d| array.dimensions.get(d))
                    .copied()
                    .unwrap_or_default();
                format!("dim {d} (size {size})")
            })
            .collect();
        format!("major to minor: {}", dims.join(", "))
    }

    /// `T(8,128)(2,1)` in words: `8x128 tiles over the 2 most minor
    /// dimensions, then 2x1 tiles over the 2 most minor dimensions of the
    /// result`.
    fn tile_words(&self, tiling: &Tiling) -> String {
        let tiles = self.tiles.as_deref().unwrap_or_default();
        let mut words = Vec::new();
        for (level, tile) in tiles.iter().enumerate() {
            let sizes: Vec<String> = tile.iter().map(TileSize::to_string).collect();
            let over = match (level, tile.len()) {
                (0, 1) => "the most minor dimension".to_owned(),
                (0, n) => format!("the {n} most minor dimensions"),
                (_, 1) => "the most minor dimension of the result".to_owned(),
                (_, n) => format!("the {n} most minor dimensions of the result"),
            };
            let then = if level == 0 { "" } else { "then " };
            words.push(format!("{then}{} tiles over {over}", sizes.join("x")));
        }
        let mut text = words.join(", ");
        if tiles.iter().flatten().any(|t| *t == TileSize::Combined) {
            text.push_str(" (* combines a dimension with the next more minor one)");
        }
        if let Some(dims) = &tiling.first_tile_dimensions {
            text.push_str(&format!("; laid out as {}", list(dims)));
            if tiles.len() > 1 {
                text.push_str(&format!(", then {}", list(&tiling.buffer_dimensions)));
            }
        }
        text
    }
}
