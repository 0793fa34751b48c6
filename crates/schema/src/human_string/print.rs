//! The printer: [`Display`] for the schema types, in XLA's format.

use std::fmt::{self, Display, Formatter, Write as _};

use crate::{
    COMBINE_DIMENSION, Layout, PaddingValue, PrimitiveType, ProgramShape, Shape, ShapeIndex,
    SplitConfig, Tile, UNBOUNDED_SIZE,
};

impl Shape {
    /// The shape without its layout (XLA's `ShapeUtil::HumanString`), as
    /// XLA's error messages show it.
    ///
    /// ```
    /// let shape: schema::Shape = "(f32[2,3]{0,1}, s32[<=4])".parse().unwrap();
    /// assert_eq!(shape.human_string(), "(f32[2,3], s32[<=4])");
    /// ```
    pub fn human_string(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = write_shape(&mut out, self, false);
        out
    }

    /// [`Self::human_string`], followed by the element type's number where
    /// it names no type of the schema (XLA prints those as
    /// `primitive_type_invalid`): the shape as an error quotes it, keeping
    /// the offending value.
    ///
    /// ```
    /// let mut shape: schema::Shape = "f32[2]".parse().unwrap();
    /// assert_eq!(shape.human_string_naming_type(), "f32[2]");
    /// shape.element_type = 9999;
    /// assert_eq!(shape.human_string_naming_type(), "primitive_type_invalid[] (element type 9999)");
    /// ```
    pub fn human_string_naming_type(&self) -> String {
        let mut out = self.human_string();
        if PrimitiveType::try_from(self.element_type).is_err() {
            // Writing into a String cannot fail.
            let _ = write!(out, " (element type {})", self.element_type);
        }
        out
    }

    /// The shape with its layout (XLA's `ShapeUtil::HumanStringWithLayout`);
    /// the same text as [`Display`].
    pub fn human_string_with_layout(&self) -> String {
        self.to_string()
    }
}

/// Prints the shape with its layout, as XLA's `HumanStringWithLayout`.
impl Display for Shape {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_shape(f, self, true)
    }
}

/// Prints the layout as XLA's `Layout::ToString`: `{1,0:T(8,128)E(4)}`.
impl Display for Layout {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_layout(f, self)
    }
}

/// Prints the tile as XLA does: `(8,128)`, `(2,*)`.
impl Display for Tile {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_char('(')?;
        for (i, &d) in self.dimensions.iter().enumerate() {
            if i > 0 {
                f.write_char(',')?;
            }
            if d >= 0 {
                write!(f, "{d}")?;
            } else if d == COMBINE_DIMENSION {
                f.write_char('*')?;
            } else {
                write!(f, "Invalid value {d}")?;
            }
        }
        f.write_char(')')
    }
}

/// Prints the split config as XLA does: `(1:0,4)`.
impl Display for SplitConfig {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "({}:", self.dimension)?;
        write_joined(f, &self.split_indices, ",")?;
        f.write_char(')')
    }
}

/// Prints the index as XLA's `ShapeIndex::ToString`: `{0,2}`.
impl Display for ShapeIndex {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_char('{')?;
        write_joined(f, &self.indexes, ",")?;
        f.write_char('}')
    }
}

/// Prints the program shape as XLA's `ShapeUtil::HumanString(ProgramShape)`:
/// `(x: f32[2], (unknown): s32[]) -> f32[2]`, without layouts; a missing or
/// empty parameter name prints as `(unknown)`.
impl Display for ProgramShape {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_char('(')?;
        for (i, parameter) in self.parameters.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            let name = self
                .parameter_names
                .get(i)
                .filter(|name| !name.is_empty())
                .map_or("(unknown)", String::as_str);
            write!(f, "{name}: ")?;
            write_shape(f, parameter, false)?;
        }
        f.write_str(") -> ")?;
        write_shape(f, self.result.as_ref().unwrap_or(&Shape::default()), false)
    }
}

/// Writes `shape` as XLA's `HumanString` (`with_layout == false`) or
/// `HumanStringWithLayout`.
fn write_shape(out: &mut impl fmt::Write, shape: &Shape, with_layout: bool) -> fmt::Result {
    let element_type = PrimitiveType::try_from(shape.element_type).unwrap_or_default();
    match element_type {
        PrimitiveType::Tuple => {
            out.write_char('(')?;
            for (i, element) in shape.tuple_shapes.iter().enumerate() {
                write_element_separator(out, i)?;
                write_shape(out, element, with_layout)?;
            }
            return out.write_char(')');
        }
        PrimitiveType::Buffer => {
            out.write_str("b(")?;
            if let Some(inner) = shape.tuple_shapes.first() {
                write_shape(out, inner, with_layout)?;
            }
            return out.write_char(')');
        }
        _ => {}
    }
    out.write_str(element_type.lowercase_name())?;
    out.write_char('[')?;
    if element_type.is_array_type() {
        for (i, &size) in shape.dimensions.iter().enumerate() {
            if i > 0 {
                out.write_char(',')?;
            }
            let dynamic = shape.is_dynamic_dimension.get(i).copied().unwrap_or(false);
            match (dynamic, size) {
                (true, UNBOUNDED_SIZE) => out.write_char('?')?,
                (true, _) => write!(out, "<={size}")?,
                (false, _) => write!(out, "{size}")?,
            }
        }
    }
    out.write_char(']')?;
    if !with_layout || !element_type.is_array_type() {
        return Ok(());
    }
    if let Some(layout) = &shape.layout {
        let text = layout.to_string();
        // A scalar's empty layout `{}` is not printed.
        if !shape.dimensions.is_empty() || text != "{}" {
            out.write_str(&text)?;
        }
    }
    Ok(())
}

