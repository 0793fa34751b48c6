//! Two arbitrary XLA shape texts and a source length into `output_bytes`
//! and `output_buffer`: nothing panics or aborts; a destination is sized
//! only for a source of exactly its shape's buffer size and within
//! `MAX_OUTPUT_GROWTH` times it plus `OUTPUT_SLACK_BYTES`; where both
//! buffers are small, the XLA relayout runs on them.
//!
//! The input is `source shape \n destination shape \n` then the source's
//! bytes.

#![no_main]

use libfuzzer_sys::fuzz_target;
use relayout::{FromTo, MAX_OUTPUT_GROWTH, OUTPUT_SLACK_BYTES, RelayoutPlan, output_bytes};
use schema::Shape;

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(3, |&b| b == b'\n');
    let (Some(from), Some(to), Some(src)) = (parts.next(), parts.next(), parts.next()) else {
        return;
    };
    let (Ok(from), Ok(to)) = (std::str::from_utf8(from), std::str::from_utf8(to)) else {
        return;
    };
    let (Ok(from), Ok(to)) = (from.parse::<Shape>(), to.parse::<Shape>()) else {
        return;
    };
    let shapes = FromTo {
        from: &from,
        to: &to,
    };
    let src_len = i64::try_from(src.len()).expect("a fuzz input fits in i64");
    let Ok(bytes) = output_bytes(shapes, src_len) else {
        return;
    };
    assert!(bytes <= src_len * MAX_OUTPUT_GROWTH + OUTPUT_SLACK_BYTES);
    if bytes > 1 << 16 || !relayout::same_array(&from, &to) {
        return;
    }
    let mut dst = relayout::output_buffer(shapes, src_len).expect("sized above");
    assert_eq!(i64::try_from(dst.len()).ok(), Some(bytes));
    if let Ok(plan) = RelayoutPlan::xla(shapes) {
        plan.run(src, &mut dst).unwrap_or_else(|e| {
            panic!(
                "{} -> {}: {e}",
                from.human_string_with_layout(),
                to.human_string_with_layout()
            )
        });
    }
});
