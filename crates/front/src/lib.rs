//! The library the front ends of xla-shape share: the `xla-shape`
//! command line, the explorer page (WebAssembly) and the Python package
//! `xla_shape` give these results, computed here once: the `explain`
//! report, broadcasting, views, memory order, pictures (SVG), shards,
//! reshard plans, HLO modules' buffers and peaks, and the peak's flame
//! graph and pprof profile. It links no argument parser.

#![forbid(unsafe_code)]

mod broadcast;
mod draw;
mod dump_files;
mod error;
mod module_peak;
pub mod operand;
mod peak_outputs;
mod peak_samples;
mod pictures;
pub mod pprof;
mod shard;

use schema::Shape;
pub use shape_util::Explanation;
pub use stride_util::ViewReport;

pub use broadcast::{BroadcastRule, Broadcasted};
pub use error::Error;

/// The peak memory and timeline of XLA's dumps of a buffer assignment.
pub use hlo_util::{AssignmentError, MemoryDump, MemoryTimeline, ModuleMemory, PeakReport};
/// The HLO memory report of hlo-util, and the errors of reading a module.
pub use hlo_util::{HloError, MemoryReport, ReadError};
use hlo_util::{InputKind, NotModuleText};

pub use dump_files::DumpFiles;

/// The report `xla-shape explain` prints for `shape` (its fields are what
/// `--json` prints, less `ok` and `input`).
///
/// ```
/// let shape: schema::Shape = "f32[2,3]{0,1}".parse().unwrap();
/// let report = xla_shape_front::explain(&shape).unwrap();
/// assert_eq!(report.buffer_size, Some(24));
/// assert_eq!(report.strides, Some(vec![1, 2]));
/// ```
///
/// # Errors
/// [`Error::Explain`]: XLA's message for a shape it rejects.
pub fn explain(shape: &Shape) -> Result<Explanation, Error> {
    Ok(shape_util::explain(shape)?)
}

/// What `xla-shape broadcast` prints: the broadcast of `shapes` (XLA shape
/// strings, or bare `[d0,...]` lists standing for `f32` arrays) under
/// `rule`: numpy's (any number of shapes), or XLA's for two, an elementwise
/// binary op or BroadcastInDim of the first into the second.
///
/// ```
/// use xla_shape_front::{BroadcastRule, Broadcasted};
///
/// let shapes = ["[4]".to_owned(), "[1,2]".to_owned()];
/// let rule = BroadcastRule::Elementwise { dims: vec![0] };
/// let result = xla_shape_front::broadcast(&shapes, &rule).unwrap();
/// assert_eq!(result, Broadcasted::Dimensions(vec![4, 2]));
/// assert_eq!(result.to_string(), "[4,2]");
///
/// let shapes = ["f32[3]".to_owned(), "f32[2,3]".to_owned()];
/// let rule = BroadcastRule::InDim { dims: vec![1] };
/// let result = xla_shape_front::broadcast(&shapes, &rule).unwrap();
/// assert_eq!(result, Broadcasted::Shape("f32[2,3]".parse().unwrap()));
/// ```
///
/// # Errors
/// XLA's (or numpy's) message when the shapes do not broadcast
/// ([`Error::Broadcast`], [`Error::NumpyBroadcast`]), the parsers' for a
/// shape that does not parse, [`Error::OperandCount`] for XLA's rules on
/// other than two shapes.
pub fn broadcast(shapes: &[String], rule: &BroadcastRule) -> Result<Broadcasted, Error> {
    broadcast::broadcast(shapes, rule)
}

/// The report `xla-shape view BASE OPS...` prints: the strided view
/// (`shape`, `strides`, `offset`, `c_contiguous`, `f_contiguous`) after
/// numpy-style operations on `base` (a bare `[d0,...]` list or an XLA
/// shape string).
///
/// ```
/// let view = xla_shape_front::view("[3,4]", &["[0:3:2, 1:4:2]".to_owned()]).unwrap();
/// assert_eq!(view.strides, [8, 2]);
/// assert_eq!(view.offset, 1);
/// ```
///
/// # Errors
/// [`Error::View`]: numpy's message for an operation it would refuse.
pub fn view(base: &str, ops: &[String]) -> Result<ViewReport, Error> {
    Ok(ViewReport::of(&stride_util::resolve_view(base, ops)?))
}

