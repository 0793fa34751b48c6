//! A direct writer of compact protobuf text format for [`Shape`] and
//! [`Layout`], byte for byte what the generic path through prost-reflect's
//! `DynamicMessage` writes, in memory proportional to the output (the
//! dynamic message costs kilobytes per tuple element).
//!
//! The format: fields in field-number order, proto3 defaults left out,
//! separated by `,`; `name:value` for scalars (enums by name, or by number
//! outside the enum), `name:[a,b]` for repeated fields, `name{...}` for a
//! message and `name:[{...},{...}]` for repeated messages.

use std::fmt::Write;

use crate::{DimLevelType, Layout, PaddingValue, PrimitiveType, Shape, SplitConfig, Tile};

/// `shape` in compact text format.
pub(crate) fn shape_text(shape: &Shape) -> String {
    let mut writer = Writer::default();
    writer.shape(shape);
    writer.out
}

/// `layout` in compact text format.
pub(crate) fn layout_text(layout: &Layout) -> String {
    let mut writer = Writer::default();
    writer.layout(layout);
    writer.out
}

/// The output and whether the current message has a field yet.
#[derive(Default)]
struct Writer {
    out: String,
    has_field: bool,
}

impl Writer {
    /// Starts field `name`: the separator from the previous one, then the
    /// name and `suffix` (`:` or nothing before a message).
    fn field(&mut self, name: &str, suffix: &str) {
        if self.has_field {
            self.out.push(',');
        }
        self.has_field = true;
        self.out.push_str(name);
        self.out.push_str(suffix);
    }

    /// An `int64` field, left out at 0.
    fn int(&mut self, name: &str, value: i64) {
        if value != 0 {
            self.field(name, ":");
            self.push_display(value);
        }
    }

    /// An enum field by name (`name_of`), left out at 0.
    fn enumeration(&mut self, name: &str, value: i32, name_of: fn(i32) -> Option<&'static str>) {
        if value != 0 {
            self.field(name, ":");
            self.push_enum(value, name_of);
        }
    }

    /// A repeated scalar field, left out when empty.
    fn list<T: Copy>(&mut self, name: &str, values: &[T], mut push: impl FnMut(&mut Self, T)) {
        if let Some((first, rest)) = values.split_first() {
            self.field(name, ":[");
            push(self, *first);
            for &value in rest {
                self.out.push(',');
                push(self, value);
            }
            self.out.push(']');
        }
    }

    /// A repeated message field, left out when empty.
    fn messages<T>(&mut self, name: &str, values: &[T], mut write: impl FnMut(&mut Self, &T)) {
        if values.is_empty() {
            return;
        }
        self.field(name, ":[");
        for (i, value) in values.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.nested(|writer| write(writer, value));
        }
        self.out.push(']');
    }

    /// A message field, written when present (even if empty).
    fn message<T>(&mut self, name: &str, value: Option<&T>, write: impl FnOnce(&mut Self, &T)) {
        if let Some(value) = value {
            self.field(name, "");
            self.nested(|writer| write(writer, value));
        }
    }

    /// `{fields}`, the fields written by `write`.
    fn nested(&mut self, write: impl FnOnce(&mut Self)) {
        let outer = std::mem::replace(&mut self.has_field, false);
        self.out.push('{');
        write(self);
        self.out.push('}');
        self.has_field = outer;
    }

    fn push_display(&mut self, value: impl std::fmt::Display) {
        // Writing to a String cannot fail.
        let _ = write!(self.out, "{value}");
    }

    fn push_enum(&mut self, value: i32, name_of: fn(i32) -> Option<&'static str>) {
        match name_of(value) {
            Some(name) => self.out.push_str(name),
            None => self.push_display(value),
        }
    }

    fn shape(&mut self, shape: &Shape) {
        self.enumeration("element_type", shape.element_type, primitive_type_name);
        self.list("dimensions", &shape.dimensions, |w, v| w.push_display(v));
        self.messages("tuple_shapes", &shape.tuple_shapes, Self::shape);
        self.message("layout", shape.layout.as_deref(), Self::layout);
        self.list(
            "is_dynamic_dimension",
            &shape.is_dynamic_dimension,
            |w, v| {
                w.push_display(v);
            },
        );
    }

    fn layout(&mut self, layout: &Layout) {
        self.list("minor_to_major", &layout.minor_to_major, |w, v| {
            w.push_display(v);
        });
        self.list("padded_dimensions", &layout.padded_dimensions, |w, v| {
            w.push_display(v);
        });
        self.enumeration("padding_value", layout.padding_value, padding_value_name);
        self.messages("tiles", &layout.tiles, Self::tile);
        self.int("element_size_in_bits", layout.element_size_in_bits);
        self.int("memory_space", layout.memory_space);
        self.list("dim_level_types", &layout.dim_level_types, |w, v| {
            w.push_enum(v, dim_level_type_name);
        });
        self.message(
            "physical_shape",
            layout.physical_shape.as_deref(),
            Self::shape,
        );
        self.enumeration(
            "index_primitive_type",
            layout.index_primitive_type,
            primitive_type_name,
        );
        self.enumeration(
            "pointer_primitive_type",
            layout.pointer_primitive_type,
            primitive_type_name,
        );
        self.list("dim_unique", &layout.dim_unique, |w, v| w.push_display(v));
        self.list("dim_ordered", &layout.dim_ordered, |w, v| w.push_display(v));
        self.int(
            "dynamic_shape_metadata_prefix_bytes",
            layout.dynamic_shape_metadata_prefix_bytes,
        );
        self.int(
            "tail_padding_alignment_in_elements",
            layout.tail_padding_alignment_in_elements,
        );
        self.messages("split_configs", &layout.split_configs, Self::split_config);
    }

    fn tile(&mut self, tile: &Tile) {
        self.list("dimensions", &tile.dimensions, |w, v| w.push_display(v));
    }

    fn split_config(&mut self, config: &SplitConfig) {
        self.int("dimension", config.dimension);
        self.list("split_indices", &config.split_indices, |w, v| {
            w.push_display(v);
        });
    }
}

fn primitive_type_name(value: i32) -> Option<&'static str> {
    PrimitiveType::try_from(value).ok().map(|t| t.as_str_name())
}

fn padding_value_name(value: i32) -> Option<&'static str> {
    PaddingValue::try_from(value).ok().map(|p| p.as_str_name())
}

fn dim_level_type_name(value: i32) -> Option<&'static str> {
    DimLevelType::try_from(value).ok().map(|d| d.as_str_name())
}

#[cfg(test)]
#[path = "text_writer_tests.rs"]
mod tests;
