//! Command-line arguments.

use clap::error::ErrorKind;
use clap::{ArgGroup, Args, CommandFactory, Parser, Subcommand};

use stride_util::{IntegerError, parse_integer, parse_integers};

/// XLA shapes and layouts from the shell: sizes, indices, broadcasting, strided
/// views, pictures, relayouts, literals, shardings and HLO modules' buffers.
///
/// Shapes are XLA shape strings such as `f32[2,3]{0,1}`; an array written
/// without a layout gets XLA's default layout (`{1,0}`), as XLA's parser does.
/// List commands take inputs as arguments or, with none, one per line of
/// standard input (a blank line is an error), and print one line per input.
/// Quote shapes in the shell: unquoted brackets are globs.
#[derive(Debug, Parser)]
#[command(name = "xla-shape", version, propagate_version = true)]
#[command(after_help = "Examples:\n  \
    xla-shape parse 'f32[2,3]' '(s32[], pred[4])'\n  \
    echo 'bf16[8,128]{1,0:T(8,128)}' | xla-shape --json encode\n  \
    xla-shape decode 100b1a0202032a070a02010080010132020000\n  \
    xla-shape validate --require-layout --hex 100b1a020203\n  \
    xla-shape index 'f32[3,5]{1,0:T(2,2)}' --multi 2,3\n  \
    xla-shape order 'f32[2,3]{0,1:PAD(3,5)}'\n  \
    xla-shape broadcast 'f32[4]' 'f32[1,2]' --dims 0\n  \
    xla-shape compare 'f32[5,3]{1,0}' 'f32[3,5]{0,1}'\n  \
    xla-shape view '[3,4]' '[0:3:2, 1:4:2]'\n  \
    xla-shape explain 'bf16[10,200]{1,0:T(8,128)(2,1)}'\n  \
    xla-shape draw 'f32[3,5]{1,0:T(2,2)}' -o tiles.svg\n  \
    xla-shape relayout 'bf16[8,128]{1,0}' 'bf16[8,128]{1,0:T(8,128)(2,1)}' < in.bin > out.bin\n  \
    xla-shape literal --hex --print 0a1310021a0202032a070a020001800101320200007a06010402050306\n  \
    xla-shape hlo --top 5 module.txt\n  \
    xla-shape sharding '{devices=[2,4]<=[2,4]T(0,1)}'\n  \
    xla-shape shard 'f32[7,9]' '{devices=[2,4]<=[8]}'\n  \
    xla-shape reshard 'f32[8]' '{replicated}' '{devices=[4]<=[4]}' --devices 4\n  \
    xla-shape lowered lowered.mlir\n\n\
    Each command's --help has more examples.\n\
    Exit status: 0 if every input succeeded, 1 if any failed, 2 for bad usage.")]
