//! A lowered module's text (jax's `lowered.as_text()`): read whole and
//! read a value at a time, the two agree (the same values, or the same
//! error); an error names an offset inside the text; a module read lists
//! each value once with one byte count per device, and the totals are the
//! sums of the entries'. Modules over many devices are read, not laid out.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sharding_util::sdy::{LoweredModule, LoweredReport, LoweredTotals, ShardyError};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let whole = LoweredModule::parse(text);
    let mut streamed = Vec::new();
    let read = LoweredModule::read(text, |_, value| {
        streamed.push(value);
        Ok(())
    });
    match (&whole, &read) {
        (Ok(module), Ok(header)) => {
            assert_eq!(module.values, streamed, "{text:?}");
            assert_eq!(module.num_partitions, header.num_partitions);
            assert_eq!(module.meshes, header.meshes);
            assert!(module.num_partitions.is_none_or(|n| n >= 1));
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "{text:?}"),
        _ => panic!("{text:?}: parse {whole:?}, read {read:?}"),
    }
    let module = match whole {
        Ok(module) => module,
        Err(ShardyError::Parse(e)) => {
            assert!(e.offset <= text.len(), "{text:?}: {e}");
            return;
        }
        Err(e) => panic!("{text:?}: a reading error that is no syntax error: {e}"),
    };
    let small = module.num_partitions.is_none_or(|n| n <= 4096)
        && module
            .meshes
            .iter()
            .all(|m| m.device_count().is_ok_and(|n| n <= 4096));
    if !small {
        return;
    }
    let Ok(report) = LoweredReport::new(&module) else {
        return;
    };
    if let Some(n) = module.num_partitions {
        assert_eq!(report.devices, n);
    }
    assert_eq!(report.entries.len(), module.values.len());
    let width = usize::try_from(report.devices).unwrap();
    let mut sums = [vec![0_i64; width], vec![0_i64; width]];
    for (entry, value) in report.entries.iter().zip(&module.values) {
        assert_eq!((entry.kind, entry.index), (value.kind, value.index));
        // A value with no sharding over several devices has no bytes (left
        // to XLA); every other has one count per device.
        let Some(bytes) = &entry.bytes else {
            assert!(value.sharding.is_none() && width > 1);
            continue;
        };
        assert_eq!(bytes.len(), width);
        let kind = usize::from(entry.kind == sharding_util::sdy::ValueKind::Result);
        for (sum, b) in sums[kind].iter_mut().zip(bytes) {
            assert!(*b >= 0);
            *sum += b;
        }
    }
    assert_eq!(report.argument_bytes, sums[0]);
    assert_eq!(report.result_bytes, sums[1]);
    // The report built an entry at a time is the same.
    let mut totals = LoweredTotals::new(&module).unwrap();
    for (entry, value) in report.entries.iter().zip(&module.values) {
        assert_eq!(&totals.entry(&module, value).unwrap(), entry);
    }
    assert_eq!(totals.argument_bytes, report.argument_bytes);
});
