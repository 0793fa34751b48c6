//! Arbitrary bytes -> the HLO text reader.
//!
//! Nothing may panic; an error names a line of the input and a column within
//! it; a module read whole reports as many instructions as it visited, each
//! on a line of the input, with sizes that are not negative (an opcode XLA
//! does not know is read, with at most `MAX_WARNINGS` warnings).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let lines = data.split(|&b| b == b'\n').count() as u64;
    let mut visited = 0u64;
    match hlo_util::read_text(data, |i| {
        visited += 1;
        assert!(i.line >= 1 && i.line <= lines);
        assert!(i.sizes.bytes >= 0 && i.sizes.allocated_bytes >= 0);
        assert!(!i.name.is_empty() && !i.opcode.is_empty());
        if let Some(device) = &i.per_device {
            assert!(device.sizes.bytes >= 0 && device.sizes.bytes <= i.sizes.bytes);
        }
    }) {
        Ok(module) => {
            assert_eq!(module.instructions, visited);
            assert!(module.computations >= 1);
            assert!(module.warnings.len() <= hlo_util::MAX_WARNINGS);
            assert!(module.parameter_bytes.logical >= 0 && module.output_bytes.logical >= 0);
        }
        Err(error) => {
            assert!(error.line >= 1 && error.line <= lines.max(1));
            assert!(error.column >= 1);
        }
    }
});
