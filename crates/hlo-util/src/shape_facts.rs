//! What the readers take from a shape, one tuple element at a time
//! ([`schema::ShapeEvent`]): its text as XLA prints it, its own buffer's
//! bytes, the bytes of all its buffers (an entry parameter's count), and
//! the same of what one device holds under a sharding. A tuple of millions
//! of elements costs its text, never a `Shape` for each element.

use schema::{PrimitiveType, Shape, ShapeEvent, ShapeTextWriter};
use shape_util::ShapeError;
use sharding_util::{HloSharding, Kind};

use crate::sizes::{BufferSizes, EntryBytes};

/// A shape's text and bytes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ShapeFacts {
    /// The shape as XLA prints it, layout included.
    pub text: String,
    /// The bytes of its own buffer (a tuple's: its table of pointers).
    pub sizes: Result<BufferSizes, ShapeError>,
    /// The bytes of all its buffers, as `CompiledMemoryStats` counts an
    /// entry parameter ([`crate::entry_bytes`]).
    pub entry: Result<EntryBytes, ShapeError>,
}

/// Builds [`ShapeFacts`] from a shape's events, and those of what one
/// device holds when a sharding is given.
#[derive(Debug)]
pub(crate) struct FactsBuilder<'h> {
    whole: Tally,
    device: Option<DeviceTally<'h>>,
}

impl<'h> FactsBuilder<'h> {
    /// A builder of the facts of a shape, and of what one device holds of
    /// it under `sharding`.
    pub(crate) fn new(sharding: Option<&'h HloSharding>) -> Self {
        Self {
            whole: Tally::default(),
            device: sharding.map(|sharding| DeviceTally {
                sharding,
                next: 0,
                tally: Tally::default(),
            }),
        }
    }

    /// Takes the next event of the shape.
    pub(crate) fn push(&mut self, event: ShapeEvent<'_>) {
        self.whole.push(event);
        if let Some(device) = &mut self.device
            && device.push(event).is_none()
        {
            self.device = None;
        }
    }

    /// The facts of the shape, and those of what one device holds (`None`
    /// without a sharding, or with one that does not say: see
    /// [`crate::PerDevice::of`]).
    pub(crate) fn finish(self) -> (ShapeFacts, Option<ShapeFacts>) {
        let device = self.device.and_then(DeviceTally::finish);
        (self.whole.finish(), device)
    }
}

/// The facts of `shape`, and of what one device holds of it under
/// `sharding`.
pub(crate) fn facts_of(
    shape: &Shape,
    sharding: Option<&HloSharding>,
) -> (ShapeFacts, Option<ShapeFacts>) {
    let mut builder = FactsBuilder::new(sharding);
    shape.events(|event| builder.push(event));
    builder.finish()
}

/// The facts of the shape `text`, read a tuple element at a time.
///
/// # Errors
///
/// The parse error of `text`.
pub(crate) fn facts_of_text(
    text: &str,
    sharding: Option<&HloSharding>,
) -> Result<(ShapeFacts, Option<ShapeFacts>), schema::ParseError> {
    let mut builder = FactsBuilder::new(sharding);
    Shape::parse_events(text, |event| builder.push(event))?;
    Ok(builder.finish())
}

/// The text and running byte counts of one shape.
#[derive(Debug)]
struct Tally {
    writer: ShapeTextWriter,
    /// How many tuples are open.
    depth: usize,
    /// The shape's own buffer, once its outermost event is read.
    sizes: Option<Result<BufferSizes, ShapeError>>,
    entry: Result<EntryBytes, ShapeError>,
}

impl Default for Tally {
    fn default() -> Self {
        Self {
            writer: ShapeTextWriter::default(),
            depth: 0,
            sizes: None,
            entry: Ok(EntryBytes::default()),
        }
    }
}

impl Tally {
    fn push(&mut self, event: ShapeEvent<'_>) {
        self.writer.push(event);
        let (own, name) = match event {
            ShapeEvent::TupleStart => {
                self.depth += 1;
                return;
            }
            ShapeEvent::TupleEnd(count) => {
                self.depth = self.depth.saturating_sub(1);
                (BufferSizes::of_tuple(count), None)
            }
            ShapeEvent::Element(shape) => (BufferSizes::of(shape), Some(shape)),
        };
        if self.depth == 0 {
            self.sizes = Some(own.clone());
        }
        if let Ok(total) = &self.entry {
            self.entry = own.and_then(|own| {
                total
                    .plus(own.bytes, own.allocated_bytes)
                    .ok_or_else(|| match name {
                        Some(shape) => ShapeError::ByteSizeOverflow {
                            shape: Box::new(shape.clone()),
                        },
                        None => ShapeError::ByteTotalOverflow {
                            what: "a tuple".to_owned(),
                        },
                    })
            });
        }
    }