/// What `xla-shape order` lists: for each position of `shape`'s buffer in
/// memory order (tiles and padding included), the row-major index of the
/// element stored there, or `None` for padding.
///
/// ```
/// let shape: schema::Shape = "f32[2,3]{0,1}".parse().unwrap();
/// let order = xla_shape_front::memory_order(&shape).unwrap();
/// assert_eq!(order, [0, 3, 1, 4, 2, 5].map(Some));
/// ```
///
/// # Errors
/// [`Error::Layout`]: XLA's message for a shape it rejects;
/// [`Error::Order`]: a buffer of more than 2^20 positions.
pub fn memory_order(shape: &Shape) -> Result<Vec<Option<i64>>, Error> {
    let layout = index_util::TiledLayout::new(shape)?;
    Ok(index_util::memory_order(&layout)?)
}

/// What `xla-shape draw` draws: the SVG picture of `shape`'s layout.
///
/// ```
/// let shape: schema::Shape = "f32[2,3]{0,1}".parse().unwrap();
/// assert!(xla_shape_front::draw(&shape).unwrap().contains("<svg"));
/// ```
///
/// # Errors
/// [`Error::Picture`]: XLA's message for a shape it rejects.
pub fn draw(shape: &Shape) -> Result<String, Error> {
    pictures::draw_shape(shape).map_err(Error::picture)
}

/// What `xla-shape draw --view BASE OPS...` draws: the SVG picture of the
/// view after `ops` applied to `base` (as for [`view`]) above the base's
/// buffer, the view's elements outlined in it.
///
/// ```
/// let svg = xla_shape_front::draw_view("[3,4]", &["[0:3:2, 1:4:2]".to_owned()]).unwrap();
/// assert!(svg.contains("<svg"));
/// ```
///
/// # Errors
/// [`Error::Picture`]: the message of [`view`] for a view that does not
/// resolve, or why it cannot be drawn.
pub fn draw_view(base: &str, ops: &[String]) -> Result<String, Error> {
    pictures::draw_view(base, ops).map_err(Error::picture)
}

/// What `xla-shape draw SHAPE --sharding SHARDING` draws: the SVG picture
/// of `shape`'s blocks under the sharding `text` (XLA's sharding text),
/// each labelled with the devices holding it; `devices` is the device
/// count of a sharding that names none (`{replicated}`, `{maximal device=N}`).
/// The notes name the mesh's axes of a named sharding and list the devices
/// that hold nothing.
///
/// ```
/// let shape: schema::Shape = "f32[6,8]".parse().unwrap();
/// let svg = xla_shape_front::draw_sharding(&shape, "{devices=[2,2]<=[4]}", None).unwrap();
/// assert!(svg.contains("<svg"));
/// let error = xla_shape_front::draw_sharding(&shape, "{replicated}", None).unwrap_err();
/// assert_eq!(
///     error.with_device_count_hint("devices=N"),
///     "{replicated} names no device count: give devices=N"
/// );
/// ```
///
/// # Errors
/// [`Error::Sharding`] for a sharding that names no device count when
/// `devices` is `None` ([`Error::with_device_count_hint`] says how to give
/// one); [`Error::Picture`]: the parser's message for a sharding it
/// rejects, XLA's for a sharding that does not fit the shape or the device
/// count.
pub fn draw_sharding(shape: &Shape, text: &str, devices: Option<i64>) -> Result<String, Error> {
    pictures::draw_sharding(shape, text, devices, None)
}

/// [`draw_sharding`] over a mesh of `mesh_axes` (names and sizes, major
/// first, holding the sharding's devices; jax's `mesh.shape`), whose names
/// the picture's notes show: for a sharding text that names no mesh (the
/// `{devices=[2,4]<=[8]}` jax lowers a `NamedSharding` to).
///
/// ```
/// let shape: schema::Shape = "f32[6,8]".parse().unwrap();
/// let axes = [("data".to_owned(), 2), ("model".to_owned(), 2)];
/// let svg = xla_shape_front::draw_sharding_on_mesh(&shape, "{devices=[2,2]<=[4]}", None, &axes).unwrap();
/// assert!(svg.contains("mesh data=2 \u{b7} model=2"));
/// let wrong = [("data".to_owned(), 8)];
/// let error = xla_shape_front::draw_sharding_on_mesh(&shape, "{devices=[2,2]<=[4]}", None, &wrong);
/// assert_eq!(error.unwrap_err().to_string(), "the mesh axes data=8 hold 8 devices, the sharding 4");
/// ```
///
/// # Errors
/// As [`draw_sharding`], and [`Error::Picture`] when the mesh's axes do not
/// hold the sharding's devices.
pub fn draw_sharding_on_mesh(
    shape: &Shape,
    text: &str,
    devices: Option<i64>,
    mesh_axes: &[(String, i64)],
) -> Result<String, Error> {
    pictures::draw_sharding(shape, text, devices, Some(mesh_axes))
}

