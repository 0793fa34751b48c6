//! `hlo FILE --peak --pprof OUT --flame OUT.svg`: on every golden program,
//! from the module's text and from XLA's dump alike, the pprof profile
//! read back (gunzipped, decoded) has one sample per buffer live at the
//! peak, adding up to the peak and naming the program's files; the flame
//! graph renders, its root as wide as the peak. The renderings are left as
//! PNGs in Cargo's scratch directory for a look.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Read;
use std::path::{Path, PathBuf};

use assert_cmd::cargo::cargo_bin_cmd;
use resvg::{tiny_skia, usvg};
use xla_shape_front::pprof::Profile;
use xla_shape_front::{MemoryDump, PeakReport};

fn golden() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/peak_memory")
}

fn decode(gz: &[u8]) -> Profile {
    let mut raw = Vec::new();
    flate2::read::GzDecoder::new(gz)
        .read_to_end(&mut raw)
        .unwrap();
    prost::Message::decode(&raw[..]).unwrap()
}

fn text(profile: &Profile, index: i64) -> &str {
    &profile.string_table[usize::try_from(index).unwrap()]
}

/// The files the profile's functions name.
fn files(profile: &Profile) -> Vec<&str> {
    profile
        .function
        .iter()
        .map(|f| text(profile, f.filename))
        .filter(|f| !f.is_empty())
        .collect()
}

/// Checks `report`'s profile: a sample per live buffer, its bytes and
/// labels; the bytes add up to the peak.
fn check(program: &str, report: &PeakReport) -> Profile {
    let profile = decode(&xla_shape_front::peak_pprof(Some(program), report).unwrap());
    assert_eq!(profile.sample.len(), report.live_at_peak.len(), "{program}");
    let total: i64 = profile.sample.iter().map(|s| s.value[1]).sum();
    assert_eq!(
        u64::try_from(total).unwrap(),
        report.peak_bytes,
        "{program}"
    );
    for (sample, buffer) in profile.sample.iter().zip(&report.live_at_peak) {
        assert_eq!(sample.value[0], 1);
        let labels: Vec<(&str, &str)> = sample
            .label
            .iter()
            .map(|l| (text(&profile, l.key), text(&profile, l.str)))
            .collect();
        assert_eq!(labels[0], ("kind", buffer.kind.word()), "{program}");
        assert_eq!(labels[1], ("shape", buffer.shape.as_str()), "{program}");
        let op = labels.iter().find(|(k, _)| *k == "op_name").map(|l| l.1);
        assert_eq!(op, buffer.op_name.as_deref(), "{program}");
        // The stack's locations, innermost first; two synthetic ones
        // without a stack.
        let depth = buffer.stack.len().max(2);
        assert_eq!(sample.location_id.len(), depth, "{program}");
        if let Some(frame) = buffer.stack.innermost() {
            let location = &profile.location[usize::try_from(sample.location_id[0] - 1).unwrap()];
            assert_eq!(location.line[0].line, i64::try_from(frame.line).unwrap());
        }
    }
    profile
}

#[test]
fn every_golden_programs_profile_adds_up_to_its_peak_from_text_and_dump() {
    let mut programs = 0;
    let mut named = 0;
    for entry in std::fs::read_dir(golden()).unwrap() {
        let dir = entry.unwrap().path();
        let program = dir.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read(dir.join("compiled.txt")).unwrap();
        let memory = xla_shape_front::module_peak_memory(&text).unwrap();
        let from_text = check(&program, &memory.peak);
        let proto = std::fs::read(dir.join("after_optimizations.hlo.pb")).unwrap();
        let dump = MemoryDump::Proto(&proto).peak().unwrap();
        let from_dump = check(&program, &dump);
        assert_eq!(memory.peak.peak_bytes, dump.peak_bytes, "{program}");
        // Where a buffer at the peak has a stack, the profile names the
        // program's file (the donated programs hold only arguments there).
        let stacked = memory.peak.live_at_peak.iter().any(|b| !b.stack.is_empty());
        assert_eq!(
            files(&from_text).contains(&"gen_peak_memory.py"),
            stacked,
            "{program}"
        );
        named += usize::from(stacked);
        assert_eq!(
            files(&from_text).is_empty(),
            files(&from_dump).is_empty(),
            "{program}"
        );
        programs += 1;
    }
    assert!(programs >= 80, "{programs}");
    assert!(named + 3 >= programs, "{named} of {programs}");
}

/// Runs `hlo FILE ARGS... --flame OUT.svg --pprof OUT.pb.gz`; the SVG and
/// the profile.
fn outputs(name: &str, file: &Path, args: &[&str]) -> (String, Profile, String) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let (svg, pb) = (
        dir.join(format!("{name}.svg")),
        dir.join(format!("{name}.pb.gz")),
    );
    let output = cargo_bin_cmd!("xla-shape")
        .arg("hlo")
        .arg(file)
        .args(args)
        .arg("--flame")
        .arg(&svg)
        .arg("--pprof")
        .arg(&pb)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    let svg_text = std::fs::read_to_string(&svg).unwrap();
    let tree = usvg::Tree::from_str(&svg_text, &usvg::Options::default()).unwrap();
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height()).unwrap();
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    pixmap.save_png(svg.with_extension("png")).unwrap();
    (svg_text, decode(&std::fs::read(&pb).unwrap()), stdout)
}

#[test]
fn the_command_writes_both_for_a_module_text_and_a_dump() {
    let dir = golden().join("transformer_block_grad");
    let (svg, profile, stdout) = outputs("flame-text", &dir.join("compiled.txt"), &["--peak"]);
    assert!(stdout.contains("flame-text.svg\nwrote "), "{stdout}");
    assert!(svg.contains("<title>peak memory by Python stack: compiled.txt</title>"));
    assert!(svg.contains("<title>all: peak "));
    assert!(svg.contains(" (gen_peak_memory.py:"));
    assert!(files(&profile).contains(&"gen_peak_memory.py"));
    let comment = text(&profile, profile.comment[0]);
    assert!(
        comment.starts_with("buffers live at the peak: "),
        "{comment}"
    );
    let (dump_svg, dump_profile, _) =
        outputs("flame-dump", &dir.join("after_optimizations.hlo.pb"), &[]);
    assert!(dump_svg.contains("<title>all: peak "));
    let sum = |p: &Profile| p.sample.iter().map(|s| s.value[1]).sum::<i64>();
    assert_eq!(sum(&profile), sum(&dump_profile));
    // JSON names the files written.
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("flame-json.svg");
    let output = cargo_bin_cmd!("xla-shape")
        .args(["--json", "hlo"])
        .arg(dir.join("compiled.txt"))
        .arg("--flame")
        .arg(&out)
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["flame"], out.display().to_string());
    assert_eq!(json.get("pprof"), None);
}

#[test]
fn an_unwritable_output_is_an_error_naming_it() {
    let file = golden().join("attention").join("compiled.txt");
    let output = cargo_bin_cmd!("xla-shape")
        .arg("hlo")
        .arg(&file)
        .args(["--pprof", "/nonexistent/dir/p.pb.gz"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    // Said where the report would have been.
    let said = String::from_utf8(output.stdout).unwrap();
    assert!(
        said.starts_with("error: cannot write /nonexistent/dir/p.pb.gz: "),
        "{said}"
    );
}
