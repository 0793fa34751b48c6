//! `OpSharding` bytes -> `from_proto` (XLA's reading) never panics; a sharding
//! it reads writes bytes that read back to the same bytes after XLA's
//! normalization (two reads at most), and, unless it nests
//! tuples (which XLA's text cannot hold either) or has mesh axis names with
//! a backslash or a quote (which XLA prints raw), its text parses, stable
//! after a second read too.

#![no_main]

mod sharding_names;

use libfuzzer_sys::fuzz_target;
use prost::Message;
use schema::OpSharding;
use sharding_names::raw_names;
use sharding_util::{HloSharding, Kind};

fuzz_target!(|data: &[u8]| {
    let Ok(proto) = OpSharding::decode(data) else {
        return;
    };
    let Ok(sharding) = HloSharding::from_proto(&proto) else {
        return;
    };
    // XLA's `from_proto` normalizes in up to two reads (a tiled sharding
    // whose subgroups merge into one `unreduced` group becomes `{unreduced}`
    // on the second): after that the bytes are stable.
    let mut bytes = sharding.to_proto().encode_to_vec();
    for read in 0..2 {
        let decoded = OpSharding::decode(bytes.as_slice())
            .unwrap_or_else(|e| panic!("{data:02x?}: our bytes do not decode: {e}"));
        let back = HloSharding::from_proto(&decoded)
            .unwrap_or_else(|e| panic!("{data:02x?}: our bytes are refused: {e}"));
        let again = back.to_proto().encode_to_vec();
        if read == 1 {
            assert_eq!(again, bytes, "{data:02x?}: to_proto is not stable");
        }
        bytes = again;
    }
    if nested(&sharding) || raw_names(&sharding) {
        return;
    }
    // The text parses; like the bytes, it is stable after a second read.
    let mut text = sharding.to_string();
    for read in 0..2 {
        let reparsed: HloSharding = text
            .parse()
            .unwrap_or_else(|e| panic!("{data:02x?}: {text:?} does not parse: {e}"));
        let again = reparsed.to_string();
        if read == 1 {
            assert_eq!(again, text, "{data:02x?}: the text is not stable");
        }
        text = again;
    }
});

/// Whether a tuple holds a tuple.
fn nested(sharding: &HloSharding) -> bool {
    matches!(sharding.kind(), Kind::Tuple(elements)
        if elements.iter().any(|e| matches!(e.kind(), Kind::Tuple(_))))
}