pub struct Cli {
    /// Print one JSON object per output line.
    #[arg(long, global = true)]
    pub json: bool,

    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// The usage errors clap cannot express, reported as clap reports its
    /// own (exit status 2).
    pub fn check_usage(&self) -> Result<(), clap::Error> {
        if let Command::Broadcast(args) = &self.command
            && !args.numpy
            && args.shapes.len() != 2
        {
            let mut command = Self::command();
            command.build();
            let mut broadcast = command
                .find_subcommand("broadcast")
                .cloned()
                .unwrap_or(command);
            return Err(broadcast.error(
                ErrorKind::WrongNumberOfValues,
                format!(
                    "broadcast takes two shapes, got {} (--numpy takes any number)",
                    args.shapes.len()
                ),
            ));
        }
        Ok(())
    }
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print each shape in canonical form (XLA's HumanStringWithLayout).
    #[command(
        after_help = "Examples:\n  xla-shape parse 'f32[2,3]'            # f32[2,3]{1,0}\n  \
        xla-shape parse --no-layout 'f32[2,3]{0,1}'   # f32[2,3]\n\n\
        JSON fields: ok, input, shape, hex (the serialized Shape)."
    )]
    Parse {
        /// Print XLA's HumanString (no layouts) instead.
        #[arg(long)]
        no_layout: bool,
        /// Shape strings; none reads one per line from standard input.
        shapes: Vec<String>,
    },

    /// Print each shape serialized as a Shape protobuf message, in lowercase hex.
    #[command(after_help = "Examples:\n  xla-shape encode 'f32[2,3]'\n  \
        xla-shape encode --text 'f32[2,3]'   # protobuf text format\n  \
        xla-shape encode --message xla.OpSharding 'type: MAXIMAL tile_assignment_devices: 3'\n\n\
        JSON fields: ok, input, hex (or text); with --message: ok, input, hex, text.")]
    Encode {
        /// Print protobuf text format instead of hex.
        #[arg(long)]
        text: bool,
        /// The inputs are protobuf text format of this message of
        /// xla_data.proto (a full name: xla.OpSharding, xla.ShapeProto, ...)
        /// instead of shape strings; an empty input is the empty message.
        #[arg(long, value_name = "NAME")]
        message: Option<String>,
        /// Shape strings (or text format); none reads one per line from
        /// standard input.
        shapes: Vec<String>,
    },

    /// Decode serialized Shape messages (hex) and print their canonical string.
    #[command(
        after_help = "Examples:\n  xla-shape decode 100b1a0202032a070a02010080010132020000\n  \
        xla-shape decode --binary < shape.pb\n  \
        xla-shape decode --message xla.OpSharding 0801220103\n  \
        xla-shape decode --list-messages\n\n\
        Decodes only; see `validate --hex` to check the result.\n\
        JSON fields: ok, input, shape, hex (re-encoded), text (protobuf text format);\n\
        with --message: ok, input, text, hex."
    )]
    Decode {
        /// Read one raw binary message from standard input instead of hex.
        #[arg(long, conflicts_with = "messages")]
        binary: bool,
        /// Decode this message of xla_data.proto (a full name: xla.OpSharding,
        /// xla.LiteralProto, xla.ShapeProto, ...) instead of a Shape, and print
        /// its protobuf text format; an empty input is the empty message.
        #[arg(long, value_name = "NAME")]
        message: Option<String>,
        /// Print the names `--message` takes, one per line.
        #[arg(long, conflicts_with_all = ["messages", "binary", "message"])]
        list_messages: bool,
        /// Hex strings; none reads one per line from standard input.
        messages: Vec<String>,
    },

    /// Validate shapes as XLA does when it loads them.
    ///
    /// By default the check is ShapeUtil::ValidateShapeWithOptionalLayout,
    /// the one XLA applies when it loads an HloModule or XlaComputation
    /// proto: an array without a layout is valid (only `--hex` messages can
    /// lack one; shape strings get XLA's default layout). With
    /// --require-layout it is ShapeUtil::ValidateShape, which also requires
    /// every array to have a layout.
    #[command(after_help = "Examples:\n  xla-shape validate 'f32[2,3]{0,1}'\n  \
        xla-shape validate --hex 100b1a020203                    # ok: no layout is fine\n  \
        xla-shape validate --require-layout --hex 100b1a020203   # error: no layout\n\n\
        Prints `ok` or `error: <XLA's message>`. JSON fields: ok, input, error.")]
    Validate {
        /// The inputs are serialized Shape messages in hex, not shape strings.
        #[arg(long)]
        hex: bool,
        /// Require a layout on every array (ValidateShape), as XLA does
        /// where it needs the physical layout.
        #[arg(long)]
        require_layout: bool,
        /// Shapes (or hex); none reads one per line from standard input.
        inputs: Vec<String>,
    },

    /// Convert between a multi-dimensional index and the linear index (the
    /// position) in the shape's buffer, under its layout: tiles and padding
    /// included, the positions `order` lists.
    #[command(
        after_help = "Examples:\n  xla-shape index 'f32[10,20]{0,1}' --multi 3,5   # 53\n  \
        xla-shape index 'f32[10,20]{1,0}' --linear 65   # [3,5]\n  \
        xla-shape index '[10,20]' --multi 3,5           # 65\n  \
        xla-shape index 'f32[3,5]{1,0:T(2,2)}' --multi 2,3   # 17 (XLA's tiled-layout figure)\n\n\
        Give exactly one of --linear and --multi.\n\
        JSON fields: ok, linear, multi."
    )]
    Index(IndexArgs),

    /// For each position of the buffer in memory order, the row-major index of
    /// the logical element stored there (`pad` for padding: classic, tile or
    /// tail padding).
    #[command(
        after_help = "Examples:\n  xla-shape order 'f32[2,3]{0,1}'   # 0 3 1 4 2 5\n  \
        xla-shape order 'f32[2,3]{0,1:PAD(3,5)}'\n  \
        xla-shape order 'f32[3,5]{1,0:T(2,2)}'   # 0 1 5 6 2 3 7 8 4 pad 9 pad ...\n\n\
        JSON fields: ok, input, order (null for padding)."
    )]
    Order {
        /// Shape strings; none reads one per line from standard input.
        shapes: Vec<String>,
    },

    /// The result shape of broadcasting, under XLA's or numpy's rules.
    #[command(
        after_help = "Examples:\n  xla-shape broadcast 'f32[2,3]' 'f32[3]' --dims 1\n  \
        xla-shape broadcast '[2,1]' '[1,3]'\n  \
        xla-shape broadcast --numpy '[8,1,6,1]' '[7,1,5]'\n  \
        xla-shape broadcast --in-dim 'f32[3]' 'f32[2,3]' --dims 1\n\n\
        A shape may be a bare dimension list `[d0,d1,...]` (element type f32).\n\
        JSON fields: ok, shape, error."
    )]
    Broadcast(BroadcastArgs),

    /// How two shapes relate under XLA's rules.
    #[command(
        after_help = "Examples:\n  xla-shape compare 'f32[5,3]{1,0}' 'f32[3,5]{0,1}'\n  \
        xla-shape compare '[2,3]' 'f32[2,3]{0,1}'\n\n\
        A shape may be a bare dimension list `[d0,d1,...]` (f32, XLA's default layout).\n\
        A padded shape on either side is no bitcast.\n\
        JSON fields: ok, equal, compatible, equal_ignoring_layout, same_dimensions,\n\
        reshape_is_bitcast, transpose_is_bitcast_dims."
    )]
    Compare {
        /// The first shape (or `[d0,...]`).
        a: String,
        /// The second shape (or `[d0,...]`).
        b: String,
    },

    /// A strided view after numpy-style operations, applied left to right.
    #[command(
        after_help = "Examples:\n  xla-shape view '[3,4]' '[0:3:2, 1:4:2]'\n  \
        xla-shape view '[2,3,4]' '.T[::-1, 1].expand_dims(0)'\n  \
        xla-shape view 'f32[2,3]{0,1}' .T '.reshape(6)'\n  \
        xla-shape view '[3,4]' \".T.reshape(2, 6, order='F')\" '.ravel(order=\"K\")'\n\n\
        BASE is an XLA shape (its layout and padding give the strides) or `[d0,...]`\n\
        (packed row-major), of at most 64 dimensions. OPs: .T .transpose(p,...)\n\
        .reshape(d,...) .reshape(d,..., order='F') (or 'C', 'A') .ravel() .ravel(order='F')\n\
        (or 'A', 'K'; a view where numpy's ravel is one, else an error: a copy is needed)\n\
        .broadcast_to(d,...) .expand_dims(a) .squeeze() .squeeze(a) .swapaxes(a,b)\n\
        .moveaxis(s,d) .flip() .flip(a) .as_strided(shape=(..),strides=(..)) and indexing\n\
        [0:3:2, 1:4:2] [::-1, 2] [..., None].\n\
        JSON fields: ok, shape, strides, offset, c_contiguous, f_contiguous, error."
    )]
    View {
        /// The base array.
        base: String,
        /// Operations, as separate arguments or one chain.
        ops: Vec<String>,
    },

    /// A readable report on each shape: sizes, layout, tiles, strides, padding, memory.
    #[command(after_help = "Examples:\n  xla-shape explain 'f32[2,3]{0,1}'\n  \
        xla-shape --json explain 's4[8,128]{1,0:E(4)}'\n  \
        xla-shape explain 'bf16[10,200]{1,0:T(8,128)(2,1)}'\n\n\
        byte_size is XLA's ByteSizeOf (tiles ignored); buffer_size is the bytes a buffer\n\
        occupies (tiles, padding and E(n) packing included: what XLA allocates).\n\
        Strides are null for a tiled layout (a tiled buffer has none).\n\
        JSON fields: ok, input, element_type, rank, true_rank, element_count, byte_size,\n\
        buffer_size, tiles, strides, byte_strides, major_to_minor, padded_dimensions.")]
    Explain {
        /// Shape strings; none reads one per line from standard input.
        shapes: Vec<String>,
    },

    /// Draw a layout as an SVG picture: the array as a grid coloured by
    /// memory position, padding hatched, tiles outlined, and the buffer in
    /// memory order below.
    #[command(after_help = "Examples:\n  \
        xla-shape draw 'f32[2,3]{0,1}' > layout.svg\n  \
        xla-shape draw 'f32[3,5]{1,0:T(2,2)}' --output tiles.svg\n  \
        xla-shape draw --view '[3,4]' '[0:3:2, 1:4:2]' -o slice.svg\n  \
        xla-shape draw 'f32[8,8]' --sharding '{devices=[2,2,2]<=[8] last_tile_dim_replicate}' -o s.svg\n\n\
        With --view, SHAPE and OPS are the `view` command's BASE and OPs: the view's grid\n\
        above the base buffer, the view's elements outlined in it. Elements are named\n\
        a b c ... (row-major; numbers past 26 elements), `@n` is the memory position.\n\
        Big arrays are drawn as a window, which the picture says.\n\
        JSON fields: ok, svg (or output and bytes with --output).")]
    Draw(DrawArgs),

    /// Rewrite the raw bytes of a SRC buffer as a DST buffer of the same array.
    #[command(after_help = "Examples:\n  \
        xla-shape relayout 'bf16[4096,4096]{1,0}' 'bf16[4096,4096]{1,0:T(8,128)(2,1)}' < rows.bin > tiles.bin\n  \
        xla-shape relayout 'f32[3,5]{1,0:T(2,2)}' 'f32[3,5]{0,1}' --input tiles.bin --output cols.bin\n  \
        xla-shape relayout 's4[64,128]{1,0:E(4)}' 's4[64,128]{1,0:T(8,128)(4,1)E(4)}' -i a.bin -o b.bin\n\n\
        Any two layouts of the same element type and dimensions: untiled, tiled (XLA's\n\
        T(..)(..) tiles, tile padding), classic padding (PAD(..)), packed E(n) elements.\n\
        The input must be exactly SRC's buffer size (a tiled buffer is what XLA allocates);\n\
        the output is DST's buffer, its padding written with zeros (classic padding: its\n\
        padding value). On any error (wrong input length, different arrays, an unsupported\n\
        layout) nothing is written, the message goes to standard error, and the exit status is 1.\n\
        With --output, a line (JSON with --json: ok, source, destination, bytes_read,\n\
        bytes_written, output) reports what was written.")]
    Relayout(RelayoutArgs),

    /// An XLA LiteralProto as a raw buffer in its own layout or another, or
    /// printed as XLA prints HLO constants; with --from, the LiteralProto of
    /// a raw buffer.
    #[command(after_help = "Examples:\n  \
        xla-shape literal --hex 0a1310021a0202032a070a020001800101320200007a06010402050306 --layout '{1,0:T(2,2)}'\n  \
        xla-shape literal --hex --print 0a1310021a0202032a070a020001800101320200007a06010402050306\n  \
        xla-shape literal constant.pb --layout '{1,0:T(8,128)(2,1)}' --output tiles.bin\n  \
        xla-shape literal --from 'f32[2,3]{0,1}' --input columns.bin\n\n\
        INPUT is a file holding a binary LiteralProto (standard input if absent), or\n\
        with --hex the message in hex (an argument, or standard input; empty is the\n\
        empty message). The buffer is the array in the literal's own layout, or in\n\
        --layout: tiles, classic padding and E(n) packing of sub-byte types as the layout\n\
        says; it goes to standard output or --output (then a line, JSON with --json: ok,\n\
        shape, bytes_written, output, reports it). --print prints XLA's text of the value\n\
        (JSON: ok, shape, text). --element I,J picks an element of a tuple literal.\n\
        --from SHAPE reads SHAPE's buffer (exactly its size) from --input or standard\n\
        input and prints the LiteralProto XLA writes for it in hex (JSON: ok, shape,\n\
        hex), or writes it binary to --output. Errors exit with status 1.")]
    Literal(LiteralArgs),

    /// Every buffer of an HLO module (XLA's text or proto), largest allocation first; its peak (--peak) or that of XLA's dumps.
    #[command(after_help = "Examples:\n  \
        xla-shape hlo module.txt              # the 20 largest buffers\n  \
        xla-shape hlo module.txt --peak       # the peak and the buffers live there\n  \
        xla-shape hlo --all dump/module_0001.jit_f.sm_8.0_gpu_after_optimizations.txt\n  \
        python -c '...print(compiled.as_text())' | xla-shape --json hlo --top 5 -\n  \
        xla-shape hlo dump/module_0001.jit_f.cpu_after_optimizations.hlo.pb --timeline t.svg\n  \
        xla-shape hlo dump/module_0001.jit_f.cpu_after_optimizations-buffer-assignment.txt\n\n\
        XLA's dumps (--xla_dump_to=DIR --xla_dump_hlo_as_proto), told apart by their content:\n\
        the HloProto *after_optimizations.hlo.pb (module and buffer assignment), or\n\
        *-buffer-assignment.txt with the *-live-range.txt beside it (or --live-range). For\n\
        them: the peak as XLA computes peak_memory_in_bytes, where it is reached (heap event\n\
        of the proto's traces, or time step of the live ranges), XLA's allocation totals and\n\
        the buffers live at the peak, largest first (--top of them; JSON all). --timeline\n\
        OUT.svg also draws live bytes over the steps by kind with the peak marked, the\n\
        largest blocks over their live ranges and the buffers live at the peak.\n\
        JSON fields of a dump: ok, peak_bytes, static_bytes, heap_peak_bytes, peak_at {step,\n\
        unit, instruction}, live_at_peak [{name, shape_index, shape, bytes, kind, op_name,\n\
        stack [{file, line, function, end_line, column, end_column}] innermost first}], device\n\
        and host {argument_bytes, output_bytes, alias_bytes, temp_bytes}, timeline (the SVG's\n\
        path). The table shows each live buffer's source line (file:line of its innermost\n\
        frame) when the module records stacks.\n\n\
        --by source|function|stack|op|pass|kind (repeatable): the bytes live at the peak by\n\
        source line, function, stack, op_name, jax pass (forward, backward, remat, parameter)\n\
        or kind, largest first, in percent of the peak (JSON: groups {GROUP: [{key, bytes,\n\
        buffers, percent}]}). --diff B: B's peak (a module text or a dump) against this one's,\n\
        by source line and by op_name side by side, largest change first (JSON: diff\n\
        {a_peak_bytes, b_peak_bytes, peak_bytes_delta, by_source, by_op [{key, a_bytes,\n\
        b_bytes, delta_bytes}]}). Both imply --peak.\n\n\
        --flame OUT.svg draws the bytes live at the peak by Python stack (a flame graph);\n\
        --pprof OUT writes them as a gzipped pprof profile (space/bytes, as jax's memory\n\
        profiles: one sample per buffer, its stack, labels kind, shape, buffer, op_name).\n\
        Of a dump or a module's text (they imply --peak); JSON adds flame and pprof (paths).\n\n\
        --peak: the same report computed from the module's text alone (compiled.as_text(),\n\
        scheduled: is_scheduled=true), as XLA's buffer assignment would place its buffers;\n\
        steps are those of the flattened schedule. A module without a schedule gets an\n\
        estimate in the order of the text, and a line saying so; StableHLO and serialized\n\
        modules are refused. --timeline OUT.svg implies it. JSON adds peak_is_estimate,\n\
        steps and buffers [{name, shape_index, shape, bytes, kind, first_step, last_step}].\n\n\
        The module text is what XLA prints (jax's compiled.as_text(), --xla_dump_to *.txt).\n\
        Each instruction's own buffer: its logical bytes (XLA's ByteSizeOf; a tuple's index\n\
        table of 8-byte pointers), allocated bytes (ArraySize: tiles, padding, E(n) packing),\n\
        padding and memory space. parameters/outputs: the entry computation's parameters and\n\
        result as XLA's CompiledMemoryStats counts them (every array, and 8 bytes per tuple\n\
        element; logical bytes even for tiled arrays, as real XLA reports them), and in\n\
        brackets what the tiled buffers take.\n\
        In a module with shardings not yet partitioned (jax's lowered.compiler_ir('hlo')),\n\
        per device: what one device holds under each instruction's sharding={...} (the shard\n\
        shape of XLA's SPMD partitioner, uneven dimensions rounded up; the whole shape if\n\
        replicated or maximal; a tuple sharding element by element), and the entry totals\n\
        as memory_analysis() reports them for the partitioned module; unknown (JSON null)\n\
        without a sharding, or with one sharding-util refuses.\n\
        JSON fields: ok, module, parameter_bytes, output_bytes, parameter_allocated_bytes,\n\
        output_allocated_bytes, per_device_parameter_bytes, per_device_output_bytes,\n\
        computations, instruction_count, instructions [{computation, name, opcode, shape,\n\
        bytes, allocated_bytes, padding_bytes, padding_ratio, memory_space, per_device_shape,\n\
        per_device_bytes}], computation_totals [{computation, instructions, bytes,\n\
        allocated_bytes, padding_bytes}] (each computation's instructions added up, largest\n\
        first; the table lists them after the instructions when there are several).")]
    Hlo(HloArgs),

    /// Print each XLA sharding in canonical form (XLA's HloSharding::ToString).
    #[command(after_help = "Examples:\n  \
        xla-shape sharding '{devices=[2,4]<=[2,4]T(0,1)}'      # {devices=[2,4]<=[8]}\n  \
        xla-shape --json sharding '{maximal device=3}'\n  \
        xla-shape sharding --hex 08031a0202044a0108520100\n  \
        xla-shape sharding --v2 \"{mesh['x'=2,'y'=4], [{'x'}, {}]}\"\n  \
        xla-shape sharding --mesh '<[\"a\"=2, \"b\"=4]>' '#sdy.sharding<@mesh, [{\"b\", \"a\"}, {}]>'\n  \
        xla-shape sharding --sdy --mesh '<[\"a\"=2, \"b\"=4]>' '{devices=[8,1]<=[2,4]T(1,0)}'\n\n\
        A Shardy sharding (#sdy.sharding<...>) is converted as XLA's Shardy export does; --mesh\n\
        gives the mesh it names (the attribute or a whole `sdy.mesh @name = <...>` line).\n\
        JSON fields: ok, input, sharding, hex (the serialized OpSharding); with --sdy: sdy.")]
    Sharding {
        /// The inputs are serialized OpSharding messages in hex (an empty
        /// argument is the empty message, `{replicated}`).
        #[arg(long)]
        hex: bool,
        /// Print named (mesh-axes) shardings in their tile-assignment form,
        /// as XLA's `v3_to_v2_sharding` (text and hex).
        #[arg(long)]
        v2: bool,
        /// The Shardy mesh the shardings name: `<["a"=2, "b"=4]>`,
        /// `#sdy.mesh<...>` or a whole `sdy.mesh @name = <...>` line.
        #[arg(long, value_name = "MESH")]
        mesh: Option<String>,
        /// Print each sharding as Shardy text over --mesh (whole axes; an
        /// error where none converts to it).
        #[arg(long, requires = "mesh", conflicts_with_all = ["hex", "v2"])]
        sdy: bool,
        /// Sharding texts (or hex); none reads one per line from standard input.
        inputs: Vec<String>,
    },

    /// What each device holds of an array under an XLA sharding.
    #[command(after_help = "Examples:\n  \
        xla-shape shard 'f32[7,9]' '{devices=[2,4]<=[8]}'\n  \
        xla-shape shard 'f32[8]' '{replicated}' --devices 4\n\n\
        The shard shape is XLA's SPMD parameter shape (uneven dimensions rounded up); each\n\
        device's box [offsets, limits) is its block of the global array (the last boxes of\n\
        an uneven dimension shorter or empty); bytes are the bytes of the box.\n\
        JSON fields: ok, shard_shape, devices (device, tile, offsets, limits, bytes),\n\
        replication_groups.")]
    Shard(ShardArgs),

    /// The pieces that move an array from one XLA sharding to another.
    #[command(after_help = "Examples:\n  \
        xla-shape reshard 'f32[8,8]' '{devices=[2,4]<=[8]}' '{devices=[4,2]<=[2,4]T(1,0)}'\n  \
        xla-shape reshard 'f32[8]' '{replicated}' '{devices=[4]<=[4]}' --devices 4\n  \
        xla-shape reshard 'f32[8]' '{devices=[2]<=[2]}' '{devices=[2]<=[2]}' --from-device-ids 0,1 --to-device-ids 1,0\n\n\
        Every destination device's box is covered exactly once; a piece stays on the\n\
        destination device when it holds it already, else comes from one holder of the\n\
        source tile (holders[to mod count], spread over replicas). With device ids (jax's\n\
        mesh.devices.flat of each mesh) the pieces and totals go between device ids.\n\
        JSON fields: ok, pieces (from, to, offsets, limits, bytes), bytes_moved, bytes_kept.")]
    Reshard(ReshardArgs),

    /// What each device holds of a lowered module's arguments and results.
    #[command(after_help = "Examples:\n  \
        xla-shape lowered lowered.mlir          # the text of jax's lowered.as_text()\n  \
        python -c '...print(lowered.as_text())' | xla-shape --json lowered -\n\n\
        Reads the module's sdy.mesh lines and the signature of `func.func public @main`: each\n\
        argument and result's tensor type as an XLA shape, its #sdy.sharding and the HloSharding\n\
        XLA's Shardy export gives it ({replicated} without one), the shard shape and the bytes\n\
        each device holds; then each device's bytes of all arguments and of all results. The\n\
        device count is the module's mhlo.num_partitions.\n\
        JSON fields: ok, devices, entries [{kind, index, name, tensor_type, shape, sdy, hlo,\n\
        shard_shape, bytes (by device)}], argument_bytes, result_bytes (by device).")]
    Lowered {
        /// The module's text file, or `-` for standard input.
        #[arg(value_name = "FILE")]
        file: String,
    },
}

