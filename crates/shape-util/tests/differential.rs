//! Regressions found by differential testing against real XLA (jaxlib
//! 0.10.2): random shape strings loaded as an HLO parameter, which runs
//! XLA's shape validation (build-tools/gen_validation.py's path).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use schema::Shape;
use shape_util::validate_shape;

fn validate(text: &str) -> Result<(), String> {
    let shape: Shape = text.parse().unwrap();
    validate_shape(&shape).map_err(|error| error.to_string())
}

#[test]
fn a_zero_size_counts_before_the_byte_width() {
    // XLA accepts both: the element count is 0 before it is multiplied by
    // the byte width.
    assert_eq!(validate("(s64[<=4611686018427387904,0,2])"), Ok(()));
    assert_eq!(validate("f32[0,4611686018427387904]"), Ok(()));
    // XLA: the split config is the error, not the size.
    assert_eq!(
        validate(
            "c64[9223372036854775807,0,0,0,?,4611686018427387904]{5,0,2,4,3,1:SC(6:4)(2:0,8,0)}"
        ),
        Err("split config has out-of-bounds physical dimension: 6; shape: c64[9223372036854775807,0,0,0,?,4611686018427387904]".to_owned())
    );
}
