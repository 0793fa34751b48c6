//! The replay of small `HloProto`s built by hand, and malformed ones
//! answered with a typed error naming the field, never a panic.

use prost::Message;

use super::{AssignmentError, BufferKind, peak_from_hlo_proto};
use crate::proto::buffer_allocation_proto::Assigned;
use crate::proto::heap_simulator_trace::Event;
use crate::proto::logical_buffer_proto::Location;
use crate::proto::{
    BufferAllocationProto, BufferAssignmentProto, HeapSimulatorTrace, HloComputationProto,
    HloInstructionProto, HloModuleProto, HloProto, LogicalBufferProto,
};

/// A module with instructions `p` (id 1, a parameter) and `t` (id 2), and
/// an assignment: `p` in a parameter allocation, `t` in a temporary one, a
/// trace that allocates and frees `t`.
fn proto() -> HloProto {
    let instruction = |id: i64, name: &str| HloInstructionProto {
        id,
        name: name.into(),
        opcode: "negate".into(),
        shape: "f32[4]{0}".parse().ok(),
        ..HloInstructionProto::default()
    };
    let module = HloModuleProto {
        computations: vec![HloComputationProto {
            instructions: vec![instruction(1, "p"), instruction(2, "t")],
            ..HloComputationProto::default()
        }],
        ..HloModuleProto::default()
    };
    let buffer = |id: i64, instruction_id: i64| LogicalBufferProto {
        id,
        size: 16,
        defined_at: Some(Location {
            instruction_id,
            ..Location::default()
        }),
        ..LogicalBufferProto::default()
    };
    let allocation = |index: i64, logical_buffer_id: i64, parameter: bool| BufferAllocationProto {
        index,
        size: 16,
        is_entry_computation_parameter: parameter,
        assigned: vec![Assigned {
            logical_buffer_id,
            size: 16,
            ..Assigned::default()
        }],
        ..BufferAllocationProto::default()
    };
    let event = |kind: i32, buffer_id: i64| Event {
        kind,
        buffer_id,
        instruction_name: "t".into(),
        ..Event::default()
    };
    HloProto {
        hlo_module: Some(module),
        buffer_assignment: Some(BufferAssignmentProto {
            logical_buffers: vec![buffer(10, 1), buffer(20, 2)],
            buffer_allocations: vec![allocation(0, 10, true), allocation(1, 20, false)],
            heap_simulator_traces: vec![HeapSimulatorTrace {
                events: vec![event(0, 20), event(1, 20)],
                ..HeapSimulatorTrace::default()
            }],
            ..BufferAssignmentProto::default()
        }),
    }
}

fn peak(proto: &HloProto) -> Result<u64, AssignmentError> {
    peak_from_hlo_proto(&proto.encode_to_vec()).map(|r| r.peak_bytes)
}

fn assignment(proto: &mut HloProto) -> &mut BufferAssignmentProto {
    proto.buffer_assignment.get_or_insert_default()
}

fn events(proto: &mut HloProto) -> &mut Vec<Event> {
    &mut assignment(proto).heap_simulator_traces[0].events
}

#[test]
fn the_small_assignment_peaks_with_its_temporary() {
    assert_eq!(peak(&proto()), Ok(32));
}

#[test]
fn traces_are_replayed_one_after_the_other() {
    let mut p = proto();
    let trace = assignment(&mut p).heap_simulator_traces[0].clone();
    assignment(&mut p).heap_simulator_traces.push(trace);
    let report = peak_from_hlo_proto(&p.encode_to_vec()).unwrap();
    assert_eq!((report.peak_bytes, report.static_bytes), (32, 16));
    let at = report.peak_at.unwrap();
    assert_eq!((at.step, at.instruction.as_str()), (0, "t"));
    let live: Vec<_> = report
        .live_at_peak
        .iter()
        .map(|b| (b.name.as_str(), b.kind))
        .collect();
    assert_eq!(
        live,
        [("p", BufferKind::Parameter), ("t", BufferKind::Temporary)]
    );
}

#[test]
fn a_shared_buffer_counts_once() {
    let mut p = proto();
    let mut buffer = assignment(&mut p).logical_buffers[1].clone();
    buffer.id = 30;
    assignment(&mut p).logical_buffers.push(buffer);
    let share = Event {
        kind: 2,
        buffer_id: 30,
        share_with_canonical_id: 20,
        ..events(&mut p)[0].clone()
    };
    let free = Event {
        kind: 1,
        buffer_id: 30,
        ..events(&mut p)[0].clone()
    };
    events(&mut p).insert(1, share);
    events(&mut p).push(free);
    assert_eq!(peak(&p), Ok(32));
}

#[test]
fn a_proto_without_a_buffer_assignment() {
    let mut p = proto();
    p.buffer_assignment = None;
    assert_eq!(peak(&p), Err(AssignmentError::NoAssignment));
    p.hlo_module = None;
    assert_eq!(peak(&p), Err(AssignmentError::NoModule));
}

