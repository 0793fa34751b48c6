//! `explain`'s report read back from its JSON: every fact comes back equal;
//! the text-only fields come back empty.

#![allow(clippy::unwrap_used)]

use shape_util::{Details, Explanation, TileSize, explain};

/// The report on `text`, its JSON, and the report read back from that.
fn round_trip(text: &str) -> (Explanation, String, Explanation) {
    let report = explain(&text.parse().unwrap()).unwrap();
    let json = serde_json::to_string(&report).unwrap();
    let back = serde_json::from_str(&json).unwrap();
    (report, json, back)
}

#[test]
fn a_tile_size_pads_as_one_word() {
    assert_eq!(format!("{:>10}|", TileSize::Size(128)), "       128|");
    assert_eq!(format!("{:<4}|", TileSize::Size(8)), "8   |");
    assert_eq!(format!("{:>3}|", TileSize::Combined), "  *|");
    assert_eq!(TileSize::Size(128).to_string(), "128");
}

#[test]
fn every_fact_reads_back_equal() {
    for text in [
        "f32[2,3]{0,1}",
        "bf16[10,200]{1,0:T(8,128)(2,1)}",
        "s4[8,128]{1,0:E(4)}",
        "f32[2,3]{0,1:PAD(3,5)}",
        "f32[6,4]{1,0:T(2,*,2)}",
        "pred[]",
        "(f32[2], s8[], token[])",
        "token[]",
    ] {
        let (report, json, back) = round_trip(text);
        let mut expected = report.clone();
        expected.shape = String::new();
        expected.details = Details::default();
        assert_eq!(back, expected, "{text}");
        // Written again, the JSON is the same bytes.
        assert_eq!(serde_json::to_string(&back).unwrap(), json, "{text}");
    }
}

#[test]
fn a_combined_tile_entry_reads_back_as_combined() {
    let (_, json, back) = round_trip("f32[6,4]{1,0:T(2,*,2)}");
    assert!(json.contains(r#""tiles":[[2,"*",2]]"#), "{json}");
    assert_eq!(
        back.tiles,
        Some(vec![vec![
            TileSize::Size(2),
            TileSize::Combined,
            TileSize::Size(2)
        ]])
    );
}

#[test]
fn a_tuple_reads_back_with_its_byte_size() {
    let (_, _, back) = round_trip("(f32[2], s8[])");
    assert_eq!((back.element_type, back.byte_size), ("tuple", 16));
    assert_eq!((back.rank, back.buffer_size), (None, None));
}

#[test]
fn bad_facts_are_errors_naming_the_value() {
    let (_, json, _) = round_trip("f32[2,3]{0,1}");
    let unknown = json.replace(r#""f32""#, r#""f31""#);
    let error = serde_json::from_str::<Explanation>(&unknown).unwrap_err();
    assert!(
        error.to_string().contains(r#"unknown element type "f31""#),
        "{error}"
    );
    let (_, json, _) = round_trip("f32[6,4]{1,0:T(2,*,2)}");
    let word = json.replace(r#""*""#, r#""x""#);
    let error = serde_json::from_str::<Explanation>(&word).unwrap_err();
    assert!(error.to_string().contains(r#"tile entry "x""#), "{error}");
}