/// [`draw_sharding`] of a sharding already read
/// ([`sharding_util::sdy::read_sharding`]), over a mesh of `mesh_axes` when
/// given ([`sharding_util::sdy::mesh_axes`]): what
/// `xla-shape draw SHAPE --sharding SDY --mesh MESH` draws.
///
/// ```
/// let shape: schema::Shape = "f32[8,16]".parse().unwrap();
/// let (text, mesh) = (r#"#sdy.sharding<@mesh, [{"b"}, {"a"}]>"#, Some(r#"<["a"=2, "b"=4]>"#));
/// let s = sharding_util::sdy::read_sharding(text, mesh).unwrap();
/// let axes = sharding_util::sdy::mesh_axes(text, mesh);
/// let svg = xla_shape_front::draw_hlo_sharding(&shape, &s, None, axes.as_deref()).unwrap();
/// assert!(svg.contains("mesh a=2 \u{b7} b=4"));
/// ```
///
/// # Errors
/// As [`draw_sharding_on_mesh`].
pub fn draw_hlo_sharding(
    shape: &Shape,
    sharding: &sharding_util::HloSharding,
    devices: Option<i64>,
    mesh_axes: Option<&[(String, i64)]>,
) -> Result<String, Error> {
    pictures::draw_hlo_sharding(shape, sharding, devices, mesh_axes)
}

/// [`draw_hlo_sharding`] with its devices named by their ids: `device_ids`
/// gives the id of each of the sharding's device numbers (jax's
/// `mesh.devices.flat` ids, in the order `_to_xla_hlo_sharding` numbers
/// them); what `xla-shape draw SHAPE --sharding S --device-ids I,J,...`
/// draws. The device count is the ids' when the sharding names none.
///
/// ```
/// let shape: schema::Shape = "f32[8,8]".parse().unwrap();
/// let s = sharding_util::sdy::read_sharding("{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}", None).unwrap();
/// let ids = [3, 6, 0, 5, 7, 1, 4, 2];
/// let svg = xla_shape_front::draw_hlo_sharding_on_devices(&shape, &s, None, None, &ids).unwrap();
/// // The first column's devices: positions 0 and 4, devices 3 and 7.
/// assert!(svg.contains(">3,7<"));
/// let error = xla_shape_front::draw_hlo_sharding_on_devices(&shape, &s, None, None, &ids[..4]);
/// assert_eq!(error.unwrap_err().to_string(), "4 device ids for the sharding's 8 devices");
/// ```
///
/// # Errors
/// As [`draw_sharding_on_mesh`], and [`Error::Picture`] when the ids are
/// not one per device.
pub fn draw_hlo_sharding_on_devices(
    shape: &Shape,
    sharding: &sharding_util::HloSharding,
    devices: Option<i64>,
    mesh_axes: Option<&[(String, i64)]>,
    device_ids: &[i64],
) -> Result<String, Error> {
    pictures::draw_hlo_sharding_on(shape, sharding, devices, (mesh_axes, Some(device_ids)))
}

