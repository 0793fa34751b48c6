//! The readers on large generated modules: a serialized module of many
//! instructions or many computations, and text whose parameter is a large
//! tuple, read in memory a small multiple of their size. The modules are
//! built here, not stored. The ignored tests measure the worst cases of
//! `docs/robustness.md` (a million instructions or computations, a tuple of
//! four million elements) with the process's peak memory, which only
//! grows: run each alone (`cargo test -p hlo-util --release --test
//! large_modules -- --ignored --exact NAME`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use hlo_util::{read_module, read_text};

mod memory;
mod wire;

use memory::peak_memory;
use wire::{bytes_field, int_field, varint};

/// An `HloInstructionProto` of shape `f32[]{}` (name 1, opcode 2, shape 3,
/// parameter_number 9, id 35, operand_ids 36).
fn instruction(name: &str, opcode: &str, id: u64, operand: Option<u64>) -> Vec<u8> {
    let mut shape = Vec::new();
    int_field(2, 11, &mut shape); // F32
    bytes_field(5, &[], &mut shape); // an empty layout
    let mut out = Vec::new();
    bytes_field(1, name.as_bytes(), &mut out);
    bytes_field(2, opcode.as_bytes(), &mut out);
    bytes_field(3, &shape, &mut out);
    int_field(35, id, &mut out);
    if let Some(operand) = operand {
        let mut ids = Vec::new();
        varint(operand, &mut ids);
        bytes_field(36, &ids, &mut out);
    }
    out
}

/// An `HloComputationProto` (name 1, instructions 2, id 5, root_id 6).
fn computation(name: &str, instructions: &[Vec<u8>], id: u64, root: u64) -> Vec<u8> {
    let mut out = Vec::new();
    bytes_field(1, name.as_bytes(), &mut out);
    for i in instructions {
        bytes_field(2, i, &mut out);
    }
    int_field(5, id, &mut out);
    int_field(6, root, &mut out);
    out
}

/// A module (name 1, computations 3, entry_computation_id 6) of one
/// computation: a parameter and a chain of `n - 1` negates.
fn many_instructions(n: u64) -> Vec<u8> {
    let mut instructions = vec![instruction("p", "parameter", 0, None)];
    instructions.extend((1..n).map(|i| instruction(&format!("n{i}"), "negate", i, Some(i - 1))));
    let mut out = Vec::new();
    bytes_field(1, b"m", &mut out);
    bytes_field(3, &computation("e", &instructions, 1, n - 1), &mut out);
    int_field(6, 1, &mut out);
    out
}

/// A module of `n` computations of one parameter each, the last the entry.
fn many_computations(n: u64) -> Vec<u8> {
    let mut out = Vec::new();
    bytes_field(1, b"m", &mut out);
    let parameter = [instruction("p", "parameter", 1, None)];
    for c in 0..n {
        bytes_field(
            3,
            &computation(&format!("c{c}"), &parameter, c + 2, 1),
            &mut out,
        );
    }
    int_field(6, n + 1, &mut out);
    out
}

/// Text whose entry parameter is a tuple of `n` scalars, read through a
/// get-tuple-element; with the header's `entry_computation_layout` when
/// `header`.
fn tuple_text(n: usize, header: bool) -> String {
    let elements = vec!["s8[]"; n].join(", ");
    let layout = if header {
        format!(", entry_computation_layout={{(({elements}))->s8[]}}")
    } else {
        String::new()
    };
    format!(
        "HloModule m{layout}\nENTRY e {{\n  p = ({elements}) parameter(0)\n  ROOT g = s8[] get-tuple-element(p), index=0\n}}\n"
    )
}

/// A module whose entry parameter is a tuple of `n` `s8[]` read through a
/// get-tuple-element, with the tuple in `host_program_shape` (module field
/// 4: `ProgramShapeProto` parameters 1, result 2) when `layout`.
fn tuple_module(n: usize, layout: bool) -> Vec<u8> {
    let mut scalar = Vec::new();
    int_field(2, 2, &mut scalar); // S8
    bytes_field(5, &[], &mut scalar);
    let mut tuple = Vec::new();
    int_field(2, 13, &mut tuple); // TUPLE
    for _ in 0..n {
        bytes_field(4, &scalar, &mut tuple);
    }
    let shaped = |name: &str, opcode: &str, shape: &[u8], id: u64, operand: Option<u64>| {
        let mut out = Vec::new();
        bytes_field(1, name.as_bytes(), &mut out);
        bytes_field(2, opcode.as_bytes(), &mut out);
        bytes_field(3, shape, &mut out);
        int_field(35, id, &mut out);
        if let Some(operand) = operand {
            let mut ids = Vec::new();
            varint(operand, &mut ids);
            bytes_field(36, &ids, &mut out);
        }
        out
    };
    let instructions = [
        shaped("p", "parameter", &tuple, 1, None),
        shaped("g", "get-tuple-element", &scalar, 2, Some(1)),
    ];
    let mut out = Vec::new();
    bytes_field(1, b"m", &mut out);
    bytes_field(3, &computation("e", &instructions, 1, 2), &mut out);
    if layout {
        let mut program = Vec::new();
        bytes_field(1, &tuple, &mut program);
        bytes_field(2, &scalar, &mut program);
        bytes_field(4, &program, &mut out);
    }
    int_field(6, 1, &mut out);
    out
}

