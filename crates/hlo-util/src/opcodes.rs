//! The opcodes XLA's HLO parser knows.

use std::convert::Infallible;
use std::fmt;
use std::str::FromStr;

use serde::de::{Deserialize, Deserializer};
use serde::ser::{Serialize, Serializer};

/// Declares [`OPCODES`] and [`Opcode`] from one list: each opcode's
/// variant beside its name (the name in CamelCase).
macro_rules! opcodes {
    ($($variant:ident = $name:literal,)+) => {
        /// Every opcode the HLO parser of XLA 0.12 (jaxlib 0.12.0.1) accepts, in
        /// sorted order, less the async forms [`is_opcode`] accepts by rule
        /// (`all-reduce-start` is `all-reduce` and `-start`). Found by offering
        /// XLA's parser each word in jaxlib's library and keeping those it reads as
        /// an opcode (`build-tools/gen_hlo_opcodes.py`).
        pub const OPCODES: &[&str] = &[$($name),+];

        /// An HLO opcode: one of [`OPCODES`] (a variant each, the name in
        /// CamelCase: `get-tuple-element` is `GetTupleElement`), the async
        /// form of one (`all-reduce-start` is
        /// `Start(Box::new(Opcode::AllReduce))`), or any other word
        /// ([`Opcode::Other`]). [`std::str::FromStr`] and
        /// [`std::fmt::Display`] give and take XLA's spelling, and round-trip
        /// every word; serde writes it as that string.
        ///
        /// ```
        /// use hlo_util::Opcode;
        ///
        /// let op: Opcode = "get-tuple-element".parse().unwrap();
        /// assert_eq!(op, Opcode::GetTupleElement);
        /// let start: Opcode = "all-reduce-start".parse().unwrap();
        /// assert_eq!(start, Opcode::Start(Box::new(Opcode::AllReduce)));
        /// assert_eq!(start.to_string(), "all-reduce-start");
        /// let other: Opcode = "my-op".parse().unwrap();
        /// assert_eq!(other, Opcode::Other("my-op".to_owned()));
        /// assert!(!other.is_known());
        /// ```
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Opcode {
            $(
                #[doc = concat!("`", $name, "`.")]
                $variant,
            )+
            /// `OPCODE-start`: the start of the async form of a known opcode.
            Start(Box<Opcode>),
            /// `OPCODE-update`: an update of the async form of a known opcode.
            Update(Box<Opcode>),
            /// `OPCODE-done`: the end of the async form of a known opcode.
            Done(Box<Opcode>),
            /// A word that is no opcode XLA's parser knows, as written.
            Other(String),
        }

        impl Opcode {
            /// The opcode of one of [`OPCODES`], by name.
            fn named(name: &str) -> Option<Self> {
                match name {
                    $($name => Some(Self::$variant),)+
                    _ => None,
                }
            }

            /// The name of an opcode of [`OPCODES`]; none for the async
            /// forms and [`Opcode::Other`].
            pub fn name(&self) -> Option<&'static str> {
                match self {
                    $(Self::$variant => Some($name),)+
                    _ => None,
                }
            }
        }
    };
}