/// Arguments of `hlo`.
#[derive(Debug, Args)]
pub struct HloArgs {
    /// The module's text file, or `-` for standard input; or XLA's dump of
    /// its buffer assignment (a file).
    #[arg(value_name = "FILE")]
    pub file: String,
    /// How many of the largest buffers to list.
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub top: usize,
    /// List every instruction.
    #[arg(long, conflicts_with = "top")]
    pub all: bool,
    /// XLA's `*-live-range.txt` for a FILE that is its `*-buffer-assignment.txt`
    /// (by default the file beside it, named `live-range.txt` for `buffer-assignment.txt`).
    #[arg(long, value_name = "LIVE_RANGE")]
    pub live_range: Option<String>,
    /// The peak of the module computed from its text (compiled.as_text()):
    /// where it is reached and the buffers live there.
    #[arg(long)]
    pub peak: bool,
    /// Write the memory timeline picture (SVG) here: of XLA's dump, or of
    /// the module's text (implies --peak).
    #[arg(long, value_name = "OUT.svg")]
    pub timeline: Option<std::path::PathBuf>,
    /// The bytes live at the peak grouped by source line, function, stack,
    /// op_name, jax pass or kind, largest first (implies --peak; repeatable).
    #[arg(long, value_name = "GROUP", value_parser = |s: &str| s.parse::<hlo_util::GroupBy>())]
    pub by: Vec<hlo_util::GroupBy>,
    /// Another program (module text or XLA's dump) whose peak is compared
    /// with this one's, by source line and by op_name (implies --peak).
    #[arg(long, value_name = "B")]
    pub diff: Option<String>,
    /// Write the flame graph (SVG) of the bytes live at the peak by Python
    /// stack here (implies --peak for a module's text).
    #[arg(long, value_name = "OUT.svg")]
    pub flame: Option<std::path::PathBuf>,
    /// Write the buffers live at the peak as a gzipped pprof profile here
    /// (implies --peak for a module's text).
    #[arg(long, value_name = "OUT")]
    pub pprof: Option<std::path::PathBuf>,
}