#[test]
fn a_serialized_module_of_many_instructions_reads() {
    let bytes = many_instructions(100_000);
    let mut visited = 0_u64;
    let module = read_module(bytes.as_slice(), |_| visited += 1).unwrap();
    assert_eq!((module.instructions, visited), (100_000, 100_000));
    assert_eq!(module.parameter_bytes.logical, 4);
}

#[test]
fn a_serialized_module_of_many_computations_reads() {
    let bytes = many_computations(100_000);
    let module = read_module(bytes.as_slice(), |_| {}).unwrap();
    assert_eq!(module.computations, 100_000);
    assert_eq!(module.entry_computation, "c99999");
}

/// Checks what the reader learnt of a module of [`tuple_text`] or
/// [`tuple_module`] of 100,000 elements: the shapes' lengths it visited,
/// and the module, with the tuple in its layout when `layout`.
fn check_large_tuple(shapes: &[usize], module: &hlo_util::ModuleSummary, layout: bool) {
    // `s8[], ` and every fifth element's `/*index=N*/`.
    let printed = module.entry_parameters[0].as_str();
    assert_eq!(printed.matches("s8[]").count(), 100_000);
    assert!(printed.starts_with("(s8[], s8[], s8[], s8[], s8[], /*index=5*/s8[], "));
    assert_eq!(shapes, [printed.len(), 4]);
    // A table of 100,000 pointers and a byte each.
    assert_eq!(module.parameter_bytes.allocated, 100_000 * 8 + 100_000);
    assert_eq!(module.output_bytes.allocated, 1);
    let parameters = module
        .entry_computation_layout
        .as_ref()
        .map(|l| l.parameters.clone());
    assert_eq!(parameters, layout.then(|| vec![printed.to_owned()]));
}

#[test]
fn a_large_tuple_reads_an_element_at_a_time() {
    for layout in [false, true] {
        let text = tuple_text(100_000, layout);
        let mut shapes = Vec::new();
        let module = read_text(text.as_bytes(), |i| shapes.push(i.shape.len())).unwrap();
        check_large_tuple(&shapes, &module, layout);
    }
}

#[test]
fn a_large_serialized_tuple_reads_an_element_at_a_time() {
    for layout in [false, true] {
        let bytes = tuple_module(100_000, layout);
        let mut shapes = Vec::new();
        let module = read_module(bytes.as_slice(), |i| shapes.push(i.shape.len())).unwrap();
        check_large_tuple(&shapes, &module, layout);
    }
}

/// Reads `input` and checks that the peak memory it added, with the
/// input, is at most 20 times its size.
fn assert_small_multiple(input: &[u8]) {
    let before = peak_memory();
    read_module(input, |_| {}).unwrap();
    let added = peak_memory().saturating_sub(before) as f64 + input.len() as f64;
    let multiple = added / input.len() as f64;
    println!("{} bytes: {multiple:.1}x", input.len());
    assert!(multiple <= 20.0, "{multiple}");
}

#[test]
#[ignore = "measures peak memory: run alone, in release"]
fn a_million_instructions_take_a_small_multiple_of_the_input() {
    let bytes = many_instructions(1_000_000);
    assert_small_multiple(&bytes);
}

#[test]
#[ignore = "measures peak memory: run alone, in release"]
fn a_million_computations_take_a_small_multiple_of_the_input() {
    let bytes = many_computations(1_000_000);
    assert_small_multiple(&bytes);
}

#[test]
#[ignore = "measures peak memory: run alone, in release"]
fn a_tuple_of_four_million_scalars_takes_a_small_multiple_of_the_input() {
    let text = tuple_text(4_000_000, false);
    assert_small_multiple(text.as_bytes());
}

#[test]
#[ignore = "measures peak memory: run alone, in release"]
fn a_tuple_of_four_million_scalars_in_the_header_too_takes_a_small_multiple_of_the_input() {
    let text = tuple_text(4_000_000, true);
    assert_small_multiple(text.as_bytes());
}

#[test]
#[ignore = "measures peak memory: run alone, in release"]
fn a_serialized_tuple_of_four_million_scalars_takes_a_small_multiple_of_the_input() {
    let bytes = tuple_module(4_000_000, true);
    assert_small_multiple(&bytes);
}
