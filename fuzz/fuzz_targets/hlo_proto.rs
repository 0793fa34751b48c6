//! Arbitrary bytes -> the serialized-module readers, `read_proto` on the
//! bytes and `read_module` streaming them.
//!
//! Nothing may panic; a module read whole reports as many instructions as it
//! visited, with sizes that are not negative; the streaming reader agrees
//! with the reader of the whole bytes on what a serialized module holds.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut visited = 0u64;
    let whole = hlo_util::read_proto(data, |i| {
        visited += 1;
        assert_eq!(i.line, 0);
        assert!(i.sizes.bytes >= 0 && i.sizes.allocated_bytes >= 0);
        if let Some(device) = &i.per_device {
            assert!(device.sizes.bytes >= 0 && device.sizes.bytes <= i.sizes.bytes);
        }
    });
    match &whole {
        Ok(module) => {
            assert_eq!(module.instructions, visited);
            assert!(module.warnings.len() <= hlo_util::MAX_WARNINGS);
        }
        Err(error) => assert!(!error.path.is_empty()),
    }
    // One byte at a time: the reader may not depend on how the input comes.
    let streamed = hlo_util::read_module(std::io::BufReader::with_capacity(1, data), |_| {});
    if let Ok(summary) = whole {
        if let Ok(streamed) = streamed {
            assert_eq!(streamed.instructions, summary.instructions);
            assert_eq!(streamed.parameter_bytes, summary.parameter_bytes);
        }
    }
});
