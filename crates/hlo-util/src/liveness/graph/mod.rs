//! The module as a graph: each instruction with its operands, the
//! computations it calls and the attributes buffer assignment needs, read
//! by the crate's streaming text reader.
//!
//! A large module has about a million instructions, most of them in fusion
//! bodies: each is a compact record of numbers ([`Inst`], 52 bytes), and
//! what it names is kept once in the [`Graph`]: its name in one string, its
//! operands and callees in one list, its shape, opcode and origin in tables
//! of the distinct ones.

mod read;

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

use schema::Shape;

use super::attributes::Alias;
use crate::origins::frame::FrameTable;
use crate::origins::metadata::InstOrigin;

pub(crate) use read::read_graph;

/// How an instruction calls its computations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Calls {
    /// It calls none.
    None,
    /// Control flow (`while`, `conditional`, `call`): the computations run
    /// as part of the program, their values in the module's buffers.
    Control,
    /// A fusion's body: compiled into the fusion, no buffers of its own.
    Fused,
    /// Applied inside the instruction (`to_apply` of a reduce, a sort's
    /// comparator): its values are thread-local.
    Applied,
}

/// One instruction, its parts by number in its [`Graph`] (read them with
/// [`Graph::opcode`], [`Graph::shape`], [`Graph::operands`],
/// [`Graph::called`], [`Graph::aliasing`], [`Graph::origin`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Inst {
    /// Where its name is in [`Graph::names`] (empty in a fusion body).
    pub name: (u32, u32),
    /// Where its operands start in the graph's links, how many there are,
    /// and how many called computations follow them.
    links: (u32, u32, u32),
    /// Its shape in the graph's shapes (a fusion body's instructions all
    /// have the empty shape: no buffer is theirs).
    shape: u32,
    computation: u32,
    /// A get-tuple-element's `index=` (`u32::MAX` when it does not read).
    tuple_index: u32,
    /// A parameter's number.
    parameter: u32,
    /// How many operands of other instructions name it.
    users: u32,
    /// Its origin in the graph's origins, plus one (0: none).
    origin: u32,
    /// Its `output_to_operand_aliasing` in the graph's lists, plus one (0:
    /// none).
    aliasing: u32,
    /// Its opcode in the graph's opcodes.
    opcode: u16,
    pub calls: Calls,
    /// A fusion of kind `kLoop` or `kInput`.
    pub loop_fusion: bool,
}

impl Inst {
    /// Its computation.
    pub fn computation(&self) -> usize {
        self.computation as usize
    }

    /// A get-tuple-element's `index=`; `usize::MAX` when it did not read.
    pub fn tuple_index(&self) -> usize {
        if self.tuple_index == u32::MAX {
            usize::MAX
        } else {
            self.tuple_index as usize
        }
    }

    /// A parameter's number.
    pub fn parameter(&self) -> usize {
        self.parameter as usize
    }

    /// How many operands of other instructions name it.
    pub fn users(&self) -> usize {
        self.users as usize
    }
}

/// One computation.
#[derive(Debug, Clone, Default)]
pub(crate) struct Comp {
    pub name: String,
    /// Its instructions, one after the other in [`Graph::insts`] in the
    /// order of the text (a computation's lines are not interleaved with
    /// another's).
    instructions: Range<u32>,
    pub root: Option<usize>,
    /// Its parameters by number.
    pub parameters: Box<[usize]>,
}

impl Comp {
    /// Its instructions in the order of the text.
    pub fn instructions(&self) -> Range<usize> {
        self.instructions.start as usize..self.instructions.end as usize
    }
}

/// The module.
#[derive(Debug, Clone, Default)]
pub(crate) struct Graph {
    pub insts: Vec<Inst>,
    pub comps: Vec<Comp>,
    pub entry: usize,
    pub scheduled: bool,
    /// The header's `input_output_alias`.
    pub io_alias: Vec<Alias>,
    /// The text reader's warnings ([`crate::ModuleSummary::warnings`]),
    /// then those of the stack-frame tables.
    pub warnings: Vec<String>,
    /// Whether an instruction's attributes hold GPU backend configs
    /// (`fingerprint_before_lhs`, `"operation_queue_id"`): XLA's GPU heap
    /// aligns its buffers to 256 bytes, the CPU's to 64.
    pub gpu_configs: bool,
    /// The names of the instructions outside fusion bodies, one after the
    /// other.
    pub names: String,
    /// The module's stack frames, if it records any.
    pub frames: Option<Arc<FrameTable>>,
    /// Each instruction's operands then called computations, one
    /// instruction after the other.
    links: Vec<usize>,
    /// The shapes the instructions have, each once; the first the empty
    /// shape.
    shapes: Vec<Shape>,
    /// The opcodes the instructions have, each once: XLA's borrowed from
    /// [`crate::OPCODES`], another its own.
    opcodes: Vec<Cow<'static, str>>,
    /// The origins the instructions have (op_name and frame), each once.
    origins: Vec<InstOrigin>,
    /// The custom calls' `output_to_operand_aliasing` lists.
    aliasing: Vec<Box<[Alias]>>,
}

impl Graph {
    /// The name of `inst`.
    pub fn name(&self, inst: &Inst) -> &str {
        let (start, length) = (inst.name.0 as usize, inst.name.1 as usize);
        self.names
            .get(start..start.saturating_add(length))
            .unwrap_or("")
    }

    /// The opcode of `inst`.
    pub fn opcode(&self, inst: &Inst) -> &str {
        self.opcodes
            .get(usize::from(inst.opcode))
            .map_or("", |o| o.as_ref())
    }

    /// The shape of `inst` (the empty shape in a fusion body).
    pub fn shape(&self, inst: &Inst) -> &Shape {
        static EMPTY: Shape = Shape {
            element_type: 0,
            dimensions: Vec::new(),
            is_dynamic_dimension: Vec::new(),
            tuple_shapes: Vec::new(),
            layout: None,
        };
        self.shapes.get(inst.shape as usize).unwrap_or(&EMPTY)
    }

    /// The operands of `inst`, in order.
    pub fn operands(&self, inst: &Inst) -> &[usize] {
        let (start, operands, _) = inst.links;
        let start = start as usize;
        self.links
            .get(start..start.saturating_add(operands as usize))
            .unwrap_or(&[])
    }

    /// The computations `inst` calls: a while's condition then body, a
    /// conditional's branches, a call's or a fusion's computation.
    pub fn called(&self, inst: &Inst) -> &[usize] {
        let (start, operands, called) = inst.links;
        let start = (start as usize).saturating_add(operands as usize);
        self.links
            .get(start..start.saturating_add(called as usize))
            .unwrap_or(&[])
    }

    /// A custom call's `output_to_operand_aliasing`.
    pub fn aliasing(&self, inst: &Inst) -> &[Alias] {
        (inst.aliasing as usize)
            .checked_sub(1)
            .and_then(|k| self.aliasing.get(k))
            .map_or(&[], |a| a)
    }

    /// The op_name and frame of `inst`, when its metadata has either
    /// (never in a fusion body).
    pub fn origin(&self, inst: &Inst) -> Option<&InstOrigin> {
        (inst.origin as usize)
            .checked_sub(1)
            .and_then(|k| self.origins.get(k))
    }
}