/// Arguments of `literal`.
#[derive(Debug, Args)]
pub struct LiteralArgs {
    /// The LiteralProto: a file (binary), or with --hex the hex itself.
    #[arg(value_name = "INPUT", conflicts_with = "from")]
    pub input_message: Option<String>,
    /// INPUT (or standard input) is the message in hex.
    #[arg(long, conflicts_with = "from")]
    pub hex: bool,
    /// Print XLA's text of the value instead of writing its buffer.
    #[arg(long, conflicts_with_all = ["from", "layout", "output"])]
    pub print: bool,
    /// The buffer's layout (`{0,1}`, `{1,0:T(2,2)}`, `{0:E(4)}`) instead of the literal's own.
    #[arg(long, value_name = "L", conflicts_with = "from")]
    pub layout: Option<String>,
    /// The element of a tuple literal, one index per tuple level (`0` or `1,0`).
    #[arg(long, value_name = "I,J", value_parser = integers_usize, default_value = "", conflicts_with = "from")]
    pub element: Indices,
    /// Build the LiteralProto of a buffer of this shape (with its layout).
    #[arg(long, value_name = "SHAPE")]
    pub from: Option<String>,
    /// With --from: read the buffer from FILE instead of standard input.
    #[arg(long, short = 'i', value_name = "FILE", requires = "from")]
    pub input: Option<std::path::PathBuf>,
    /// Write the buffer (with --from: the binary LiteralProto) to FILE,
    /// replaced only on success.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
}

