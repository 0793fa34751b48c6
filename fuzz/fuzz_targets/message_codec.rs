//! Arbitrary bytes -> `decode_message` as one of the schema's messages ->
//! `encode_message` -> `decode_message`.
//!
//! Nothing may panic; what decodes encodes to bytes that decode again and
//! encode to the same bytes (one normalization: a scalar field written with
//! its default value decodes as set and is not written back).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&which, bytes)) = data.split_first() else {
        return;
    };
    let Ok(names) = schema::message_names() else {
        return;
    };
    let name = &names[usize::from(which) % names.len()];
    let descriptor = schema::message_descriptor(name).unwrap();
    let Ok(message) = schema::decode_message(&descriptor, bytes) else {
        return;
    };
    let encoded = schema::encode_message(&message);
    let again = schema::decode_message(&descriptor, &encoded).unwrap();
    assert_eq!(schema::encode_message(&again), encoded, "{name}");
});