/// What XLA writes before the tuple element number `i`: `, ` after the
/// first, and every fifth's number (`, /*index=5*/`).
pub(super) fn write_element_separator(out: &mut impl fmt::Write, i: usize) -> fmt::Result {
    if i > 0 {
        out.write_str(", ")?;
        if i.is_multiple_of(5) {
            write!(out, "/*index={i}*/")?;
        }
    }
    Ok(())
}

fn write_layout(out: &mut impl fmt::Write, layout: &Layout) -> fmt::Result {
    out.write_char('{')?;
    write_joined(out, &layout.minor_to_major, ",")?;
    let mut attributes = String::new();
    write_layout_attributes(&mut attributes, layout)?;
    if !attributes.is_empty() {
        out.write_char(':')?;
        out.write_str(&attributes)?;
    }
    out.write_char('}')
}

/// The attributes after the `:`, in XLA's fixed order, each omitted at its
/// default value; then the padding extension.
fn write_layout_attributes(out: &mut String, layout: &Layout) -> fmt::Result {
    if !layout.tiles.is_empty() {
        out.write_char('T')?;
        for tile in &layout.tiles {
            write!(out, "{tile}")?;
        }
    }
    // XLA reads an alignment of 0 as 1.
    if !matches!(layout.tail_padding_alignment_in_elements, 0 | 1) {
        write!(out, "L({})", layout.tail_padding_alignment_in_elements)?;
    }
    write_index_type(out, '#', layout.index_primitive_type)?;
    write_index_type(out, '*', layout.pointer_primitive_type)?;
    if layout.element_size_in_bits != 0 {
        write!(out, "E({})", layout.element_size_in_bits)?;
    }
    if layout.memory_space != 0 {
        write!(out, "S({})", layout.memory_space)?;
    }
    if !layout.split_configs.is_empty() {
        out.write_str("SC")?;
        for config in &layout.split_configs {
            write!(out, "{config}")?;
        }
    }
    if let Some(physical) = &layout.physical_shape {
        out.write_str("P(")?;
        write_shape(out, physical, true)?;
        out.write_char(')')?;
    }
    if layout.dynamic_shape_metadata_prefix_bytes > 0 {
        write!(out, "M({})", layout.dynamic_shape_metadata_prefix_bytes)?;
    }
    if !layout.padded_dimensions.is_empty() {
        out.write_str("PAD(")?;
        write_joined(out, &layout.padded_dimensions, ",")?;
        out.write_char(')')?;
    }
    if layout.padding_value != PaddingValue::InvalidPad as i32 {
        match padding_value_name(layout.padding_value) {
            Some(name) => write!(out, "PV({name})")?,
            None => write!(out, "PV({})", layout.padding_value)?,
        }
    }
    Ok(())
}

/// `#(u32)` or `*(u16)`: printed when the type is set; a type that is not
/// an integer type prints as `invalid`, as in XLA.
fn write_index_type(out: &mut String, marker: char, value: i32) -> fmt::Result {
    if value == PrimitiveType::Invalid as i32 {
        return Ok(());
    }
    let name = PrimitiveType::try_from(value)
        .ok()
        .filter(|t| t.is_integral())
        .map_or("invalid", PrimitiveType::lowercase_name);
    write!(out, "{marker}({name})")
}

/// The lowercase name of a padding value in the `PV(..)` extension.
pub(crate) fn padding_value_name(value: i32) -> Option<&'static str> {
    Some(match PaddingValue::try_from(value).ok()? {
        PaddingValue::InvalidPad => "invalid",
        PaddingValue::ZeroPad => "zero",
        PaddingValue::OnePad => "one",
        PaddingValue::LowestPad => "lowest",
        PaddingValue::HighestPad => "highest",
        PaddingValue::UnknownPad => "unknown",
    })
}

fn write_joined(out: &mut impl fmt::Write, values: &[i64], separator: &str) -> fmt::Result {
    for (i, value) in values.iter().enumerate() {
        if i > 0 {
            out.write_str(separator)?;
        }
        write!(out, "{value}")?;
    }
    Ok(())
}