#[test]
fn a_trace_naming_a_buffer_the_assignment_lacks() {
    let mut p = proto();
    events(&mut p)[1].buffer_id = 99;
    assert_eq!(
        peak(&p).unwrap_err().to_string(),
        "heap_simulator_traces[0].events[1].buffer_id: no logical buffer has id 99"
    );
    let mut p = proto();
    events(&mut p)[1].kind = 2;
    events(&mut p)[1].share_with_canonical_id = 7;
    assert!(matches!(
        peak(&p),
        Err(AssignmentError::UnknownBuffer { id: 7, .. })
    ));
}

#[test]
fn instructions_the_module_lacks() {
    let mut p = proto();
    events(&mut p)[0].instruction_name = "gone".into();
    assert_eq!(
        peak(&p).unwrap_err().to_string(),
        "heap_simulator_traces[0].events[0].instruction_name: the module has no instruction gone"
    );
    let mut p = proto();
    assignment(&mut p).logical_buffers[1]
        .defined_at
        .get_or_insert_default()
        .instruction_id = 5;
    assert_eq!(
        peak(&p).unwrap_err().to_string(),
        "logical_buffers[1].defined_at.instruction_id: the module has no instruction 5"
    );
    let mut p = proto();
    assignment(&mut p).logical_buffers[1]
        .defined_at
        .get_or_insert_default()
        .shape_index = vec![0];
    assert!(matches!(
        peak(&p),
        Err(AssignmentError::UnknownInstruction { .. })
    ));
}

#[test]
fn a_free_of_what_was_never_allocated() {
    let mut p = proto();
    events(&mut p).remove(0);
    assert_eq!(
        peak(&p).unwrap_err().to_string(),
        "heap_simulator_traces[0].events[0]: FREE of buffer 20, never allocated"
    );
}

#[test]
fn events_out_of_order() {
    let message = |p: &HloProto| peak(p).unwrap_err().to_string();
    // A double ALLOC.
    let mut p = proto();
    let again = events(&mut p)[0].clone();
    events(&mut p).insert(1, again);
    assert_eq!(
        message(&p),
        "heap_simulator_traces[0].events[1]: ALLOC of buffer 20, already allocated at event 0 of its trace"
    );
    // A double FREE.
    let mut p = proto();
    let again = events(&mut p)[1].clone();
    events(&mut p).push(again);
    assert_eq!(
        message(&p),
        "heap_simulator_traces[0].events[2]: FREE of buffer 20, already freed at event 1"
    );
    // SHARE_WITH a buffer never allocated.
    let mut p = proto();
    let mut buffer = assignment(&mut p).logical_buffers[1].clone();
    buffer.id = 30;
    assignment(&mut p).logical_buffers.push(buffer);
    assignment(&mut p).buffer_allocations[1]
        .assigned
        .push(Assigned {
            logical_buffer_id: 30,
            size: 16,
            ..Assigned::default()
        });
    let share = Event {
        kind: 2,
        buffer_id: 20,
        share_with_canonical_id: 30,
        ..events(&mut p)[0].clone()
    };
    events(&mut p)[0] = share;
    assert_eq!(
        message(&p),
        "heap_simulator_traces[0].events[0]: buffer 20 shares with buffer 30, never allocated before"
    );
}

#[test]
fn assignments_that_contradict_themselves() {
    let message = |p: &HloProto| peak(p).unwrap_err().to_string();
    // An offset of 2^40 in a 16-byte allocation.
    let mut p = proto();
    assignment(&mut p).buffer_allocations[1].assigned[0].offset = 1 << 40;
    assert_eq!(
        message(&p),
        "buffer_allocations[1].assigned[0]: offset 1099511627776 and size 16 pass the end of the allocation (16 bytes)"
    );
    // An assigned size above its allocation.
    let mut p = proto();
    assignment(&mut p).buffer_allocations[1].assigned[0].size = 8192;
    assert_eq!(
        message(&p),
        "buffer_allocations[1].assigned[0]: offset 0 and size 8192 pass the end of the allocation (16 bytes)"
    );
    // One logical buffer in two allocations (a duplicate allocation).
    let mut p = proto();
    let mut again = assignment(&mut p).buffer_allocations[1].clone();
    again.index = 2;
    assignment(&mut p).buffer_allocations.push(again);
    assert_eq!(
        message(&p),
        "buffer_allocations[2].assigned[0].logical_buffer_id: logical buffer 20 is assigned to allocation 1 already"
    );
    // Allocations out of place.
    let mut p = proto();
    assignment(&mut p).buffer_allocations[1].index = 0;
    assert_eq!(
        message(&p),
        "buffer_allocations[1].index: 0 where 1 comes (each allocation once, in order)"
    );
    // A trace of an allocation the assignment lacks.
    for index in [99_999, -1] {
        let mut p = proto();
        assignment(&mut p).heap_simulator_traces[0].buffer_allocation_index = index;
        assert_eq!(
            message(&p),
            format!(
                "heap_simulator_traces[0].buffer_allocation_index: {index}, but the assignment has 2 allocations"
            )
        );
    }
}