    fn finish(self) -> ShapeFacts {
        ShapeFacts {
            text: self.writer.finish(),
            sizes: self.sizes.unwrap_or(Ok(BufferSizes::EMPTY)),
            entry: self.entry,
        }
    }
}

/// What one device holds, element by element: each array (and buffer,
/// token, opaque) takes the next element of a tuple sharding, or the
/// sharding itself; a tiled one holds its shard, any other the whole.
#[derive(Debug)]
struct DeviceTally<'h> {
    sharding: &'h HloSharding,
    /// How many elements have taken their sharding.
    next: usize,
    tally: Tally,
}

impl DeviceTally<'_> {
    /// Takes the next event; `None` when the sharding does not say what a
    /// device holds.
    fn push(&mut self, event: ShapeEvent<'_>) -> Option<()> {
        let ShapeEvent::Element(shape) = event else {
            self.tally.push(event);
            return Some(());
        };
        if shape.element_type == PrimitiveType::Tuple as i32 {
            // The empty tuple: no array takes a sharding.
            self.tally.push(event);
            return Some(());
        }
        let element = match self.sharding.kind() {
            Kind::Tuple(elements) => elements.get(self.next)?,
            _ => self.sharding,
        };
        self.next += 1;
        match element.kind() {
            Kind::Tiled { .. } => {
                let shard = element.shard_shape(shape).ok()?;
                self.tally.push(ShapeEvent::Element(&shard));
            }
            Kind::Unknown | Kind::Tuple(_) => return None,
            Kind::Replicated | Kind::Maximal(_) | Kind::Manual | Kind::Unreduced => {
                self.tally.push(event);
            }
        }
        Some(())
    }

    fn finish(self) -> Option<ShapeFacts> {
        match self.sharding.kind() {
            Kind::Tuple(elements) if elements.len() != self.next => None,
            _ => Some(self.tally.finish()),
        }
    }
}

/// The bytes XLA's `CompiledMemoryStats` counts for one entry parameter or
/// the entry result of `shape`: every array in it, and every tuple, nested
/// ones too, as its index table of [`POINTER_SIZE`](crate::POINTER_SIZE) bytes per element;
/// tokens count 0. This is how `argument_size_in_bytes` and
/// `output_size_in_bytes` of jax's `compiled.memory_analysis()` count on XLA's
/// CPU backend, which sizes arrays by their logical bytes even under a tiled
/// layout (the golden set `tests/golden/hlo/` checks both).
///
/// # Errors
///
/// The errors of [`BufferSizes::of`] and [`ShapeError::ByteSizeOverflow`].
///
/// ```
/// let shape = "((f32[8]{0}, s32[2]{0}), bf16[10,200]{1,0:T(8,128)(2,1)})".parse().unwrap();
/// let bytes = hlo_util::entry_bytes(&shape).unwrap();
/// // Two tables (2 pointers each), 32 + 8 bytes, and the bf16 array.
/// assert_eq!(bytes.logical, 16 + 16 + 40 + 4000);
/// assert_eq!(bytes.allocated, 16 + 16 + 40 + 8192);
/// ```
pub fn entry_bytes(shape: &Shape) -> Result<EntryBytes, ShapeError> {
    facts_of(shape, None).0.entry
}

/// The running totals of a module's entry parameters (or its result): the
/// bytes [`entry_bytes`] counts, and what one device holds of them while
/// every one says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct EntryTotals {
    pub bytes: EntryBytes,
    pub per_device: Option<EntryBytes>,
}

impl EntryTotals {
    /// Totals of nothing yet; per device only when `sharded`.
    pub(crate) fn new(sharded: bool) -> Self {
        Self {
            bytes: EntryBytes::default(),
            per_device: sharded.then(EntryBytes::default),
        }
    }

    /// Adds a shape's facts and those of what one device holds of it.
    ///
    /// # Errors
    ///
    /// The shape's sizing error, or `None` when the sum passes `i64`.
    pub(crate) fn add(
        &mut self,
        (whole, device): (ShapeFacts, Option<ShapeFacts>),
    ) -> Result<(), Option<ShapeError>> {
        let own = whole.entry.map_err(Some)?;
        self.bytes = self.bytes.plus(own.logical, own.allocated).ok_or(None)?;
        self.per_device = self.per_device.and_then(|total| {
            let own = device?.entry.ok()?;
            total.plus(own.logical, own.allocated)
        });
        Ok(())
    }
}
