//! Any message by name ([`schema::decode_message`], [`schema::encode_message`]):
//! arbitrary bytes never panic, what decodes encodes to a fixed point, and
//! the dynamic and the prost encodings of messages with maps agree.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;

use proptest::prelude::*;
use prost::Message;
use schema::{GemmPerfTable, GemmPerfTableEntry, GemmPerfTableEntryValues};

proptest! {
    #[test]
    fn arbitrary_bytes_decode_or_fail_cleanly(
        which in 0_usize..74,
        bytes in proptest::collection::vec(any::<u8>(), 0..48),
    ) {
        let names = schema::message_names().unwrap();
        let name = &names[which % names.len()];
        let descriptor = schema::message_descriptor(name).unwrap();
        match schema::decode_message(&descriptor, &bytes) {
            Ok(message) => {
                let once = schema::encode_message(&message);
                let again = schema::decode_message(&descriptor, &once).unwrap();
                prop_assert_eq!(schema::encode_message(&again), once);
            }
            Err(error) => {
                let text = error.to_string();
                prop_assert!(text.starts_with(&format!("invalid {} message ({} bytes): ", descriptor.full_name(), bytes.len())), "{}", text);
            }
        }
    }
}

#[test]
fn nested_maps_encode_alike_dynamically_and_with_prost() {
    let mut flops = BTreeMap::new();
    flops.insert("f32".to_string(), 0);
    flops.insert("bf16".to_string(), 7);
    let entry = GemmPerfTableEntry {
        b: 1,
        m: 0,
        n: 2,
        k: 3,
        flops,
    };
    let mut table = GemmPerfTable::default();
    table.entries.insert(
        "gpu".into(),
        GemmPerfTableEntryValues {
            entries: vec![entry, GemmPerfTableEntry::default()],
        },
    );
    table
        .entries
        .insert(String::new(), GemmPerfTableEntryValues::default());
    let typed = table.encode_to_vec();
    let descriptor = schema::message_descriptor("xla.GemmPerfTable").unwrap();
    let dynamic = schema::decode_message(&descriptor, &typed).unwrap();
    assert_eq!(schema::encode_message(&dynamic), typed);
    assert_eq!(GemmPerfTable::decode(typed.as_slice()).unwrap(), table);
    // The entry with the empty key and the empty value comes first, in full.
    assert_eq!(typed[..6], [0x0a, 0x04, 0x0a, 0x00, 0x12, 0x00]);
}
