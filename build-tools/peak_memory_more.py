"""The parts of gen_peak_memory.py written after its first set of programs,
kept apart so that the line numbers its module texts record stay as they
are: the programs of every set, and the expected origins of the buffers
live at the peak, taken from XLA's dump.

`live_at_peak(proto)` replays the dumped BufferAssignmentProto as XLA's
`ComputePeakMemory` does (the static baseline, then ALLOC / FREE /
SHARE_WITH of every heap trace with reference counts) and stops at the first
event that reaches the peak. The buffers live there are the logical buffers
holding storage (a SHARE_WITH adds a reference to the buffer whose storage
it takes, not one of its own), each with its defining instruction's name,
op_name and stack, innermost frame first, from the dumped module's
`stack_frame_index` (or its older `source_file`/`source_line`). Each frame
is [file, function, line, end_line, column, end_column], 0 where the module
records none.
"""

from __future__ import annotations

from peak_memory_heldout import heldout_programs
from peak_memory_host import host_programs
from peak_origins_programs import origin_programs


def extra_programs():
    """The programs after the first set: the held-out ones, those of the
    origins, then those with host memory."""
    return {**heldout_programs(), **origin_programs(), **host_programs()}


def frames(index, frame_id: int) -> list:
    """The stack of `frame_id` (1-based, 0 none) in a StackFrameIndexProto,
    innermost first."""
    out = []
    while frame_id and len(out) <= len(index.stack_frames):
        frame = index.stack_frames[frame_id - 1]
        loc = index.file_locations[frame.file_location_id - 1]
        function = index.function_names[loc.function_name_id - 1] if loc.function_name_id else ""
        out.append([index.file_names[loc.file_name_id - 1], function, loc.line, loc.end_line, loc.column,
                    loc.end_column])
        frame_id = frame.parent_frame_id
    return out


def origin(module, instruction) -> tuple:
    """(op_name or None, stack) of an instruction of the dumped module."""
    meta = instruction.metadata
    if meta.stack_frame_id:
        stack = frames(module.stack_frame_index, meta.stack_frame_id)
    elif meta.source_file:
        stack = [[meta.source_file, "", meta.source_line, meta.source_end_line, meta.source_column,
                  meta.source_end_column]]
    else:
        stack = []
    return meta.op_name or None, stack


def holders(assignment) -> tuple:
    """(size by buffer id, the reference counts at the first event that
    reaches the peak: the static baseline's buffers, then the heap's)."""
    size = {b.id: b.size for b in assignment.logical_buffers}
    static = {}
    for a in assignment.buffer_allocations:
        if a.is_thread_local or not (a.is_entry_computation_parameter or a.is_constant or a.maybe_live_out):
            continue
        ids = [x.logical_buffer_id for x in a.assigned]
        if ids:
            best = max(ids, key=lambda i: (size[i], -ids.index(i)))
            static[best] = 1
    events = [e for t in assignment.heap_simulator_traces for e in t.events]

    def run(stop):
        refs, under = dict(static), {}
        memory = sum(size[b] for b in static)
        top, at = memory, None

        def root(i):
            while i in under:
                i = under[i]
            return i

        def take(b):
            nonlocal memory
            refs[b] = refs.get(b, 0) + 1
            if refs[b] == 1:
                memory += size[b]

        for n, e in enumerate(events):
            if e.kind == 0:
                take(e.buffer_id)
            elif e.kind == 1:
                r = root(e.buffer_id)
                under.pop(e.buffer_id, None)
                refs[r] -= 1
                if refs[r] == 0:
                    memory -= size[r]
            else:
                r = root(e.share_with_canonical_id)
                under[e.buffer_id] = r
                take(r)
            if n == stop:
                return refs
            if memory > top:
                top, at = memory, n
        return at

    at = run(None)
    return size, (static if at is None else run(at))


def live_at_peak(proto) -> dict:
    """{"live_at_peak": the buffers live at the first moment of the peak,
    largest first, each {name, shape_index, bytes, op_name, stack};
    "by_source": [source line or None, bytes] by the innermost frame's
    file:line, largest first}."""
    module = proto.hlo_module
    instructions = {i.id: i for c in module.computations for i in c.instructions}
    defined = {b.id: b.defined_at for b in proto.buffer_assignment.logical_buffers}
    size, refs = holders(proto.buffer_assignment)
    live = []
    for b, count in refs.items():
        if count <= 0:
            continue
        at = defined[b]
        inst = instructions[at.instruction_id]
        op_name, stack = origin(module, inst)
        live.append({"name": inst.name, "shape_index": list(at.shape_index), "bytes": size[b],
                     "op_name": op_name, "stack": stack})
    live.sort(key=lambda x: (-x["bytes"], x["name"], x["shape_index"]))
    by_source = {}
    for x in live:
        key = "%s:%d" % (x["stack"][0][0], x["stack"][0][2]) if x["stack"] else None
        by_source[key] = by_source.get(key, 0) + x["bytes"]
    rows = sorted(by_source.items(), key=lambda kv: (-kv[1], kv[0] is None, kv[0] or ""))
    return {"live_at_peak": live, "by_source": [list(r) for r in rows]}