#[test]
fn sizes_beyond_i64_or_negative() {
    // A temporary of 2^63 - 1 bytes over a 16-byte parameter: the peak
    // passes i64::MAX.
    let mut p = proto();
    assignment(&mut p).logical_buffers[1].size = i64::MAX;
    assert_eq!(
        peak(&p).unwrap_err().to_string(),
        "heap event 0: the bytes are beyond i64"
    );
    // Static buffers whose sum passes it.
    let mut p = proto();
    for buffer in &mut assignment(&mut p).logical_buffers {
        buffer.size = i64::MAX;
    }
    assignment(&mut p).buffer_allocations[1].is_constant = true;
    assert_eq!(
        peak(&p),
        Err(AssignmentError::Overflow("the static baseline".into()))
    );
    let mut p = proto();
    assignment(&mut p).logical_buffers[0].size = -1;
    assert!(matches!(
        peak(&p),
        Err(AssignmentError::NegativeSize { size: -1, .. })
    ));
}

#[test]
fn unknown_event_kinds_and_duplicate_ids() {
    let mut p = proto();
    events(&mut p)[0].kind = 7;
    assert!(matches!(
        peak(&p),
        Err(AssignmentError::UnknownEventKind { kind: 7, .. })
    ));
    let mut p = proto();
    assignment(&mut p).logical_buffers[1].id = 10;
    assert_eq!(peak(&p), Err(AssignmentError::DuplicateBuffer(10)));
}

#[test]
fn stacks_come_from_the_stack_frame_index_and_bad_ones_are_refused() {
    use crate::proto::StackFrameIndexProto;
    use crate::proto::stack_frame_index_proto::{FileLocation, StackFrame};
    let mut proto = proto();
    let module = proto.hlo_module.as_mut().unwrap();
    module.stack_frame_index = Some(StackFrameIndexProto {
        file_names: vec!["m.py".into()],
        function_names: vec!["outer".into(), "inner".into()],
        file_locations: vec![
            FileLocation {
                file_name_id: 1,
                function_name_id: 1,
                line: 9,
                ..FileLocation::default()
            },
            FileLocation {
                file_name_id: 1,
                function_name_id: 2,
                line: 3,
                column: 5,
                ..FileLocation::default()
            },
        ],
        stack_frames: vec![
            StackFrame {
                file_location_id: 1,
                parent_frame_id: 0,
            },
            StackFrame {
                file_location_id: 2,
                parent_frame_id: 1,
            },
        ],
    });
    let instructions = &mut module.computations[0].instructions;
    instructions[0].metadata = Some(schema::OpMetadata {
        op_name: "args[0]".into(),
        ..Default::default()
    });
    instructions[1].metadata = Some(schema::OpMetadata {
        op_name: "jit(f)/neg".into(),
        stack_frame_id: 2,
        ..Default::default()
    });
    let report = peak_from_hlo_proto(&proto.encode_to_vec()).unwrap();
    let t = report.live_at_peak.iter().find(|b| b.name == "t").unwrap();
    assert_eq!(t.op_name.as_deref(), Some("jit(f)/neg"));
    let frames = t.stack.to_vec();
    assert_eq!(frames.len(), 2);
    assert_eq!(
        (
            frames[0].function.as_str(),
            frames[0].line,
            frames[0].column
        ),
        ("inner", 3, Some(5))
    );
    assert_eq!(frames[1].to_string(), "outer (m.py:9)");
    let p = report.live_at_peak.iter().find(|b| b.name == "p").unwrap();
    assert_eq!(
        (p.op_name.as_deref(), p.stack.is_empty()),
        (Some("args[0]"), true)
    );

    // A circle of callers, and a frame naming a missing location.
    let index = |proto: &mut HloProto| {
        proto
            .hlo_module
            .as_mut()
            .unwrap()
            .stack_frame_index
            .as_mut()
            .unwrap()
            .clone()
    };
    let mut circle = proto.clone();
    let mut frames_index = index(&mut circle);
    frames_index.stack_frames[0].parent_frame_id = 2;
    circle.hlo_module.as_mut().unwrap().stack_frame_index = Some(frames_index);
    let error = peak_from_hlo_proto(&circle.encode_to_vec()).unwrap_err();
    assert!(matches!(error, AssignmentError::StackFrames(_)));
    assert!(error.to_string().contains("round in a circle"), "{error}");
    let mut missing = proto.clone();
    let mut frames_index = index(&mut missing);
    frames_index.stack_frames[1].file_location_id = 7;
    missing.hlo_module.as_mut().unwrap().stack_frame_index = Some(frames_index);
    let error = peak_from_hlo_proto(&missing.encode_to_vec()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "hlo_module.stack_frame_index: stack frame 2 names file location 7, which the module lacks (2 locations)"
    );
}
