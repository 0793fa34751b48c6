//! Command-line arguments.

use clap::{Args, Parser, Subcommand};

/// XLA shapes, layouts, indices, broadcasting and strided views.
///
/// Shapes are XLA shape strings such as `f32[2,3]{0,1}`; an array written
/// without a layout gets XLA's default layout (`{1,0}`), as XLA's parser does.
/// List commands take inputs as arguments or, with none, one per line of
/// standard input, and print one line per input.
#[derive(Debug, Parser)]
#[command(name = "xla-shape", version, propagate_version = true)]
#[command(after_help = "Examples:\n  \
    xla-shape explain 'f32[2,3]{0,1}'\n  \
    xla-shape parse 'f32[2,3]' '(s32[], pred[4])'\n  \
    echo 'bf16[8,128]{1,0:T(8,128)}' | xla-shape --json encode\n  \
    xla-shape order 'f32[2,3]{0,1:PAD(3,5)}'\n  \
    xla-shape broadcast f32[4] f32[1,2] --dims 0\n  \
    xla-shape view '[3,4]' '[0:3:2, 1:4:2]'\n  \
    xla-shape relayout 'bf16[8,128]{1,0}' 'bf16[8,128]{1,0:T(8,128)(2,1)}' < in.bin > out.bin\n\n\
    Exit status: 0 if every input succeeded, 1 if any failed, 2 for bad usage.")]
pub struct Cli {
    /// Print one JSON object per output line.
    #[arg(long, global = true)]
    pub json: bool,

    #[command(subcommand)]
    pub command: Command,
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
        xla-shape encode --text 'f32[2,3]'   # protobuf text format\n\n\
        JSON fields: ok, input, hex (or text).")]
    Encode {
        /// Print protobuf text format instead of hex.
        #[arg(long)]
        text: bool,
        /// Shape strings; none reads one per line from standard input.
        shapes: Vec<String>,
    },

    /// Decode serialized Shape messages (hex) and print their canonical string.
    #[command(
        after_help = "Examples:\n  xla-shape decode 100b1a0202032a070a02010080010132020000\n  \
        xla-shape decode --binary < shape.pb\n\n\
        Decodes only; see `validate --hex` to check the result.\n\
        JSON fields: ok, input, shape, hex (re-encoded), text (protobuf text format)."
    )]
    Decode {
        /// Read one raw binary message from standard input instead of hex.
        #[arg(long, conflicts_with = "messages")]
        binary: bool,
        /// Hex strings; none reads one per line from standard input.
        messages: Vec<String>,
    },

    /// Validate shapes as XLA's ShapeUtil::ValidateShape does.
    #[command(after_help = "Examples:\n  xla-shape validate 'f32[2,3]{0,1}'\n  \
        xla-shape validate --hex 100b1a0202032a070a02010080010132020000\n\n\
        Prints `ok` or `error: <XLA's message>`. JSON fields: ok, input, error.")]
    Validate {
        /// The inputs are serialized Shape messages in hex, not shape strings.
        #[arg(long)]
        hex: bool,
        /// Shapes (or hex); none reads one per line from standard input.
        inputs: Vec<String>,
    },

    /// Convert between a multi-dimensional index and the linear index into
    /// the shape's (padded) buffer, under its layout.
    #[command(
        after_help = "Examples:\n  xla-shape index 'f32[10,20]{0,1}' --multi 3,5   # 53\n  \
        xla-shape index 'f32[10,20]{1,0}' --linear 65   # [3,5]\n\n\
        JSON fields: ok, linear, multi."
    )]
    Index(IndexArgs),

    /// For each position of the buffer in memory order, the row-major index of
    /// the logical element stored there (`pad` for padding).
    #[command(
        after_help = "Examples:\n  xla-shape order 'f32[2,3]{0,1}'   # 0 3 1 4 2 5\n  \
        xla-shape order 'f32[2,3]{0,1:PAD(3,5)}'\n\n\
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
        after_help = "Examples:\n  xla-shape compare 'f32[5,3]{1,0}' 'f32[3,5]{0,1}'\n\n\
        JSON fields: ok, equal, compatible, equal_ignoring_layout, same_dimensions,\n\
        reshape_is_bitcast, transpose_is_bitcast_dims."
    )]
    Compare {
        /// The first shape.
        a: String,
        /// The second shape.
        b: String,
    },

    /// A strided view after numpy-style operations, applied left to right.
    #[command(
        after_help = "Examples:\n  xla-shape view '[3,4]' '[0:3:2, 1:4:2]'\n  \
        xla-shape view '[2,3,4]' '.T[::-1, 1].expand_dims(0)'\n  \
        xla-shape view 'f32[2,3]{0,1}' .T '.reshape(6)'\n\n\
        BASE is an XLA shape (its layout and padding give the strides) or `[d0,...]`\n\
        (packed row-major). OPs: .T .transpose(p,...) .reshape(d,...) .broadcast_to(d,...)\n\
        .expand_dims(a) .squeeze() .squeeze(a) .swapaxes(a,b) .moveaxis(s,d) .flip() .flip(a)\n\
        .as_strided(shape=(..),strides=(..)) and indexing [0:3:2, 1:4:2] [::-1, 2] [..., None].\n\
        JSON fields: ok, shape, strides, offset, c_contiguous, f_contiguous, error."
    )]
    View {
        /// The base array.
        base: String,
        /// Operations, as separate arguments or one chain.
        ops: Vec<String>,
    },

    /// A readable report on each shape: sizes, layout, strides, padding, memory.
    #[command(after_help = "Examples:\n  xla-shape explain 'f32[2,3]{0,1}'\n  \
        xla-shape --json explain 's4[8,128]{1,0:E(4)}'\n\n\
        JSON fields: ok, input, element_type, rank, true_rank, element_count, byte_size,\n\
        strides, byte_strides, major_to_minor, padded_dimensions.")]
    Explain {
        /// Shape strings; none reads one per line from standard input.
        shapes: Vec<String>,
    },

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
}

/// Arguments of `index`.
#[derive(Debug, Args)]
pub struct IndexArgs {
    /// The shape, with its layout (and padding).
    pub shape: String,
    /// A linear index into the buffer: print the multi-dimensional index.
    #[arg(
        long,
        allow_hyphen_values = true,
        required_unless_present = "multi",
        conflicts_with = "multi"
    )]
    pub linear: Option<String>,
    /// A multi-dimensional index `i,j,...`: print the linear index.
    #[arg(long, allow_hyphen_values = true)]
    pub multi: Option<String>,
}

/// Arguments of `broadcast`.
#[derive(Debug, Args)]
pub struct BroadcastArgs {
    /// Apply numpy's implicit broadcasting to two or more shapes.
    #[arg(long, conflicts_with_all = ["in_dim", "dims"])]
    pub numpy: bool,
    /// Check XLA's BroadcastInDim of OPERAND into OUTPUT with --dims.
    #[arg(long)]
    pub in_dim: bool,
    /// broadcast_dimensions, comma-separated (`--dims 0,2`, or `--dims ''` for none).
    #[arg(long, allow_hyphen_values = true)]
    pub dims: Option<String>,
    /// The shapes.
    #[arg(required = true, num_args = 2..)]
    pub shapes: Vec<String>,
}
