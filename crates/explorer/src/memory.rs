//! The module memory panel: the peak of a dropped module or dump, the
//! buffers live at the peak, the bytes there by source line, and the
//! timeline and flame graph pictures.

use hlo_util::{GroupBy, GroupRow, InputKind, MemoryDump, PeakReport, group_at_peak};
use serde::Serialize;
use wasm_bindgen::prelude::wasm_bindgen;

use crate::reply;

/// What the memory panel shows.
#[derive(Serialize)]
struct MemoryReply<'a> {
    /// What was read: `"module"` (module text, liveness computed from its
    /// schedule) or `"dump"` (XLA's buffer assignment replayed).
    source: &'static str,
    /// `xla-shape hlo --json`'s peak fields.
    #[serde(flatten)]
    peak: &'a PeakReport,
    /// Whether the module was not scheduled, so the peak is an estimate
    /// (module text only).
    #[serde(skip_serializing_if = "Option::is_none")]
    peak_is_estimate: Option<bool>,
    /// The steps of the flattened schedule (module text only).
    #[serde(skip_serializing_if = "Option::is_none")]
    steps: Option<u64>,
    /// What the text reader did not understand (an opcode XLA does not
    /// know), as `xla-shape hlo --peak` warns of it; absent when nothing.
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    warnings: &'a [String],
    /// The timeline picture (`xla-shape hlo --timeline`).
    svg: String,
    /// The bytes live at the peak by source line, largest first
    /// (`xla-shape hlo --peak --by source`).
    by_source: Vec<GroupRow>,
    /// The flame graph of the peak (`xla-shape hlo --peak --flame`).
    flame: String,
}

/// The memory panel's reply for the dropped file `bytes` named `file`:
/// an `HloProto` dump (`*after_optimizations.hlo.pb`, its buffer
/// assignment replayed as `xla-shape hlo DUMP` does) or module text (its
/// peak computed as `xla-shape hlo FILE --peak` does). The reply has
/// `source`, the peak report's fields (`peak_bytes`, `static_bytes`,
/// `heap_peak_bytes`, `peak_at`, `live_at_peak`, `device`, `host`), for
/// module text `peak_is_estimate`, `steps` and any `warnings`, `svg`: the
/// timeline picture, titled with `file`, `by_source`: the bytes at the
/// peak by source line (`key`, `bytes`, `buffers`, `percent`), and
/// `flame`: the peak's flame graph.
///
/// ```
/// let text = "HloModule m, is_scheduled=true\nENTRY e {\n  p = f32[256] parameter(0)\n  ROOT n = f32[256] negate(p)\n}\n";
/// let reply = xla_shape_explorer::module_memory(text.as_bytes(), Some("m.txt".to_owned()));
/// let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
/// assert_eq!(reply["source"], "module");
/// assert_eq!(reply["peak_bytes"], 2048);
/// assert!(reply["svg"].as_str().unwrap().contains("m.txt"));
/// assert_eq!(reply["by_source"][0]["bytes"], 2048);
/// assert!(reply["flame"].as_str().unwrap().contains("all: peak 2 KiB"));
/// ```
#[wasm_bindgen]
pub fn module_memory(bytes: &[u8], file: Option<String>) -> String {
    let file = file.as_deref();
    if InputKind::of_whole(bytes) == InputKind::HloProto {
        return dump_memory(MemoryDump::Proto(bytes), file);
    }
    let memory = match xla_shape_front::module_peak_memory(bytes) {
        Ok(memory) => memory,
        Err(error) => return reply::error(error),
    };
    reply::ok(&MemoryReply {
        source: "module",
        peak: &memory.peak,
        peak_is_estimate: Some(memory.peak_is_estimate),
        steps: Some(memory.steps),
        warnings: &memory.warnings,
        svg: xla_shape_front::module_memory_timeline(file, &memory),
        by_source: group_at_peak(&memory.peak, GroupBy::Source),
        flame: xla_shape_front::peak_flame_graph(file, &memory.peak),
    })
}

/// The memory panel's reply for XLA's text dumps of a buffer assignment:
/// `buffer_assignment` (`*-buffer-assignment.txt`) with `live_range` (the
/// `*-live-range.txt` beside it), replayed as `xla-shape hlo DUMP` does;
/// the fields of [`module_memory`]'s reply less those of module text.
///
/// ```
/// let reply: serde_json::Value = serde_json::from_str(&xla_shape_explorer::assignment_memory("", "", None)).unwrap();
/// assert_eq!(reply["ok"], false);
/// ```
#[wasm_bindgen]
pub fn assignment_memory(
    buffer_assignment: &str,
    live_range: &str,
    file: Option<String>,
) -> String {
    let dump = MemoryDump::Text {
        buffer_assignment,
        live_range,
    };
    dump_memory(dump, file.as_deref())
}

