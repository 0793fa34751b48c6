//! The reader of serialized `HloModuleProto`s (the `.pb` files of
//! `--xla_dump_to`, jax's `as_serialized_hlo_module_proto()`), and the
//! reader that tells the two forms apart by their content.

use std::io::BufRead;
use std::ops::Range;

use prost::Message;
use schema::MAX_DEPTH;
use sharding_util::HloSharding;

use crate::entry_layout::{Compared, EntryLayout, check_entry_layout, write_key};
use crate::origins::metadata::ProtoMetadata;
use crate::proto::{
    HloComputationProto, HloInstructionProto, HloModuleProto, StackFrameIndexProto,
};
use crate::proto_shape::{ShapeBytesError, field_bytes, shape_events};
use crate::shape_facts::{EntryTotals, FactsBuilder, ShapeFacts};
use crate::text::{keep_entry_value, warn_unknown_opcode};
use crate::wire::{WireError, read_message, split_field};
use crate::{
    Instruction, ModuleSummary, PerDevice, ProtoError, ProtoErrorKind, ReadError, is_opcode,
    read_text,
};

/// Reads a module from `input`, text or a serialized `HloModuleProto`: text
/// starts with `HloModule` (after blanks and a byte order mark), or with a
/// letter and printable characters (and is refused if it is not a module);
/// anything else is read as a serialized module. Text is streamed
/// ([`read_text`]); a serialized module is read field by field, so that
/// bytes that are no message stop the reading where they start, then taken
/// apart ([`read_proto`]).
///
/// ```
/// let text = "HloModule m\nENTRY e {\n  ROOT p = s8[3] parameter(0)\n}\n";
/// let module = hlo_util::read_module(text.as_bytes(), |_| {}).unwrap();
/// assert_eq!(module.parameter_bytes.logical, 3);
/// ```
///
/// # Errors
///
/// [`ReadError`]: the reader's error for the form found, or an I/O error.
pub fn read_module<R: BufRead>(
    mut input: R,
    visit: impl FnMut(&Instruction<'_>),
) -> Result<ModuleSummary, ReadError> {
    if is_text(&mut input)? {
        return Ok(read_text(input, visit)?);
    }
    let bytes = read_message(input).map_err(|e| wire_error("HloModuleProto", &e))?;
    Ok(read_proto(&bytes, visit)?)
}

/// Whether `input` is to be read as module text ([`read_module`]), told
/// by its first bytes, which are left unread.
///
/// # Errors
///
/// The error reading `input`.
pub(crate) fn is_text(input: &mut impl BufRead) -> std::io::Result<bool> {
    let head = input.fill_buf()?;
    let head = head.strip_prefix(BOM).unwrap_or(head);
    let start = head
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(head.len());
    // Text that is not a module (a dump's buffer-assignment report) is
    // refused as text, not decoded as a message: it starts with a letter
    // and its first bytes are printable.
    let printable = |b: &u8| b.is_ascii_graphic() || matches!(b, b' ' | b'\n' | b'\r' | b'\t');
    let text = head[start..].first().is_none_or(u8::is_ascii_alphabetic)
        && head.iter().take(256).all(printable);
    Ok(text || head[start..].starts_with(b"HloModule"))
}

/// The byte order mark some editors write first.
const BOM: &[u8] = b"\xef\xbb\xbf";

/// The field numbers of `HloModuleProto.computations` and
/// `.host_program_shape`, `HloComputationProto.instructions`,
/// `HloInstructionProto.shape`, and `ProgramShapeProto.parameters` and
/// `.result`: fields that may hold shapes of millions of elements, read
/// apart from the rest.
const COMPUTATIONS: u32 = 3;
const HOST_PROGRAM_SHAPE: u32 = 4;
const INSTRUCTIONS: u32 = 2;
const SHAPE: u32 = 3;
const PARAMETERS: u32 = 1;
const RESULT: u32 = 2;

/// Reads a serialized `HloModuleProto`, calls `visit` with each instruction
/// (computation by computation, in the order of the message; `line` is 0),
/// and returns what it learnt about the module, as [`read_text`] does. The
/// entry parameters and result are those of `host_program_shape` when the
/// module has one (checked against the entry computation as XLA's verifier
/// checks it), else those of the entry computation (the one
/// `entry_computation_id` names). An instruction's `sharding` (an
/// `OpSharding`, read by sharding-util's `HloSharding::from_proto`) gives
/// what one device holds, as `sharding={...}` does in the text. The message
/// is taken apart one computation and one instruction at a time: memory is
/// the bytes plus the largest instruction, not every instruction decoded.
///
/// # Errors
///
/// [`ProtoError`] naming the field: a message that does not decode (a
/// truncated file, garbage), a shape that cannot be sized,
/// a computation without its root, a missing entry computation, a
/// `host_program_shape` that disagrees with the entry computation.
pub fn read_proto(
    bytes: &[u8],
    mut visit: impl FnMut(&Instruction<'_>),
) -> Result<ModuleSummary, ProtoError> {
    let (computations, head) =
        split_field(bytes, COMPUTATIONS).map_err(|e| wire_error("HloModuleProto", &e))?;
    let (layout_ranges, rest) =
        split_field(&head, HOST_PROGRAM_SHAPE).map_err(|e| wire_error("HloModuleProto", &e))?;
    let module = decode::<HloModuleProto>(&rest, "HloModuleProto")?;
    let entry_index = entry_index(bytes, &computations, &module)?;
    let mut summary = ModuleSummary {
        name: module.name.clone(),
        ..ModuleSummary::default()
    };
    let mut entry = None;
    let mut sharded = false;
    for (c, range) in computations.iter().enumerate() {
        let is_entry = c == entry_index;
        let read = instructions(
            &bytes[range.clone()],
            (c, is_entry),
            module.stack_frame_index.as_ref(),
            &mut summary,
            &mut visit,
        )?;
        sharded |= read.sharded;
        if is_entry {
            entry = Some(read);
        }
        summary.computations += 1;
    }
    // `entry_index` names one of the computations read.
    let Some(entry) = entry else {
        return Err(ProtoError::at(
            "entry_computation_id",
            ProtoErrorKind::NoEntry(module.entry_computation_id),
        ));
    };
    let layout = checked_layout(&head, &layout_ranges, &entry)?;
    count_entry_bytes(&mut summary, layout.as_ref(), &entry, sharded)?;
    summary.entry_computation = entry.name;
    summary.entry_parameters = entry.parameters.into_iter().map(Kept::text).collect();
    summary.entry_result = entry.root.text();
    summary.entry_computation_layout = layout.map(|(parameters, result)| EntryLayout {
        parameters: parameters.into_iter().map(Kept::text).collect(),
        result: result.map(Kept::text),
    });
    Ok(summary)
}

/// The entry parameters and result a `host_program_shape` gives.
type Layout = (Vec<Kept>, Option<Kept>);

/// The `host_program_shape` (the fields at `layout_ranges` of the module's
/// `head`), checked against the `entry` computation as XLA's verifier
/// checks it; `None` when the module has none.
fn checked_layout(
    head: &[u8],
    layout_ranges: &[Range<usize>],
    entry: &Computation,
) -> Result<Option<Layout>, ProtoError> {
    if layout_ranges.is_empty() {
        return Ok(None);
    }
    let (parameter_shardings, root_sharding) = &entry.shardings;
    let layout = field_bytes(head, layout_ranges);
    let (parameters, result) =
        host_program_shape(&layout, parameter_shardings, root_sharding.as_ref())?;
    let compared = |kept: &[Kept]| kept.iter().map(Kept::compared).collect::<Vec<_>>();
    check_entry_layout(
        (&compared(&parameters), compared(result.as_slice()).first()),
        &compared(&entry.parameters),
        &entry.root.compared(),
    )
    .map_err(|m| ProtoError::at("host_program_shape", ProtoErrorKind::EntryLayout(m)))?;
    Ok(Some((parameters, result)))
}

/// Counts the bytes of the entry parameters and result into `summary`:
/// those `layout` gives when the module has one, else the `entry`
/// computation's; per device too when the module is `sharded`.
fn count_entry_bytes(
    summary: &mut ModuleSummary,
    layout: Option<&Layout>,
    entry: &Computation,
    sharded: bool,
) -> Result<(), ProtoError> {
    let (counted, result, path) = match layout {
        Some((parameters, result)) => (parameters, result.as_ref(), "host_program_shape"),
        None => (&entry.parameters, Some(&entry.root), "computations"),
    };
    let totals = |shapes: &[Kept]| {
        let mut totals = EntryTotals::new(sharded);
        for shape in shapes {
            totals.add(shape.facts.clone()).map_err(|e| {
                ProtoError::at(
                    path,
                    e.map_or(ProtoErrorKind::Overflow, ProtoErrorKind::Size),
                )
            })?;
        }
        Ok::<_, ProtoError>(totals)
    };
    let inputs = totals(counted)?;
    let outputs = totals(result.map(std::slice::from_ref).unwrap_or_default())?;
    summary.parameter_bytes = inputs.bytes;
    summary.output_bytes = outputs.bytes;
    if sharded {
        summary.per_device_parameter_bytes = inputs.per_device;
        summary.per_device_output_bytes = outputs.per_device.filter(|_| result.is_some());
    }
    Ok(())
}

/// A shape read from bytes and kept for the module's summary: its facts,
/// those of what one device holds of it, and its key for the verifier's
/// comparison.
#[derive(Debug, Clone)]
struct Kept {
    facts: (ShapeFacts, Option<ShapeFacts>),
    key: String,
}

impl Kept {
    /// Reads the serialized shape `bytes` (the field at `path`), and what
    /// one device holds of it under `sharding`.
    fn read(bytes: &[u8], sharding: Option<&HloSharding>, path: &str) -> Result<Self, ProtoError> {
        let mut builder = FactsBuilder::new(sharding);
        let mut key = String::new();
        shape_events(bytes, &mut |event| {
            builder.push(event);
            write_key(&mut key, event);
        })
        .map_err(|e| match e {
            ShapeBytesError::Wire(e) => wire_error(path, &e),
            ShapeBytesError::Decode(e) => ProtoError::at(path, ProtoErrorKind::Decode(e)),
            ShapeBytesError::TooDeep => ProtoError::at(path, ProtoErrorKind::TooDeep(MAX_DEPTH)),
        })?;
        Ok(Self {
            facts: builder.finish(),
            key,
        })
    }

    fn compared(&self) -> Compared {
        Compared {
            text: self.facts.0.text.clone(),
            key: self.key.clone(),
        }
    }

    fn text(self) -> String {
        self.facts.0.text
    }
}

/// The parameters and result of a `host_program_shape` (`bytes`), each
/// read a tuple element at a time with the sharding of the entry
/// computation's parameter or root.
fn host_program_shape(
    bytes: &[u8],
    parameter_shardings: &[Option<HloSharding>],
    root_sharding: Option<&HloSharding>,
) -> Result<(Vec<Kept>, Option<Kept>), ProtoError> {
    const PATH: &str = "host_program_shape";
    let split = |bytes: &[u8], number| split_field(bytes, number).map_err(|e| wire_error(PATH, &e));
    let (parameters, rest) = split(bytes, PARAMETERS)?;
    let (_, rest) = split(&rest, RESULT)?;
    decode::<schema::ProgramShape>(&rest, PATH)?;
    let (result, _) = split(bytes, RESULT)?;
    let parameters = parameters
        .iter()
        .enumerate()
        .map(|(i, range)| {
            let sharding = parameter_shardings.get(i).and_then(Option::as_ref);
            Kept::read(
                &bytes[range.clone()],
                sharding,
                &format!("{PATH}.parameters[{i}]"),
            )
        })
        .collect::<Result<_, _>>()?;
    let result = if result.is_empty() {
        None
    } else {
        let merged = field_bytes(bytes, &result);
        Some(Kept::read(
            &merged,
            root_sharding,
            &format!("{PATH}.result"),
        )?)
    };
    Ok((parameters, result))
}

/// The index of the entry computation: the one with the module's
/// `entry_computation_id`, else the first with its `entry_computation_name`.
fn entry_index(
    bytes: &[u8],
    computations: &[Range<usize>],
    module: &HloModuleProto,
) -> Result<usize, ProtoError> {
    let mut by_name = None;
    for (c, range) in computations.iter().enumerate() {
        let path = || format!("computations[{c}]");
        let (_, head) = split_field(&bytes[range.clone()], INSTRUCTIONS)
            .map_err(|e| wire_error(&path(), &e))?;
        let computation = decode::<HloComputationProto>(&head, &path())?;
        if computation.id == module.entry_computation_id {
            return Ok(c);
        }
        if by_name.is_none() && computation.name == module.entry_computation_name {
            by_name = Some(c);
        }
    }
    by_name.ok_or_else(|| {
        ProtoError::at(
            "entry_computation_id",
            ProtoErrorKind::NoEntry(module.entry_computation_id),
        )
    })
}

/// Decodes `bytes` as a message of type `M`, errors at `path`.
fn decode<M: Message + Default>(bytes: &[u8], path: &str) -> Result<M, ProtoError> {
    M::decode(bytes).map_err(|e| ProtoError::at(path, ProtoErrorKind::Decode(e)))
}

/// A wire-format error at the message `path`.
fn wire_error(path: &str, error: &WireError) -> ProtoError {
    ProtoError::at(
        path,
        ProtoErrorKind::Wire {
            offset: error.offset,
            message: error.message.clone(),
        },
    )
}

/// What [`instructions`] learns of a computation.
struct Computation {
    name: String,
    /// Its parameters' shapes, by number (entry only).
    parameters: Vec<Kept>,
    /// Its root's shape.
    root: Kept,
    /// The shardings of its parameters (entry only) and root, if they have
    /// one sharding-util reads.
    shardings: (Vec<Option<HloSharding>>, Option<HloSharding>),
    /// Whether an instruction has a sharding.
    sharded: bool,
}

/// Visits the instructions of computation `c` (the message `bytes`; the
/// entry if `is_entry`), one decoded at a time, its shape a tuple element
/// at a time, each with the module's stack `frames`.
fn instructions(
    bytes: &[u8],
    (c, is_entry): (usize, bool),
    frames: Option<&StackFrameIndexProto>,
    summary: &mut ModuleSummary,
    visit: &mut impl FnMut(&Instruction<'_>),
) -> Result<Computation, ProtoError> {
    let (ranges, head) = split_field(bytes, INSTRUCTIONS)
        .map_err(|e| wire_error(&format!("computations[{c}]"), &e))?;
    let computation = decode::<HloComputationProto>(&head, &format!("computations[{c}]"))?;
    let mut keeping = Keeping::default();
    for (i, range) in ranges.into_iter().enumerate() {
        let path = |field: &str| format!("computations[{c}].instructions[{i}]{field}");
        let (instruction, shape, sharding) = read_instruction(&bytes[range], &path, summary)?;
        keeping.sharded |= instruction.sharding.is_some();
        let (facts, device) = &shape.facts;
        let sizes = facts
            .sizes
            .clone()
            .map_err(|e| ProtoError::at(&path(".shape"), ProtoErrorKind::Size(e)))?;
        let per_device = device.clone().and_then(PerDevice::from_facts);
        let is_root = instruction.id == computation.root_id;
        summary.instructions += 1;
        visit(&Instruction {
            computation: &computation.name,
            is_entry,
            is_root,
            name: &instruction.name,
            opcode: &instruction.opcode,
            shape: &facts.text,
            sizes,
            per_device,
            line: 0,
            operands: "",
            attributes: "",
            proto: Some(ProtoMetadata {
                metadata: instruction.metadata.as_ref(),
                frames,
            }),
        });
        let parameter = is_entry && instruction.opcode == "parameter";
        let number = parameter.then_some(instruction.parameter_number);
        keeping.keep(number, is_root, shape, sharding);
    }
    keeping.finish(c, computation)
}

/// Decodes an instruction (the message `bytes`, at `path`), its unknown
/// opcode warned of in `summary`; its shape read a tuple element at a time
/// with its sharding, if sharding-util reads it.
fn read_instruction(
    bytes: &[u8],
    path: &impl Fn(&str) -> String,
    summary: &mut ModuleSummary,
) -> Result<(HloInstructionProto, Kept, Option<HloSharding>), ProtoError> {
    let (shape_ranges, rest) = split_field(bytes, SHAPE).map_err(|e| wire_error(&path(""), &e))?;
    let instruction = decode::<HloInstructionProto>(&rest, &path(""))?;
    if !is_opcode(&instruction.opcode) {
        warn_unknown_opcode(&mut summary.warnings, &instruction.opcode, &path(".opcode"));
    }
    if shape_ranges.is_empty() {
        return Err(ProtoError::at(
            &path(".shape"),
            ProtoErrorKind::MissingShape,
        ));
    }
    let sharding = instruction
        .sharding
        .as_ref()
        .and_then(|p| HloSharding::from_proto(p).ok());
    let shape = Kept::read(
        &field_bytes(bytes, &shape_ranges),
        sharding.as_ref(),
        &path(".shape"),
    )?;
    Ok((instruction, shape, sharding))
}

/// What a computation's summary keeps as its instructions are read: the
/// parameters' shapes and shardings with their numbers (entry only), the
/// root's, and whether an instruction has a sharding.
#[derive(Default)]
struct Keeping {
    parameters: Vec<(i64, Kept, Option<HloSharding>)>,
    root: Option<(Kept, Option<HloSharding>)>,
    sharded: bool,
}

impl Keeping {
    /// Keeps the shape and sharding of parameter `number` (one the summary
    /// counts) or of the root, moved rather than copied where it can be.
    fn keep(
        &mut self,
        number: Option<i64>,
        is_root: bool,
        shape: Kept,
        sharding: Option<HloSharding>,
    ) {
        keep_entry_value(
            (&mut self.parameters, &mut self.root),
            number,
            is_root,
            shape,
            sharding,
        );
    }

    /// Computation `c`, read: its parameters checked to be numbered from 0,
    /// one each, and its root to be there.
    fn finish(self, c: usize, computation: HloComputationProto) -> Result<Computation, ProtoError> {
        let mut parameters = self.parameters;
        parameters.sort_by_key(|&(number, _, _)| number);
        for (expected, (number, _, _)) in parameters.iter().enumerate() {
            if usize::try_from(*number).ok() != Some(expected) {
                return Err(ProtoError::at(
                    &format!("computations[{c}].instructions"),
                    ProtoErrorKind::Parameter(expected),
                ));
            }
        }
        let (root, root_sharding) = self.root.ok_or_else(|| {
            ProtoError::at(
                &format!("computations[{c}].root_id"),
                ProtoErrorKind::NoRoot(computation.root_id),
            )
        })?;
        let (parameters, parameter_shardings) =
            parameters.into_iter().map(|(_, p, s)| (p, s)).unzip();
        Ok(Computation {
            name: computation.name,
            parameters,
            root,
            shardings: (parameter_shardings, root_sharding),
            sharded: self.sharded,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EntryBytes;

    fn module(opcode: &str, shape: Option<&str>, root_id: i64, entry_id: i64) -> Vec<u8> {
        let instruction = HloInstructionProto {
            name: "p".into(),
            opcode: opcode.into(),
            shape: shape.map(|s| s.parse().unwrap()),
            id: 7,
            ..HloInstructionProto::default()
        };
        let computation = HloComputationProto {
            name: "e".into(),
            instructions: vec![instruction],
            id: 3,
            root_id,
            ..HloComputationProto::default()
        };
        HloModuleProto {
            name: "m".into(),
            entry_computation_id: entry_id,
            computations: vec![computation],
            ..HloModuleProto::default()
        }
        .encode_to_vec()
    }

    fn read(bytes: &[u8]) -> Result<ModuleSummary, String> {
        read_proto(bytes, |_| {}).map_err(|e| e.to_string())
    }

    #[test]
    fn a_module_reads_and_errors_name_the_field() {
        let summary = read(&module(
            "parameter",
            Some("bf16[10,200]{1,0:T(8,128)(2,1)}"),
            7,
            3,
        ))
        .unwrap();
        assert_eq!(
            summary.parameter_bytes,
            EntryBytes {
                logical: 4000,
                allocated: 8192
            }
        );
        let unknown = read(&module("bogus", Some("f32[2]{0}"), 7, 3)).unwrap();
        assert_eq!(
            unknown.warnings,
            [
                "computations[0].instructions[0].opcode: unknown opcode `bogus`, read as an \
              instruction of its shape"
            ]
        );
        assert_eq!(unknown.output_bytes.logical, 8);
        assert_eq!(
            read(&module("negate", None, 7, 3)),
            Err("computations[0].instructions[0].shape: missing".into())
        );
        assert_eq!(
            read(&module("negate", Some("f32[]"), 8, 3)),
            Err("computations[0].root_id: no instruction has id 8".into())
        );
        assert_eq!(
            read(&module("negate", Some("f32[]"), 7, 4)),
            Err("entry_computation_id: no computation has id 4".into())
        );
        let truncated = module("negate", Some("f32[]"), 7, 3);
        let cut = truncated.len() - 3;
        assert_eq!(
            read(&truncated[..cut]),
            Err(format!(
                "HloModuleProto: at byte 3: field 3 runs past the end of the message ({cut} bytes)"
            ))
        );
        // A field that is not the type its number says is prost's error,
        // at the message it is in.
        let mut wrong = module("negate", Some("f32[]"), 7, 3);
        wrong.extend([0x0a, 0x01, 0xff]);
        assert!(
            read(&wrong)
                .unwrap_err()
                .starts_with("HloModuleProto: failed to decode Protobuf message: ")
        );
    }

    #[test]
    fn the_form_is_told_by_the_content() {
        let bytes = module("parameter", Some("s8[3]"), 7, 3);
        assert_eq!(
            read_module(bytes.as_slice(), |_| {})
                .unwrap()
                .parameter_bytes
                .logical,
            3
        );
        let text = "\n  HloModule m\nENTRY e {\n  ROOT p = s8[3] parameter(0)\n}\n";
        assert_eq!(
            read_module(text.as_bytes(), |_| {})
                .unwrap()
                .parameter_bytes
                .logical,
            3
        );
        assert!(matches!(
            read_module(&b""[..], |_| {}),
            Err(ReadError::Text(_))
        ));
        assert!(matches!(
            read_module(&b"\xff\xff"[..], |_| {}),
            Err(ReadError::Proto(_))
        ));
    }
}