opcodes! {
    Abs = "abs",
    Acos = "acos",
    Acosh = "acosh",
    Add = "add",
    AddDependency = "add-dependency",
    AfterAll = "after-all",
    AllGather = "all-gather",
    AllReduce = "all-reduce",
    AllToAll = "all-to-all",
    And = "and",
    Asin = "asin",
    Asinh = "asinh",
    AsyncDone = "async-done",
    AsyncStart = "async-start",
    AsyncUpdate = "async-update",
    Atan2 = "atan2",
    Atanh = "atanh",
    BatchNormGrad = "batch-norm-grad",
    BatchNormInference = "batch-norm-inference",
    BatchNormTraining = "batch-norm-training",
    Bitcast = "bitcast",
    BitcastConvert = "bitcast-convert",
    Broadcast = "broadcast",
    Call = "call",
    Cbrt = "cbrt",
    Ceil = "ceil",
    Cholesky = "cholesky",
    Clamp = "clamp",
    CollectiveBroadcast = "collective-broadcast",
    CollectivePermute = "collective-permute",
    CollectiveReduce = "collective-reduce",
    Compare = "compare",
    Complex = "complex",
    Concatenate = "concatenate",
    Conditional = "conditional",
    Constant = "constant",
    Convert = "convert",
    Convolution = "convolution",
    Copy = "copy",
    Cosh = "cosh",
    Cosine = "cosine",
    CountLeadingZeros = "count-leading-zeros",
    CustomCall = "custom-call",
    Divide = "divide",
    Domain = "domain",
    Dot = "dot",
    DynamicReshape = "dynamic-reshape",
    DynamicSlice = "dynamic-slice",
    DynamicUpdateSlice = "dynamic-update-slice",
    Erf = "erf",
    Exp2 = "exp2",
    Exponential = "exponential",
    ExponentialMinusOne = "exponential-minus-one",
    Fft = "fft",
    Floor = "floor",
    Fusion = "fusion",
    Gather = "gather",
    GetDimensionSize = "get-dimension-size",
    GetTupleElement = "get-tuple-element",
    Imag = "imag",
    Infeed = "infeed",
    Iota = "iota",
    IsFinite = "is-finite",
    Log = "log",
    LogPlusOne = "log-plus-one",
    Log2 = "log2",
    Logistic = "logistic",
    Map = "map",
    Maximum = "maximum",
    Minimum = "minimum",
    Mulhi = "mulhi",
    Multiply = "multiply",
    Negate = "negate",
    Not = "not",
    OptBarrier = "opt-barrier",
    Or = "or",
    Outfeed = "outfeed",
    Pad = "pad",
    Parameter = "parameter",
    PartitionId = "partition-id",
    Popcnt = "popcnt",
    Power = "power",
    RaggedAllToAll = "ragged-all-to-all",
    RaggedDot = "ragged-dot",
    Real = "real",
    Recv = "recv",
    Reduce = "reduce",
    ReducePrecision = "reduce-precision",
    ReduceScatter = "reduce-scatter",
    ReduceWindow = "reduce-window",
    Remainder = "remainder",
    ReplicaId = "replica-id",
    Reshape = "reshape",
    Reverse = "reverse",
    Rng = "rng",
    RngBitGenerator = "rng-bit-generator",
    RngGetAndUpdateState = "rng-get-and-update-state",
    RoundNearestAfz = "round-nearest-afz",
    RoundNearestEven = "round-nearest-even",
    Rsqrt = "rsqrt",
    ScaledDot = "scaled-dot",
    Scan = "scan",
    Scatter = "scatter",
    Select = "select",
    SelectAndScatter = "select-and-scatter",
    Send = "send",
    SetDimensionSize = "set-dimension-size",
    ShiftLeft = "shift-left",
    ShiftRightArithmetic = "shift-right-arithmetic",
    ShiftRightLogical = "shift-right-logical",
    Shuffle = "shuffle",
    Sign = "sign",
    Sine = "sine",
    Sinh = "sinh",
    Slice = "slice",
    Sort = "sort",
    Sqrt = "sqrt",
    StochasticConvert = "stochastic-convert",
    Subtract = "subtract",
    Tan = "tan",
    Tanh = "tanh",
    Topk = "topk",
    Transpose = "transpose",
    TriangularSolve = "triangular-solve",
    Tuple = "tuple",
    While = "while",
    Xor = "xor",
}

/// The variant of one async stage, from the opcode it is of.
type AsyncForm = fn(Box<Opcode>) -> Opcode;

/// The async stages XLA's parser reads after any opcode, with the variant
/// of each.
const ASYNC_FORMS: [(&str, AsyncForm); 3] = [
    ("-start", Opcode::Start),
    ("-update", Opcode::Update),
    ("-done", Opcode::Done),
];