/// Tuple indices given as one argument (`1,0`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Indices(pub Vec<usize>);

fn integers_usize(text: &str) -> Result<Indices, String> {
    parse_integers(text)
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|i| usize::try_from(i).map_err(|_| format!("{i} is not a tuple index")))
        .collect::<Result<_, _>>()
        .map(Indices)
}

/// Arguments of `reshard`.
#[derive(Debug, Args)]
pub struct ReshardArgs {
    /// The global array shape.
    pub shape: String,
    /// The source sharding.
    pub from: String,
    /// The destination sharding.
    pub to: String,
    /// The device count, when neither sharding names one.
    #[arg(long, value_name = "N")]
    pub devices: Option<i64>,
    /// The Shardy mesh a Shardy sharding (`#sdy.sharding<@mesh, ...>`)
    /// names: `<["a"=2, "b"=4]>` or a whole `sdy.mesh @name = <...>` line.
    #[arg(long, value_name = "MESH")]
    pub mesh: Option<String>,
    /// The device id of each of the source sharding's device numbers (jax's
    /// `mesh.devices.flat` ids): pieces and totals go by device id.
    #[arg(long, value_name = "I,J,...", value_parser = integers)]
    pub from_device_ids: Option<Integers>,
    /// The device id of each of the destination sharding's device numbers.
    #[arg(long, value_name = "I,J,...", value_parser = integers)]
    pub to_device_ids: Option<Integers>,
}