/// What `xla-shape shard` prints for `shape` under the sharding `text`:
/// sharding-util's [`ShardReport`](sharding_util::ShardReport), whose
/// `Display` is the command's text and whose `Serialize` is its `--json`
/// object less `ok` (`shard_shape`, `devices` with each device's `device`,
/// `tile`, `offsets`, `limits` and `bytes`, `null` boxes for a device that
/// holds nothing, and `replication_groups`); `devices` is the device count
/// of a sharding that names none.
///
/// ```
/// let shape: schema::Shape = "bf16[6]".parse().unwrap();
/// let text = "{devices=[2,2]<=[4] last_tile_dim_replicate}";
/// let report = xla_shape_front::shard(&shape, text, None).unwrap();
/// assert_eq!(report.shard_shape.to_string(), "bf16[3]{0}");
/// let held = report.devices[2].held.as_ref().unwrap();
/// assert_eq!(held.offsets, [3]);
/// assert_eq!(report.replication_groups, [[0, 1], [2, 3]]);
/// ```
///
/// # Errors
/// The parser's message for a sharding it rejects; XLA's for a sharding
/// that does not fit the shape or the device count.
pub fn shard(
    shape: &Shape,
    text: &str,
    devices: Option<i64>,
) -> Result<sharding_util::ShardReport, Error> {
    shard::shard(shape, text, devices)
}

/// What `xla-shape reshard` prints for moving `shape` from the sharding
/// `from` to `to`: sharding-util's [`ReshardPlan`](sharding_util::ReshardPlan)
/// (`Display`: the command's text; `Serialize`: its `--json` object less
/// `ok`, with `pieces` of `from`, `to`, `offsets`, `limits`, `bytes`, and
/// `bytes_moved` and `bytes_kept`); `devices` is the device count when
/// neither sharding names one.
///
/// ```
/// let shape: schema::Shape = "f32[8]".parse().unwrap();
/// let plan = xla_shape_front::reshard(&shape, "{replicated}", "{devices=[4]<=[4]}", Some(4)).unwrap();
/// assert_eq!((plan.bytes_moved, plan.bytes_kept), (0, 32));
/// ```
///
/// # Errors
/// The parser's message for a sharding it rejects; XLA's for shardings
/// that do not fit the shape or each other's device count.
pub fn reshard(
    shape: &Shape,
    from: &str,
    to: &str,
    devices: Option<i64>,
) -> Result<sharding_util::ReshardPlan, Error> {
    shard::reshard(shape, from, to, devices)
}

/// What `xla-shape hlo --all` reports of `module`: the module's name, its
/// entry parameter and output bytes (logical, as XLA's
/// `CompiledMemoryStats`, and allocated), every instruction's buffer,
/// largest first, and every computation's total; printed as the command's
/// table (`Display`) or serialized as its `--json` object less `ok`.
/// `module` is module text or a serialized `HloModuleProto`, told apart by
/// their content ([`hlo_util::InputKind`]) as the command does; StableHLO
/// is refused with the fix.
///
/// ```
/// let text = "HloModule m\nENTRY e {\n  ROOT p = bf16[10,200]{1,0:T(8,128)(2,1)} parameter(0)\n}\n";
/// let report = xla_shape_front::hlo_memory(text.as_bytes()).unwrap();
/// assert_eq!(report.module.parameter_bytes.logical, 4000);
/// assert_eq!(report.module.parameter_bytes.allocated, 8192);
/// assert_eq!(report.instructions[0].sizes.padding_bytes(), 4192);
/// assert!(report.to_string().starts_with("module m: 1 instructions in 1 computation\n"));
/// let error = xla_shape_front::hlo_memory(b"module @jit_f {}").unwrap_err();
/// assert!(error.to_string().ends_with("compile it and pass compiled.as_text()"));
/// ```
///
/// # Errors
/// [`Error::NotModuleText`] for StableHLO; [`Error::Module`]: where the
/// module cannot be read (line and column of the text, or the field of the
/// message) and why.
pub fn hlo_memory(module: &[u8]) -> Result<MemoryReport, Error> {
    hlo_memory_read(module, usize::MAX)
}

/// [`hlo_memory`] of the module read from `input` (a line at a time for
/// text), with at most `top` instructions listed: what `xla-shape hlo
/// FILE` reads.
///
/// ```
/// let text = "HloModule m\nENTRY e {\n  ROOT p = s8[3] parameter(0)\n}\n";
/// let report = xla_shape_front::hlo_memory_read(text.as_bytes(), 1).unwrap();
/// assert_eq!(report.module.parameter_bytes.logical, 3);
/// ```
///
/// # Errors
/// As [`hlo_memory`].
pub fn hlo_memory_read(
    mut input: impl std::io::BufRead,
    top: usize,
) -> Result<MemoryReport, Error> {
    let kind = InputKind::of(input.fill_buf().map_err(ReadError::from)?);
    if kind == InputKind::StableHlo {
        return Err(NotModuleText::StableHlo.into());
    }
    Ok(MemoryReport::read(input, top)?)
}

