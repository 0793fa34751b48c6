//! The streaming reader of HLO module text as XLA prints it
//! (`compiled.as_text()`, the `*.txt` files of `--xla_dump_to`).
//!
//! The text is read one line at a time: memory is the longest line plus the
//! entry computation's parameter shapes, whatever the module's size. What
//! the sizes do not need (operands, attributes, metadata, the stack-frame
//! tables) is stepped over with brackets matched and strings and comments
//! skipped, so it can never be misread; unbalanced text is an error. An
//! instruction's `sharding={...}` is read, and gives what one device holds.

use std::collections::HashMap;
use std::io::{BufRead, Read};
use std::ops::Range;

use schema::Shape;
use sharding_util::HloSharding;

use crate::entry_layout::{Compared, EntryLayout, check_entry_layout, element_texts};
use crate::names::Names;
use crate::origins::metadata::ProtoMetadata;
use crate::scan::scan;
use crate::shape_facts::{EntryTotals, facts_of, facts_of_text};
use crate::sizes::{BufferSizes, EntryBytes};
use crate::{HloError, HloErrorKind, PerDevice, is_opcode};

/// One instruction of a module, as the reader hands it to its visitor.
#[derive(Debug, Clone, PartialEq)]
pub struct Instruction<'a> {
    /// The computation it belongs to (its name without `%`).
    pub computation: &'a str,
    /// Whether that computation is marked `ENTRY`.
    pub is_entry: bool,
    /// Whether it is its computation's `ROOT`.
    pub is_root: bool,
    /// Its name, without `%`.
    pub name: &'a str,
    /// Its opcode (`fusion`, `get-tuple-element`).
    pub opcode: &'a str,
    /// Its shape as XLA prints it, layout included (`f32[8]{0}`; parse
    /// it for the [`Shape`]). Text, not a `Shape`: a tuple of millions of
    /// elements is read a tuple element at a time and costs its text.
    pub shape: &'a str,
    /// The bytes of its own buffer.
    pub sizes: BufferSizes,
    /// What one device holds of it under its `sharding={...}` (a
    /// serialized module's `sharding`) in a module not yet partitioned;
    /// `None` without a sharding, or with one that does not say (see
    /// [`PerDevice::of`]).
    pub per_device: Option<PerDevice>,
    /// The 1-based line it is on (0 in a serialized module).
    pub line: u64,
    /// The text between the opcode's parentheses, as written: the operands
    /// (`%a, %b`), a constant's literal, a parameter's number (empty in a
    /// serialized module).
    pub operands: &'a str,
    /// The text after the operands' `)` and its `,`, as written: the
    /// attributes (`calls=%f, kind=kLoop`; empty when none and in a
    /// serialized module).
    pub attributes: &'a str,
    /// A serialized module's metadata of the instruction, with the module's
    /// stack frames (none in text, whose `metadata={...}` is among the
    /// attributes).
    pub(crate) proto: Option<ProtoMetadata<'a>>,
}

