//! The memory report: its JSON keys and order, how many rows `top` keeps,
//! and the errors' kinds and sources.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::error::Error;
use std::io::{self, BufRead, Read};

use hlo_util::{
    EntryBytes, HloErrorKind, Limit, MemoryReport, ModuleSummary, Opcode, ProtoErrorKind, ReadError,
};

const TWO_COMPUTATIONS: &str = "HloModule m
%f (a: f32[4]) -> f32[4] {
  ROOT %a = f32[4]{0} parameter(0)
}

ENTRY %e (p: bf16[10,200]) -> bf16[10,200] {
  %p = bf16[10,200]{1,0:T(8,128)(2,1)} parameter(0)
  %c = f32[4]{0} constant({1,2,3,4})
  %x = f32[4]{0} call(%c), to_apply=%f
  ROOT %n = bf16[10,200]{1,0:T(8,128)(2,1)} negate(%p)
}
";

#[test]
fn kinds_units_groupings_and_limits_pad_as_one_word() {
    use hlo_util::{BufferKind, GroupBy, StepUnit};
    assert_eq!(format!("{:>10}|", BufferKind::Parameter), " parameter|");
    assert_eq!(
        format!("{:<14}|", BufferKind::ThreadLocal),
        "thread_local  |"
    );
    assert_eq!(format!("{:>15}|", StepUnit::HeapEvent), "     heap_event|");
    assert_eq!(format!("{:>10}|", GroupBy::Op), "        op|");
    assert_eq!(format!("{:>5}|", Limit::All), "  all|");
    // A count pads as the word does: left-aligned unless told otherwise.
    assert_eq!(format!("{:5}|", Limit::First(12)), "12   |");
    assert_eq!(format!("{:>5}|", Limit::First(12)), "   12|");
    assert_eq!(Limit::First(12).to_string(), "12");
}

#[test]
fn the_json_object_has_the_commands_keys_in_order() {
    let report = MemoryReport::read(TWO_COMPUTATIONS.as_bytes(), 1).unwrap();
    let json = serde_json::to_string(&report).unwrap();
    assert_eq!(
        json,
        concat!(
            r#"{"module":"m","parameter_bytes":4000,"output_bytes":4000,"#,
            r#""parameter_allocated_bytes":8192,"output_allocated_bytes":8192,"#,
            r#""per_device_parameter_bytes":null,"per_device_output_bytes":null,"#,
            r#""computations":2,"instruction_count":5,"instructions":[{"computation":"e","#,
            r#""name":"p","opcode":"parameter","shape":"bf16[10,200]{1,0:T(8,128)(2,1)}","#,
            r#""bytes":4000,"allocated_bytes":8192,"padding_bytes":4192,"padding_ratio":2.048,"#,
            r#""memory_space":0,"per_device_shape":null,"per_device_bytes":null,"op_name":null,"#,
            r#""stack":[]}],"#,
            r#""computation_totals":[{"computation":"e","instructions":4,"bytes":8032,"#,
            r#""allocated_bytes":16416,"padding_bytes":8384}]}"#
        )
    );
}

#[test]
fn top_keeps_the_largest_rows_and_every_computations_total() {
    let all = MemoryReport::read(TWO_COMPUTATIONS.as_bytes(), usize::MAX).unwrap();
    let names: Vec<&str> = all.instructions.iter().map(|r| r.name.as_str()).collect();
    // Largest first, then in the order of the text.
    assert_eq!(names, ["p", "n", "a", "c", "x"]);
    assert_eq!(all.computation_totals.len(), 2);

    let none = MemoryReport::read(TWO_COMPUTATIONS.as_bytes(), 0).unwrap();
    assert!(none.instructions.is_empty());
    assert_eq!(none.computation_totals.len(), 2);
    let json = serde_json::to_value(&none).unwrap();
    assert_eq!(json["computation_totals"], serde_json::json!([]));
    // The text shows the largest computation even so.
    let text = none.to_string();
    assert!(text.contains("(5 more instructions; --top N or --all shows more)"));
    assert!(text.ends_with("    16416   8032     8384             4  e\n(1 more computation; --top N or --all shows more)"));
}

#[test]
fn a_text_report_never_reads_a_serialized_module() {
    let error = MemoryReport::read_text(&b"\x1a\x05\x12\x09"[..], 20).unwrap_err();
    assert!(matches!(error.kind, HloErrorKind::Malformed(_)));
    let error = MemoryReport::read(&b"\x1a\x05\x12\x09"[..], 20).unwrap_err();
    let ReadError::Proto(error) = error else {
        panic!("{error:?}")
    };
    assert!(matches!(error.kind, ProtoErrorKind::Wire { offset: 0, .. }));
    assert_eq!(
        error.to_string(),
        "HloModuleProto: at byte 0: field 3 claims 5 bytes but only 2 remain"
    );
    // A field of the wrong type for its number: prost's error in the
    // message and in the variant, not again as the source.
    let error = MemoryReport::read(&b"\x30\x01\x0a\x01\xff"[..], 20).unwrap_err();
    let ReadError::Proto(error) = error else {
        panic!("{error:?}")
    };
    assert!(matches!(error.kind, ProtoErrorKind::Decode(_)));
    assert!(error.source().is_none());
}

/// A reader that fails after `ok` bytes of `text`.
struct Failing {
    text: &'static [u8],
    ok: usize,
}