/// Arguments of `shard`.
#[derive(Debug, Args)]
pub struct ShardArgs {
    /// The global array shape.
    pub shape: String,
    /// The sharding, in XLA's text (`{devices=[2,4]<=[8]}`) or Shardy's
    /// (`#sdy.sharding<@mesh, [{"a"}, {}]>`, with --mesh).
    pub sharding: String,
    /// The device count, for shardings that name none (replicated, maximal).
    #[arg(long, value_name = "N")]
    pub devices: Option<i64>,
    /// The Shardy mesh a Shardy sharding (`#sdy.sharding<@mesh, ...>`)
    /// names: `<["a"=2, "b"=4]>` or a whole `sdy.mesh @name = <...>` line.
    #[arg(long, value_name = "MESH")]
    pub mesh: Option<String>,
}

/// Arguments of `draw`.
#[derive(Debug, Args)]
pub struct DrawArgs {
    /// Draw a strided view: SHAPE is the base array, OPS the operations.
    #[arg(long)]
    pub view: bool,
    /// Write the SVG to FILE instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    /// Draw the array's blocks under this XLA sharding, labelled with the
    /// devices holding them.
    #[arg(long, conflicts_with = "view", value_name = "SHARDING")]
    pub sharding: Option<String>,
    /// With --sharding: the device count, for shardings that name none.
    #[arg(long, requires = "sharding", value_name = "N")]
    pub devices: Option<i64>,
    /// With --sharding: the Shardy mesh a Shardy sharding names.
    #[arg(long, requires = "sharding", value_name = "MESH")]
    pub mesh: Option<String>,
    /// With --sharding: the device id of each of the sharding's device
    /// numbers (jax's `mesh.devices.flat` ids), which the picture names.
    #[arg(long, requires = "sharding", value_name = "I,J,...", value_parser = integers)]
    pub device_ids: Option<Integers>,
    /// The shape (with --view: the base array, as for `view`).
    pub shape: String,
    /// With --view: the operations, as for `view`.
    #[arg(requires = "view")]
    pub ops: Vec<String>,
}

