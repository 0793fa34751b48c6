//! Every command on a shape of rank 200,000 (one padded dimension) answers
//! on an ordinary 2 MiB stack: a value or an error, never an abort.

#![allow(clippy::unwrap_used)]

use conformance::on_small_stack;

use super::{compare, encode, explain, order, parse, validate, view};

const RANK: usize = 200_000;

/// `u8[2,1,...,1]{...:PAD(3,1,...,1)}` in descending layout.
fn padded() -> String {
    let minor_to_major: Vec<String> = (0..RANK).rev().map(|d| d.to_string()).collect();
    format!(
        "u8[2{}]{{{}:PAD(3{})}}",
        ",1".repeat(RANK - 1),
        minor_to_major.join(","),
        ",1".repeat(RANK - 1)
    )
}

#[test]
fn commands_at_rank_200000() {
    on_small_stack(|| {
        let input = padded();
        let (plain, _) = order::run(&input).unwrap();
        assert_eq!(plain, "0 1 pad");
        let (plain, _) = parse::run(&input, false).unwrap();
        assert_eq!(plain, input);
        validate::run(&input, false, true).unwrap();
        let (text, _) = encode::run(&input, true).unwrap();
        assert!(text.starts_with("element_type:U8,dimensions:[2,1,1,"));
        let (hex, _) = encode::run(&input, false).unwrap();
        assert!(super::decode::run(&hex).is_ok());
        assert!(explain::run(&input).is_ok());
        assert!(compare::run(&input, &input).is_ok());
        let too_many = view::run(&input, &[".flip()".to_owned()]).unwrap_err();
        assert!(too_many.contains("currently 64"), "{too_many}");
    });
}