impl Read for Failing {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.fill_buf()?.len().min(buf.len());
        buf[..n].copy_from_slice(&self.text[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Failing {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.ok == 0 {
            return Err(io::Error::other("disk on fire"));
        }
        Ok(&self.text[..self.ok.min(self.text.len())])
    }

    fn consume(&mut self, n: usize) {
        self.text = &self.text[n..];
        self.ok -= n;
    }
}

#[test]
fn io_errors_are_kept_in_the_variant_and_said_once() {
    let error = MemoryReport::read(Failing { text: b"", ok: 0 }, 20).unwrap_err();
    assert_eq!(error.to_string(), "cannot read: disk on fire");
    let ReadError::Io(io) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(io.kind(), io::ErrorKind::Other);

    let failing = Failing {
        text: b"HloModule m\nENTRY e {\n",
        ok: 12,
    };
    let error = MemoryReport::read_text(failing, 20).unwrap_err();
    assert_eq!(
        error.to_string(),
        "line 2, column 1: cannot read: disk on fire"
    );
    let HloErrorKind::Io(io) = &error.kind else {
        panic!("{error:?}")
    };
    assert_eq!(io.to_string(), "disk on fire");
    assert!(error.source().is_none());
}

/// `report` as its JSON carries it: the module's summary down to the
/// serialized fields (a per-device total's allocated bytes as its logical
/// ones), the totals listed and no `top` limit.
fn as_serialized(report: &MemoryReport) -> MemoryReport {
    let mut expected = report.clone();
    let m = &report.module;
    let logical = |b: Option<EntryBytes>| {
        b.map(|b| EntryBytes {
            logical: b.logical,
            allocated: b.logical,
        })
    };
    let mut module = ModuleSummary::default();
    module.name.clone_from(&m.name);
    module.parameter_bytes = m.parameter_bytes;
    module.output_bytes = m.output_bytes;
    module.per_device_parameter_bytes = logical(m.per_device_parameter_bytes);
    module.per_device_output_bytes = logical(m.per_device_output_bytes);
    module.computations = m.computations;
    module.instructions = m.instructions;
    module.warnings.clone_from(&m.warnings);
    expected.module = module;
    let shown = report.top.of(report.computation_totals.len());
    expected.computation_totals.truncate(shown);
    expected.top = Limit::All;
    expected
}

#[test]
fn every_golden_modules_report_reads_back_from_its_json() {
    let dir = conformance::golden_dir().join("hlo");
    let mut read = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        let Ok(report) = MemoryReport::read(bytes.as_slice(), 3) else {
            continue;
        };
        let json = serde_json::to_string(&report).unwrap();
        let back: MemoryReport = serde_json::from_str(&json).unwrap();
        assert_eq!(back, as_serialized(&report), "{}", path.display());
        assert_eq!(
            serde_json::to_string(&back).unwrap(),
            json,
            "{}",
            path.display()
        );
        read += 1;
    }
    assert!(read >= 70, "{read} modules read in {}", dir.display());
}

#[test]
fn a_sharded_rows_per_device_buffer_and_stack_read_back() {
    let text = std::fs::read(conformance::golden_dir().join("hlo/sharded_columns.txt")).unwrap();
    let report = MemoryReport::read(text.as_slice(), usize::MAX).unwrap();
    let back: MemoryReport =
        serde_json::from_str(&serde_json::to_string(&report).unwrap()).unwrap();
    assert!(back.instructions.iter().any(|r| r.per_device.is_some()));
    assert_eq!(back.instructions, report.instructions);
    let text = std::fs::read(conformance::golden_dir().join("hlo/column_major.txt")).unwrap();
    let report = MemoryReport::read(text.as_slice(), usize::MAX).unwrap();
    let back: MemoryReport =
        serde_json::from_str(&serde_json::to_string(&report).unwrap()).unwrap();
    assert!(back.instructions.iter().any(|r| !r.stack.is_empty()));
    assert_eq!(back.instructions, report.instructions);
}

#[test]
fn a_row_with_half_a_per_device_buffer_is_an_error() {
    let report = MemoryReport::read(TWO_COMPUTATIONS.as_bytes(), 1).unwrap();
    let json = serde_json::to_string(&report)
        .unwrap()
        .replace(r#""per_device_bytes":null"#, r#""per_device_bytes":8"#);
    let error = serde_json::from_str::<MemoryReport>(&json).unwrap_err();
    assert!(
        error.to_string().contains(
            "buffer p: per_device_shape and per_device_bytes are both null or neither is"
        ),
        "{error}"
    );
}

#[test]
fn opcodes_are_typed_and_written_as_the_module_spells_them() {
    let text = "HloModule m
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %sum = f32[] add(%a, %b)
}

ENTRY %e (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  %s = f32[4]{0} all-reduce-start(%p), to_apply=%add
  %d = f32[4]{0} all-reduce-done(%s)
  ROOT %f = f32[4]{0} frobnicate(%d)
}
";
    let report = MemoryReport::read(text.as_bytes(), Limit::All).unwrap();
    let opcodes: Vec<&Opcode> = report
        .instructions
        .iter()
        .filter(|r| r.computation == "e")
        .map(|r| &r.opcode)
        .collect();
    assert_eq!(
        opcodes,
        [
            &Opcode::Parameter,
            &Opcode::Start(Box::new(Opcode::AllReduce)),
            &Opcode::Done(Box::new(Opcode::AllReduce)),
            &Opcode::Other("frobnicate".to_owned()),
        ]
    );
    let json = serde_json::to_value(&report).unwrap();
    let words: Vec<&str> = json["instructions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|row| row["computation"] == "e")
        .map(|row| row["opcode"].as_str().unwrap())
        .collect();
    assert_eq!(
        words,
        [
            "parameter",
            "all-reduce-start",
            "all-reduce-done",
            "frobnicate"
        ]
    );
    let back: MemoryReport = serde_json::from_value(json).unwrap();
    assert_eq!(back.instructions, report.instructions);
    assert!(report.to_string().contains("all-reduce-start"));
}
