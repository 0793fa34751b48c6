//! The shapes the reports keep as XLA's text (one string per buffer, as
//! the module printed it: the reports stay as small as the text), read back
//! as [`Shape`] values on demand.

use schema::{ParseError, Shape};

use crate::{BufferRow, DeviceBuffer, LiveBuffer, PerDevice, TimelineBuffer};

/// `to_shape` for each report row with a `shape` field of XLA's text.
macro_rules! typed_shape {
    ($($row:ty),+) => {$(
        impl $row {
            /// The `shape` field as a [`Shape`] (layout included where the
            /// text has one), parsed as XLA's shape parser does.
            ///
            /// # Errors
            ///
            /// [`ParseError`] for text that is no shape (the field was set
            /// by hand; the readers only write shapes they parsed).
            pub fn to_shape(&self) -> Result<Shape, ParseError> {
                self.shape.parse()
            }
        }
    )+};
}

typed_shape!(
    LiveBuffer,
    TimelineBuffer,
    BufferRow,
    DeviceBuffer,
    PerDevice
);

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use crate::MemoryReport;

    #[test]
    fn rows_give_their_shapes_as_values() {
        let text = "HloModule m\nENTRY %e (p: bf16[10,200]) -> bf16[10,200] {\n  \
                    ROOT %p = bf16[10,200]{1,0:T(8,128)(2,1)} parameter(0)\n}\n";
        let report = MemoryReport::read(text.as_bytes(), 20).unwrap();
        let shape = report.instructions[0].to_shape().unwrap();
        assert_eq!(shape.dimensions, [10, 200]);
        assert_eq!(shape.to_string(), "bf16[10,200]{1,0:T(8,128)(2,1)}");
    }
}
