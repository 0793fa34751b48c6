//! The JSON form of a [`MemoryReport`] (`xla-shape --json hlo`'s object
//! less `ok`): written by `Serialize`, read back by `Deserialize`.

use std::sync::Arc;

use serde::de::{Deserialize, Deserializer, Error as _};
use serde::ser::{Serialize, SerializeStruct, Serializer};

use super::memory::{BufferRow, ComputationTotal, DeviceBuffer, MemoryReport};
use crate::origins::frame::deserialize_op_name;
use crate::sizes::BufferSizes;
use crate::{EntryBytes, Limit, ModuleSummary, Opcode, Stack};

impl Serialize for MemoryReport {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let m = &self.module;
        let mut s = serializer.serialize_struct("MemoryReport", 11)?;
        s.serialize_field("module", &m.name)?;
        // XLA's CompiledMemoryStats as real XLA reports them: logical bytes,
        // even for tiled arrays; the buffers' allocated sizes beside them.
        s.serialize_field("parameter_bytes", &m.parameter_bytes.logical)?;
        s.serialize_field("output_bytes", &m.output_bytes.logical)?;
        s.serialize_field("parameter_allocated_bytes", &m.parameter_bytes.allocated)?;
        s.serialize_field("output_allocated_bytes", &m.output_bytes.allocated)?;
        s.serialize_field(
            "per_device_parameter_bytes",
            &m.per_device_parameter_bytes.map(|b| b.logical),
        )?;
        s.serialize_field(
            "per_device_output_bytes",
            &m.per_device_output_bytes.map(|b| b.logical),
        )?;
        s.serialize_field("computations", &m.computations)?;
        s.serialize_field("instruction_count", &m.instructions)?;
        s.serialize_field("instructions", &self.instructions)?;
        s.serialize_field("computation_totals", self.shown_totals())?;
        if !m.warnings.is_empty() {
            s.serialize_field("warnings", &m.warnings)?;
        }
        s.end()
    }
}

impl Serialize for BufferRow {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("BufferRow", 13)?;
        s.serialize_field("computation", &self.computation)?;
        s.serialize_field("name", &self.name)?;
        s.serialize_field("opcode", &self.opcode)?;
        s.serialize_field("shape", &self.shape)?;
        s.serialize_field("bytes", &self.sizes.bytes)?;
        s.serialize_field("allocated_bytes", &self.sizes.allocated_bytes)?;
        s.serialize_field("padding_bytes", &self.sizes.padding_bytes())?;
        s.serialize_field("padding_ratio", &self.sizes.padding_ratio())?;
        s.serialize_field("memory_space", &self.sizes.memory_space)?;
        s.serialize_field(
            "per_device_shape",
            &self.per_device.as_ref().map(|d| &d.shape),
        )?;
        s.serialize_field(
            "per_device_bytes",
            &self.per_device.as_ref().map(|d| d.bytes),
        )?;
        s.serialize_field("op_name", &self.op_name.as_deref())?;
        s.serialize_field("stack", &self.stack)?;
        s.end()
    }
}

impl Serialize for ComputationTotal {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("ComputationTotal", 5)?;
        s.serialize_field("computation", &self.computation)?;
        s.serialize_field("instructions", &self.instructions)?;
        s.serialize_field("bytes", &self.bytes)?;
        s.serialize_field("allocated_bytes", &self.allocated_bytes)?;
        s.serialize_field("padding_bytes", &self.padding_bytes())?;
        s.end()
    }
}

/// [`MemoryReport`]'s serialized fields, read back.
#[derive(serde::Deserialize)]
struct ReportFields {
    module: String,
    parameter_bytes: i64,
    output_bytes: i64,
    parameter_allocated_bytes: i64,
    output_allocated_bytes: i64,
    per_device_parameter_bytes: Option<i64>,
    per_device_output_bytes: Option<i64>,
    computations: u64,
    instruction_count: u64,
    instructions: Vec<BufferRow>,
    computation_totals: Vec<ComputationTotal>,
    #[serde(default)]
    warnings: Vec<String>,
}

impl<'de> Deserialize<'de> for MemoryReport {
    /// The fields [`Serialize`] writes; the rest of the module's summary
    /// empty, every total read listed ([`Limit::All`]).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let f = ReportFields::deserialize(deserializer)?;
        let logical = |bytes: i64| EntryBytes {
            logical: bytes,
            allocated: bytes,
        };
        let module = ModuleSummary {
            name: f.module,
            parameter_bytes: EntryBytes {
                logical: f.parameter_bytes,
                allocated: f.parameter_allocated_bytes,
            },
            output_bytes: EntryBytes {
                logical: f.output_bytes,
                allocated: f.output_allocated_bytes,
            },
            per_device_parameter_bytes: f.per_device_parameter_bytes.map(logical),
            per_device_output_bytes: f.per_device_output_bytes.map(logical),
            computations: f.computations,
            instructions: f.instruction_count,
            warnings: f.warnings,
            ..ModuleSummary::default()
        };
        Ok(Self {
            module,
            instructions: f.instructions,
            computation_totals: f.computation_totals,
            top: Limit::All,
        })
    }
}

/// [`BufferRow`]'s serialized fields, read back (`padding_bytes` and
/// `padding_ratio` follow from the others).
#[derive(serde::Deserialize)]
struct RowFields {
    computation: String,
    name: String,
    opcode: Opcode,
    shape: String,
    bytes: i64,
    allocated_bytes: i64,
    memory_space: i64,
    per_device_shape: Option<String>,
    per_device_bytes: Option<i64>,
    #[serde(deserialize_with = "deserialize_op_name")]
    op_name: Option<Arc<str>>,
    stack: Stack,
}

impl<'de> Deserialize<'de> for BufferRow {
    /// The fields [`Serialize`] writes: `per_device_shape` and
    /// `per_device_bytes` both null or neither.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let f = RowFields::deserialize(deserializer)?;
        let per_device = match (f.per_device_shape, f.per_device_bytes) {
            (None, None) => None,
            (Some(shape), Some(bytes)) => Some(DeviceBuffer { shape, bytes }),
            _ => {
                return Err(D::Error::custom(format!(
                    "buffer {}: per_device_shape and per_device_bytes are both null or neither is",
                    f.name
                )));
            }
        };
        Ok(Self {
            computation: f.computation,
            name: f.name,
            opcode: f.opcode,
            shape: f.shape,
            sizes: BufferSizes {
                bytes: f.bytes,
                allocated_bytes: f.allocated_bytes,
                memory_space: f.memory_space,
            },
            per_device,
            op_name: f.op_name,
            stack: f.stack,
        })
    }
}

/// [`ComputationTotal`]'s serialized fields, read back (`padding_bytes`
/// follows from the others).
#[derive(serde::Deserialize)]
struct TotalFields {
    computation: String,
    instructions: u64,
    bytes: i64,
    allocated_bytes: i64,
}

impl<'de> Deserialize<'de> for ComputationTotal {
    /// The fields [`Serialize`] writes.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let f = TotalFields::deserialize(deserializer)?;
        Ok(Self {
            computation: f.computation,
            instructions: f.instructions,
            bytes: f.bytes,
            allocated_bytes: f.allocated_bytes,
        })
    }
}