/// The reply for a dump of a buffer assignment.
fn dump_memory(dump: MemoryDump<'_>, file: Option<&str>) -> String {
    // One reading of the dump gives both.
    let (peak, timeline) = match dump.peak_and_timeline() {
        Ok(read) => read,
        Err(error) => return reply::error(error),
    };
    reply::ok(&MemoryReply {
        source: "dump",
        peak: &peak,
        peak_is_estimate: None,
        steps: None,
        warnings: &[],
        svg: xla_shape_front::timeline_picture(file, &peak, &timeline),
        by_source: group_at_peak(&peak, GroupBy::Source),
        flame: xla_shape_front::peak_flame_graph(file, &peak),
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use serde_json::Value;

    use super::*;

    fn golden(file: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/golden/peak_memory/attention")
            .join(file)
    }

    fn read(file: &str) -> Vec<u8> {
        std::fs::read(golden(file)).unwrap()
    }

    #[test]
    fn the_text_and_the_dump_agree_on_the_peak() {
        let text: Value =
            serde_json::from_str(&module_memory(&read("compiled.txt"), None)).unwrap();
        let dump = module_memory(&read("after_optimizations.hlo.pb"), Some("a.pb".to_owned()));
        let dump: Value = serde_json::from_str(&dump).unwrap();
        assert_eq!(
            (text["source"].as_str(), dump["source"].as_str()),
            (Some("module"), Some("dump"))
        );
        assert_eq!(text["peak_bytes"], 98304);
        assert_eq!(dump["peak_bytes"], 98304);
        assert_eq!(text["live_at_peak"][0]["name"], "ynn_fusion.2");
        assert_eq!(dump["live_at_peak"][0]["bytes"], 32768);
        assert_eq!(text["peak_is_estimate"], false);
        assert_eq!(dump.get("steps"), None);
        assert!(dump["svg"].as_str().unwrap().contains("peak 96 KiB"));
        // The same bytes by source line, the same flame graph.
        assert_eq!(text["by_source"], dump["by_source"]);
        let total: u64 = text["by_source"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["bytes"].as_u64().unwrap())
            .sum();
        assert_eq!(total, 98304);
        assert!(
            text["by_source"][0]["key"]
                .as_str()
                .unwrap()
                .starts_with("gen_peak_memory.py:")
        );
        assert!(dump["flame"].as_str().unwrap().contains("all: peak 96 KiB"));
    }

    #[test]
    fn an_unknown_opcode_is_a_warning() {
        let text = "HloModule m, is_scheduled=true\nENTRY e {\n  p = f32[256] parameter(0)\n  ROOT n = f32[256] frobnicate(p)\n}\n";
        let reply: Value = serde_json::from_str(&module_memory(text.as_bytes(), None)).unwrap();
        assert_eq!(reply["peak_bytes"], 2048);
        assert_eq!(
            reply["warnings"],
            serde_json::json!([
                "line 4, column 21: unknown opcode `frobnicate`, read as an instruction of its shape"
            ])
        );
        let known = text.replace("frobnicate", "negate");
        let reply: Value = serde_json::from_str(&module_memory(known.as_bytes(), None)).unwrap();
        assert_eq!(reply["peak_bytes"], 2048);
        assert_eq!(reply.get("warnings"), None);
    }

    #[test]
    fn the_text_dumps_replay_too() {
        let assignment = String::from_utf8(read("buffer-assignment.txt")).unwrap();
        let live_range = String::from_utf8(read("live-range.txt")).unwrap();
        let reply: Value =
            serde_json::from_str(&assignment_memory(&assignment, &live_range, None)).unwrap();
        assert_eq!(reply["peak_bytes"], 98304);
    }

    #[test]
    fn stablehlo_is_refused_with_the_fix() {
        let reply: Value = serde_json::from_str(&module_memory(b"module @jit_f {}", None)).unwrap();
        assert_eq!(reply["ok"], false);
        assert!(
            reply["error"]
                .as_str()
                .unwrap()
                .ends_with("compile it and pass compiled.as_text()")
        );
    }
}