/// Arguments of `relayout`.
#[derive(Debug, Args)]
pub struct RelayoutArgs {
    /// The layout of the input buffer: an XLA array shape with its layout.
    pub src: String,
    /// The layout of the output buffer: the same array in another layout.
    pub dst: String,
    /// Read the source buffer from FILE instead of standard input.
    #[arg(long, short = 'i', value_name = "FILE")]
    pub input: Option<std::path::PathBuf>,
    /// Write the destination buffer to FILE (replaced only on success)
    /// instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    /// Relayout on N threads: 1 runs on the calling thread, more on a pool
    /// of N threads (copies below 512 KiB a thread stay on one); at most 4
    /// threads per CPU, more are that many.
    #[arg(long, value_name = "N", default_value_t = std::num::NonZeroUsize::MIN)]
    pub threads: std::num::NonZeroUsize,
}

/// Arguments of `index`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("index").required(true).args(["linear", "multi"])))]
pub struct IndexArgs {
    /// The shape, with its layout (and padding), or `[d0,...]` (f32 with
    /// XLA's default layout).
    pub shape: String,
    /// A linear index into the buffer: print the multi-dimensional index.
    #[arg(long, allow_hyphen_values = true, value_parser = parse_integer)]
    pub linear: Option<i64>,
    /// A multi-dimensional index `i,j,...`: print the linear index.
    #[arg(long, allow_hyphen_values = true, value_parser = integers)]
    pub multi: Option<Integers>,
}

