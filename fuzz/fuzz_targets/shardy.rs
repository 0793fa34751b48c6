//! Shardy text: the input's first line is a mesh, the rest a sharding (and,
//! as a whole, a lowered module). Whatever parses prints as text that
//! parses back to the same value; a sharding that converts to XLA's form
//! and is found again from it converts to the same form; reading a lowered
//! module and listing its devices never panics.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sharding_util::sdy::{LoweredModule, LoweredReport, SdyMesh, SdySharding};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(module) = LoweredModule::parse(text) {
        let small = module
            .meshes
            .iter()
            .all(|m| m.device_count().is_ok_and(|n| n <= 4096))
            && module.num_partitions.is_none_or(|n| n <= 4096);
        if small {
            let _ = LoweredReport::new(&module);
        }
    }
    let (mesh_text, sharding_text) = text.split_once('\n').unwrap_or((text, ""));
    let mesh = mesh_text.parse::<SdyMesh>().ok();
    if let Some(mesh) = &mesh {
        let printed = mesh.to_string();
        let back: SdyMesh = printed
            .parse()
            .unwrap_or_else(|e| panic!("{mesh_text:?} prints as {printed:?}: {e}"));
        assert_eq!(back.axes, mesh.axes, "{mesh_text:?}");
        assert_eq!(back.device_ids, mesh.device_ids, "{mesh_text:?}");
    }
    let Ok(sharding) = sharding_text.parse::<SdySharding>() else {
        return;
    };
    let printed = sharding.to_string();
    let back: SdySharding = printed
        .parse()
        .unwrap_or_else(|e| panic!("{sharding_text:?} prints as {printed:?}: {e}"));
    assert_eq!(back, sharding, "{sharding_text:?}");
    let Some(mesh) = mesh else {
        return;
    };
    if mesh.device_count().is_ok_and(|n| n > 4096) {
        return;
    }
    let Ok(hlo) = sharding.to_hlo(Some(&mesh)) else {
        return;
    };
    let Ok(Some(found)) = SdySharding::from_hlo(&hlo, &mesh, sharding.dims.len()) else {
        return;
    };
    let again = found
        .to_hlo(Some(&mesh))
        .unwrap_or_else(|e| panic!("{text:?}: found {found} does not convert: {e}"));
    assert_eq!(
        again.to_string(),
        hlo.to_string(),
        "{text:?}: found {found}"
    );
});