/// What the reader learns about a whole module.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct ModuleSummary {
    /// The module's name (`HloModule jit_f, ...`).
    pub name: String,
    /// The `entry_computation_layout` of the module header, if any.
    pub entry_computation_layout: Option<EntryLayout>,
    /// The entry computation: the one marked `ENTRY`, else the last one.
    pub entry_computation: String,
    /// The entry computation's parameter shapes, by parameter number, as
    /// XLA prints them (parse one for its [`Shape`]).
    pub entry_parameters: Vec<String>,
    /// The shape of the entry computation's `ROOT`, as XLA prints it.
    pub entry_result: String,
    /// The bytes of the entry parameters as XLA's `CompiledMemoryStats`
    /// counts them (`argument_size_in_bytes`; see [`entry_bytes`](crate::entry_bytes)), from
    /// `entry_computation_layout` when the header has it.
    pub parameter_bytes: EntryBytes,
    /// The bytes of the entry result as `CompiledMemoryStats` counts them
    /// (`output_size_in_bytes`), from `entry_computation_layout` when the
    /// header has it.
    pub output_bytes: EntryBytes,
    /// What one device holds of the entry parameters, counted as
    /// `parameter_bytes` (what `memory_analysis()` reports per device for the
    /// module partitioned): `None` unless the module has shardings and every
    /// entry parameter's says what a device holds.
    pub per_device_parameter_bytes: Option<EntryBytes>,
    /// What one device holds of the entry result, counted as
    /// `output_bytes`: `None` unless the module has shardings and the entry
    /// `ROOT`'s says what a device holds.
    pub per_device_output_bytes: Option<EntryBytes>,
    /// How many computations the module has.
    pub computations: u64,
    /// How many instructions, in all computations.
    pub instructions: u64,
    /// Whether the header says `is_scheduled=true`: each computation's
    /// instructions are written in the order they run.
    pub is_scheduled: bool,
    /// The header's `input_output_alias={...}` as written, braces included
    /// (empty when the module has none): the outputs that reuse a donated
    /// parameter's buffer.
    pub input_output_alias: String,
    /// What was read without being understood, where (`line 4, column 19`
    /// or a field's path): an opcode XLA does not know, read as an
    /// instruction of its shape, its buffer sized as any other's. The
    /// first place of each such opcode, at most [`MAX_WARNINGS`].
    pub warnings: Vec<String>,
}

/// The most warnings a [`ModuleSummary`] keeps.
pub const MAX_WARNINGS: usize = 100;

/// Records that `opcode`, found at `place`, is none XLA knows: once per
/// opcode, at most [`MAX_WARNINGS`] in all.
pub(crate) fn warn_unknown_opcode(warnings: &mut Vec<String>, opcode: &str, place: &str) {
    let quoted = format!("unknown opcode `{opcode}`");
    if warnings.len() < MAX_WARNINGS && !warnings.iter().any(|w| w.contains(&quoted)) {
        warnings.push(format!(
            "{place}: {quoted}, read as an instruction of its shape"
        ));
    }
}