/// A comma-separated list of integers given as one argument (`0,2`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Integers(pub Vec<i64>);

fn integers(text: &str) -> Result<Integers, IntegerError> {
    parse_integers(text).map(Integers)
}

/// Arguments of `broadcast`.
#[derive(Debug, Args)]
pub struct BroadcastArgs {
    /// Apply numpy's implicit broadcasting to any number of shapes (none
    /// gives `[]`).
    #[arg(long, conflicts_with_all = ["in_dim", "dims"])]
    pub numpy: bool,
    /// Check XLA's BroadcastInDim of the first SHAPE (the operand) into the
    /// second (the output), with --dims.
    #[arg(long)]
    pub in_dim: bool,
    /// broadcast_dimensions, comma-separated (`--dims 0,2`, or `--dims ''` for none).
    #[arg(long, allow_hyphen_values = true, value_parser = integers)]
    pub dims: Option<Integers>,
    /// The shapes: two (the operands of an elementwise op, or with --in-dim
    /// the operand and the output), or with --numpy any number.
    #[arg(value_name = "SHAPE")]
    pub shapes: Vec<String>,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::Cli;

    /// The top-level help shows every command at work: one example each.
    #[test]
    fn help_has_an_example_of_every_command() {
        let mut command = Cli::command();
        let help = command.render_long_help().to_string();
        let examples: Vec<&str> = help
            .lines()
            .filter_map(|line| line.trim_start().split("xla-shape ").nth(1))
            .map(|rest| rest.trim_start_matches("--json "))
            .collect();
        let names: Vec<String> = command
            .get_subcommands()
            .map(|c| c.get_name().to_owned())
            .filter(|name| name != "help")
            .collect();
        assert_eq!(names.len(), 18, "{names:?}");
        for name in names {
            let shown = examples
                .iter()
                .filter(|e| e.split(' ').next() == Some(name.as_str()))
                .count();
            assert_eq!(shown, 1, "{name} in\n{help}");
        }
    }
}