impl Opcode {
    /// Whether XLA's parser knows it ([`is_opcode`]): anything but
    /// [`Opcode::Other`].
    pub fn is_known(&self) -> bool {
        !matches!(self, Self::Other(_))
    }
}

impl FromStr for Opcode {
    type Err = Infallible;

    /// Any word: an opcode of [`OPCODES`], the async form of one, or
    /// [`Opcode::Other`].
    fn from_str(word: &str) -> Result<Self, Infallible> {
        if let Some(op) = Self::named(word) {
            return Ok(op);
        }
        for (suffix, form) in ASYNC_FORMS {
            if let Some(op) = word.strip_suffix(suffix).and_then(Self::named) {
                return Ok(form(Box::new(op)));
            }
        }
        Ok(Self::Other(word.to_owned()))
    }
}

impl fmt::Display for Opcode {
    /// XLA's spelling (`get-tuple-element`, `all-reduce-start`), padded as
    /// one word.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (op, stage) = match self {
            Self::Start(op) => (op, "-start"),
            Self::Update(op) => (op, "-update"),
            Self::Done(op) => (op, "-done"),
            Self::Other(word) => return f.pad(word),
            known => return f.pad(known.name().unwrap_or_default()),
        };
        if f.width().is_none() && f.precision().is_none() {
            write!(f, "{op}{stage}")
        } else {
            f.pad(&format!("{op}{stage}"))
        }
    }
}

impl Serialize for Opcode {
    /// As its string.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Opcode {
    /// From its string (any word).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let word = String::deserialize(deserializer)?;
        let Ok(op) = word.parse();
        Ok(op)
    }
}

/// Whether XLA's HLO parser knows `opcode`: one of [`OPCODES`], or the async
/// form `OPCODE-start`, `OPCODE-update` or `OPCODE-done` of one (XLA's parser
/// reads `fusion-start` as an `async-start` wrapping a fusion).
///
/// ```
/// assert!(hlo_util::is_opcode("get-tuple-element"));
/// assert!(hlo_util::is_opcode("custom-call-start"));
/// assert!(!hlo_util::is_opcode("bogus"));
/// assert!(!hlo_util::is_opcode("bogus-done"));
/// ```
pub fn is_opcode(opcode: &str) -> bool {
    let known = |name: &str| OPCODES.binary_search(&name).is_ok();
    known(opcode)
        || ["-start", "-update", "-done"]
            .iter()
            .any(|suffix| opcode.strip_suffix(suffix).is_some_and(known))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_opcode_pads_as_one_word() {
        assert_eq!(format!("{:>10}|", Opcode::Add), "       add|");
        let start = Opcode::Start(Box::new(Opcode::AllReduce));
        assert_eq!(format!("{start:<18}|"), "all-reduce-start  |");
        assert_eq!(format!("{start:.10}|"), "all-reduce|");
        assert_eq!(format!("{start}"), "all-reduce-start");
        let other = Opcode::Other("my-op".to_owned());
        assert_eq!(format!("{other:*^9}"), "**my-op**");
    }

    #[test]
    fn every_word_round_trips_through_opcode() {
        for name in OPCODES {
            let op: Opcode = name.parse().unwrap();
            assert!(op.is_known() && op.name() == Some(*name), "{name}");
            assert_eq!(op.to_string(), *name);
            for suffix in ["-start", "-update", "-done"] {
                let word = format!("{name}{suffix}");
                let op: Opcode = word.parse().unwrap();
                assert_eq!(op.to_string(), word);
                assert_eq!(op.is_known(), is_opcode(&word), "{word}");
            }
        }
        for word in ["bogus", "bogus-done", "", "-start"] {
            let op: Opcode = word.parse().unwrap();
            assert_eq!(op, Opcode::Other(word.to_owned()));
            assert_eq!(op.to_string(), word);
            assert!(!is_opcode(word));
        }
    }

    #[test]
    fn opcodes_are_sorted_and_unique() {
        assert!(OPCODES.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(OPCODES.len(), 127);
    }
}