/// Reads HLO module text from `input` line by line, calls `visit` with each
/// instruction in the order of the text, and returns what it learnt about
/// the module.
///
/// ```
/// let text = "HloModule m, entry_computation_layout={(f32[8]{0})->(f32[8]{0}, s32[])}
///
/// ENTRY %main (p: f32[8]) -> (f32[8], s32[]) {
///   %p = f32[8]{0} parameter(0), metadata={op_name=\"p\"}
///   %n = f32[8]{0} negate(%p)
///   %c = s32[] constant(1)
///   ROOT %t = (f32[8]{0}, s32[]) tuple(%n, %c)
/// }
/// ";
/// let mut names = Vec::new();
/// let module = hlo_util::read_text(text.as_bytes(), |i| names.push(i.name.to_owned())).unwrap();
/// assert_eq!(names, ["p", "n", "c", "t"]);
/// assert_eq!(module.parameter_bytes.allocated, 32);
/// // The result tuple's table (2 pointers) and its two arrays.
/// assert_eq!(module.output_bytes.allocated, 16 + 32 + 4);
/// ```
///
/// # Errors
///
/// [`HloError`] with the line and column of the first thing the reader
/// cannot read: text that is not UTF-8, a line longer than
/// [`MAX_LINE_BYTES`], a line that is not what XLA prints there, an operand
/// or a called computation not defined before, a name defined twice (as
/// XLA's parser words them), an `entry_computation_layout` that disagrees
/// with the entry computation (as XLA's verifier words it), a shape XLA's parser refuses or cannot size,
/// unbalanced brackets or strings, a module without computations, an I/O
/// error.
pub fn read_text<R: BufRead>(
    mut input: R,
    mut visit: impl FnMut(&Instruction<'_>),
) -> Result<ModuleSummary, HloError> {
    let mut reader = Reader::default();
    let mut buffer = Vec::new();
    let cap = u64::try_from(MAX_LINE_BYTES).unwrap_or(u64::MAX);
    loop {
        buffer.clear();
        let read = (&mut input)
            .take(cap.saturating_add(1))
            .read_until(b'\n', &mut buffer)
            .map_err(|e| HloError::at(reader.line + 1, 0, HloErrorKind::Io(e)))?;
        if read == 0 {
            return reader.finish();
        }
        reader.line += 1;
        if buffer.len() > MAX_LINE_BYTES {
            return Err(HloError::at(
                reader.line,
                MAX_LINE_BYTES,
                HloErrorKind::LineTooLong(MAX_LINE_BYTES),
            ));
        }
        let text = match buffer.strip_prefix(BOM) {
            Some(rest) if reader.line == 1 => rest,
            _ => &buffer,
        };
        let line = std::str::from_utf8(text)
            .map_err(|e| HloError::at(reader.line, e.valid_up_to(), HloErrorKind::NotUtf8(e)))?;
        let line = line.trim_end_matches(['\n', '\r']);
        reader.line_of_text(line, &mut visit)?;
    }
}

/// The longest line the reader takes (256 MiB): a longer one is an error
/// before more of it is read. XLA prints an instruction, its shape and
/// attributes on one line, so this caps one instruction's text.
pub const MAX_LINE_BYTES: usize = 256 << 20;

/// The byte order mark some editors write first: skipped.
const BOM: &[u8] = b"\xef\xbb\xbf";

/// Where the reader is.
#[derive(Debug, Default, PartialEq)]
enum State {
    /// Before the `HloModule` line.
    #[default]
    Start,
    /// Between computations (after the header).
    Between,
    /// Inside a computation.
    Computation,
}

/// The reader's state between lines.
#[derive(Debug, Default)]
struct Reader {
    line: u64,
    state: State,
    /// Inside one of the stack-frame tables XLA prints after the header
    /// (`FileNames`, `FunctionNames`, `FileLocations`, `StackFrames`).
    in_table: bool,
    summary: ModuleSummary,
    /// The line and byte offset of the `entry_computation_layout`'s value,
    /// for its errors.
    layout_line: u64,
    layout_at: usize,
    computation: String,
    is_entry: bool,
    entry_seen: bool,
    /// The current computation's parameters (number, shape, sharding) and
    /// root (shape, sharding).
    parameters: Vec<(i64, String, Option<HloSharding>)>,
    root: Option<(String, Option<HloSharding>)>,
    /// The entry computation's parameter shardings, by number, and root's.
    entry_shardings: (Vec<Option<HloSharding>>, Option<HloSharding>),
    /// Whether an instruction has a `sharding={...}`.
    sharded: bool,
    /// Shardings read, as written (`None`: one sharding-util does not
    /// read); emptied as [`Self::shapes`].
    shardings: HashMap<String, Option<HloSharding>>,
    /// The names defined so far, to check operands and calls against.
    names: Names,
    /// Shapes read, as written, with XLA's text of them and their sizes:
    /// modules repeat shapes, and a clone costs less than parsing and
    /// sizing again. Emptied when it holds [`SHAPE_CACHE`] shapes.
    shapes: HashMap<String, (Shape, String, BufferSizes)>,
}

/// The most shapes the reader remembers.
const SHAPE_CACHE: usize = 4096;

/// The longest shape text the reader remembers: a longer shape (a large
/// tuple) is parsed each time it is written rather than kept twice.
const CACHED_SHAPE_TEXT: usize = 1024;

impl Reader {
    fn line_of_text(
        &mut self,
        line: &str,
        visit: &mut impl FnMut(&Instruction<'_>),
    ) -> Result<(), HloError> {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            return Ok(());
        }
        let indent = line.len() - line.trim_start().len();
        match self.state {
            State::Start => self.header(line, indent),
            State::Between => self.between(line, indent),
            State::Computation if trimmed == "}" => self.end_computation(),
            State::Computation => self.instruction(line, indent, visit),
        }
    }

    /// `HloModule name, attribute=value, ...`.
    fn header(&mut self, line: &str, start: usize) -> Result<(), HloError> {
        let Some(rest) = line[start..].strip_prefix("HloModule") else {
            return Err(self.error(start, "expected `HloModule` first"));
        };
        let mut at = start + "HloModule".len();
        if !rest.starts_with([' ', '\t']) {
            return Err(self.error(at, "expected the module's name after `HloModule`"));
        }
        at = skip_space(line, at);
        let name_end = line[at..]
            .find([',', ' ', '\t'])
            .map_or(line.len(), |p| at + p);
        if name_end == at {
            return Err(self.error(at, "expected the module's name after `HloModule`"));
        }
        self.summary.name = line[at..name_end].to_owned();
        at = skip_space(line, name_end);
        while at < line.len() {
            if line.as_bytes()[at] != b',' {
                return Err(self.error(at, "expected `,` between the module's attributes"));
            }
            at = skip_space(line, at + 1);
            let end = scan(line, at, b",").map_err(|(o, m)| self.error(o, m))?;
            let attribute = line[at..end].trim_end();
            if let Some(value) = attribute.strip_prefix("entry_computation_layout=") {
                let value_at = at + "entry_computation_layout=".len();
                self.summary.entry_computation_layout = Some(self.program_shape(value, value_at)?);
                self.layout_line = self.line;
                self.layout_at = value_at;
            } else if let Some(value) = attribute.strip_prefix("input_output_alias=") {
                value.clone_into(&mut self.summary.input_output_alias);
            } else if attribute == "is_scheduled=true" {
                self.summary.is_scheduled = true;
            }
            at = end;
        }
        self.state = State::Between;
        Ok(())
    }

    /// `{(param, ...)->result}` at byte `at`.
    fn program_shape(&self, value: &str, at: usize) -> Result<EntryLayout, HloError> {
        let inner = value
            .strip_prefix('{')
            .and_then(|v| v.strip_suffix('}'))
            .ok_or_else(|| self.error(at, "expected `{(parameters)->result}`"))?;
        let arrow = scan(inner, 0, b"-").map_err(|(o, m)| self.error(at + 1 + o, m))?;
        let result_text = inner[arrow..]
            .strip_prefix("->")
            .ok_or_else(|| self.error(at + 1 + arrow, "expected `->`"))?;
        let fail = |offset: usize, e: schema::ParseError| {
            self.fail(offset + e.offset(), HloErrorKind::Shape(e))
        };
        let parameters = element_texts(&inner[..arrow]).map_err(|e| fail(at + 1, e))?;
        if !inner[..arrow].trim_start().starts_with('(') {
            return Err(self.error(at + 1, "expected `(` before the parameters"));
        }
        let result = facts_of_text(result_text, None)
            .map_err(|e| fail(at + 1 + arrow + 2, e))?
            .0
            .text;
        Ok(EntryLayout {
            parameters,
            result: Some(result),
        })
    }

    /// Between computations: a stack-frame table or a computation's header
    /// `[ENTRY] %name (parameters) -> result {`.
    fn between(&mut self, line: &str, start: usize) -> Result<(), HloError> {
        let text = &line[start..];
        if ["FileNames", "FunctionNames", "FileLocations", "StackFrames"].contains(&text) {
            self.in_table = true;
            return Ok(());
        }
        if self.in_table && text.starts_with(|c: char| c.is_ascii_digit()) {
            return scan(line, start, b"")
                .map(|_| ())
                .map_err(|(o, m)| self.error(o, m));
        }
        self.in_table = false;
        let (is_entry, at) = match text.strip_prefix("ENTRY") {
            Some(rest) if rest.starts_with([' ', '\t']) => (true, skip_space(line, start + 5)),
            _ => (false, start),
        };
        let name_end = line[at..]
            .find([' ', '\t', '(', '{'])
            .map_or(line.len(), |p| at + p);
        let name = line[at..name_end].trim_start_matches('%');
        let body = line.trim_end();
        let Some(signature) = body.strip_suffix('{') else {
            return Err(self.error(
                start,
                "expected a computation (`name (parameters) -> result {`)",
            ));
        };
        if name.is_empty() {
            return Err(self.error(at, "expected the computation's name"));
        }
        scan(signature, name_end, b"").map_err(|(o, m)| self.error(o, m))?;
        let line_number = self.line;
        self.names
            .start_computation(name, line_number, at)
            .map_err(|(o, m)| self.error(o, m))?;
        if is_entry {
            if self.entry_seen {
                return Err(self.error(start, "a second ENTRY computation"));
            }
            self.entry_seen = true;
        }
        self.computation.clear();
        self.computation.push_str(name);
        self.is_entry = is_entry;
        self.parameters.clear();
        self.root = None;
        self.state = State::Computation;
        self.summary.computations += 1;
        Ok(())
    }

    /// The `}` closing a computation.
    fn end_computation(&mut self) -> Result<(), HloError> {
        let Some((root, root_sharding)) = self.root.take() else {
            return Err(self.error(0, format!("computation `{}` has no ROOT", self.computation)));
        };
        if self.is_entry || !self.entry_seen {
            let mut parameters = std::mem::take(&mut self.parameters);
            parameters.sort_by_key(|&(number, _, _)| number);
            for (expected, (number, _, _)) in parameters.iter().enumerate() {
                if usize::try_from(*number).ok() != Some(expected) {
                    return Err(self.error(
                        0,
                        format!(
                            "computation `{}` has no parameter({expected}) or two of it",
                            self.computation
                        ),
                    ));
                }
            }
            let (shapes, shardings) = parameters.into_iter().map(|(_, s, h)| (s, h)).unzip();
            self.summary.entry_parameters = shapes;
            self.entry_shardings = (shardings, root_sharding);
            self.summary.entry_result = root;
            self.summary.entry_computation.clone_from(&self.computation);
        }
        self.state = State::Between;
        Ok(())
    }

    /// `[ROOT] %name = shape opcode(operands)[, attribute=value...]`.
    fn instruction(
        &mut self,
        line: &str,
        start: usize,
        visit: &mut impl FnMut(&Instruction<'_>),
    ) -> Result<(), HloError> {
        let (is_root, name, name_at, at) = self.instruction_name(line, start)?;
        let shape_end = scan(line, at, b" \t").map_err(|(o, m)| self.error(o, m))?;
        let shape_text = &line[at..shape_end];
        let (shape, sizes) = self.sized_shape(shape_text, at)?;
        let (opcode, operands) = self.opcode_and_operands(line, shape_end)?;
        let (sharding, attributes) = self.trailing_attributes(line, operands.end)?;
        let line_number = self.line;
        self.names
            .define(name, line_number, name_at)
            .map_err(|(o, m)| self.error(o, m))?;
        let per_device = sharding
            .as_ref()
            .and_then(|h| self.per_device(shape_text, h));
        let number = self.parameter_number(opcode, &line[operands.clone()], operands.start)?;
        if is_root && self.root.is_some() {
            return Err(self.error(start, "a second ROOT in the computation"));
        }
        self.summary.instructions += 1;
        let instruction = Instruction {
            computation: &self.computation,
            is_entry: self.is_entry,
            is_root,
            name,
            opcode,
            shape: &shape,
            sizes,
            per_device,
            line: self.line,
            operands: &line[operands],
            attributes,
            proto: None,
        };
        visit(&instruction);
        self.keep_for_summary(number, is_root, shape, sharding);
        Ok(())
    }

    /// `[ROOT] %name =` from byte `start`: whether it is the root, the
    /// name and its byte, and the byte of the shape after the `=`.
    fn instruction_name<'l>(
        &self,
        line: &'l str,
        start: usize,
    ) -> Result<(bool, &'l str, usize, usize), HloError> {
        let (is_root, at) = match line[start..].strip_prefix("ROOT") {
            Some(rest) if rest.starts_with([' ', '\t']) => (true, skip_space(line, start + 4)),
            _ => (false, start),
        };
        let name_end = line[at..]
            .find([' ', '\t', '='])
            .map_or(line.len(), |p| at + p);
        let name = line[at..name_end].trim_start_matches('%');
        if name.is_empty() {
            return Err(self.error(at, "expected an instruction (`name = shape opcode(...)`)"));
        }
        let equals = skip_space(line, name_end);
        if line.as_bytes().get(equals) != Some(&b'=') {
            return Err(self.error(equals, "expected `=` after the instruction's name"));
        }
        Ok((is_root, name, at, skip_space(line, equals + 1)))
    }

    /// The opcode after the shape that ends at byte `shape_end` (an unknown
    /// one warned of), and the bytes of the text between its parentheses,
    /// its operands checked against the names defined.
    fn opcode_and_operands<'l>(
        &mut self,
        line: &'l str,
        shape_end: usize,
    ) -> Result<(&'l str, Range<usize>), HloError> {
        let opcode_at = skip_space(line, shape_end);
        let opcode_end = line[opcode_at..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .map_or(line.len(), |p| opcode_at + p);
        let opcode = &line[opcode_at..opcode_end];
        if opcode.is_empty() {
            return Err(self.error(opcode_at, "expected an opcode after the shape"));
        }
        if !is_opcode(opcode) {
            let place = format!("line {}, column {}", self.line, opcode_at + 1);
            warn_unknown_opcode(&mut self.summary.warnings, opcode, &place);
        }
        if line.as_bytes().get(opcode_end) != Some(&b'(') {
            return Err(self.error(opcode_end, "expected `(` after the opcode"));
        }
        let operands_end = scan(line, opcode_end + 1, b")").map_err(|(o, m)| self.error(o, m))?;
        if operands_end == line.len() {
            return Err(self.error(opcode_end, "`(` is never closed"));
        }
        if !matches!(opcode, "parameter" | "constant") {
            self.names
                .check_operands(line, opcode_end + 1, operands_end)
                .map_err(|(o, m)| self.error(o, m))?;
        }
        Ok((opcode, opcode_end + 1..operands_end))
    }

    /// The sharding and the text of the attributes after the operands' `)`
    /// at byte `operands_end` (`""` when there are none).
    fn trailing_attributes<'l>(
        &mut self,
        line: &'l str,
        operands_end: usize,
    ) -> Result<(Option<HloSharding>, &'l str), HloError> {
        let rest = skip_space(line, operands_end + 1);
        if rest >= line.len() {
            return Ok((None, ""));
        }
        if line.as_bytes()[rest] != b',' {
            return Err(self.error(rest, "expected `,` before the instruction's attributes"));
        }
        Ok((self.attributes(line, rest + 1)?, line[rest + 1..].trim()))
    }

    /// The number of a `parameter` (its text `operands`, at byte `at`) the
    /// summary keeps: one of the entry, or of any computation before the
    /// entry is seen; `None` for another opcode.
    fn parameter_number(
        &self,
        opcode: &str,
        operands: &str,
        at: usize,
    ) -> Result<Option<i64>, HloError> {
        if opcode != "parameter" {
            return Ok(None);
        }
        let number = operands
            .trim()
            .parse::<i64>()
            .ok()
            .filter(|n| *n >= 0)
            .ok_or_else(|| self.error(at, "expected the parameter's number"))?;
        Ok(Some(number).filter(|_| self.is_entry || !self.entry_seen))
    }

    /// Keeps the shape and sharding of a parameter the summary counts
    /// (`number`) or of the root, moved rather than copied.
    fn keep_for_summary(
        &mut self,
        number: Option<i64>,
        is_root: bool,
        shape: String,
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

    /// The attributes `a=value, b=value` from byte `at` to the end of the
    /// line: checks their brackets, strings and comments, and returns the
    /// `sharding={...}` if there is one (`None` also when sharding-util does
    /// not read it).
    fn attributes(&mut self, line: &str, mut at: usize) -> Result<Option<HloSharding>, HloError> {
        let mut sharding = None;
        while at < line.len() {
            let end = scan(line, at, b",").map_err(|(o, m)| self.error(o, m))?;
            self.names
                .check_calls(line, at, end, &self.computation)
                .map_err(|(o, m)| self.error(o, m))?;
            if let Some(text) = line[at..end].trim().strip_prefix("sharding=") {
                self.sharded = true;
                if self.shardings.len() >= SHAPE_CACHE {
                    self.shardings.clear();
                }
                sharding = self
                    .shardings
                    .entry(text.to_owned())
                    .or_insert_with(|| text.parse().ok())
                    .clone();
            }
            at = end + 1;
        }
        Ok(sharding)
    }

    /// XLA's text of the shape `text` found at byte `at` of the line, and
    /// its sizes. A shape written at most [`CACHED_SHAPE_TEXT`] bytes long
    /// is kept parsed; a longer one is read a tuple element at a time.
    fn sized_shape(&mut self, text: &str, at: usize) -> Result<(String, BufferSizes), HloError> {
        if let Some((_, printed, sizes)) = self.shapes.get(text) {
            return Ok((printed.clone(), *sizes));
        }
        let fail = |e: schema::ParseError| self.fail(at + e.offset(), HloErrorKind::Shape(e));
        if text.len() > CACHED_SHAPE_TEXT {
            let (facts, _) = facts_of_text(text, None).map_err(fail)?;
            let sizes = facts
                .sizes
                .map_err(|e| self.fail(at, HloErrorKind::Size(e)))?;
            return Ok((facts.text, sizes));
        }
        let shape = text.parse::<Shape>().map_err(fail)?;
        let sizes = BufferSizes::of(&shape).map_err(|e| self.fail(at, HloErrorKind::Size(e)))?;
        let printed = shape.to_string();
        if self.shapes.len() >= SHAPE_CACHE {
            self.shapes.clear();
        }
        self.shapes
            .insert(text.to_owned(), (shape, printed.clone(), sizes));
        Ok((printed, sizes))
    }

    /// What one device holds of the shape `text`, read before by
    /// [`Self::sized_shape`], under `sharding`.
    fn per_device(&self, text: &str, sharding: &HloSharding) -> Option<PerDevice> {
        let facts = match self.shapes.get(text) {
            Some((shape, _, _)) => facts_of(shape, Some(sharding)),
            None => facts_of_text(text, Some(sharding)).ok()?,
        };
        PerDevice::from_facts(facts.1?)
    }

    /// The end of the input.
    fn finish(mut self) -> Result<ModuleSummary, HloError> {
        match self.state {
            State::Start => return Err(self.error(0, "no `HloModule` line: the input is empty")),
            State::Computation => {
                return Err(self.error(
                    0,
                    format!("computation `{}` is never closed", self.computation),
                ));
            }
            State::Between if self.summary.computations == 0 => {
                return Err(self.error(0, "the module has no computation"));
            }
            State::Between => {}
        }
        let summary = &mut self.summary;
        let layout_error =
            |m| HloError::at(self.layout_line, self.layout_at, HloErrorKind::Malformed(m));
        if let Some(layout) = &summary.entry_computation_layout {
            let compared = |texts: &[String]| -> Result<Vec<Compared>, HloError> {
                texts
                    .iter()
                    .map(|t| Compared::of_text(t).map_err(|e| layout_error(e.to_string())))
                    .collect()
            };
            let expected = compared(&layout.parameters)?;
            let expected_result = compared(layout.result.as_slice())?;
            let parameters = compared(&summary.entry_parameters)?;
            let result = Compared::of_text(&summary.entry_result)
                .map_err(|e| layout_error(e.to_string()))?;
            check_entry_layout((&expected, expected_result.first()), &parameters, &result)
                .map_err(layout_error)?;
        }
        let (parameters, result, line) = match &summary.entry_computation_layout {
            Some(layout) => (&layout.parameters, layout.result.as_ref(), self.layout_line),
            None => (
                &summary.entry_parameters,
                Some(&summary.entry_result),
                self.line,
            ),
        };
        let (parameter_shardings, root_sharding) = &self.entry_shardings;
        let totals = |shapes: &[String], shardings: &[Option<HloSharding>]| {
            let mut totals = EntryTotals::new(self.sharded && shapes.len() == shardings.len());
            for (i, shape) in shapes.iter().enumerate() {
                let sharding = shardings.get(i).and_then(Option::as_ref);
                let facts = facts_of_text(shape, sharding)
                    .map_err(|e| HloError::at(line, 0, HloErrorKind::Shape(e)))?;
                totals.add(facts).map_err(|e| {
                    HloError::at(
                        line,
                        0,
                        e.map_or(HloErrorKind::Overflow, HloErrorKind::Size),
                    )
                })?;
            }
            Ok::<_, HloError>(totals)
        };
        let inputs = totals(parameters, parameter_shardings)?;
        let outputs = totals(
            result.map(std::slice::from_ref).unwrap_or_default(),
            std::slice::from_ref(root_sharding),
        )?;
        summary.parameter_bytes = inputs.bytes;
        summary.output_bytes = outputs.bytes;
        if self.sharded {
            summary.per_device_parameter_bytes = inputs.per_device;
            summary.per_device_output_bytes = outputs.per_device.filter(|_| result.is_some());
        }
        Ok(self.summary)
    }

    /// Text that is not what XLA prints, at byte `offset` of the line.
    fn error(&self, offset: usize, message: impl Into<String>) -> HloError {
        self.fail(offset, HloErrorKind::Malformed(message.into()))
    }

    /// An error of `kind` at byte `offset` of the line.
    fn fail(&self, offset: usize, kind: HloErrorKind) -> HloError {
        HloError::at(self.line.max(1), offset, kind)
    }
}

/// The offset of the first non-blank byte of `line` at or after `at`.
fn skip_space(line: &str, at: usize) -> usize {
    line.as_bytes()
        .get(at..)
        .and_then(|rest| rest.iter().position(|b| !matches!(b, b' ' | b'\t')))
        .map_or(line.len(), |p| at + p)
}

/// A summary's entry parameters and root, as kept while reading.
pub(crate) type EntryValues<'a, S> = (
    &'a mut Vec<(i64, S, Option<HloSharding>)>,
    &'a mut Option<(S, Option<HloSharding>)>,
);

/// Keeps `shape` and `sharding` as parameter `number` of the entry, as its
/// root, or both (a root that is a parameter), moved rather than copied
/// where it can be.
pub(crate) fn keep_entry_value<S: Clone>(
    (parameters, root): EntryValues<'_, S>,
    number: Option<i64>,
    is_root: bool,
    shape: S,
    sharding: Option<HloSharding>,
) {
    match (number, is_root) {
        (Some(number), true) => {
            parameters.push((number, shape.clone(), sharding.clone()));
            *root = Some((shape, sharding));
        }
        (Some(number), false) => parameters.push((number, shape, sharding)),
        (None, true) => *root = Some((shape, sharding)),
        (None, false) => {}
    }
}