/// [`hlo_memory`] of module text, never read as a serialized module: text
/// that does not start with `HloModule` gets the text reader's error.
///
/// ```
/// let error = xla_shape_front::hlo_memory_text("\u{1}HloModule m").unwrap_err();
/// assert_eq!(error.to_string(), "line 1, column 1: expected `HloModule` first");
/// ```
///
/// # Errors
/// As [`hlo_memory`].
pub fn hlo_memory_text(text: &str) -> Result<MemoryReport, Error> {
    if InputKind::of(text.as_bytes()) == InputKind::StableHlo {
        return Err(NotModuleText::StableHlo.into());
    }
    let report = MemoryReport::read_text(text.as_bytes(), usize::MAX).map_err(ReadError::from)?;
    Ok(report)
}

/// The peak memory report of XLA's dump in `path` (`xla-shape hlo DUMP`):
/// the `HloProto` (`*after_optimizations.hlo.pb`), or
/// `*-buffer-assignment.txt` with the `*-live-range.txt` beside it. `None`
/// when the file is not one of these dumps.
///
/// ```
/// let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/peak_memory/attention");
/// let report = xla_shape_front::peak_memory(&dir.join("after_optimizations.hlo.pb")).unwrap().unwrap();
/// assert_eq!(report.peak_bytes, 98304);
/// assert_eq!(xla_shape_front::peak_memory(&dir.join("compiled.txt")).unwrap(), None);
/// ```
///
/// # Errors
/// [`Error::Open`], [`Error::Read`] or [`Error::NoLiveRange`]: the file
/// that cannot be read; [`Error::Assignment`]: why the dump cannot be
/// replayed.
pub fn peak_memory(path: &std::path::Path) -> Result<Option<PeakReport>, Error> {
    let Some(files) = DumpFiles::read(path, None)? else {
        return Ok(None);
    };
    Ok(Some(files.dump().peak()?))
}

/// The peak memory of a module computed from its text (`xla-shape hlo
/// FILE --peak`): `module` is its text (`compiled.as_text()` in jax, read
/// as bytes); StableHLO and a serialized `HloModuleProto` are refused with
/// the fix.
///
/// ```
/// let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/peak_memory/attention");
/// let text = std::fs::read(dir.join("compiled.txt")).unwrap();
/// let memory = xla_shape_front::module_peak_memory(&text).unwrap();
/// assert_eq!(memory.peak.peak_bytes, 98304);
/// assert!(!memory.peak_is_estimate);
/// let error = xla_shape_front::module_peak_memory(b"module @jit_f {}").unwrap_err();
/// assert!(matches!(error, xla_shape_front::Error::NotModuleText(hlo_util::NotModuleText::StableHlo)));
/// assert!(error.to_string().ends_with("compile it and pass compiled.as_text()"));
/// ```
///
/// # Errors
/// [`Error::NotModuleText`]: StableHLO or a serialized module, not the module's
/// text (naming the fix); [`Error::Liveness`]: why it cannot be analysed.
pub fn module_peak_memory(module: &[u8]) -> Result<ModuleMemory, Error> {
    module_peak::module_memory(module)
}

/// [`module_peak_memory`] of the text read from `input` a line at a time
/// (a file is never held whole), `name` naming it in an error reading its
/// first bytes: what `xla-shape hlo FILE --peak` reads.
///
/// ```
/// let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/peak_memory/attention");
/// let file = std::fs::File::open(dir.join("compiled.txt")).unwrap();
/// let memory = xla_shape_front::module_peak_memory_read(std::io::BufReader::new(file), "compiled.txt").unwrap();
/// assert_eq!(memory.peak.peak_bytes, 98304);
/// ```
///
/// # Errors
/// As [`module_peak_memory`]; [`Error::Read`] when the first bytes of
/// `name` cannot be read (later I/O errors are the text reader's, at their
/// line).
pub fn module_peak_memory_read(
    input: impl std::io::BufRead,
    name: &str,
) -> Result<ModuleMemory, Error> {
    module_peak::module_memory_read(input, name)
}

/// The memory timeline picture of a module's memory computed from its text
/// (what `xla-shape hlo FILE --timeline OUT.svg` writes, less the final
/// newline), its title naming `file` when given.
///
/// ```
/// let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/peak_memory/attention");
/// let memory = xla_shape_front::module_peak_memory(&std::fs::read(dir.join("compiled.txt")).unwrap()).unwrap();
/// let svg = xla_shape_front::module_memory_timeline(None, &memory);
/// assert!(svg.contains("peak 96 KiB") && svg.contains("flattened schedule"));
/// ```
pub fn module_memory_timeline(file: Option<&str>, memory: &ModuleMemory) -> String {
    module_peak::picture(file, memory)
}

/// The memory timeline picture of `dump` (what `xla-shape hlo DUMP
/// --timeline OUT.svg` writes, less the final newline), its title naming
/// the dump's `file` when given.
///
/// ```
/// let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/peak_memory/attention");
/// let bytes = std::fs::read(dir.join("after_optimizations.hlo.pb")).unwrap();
/// let svg = xla_shape_front::memory_timeline(None, xla_shape_front::MemoryDump::Proto(&bytes)).unwrap();
/// assert!(svg.contains("<title>memory timeline</title>") && svg.contains("peak 96 KiB"));
/// ```
///
/// # Errors
/// [`AssignmentError`]: why the dump cannot be replayed.
pub fn memory_timeline(
    file: Option<&str>,
    dump: MemoryDump<'_>,
) -> Result<String, AssignmentError> {
    let (report, timeline) = dump.peak_and_timeline()?;
    Ok(draw::timeline::render(
        &draw::timeline::title(file),
        &report,
        &timeline,
    ))
}

/// The memory timeline picture of a peak `report` and its `timeline` (of
/// XLA's dump, or of a module's memory), its title naming `file` when
/// given: what [`memory_timeline`] draws of a dump already replayed.
///
/// ```
/// let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/peak_memory/attention");
/// let bytes = std::fs::read(dir.join("after_optimizations.hlo.pb")).unwrap();
/// let dump = xla_shape_front::MemoryDump::Proto(&bytes);
/// let svg = xla_shape_front::timeline_picture(None, &dump.peak().unwrap(), &dump.timeline().unwrap());
/// assert!(svg.contains("peak 96 KiB"));
/// ```
pub fn timeline_picture(
    file: Option<&str>,
    report: &PeakReport,
    timeline: &MemoryTimeline,
) -> String {
    draw::timeline::render(&draw::timeline::title(file), report, timeline)
}

/// The flame graph of a peak (what `xla-shape hlo FILE --peak --flame
/// OUT.svg` writes, less the final newline): the bytes live at the peak by
/// the Python stack that made them, an icicle with the outermost frame on
/// top, each frame as wide as its bytes and labelled `function
/// (file:line)`; the buffers without a stack are blocks of their own. Its
/// title names `file` when given.
///
/// ```
/// let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/peak_memory/attention");
/// let memory = xla_shape_front::module_peak_memory(&std::fs::read(dir.join("compiled.txt")).unwrap()).unwrap();
/// let svg = xla_shape_front::peak_flame_graph(Some("compiled.txt"), &memory.peak);
/// assert!(svg.contains("<title>peak memory by Python stack: compiled.txt</title>"));
/// assert!(svg.contains("all: peak 96 KiB"));
/// ```
pub fn peak_flame_graph(file: Option<&str>, report: &PeakReport) -> String {
    peak_outputs::flame_graph(file, report)
}

/// The gzipped pprof profile of a peak (the bytes `xla-shape hlo FILE
/// --peak --pprof OUT` writes; google/pprof's `profile.proto`): one sample
/// per buffer live at the peak, with jax's memory profiles' sample types
/// (`allocations`/`count`, `space`/`bytes`), its locations the buffer's
/// stack (innermost first) and its labels `kind`, `shape`, `buffer` and
/// `op_name`. The samples' bytes add up to the peak.
///
/// ```
/// let report = hlo_util::PeakReport::default();
/// let gz = xla_shape_front::peak_pprof(None, &report).unwrap();
/// assert_eq!(gz[..2], [0x1f, 0x8b]);
/// ```
///
/// # Errors
/// The compressor's (none in practice: it writes to memory).
pub fn peak_pprof(file: Option<&str>, report: &PeakReport) -> std::io::Result<Vec<u8>> {
    peak_outputs::profile(file, report)
}
