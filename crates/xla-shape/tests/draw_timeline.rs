//! `hlo DUMP --timeline OUT.svg`: the memory timeline of a small and a large
//! golden program and of a synthetic dump of 100,000 steps, rendered with
//! resvg and checked by its pixels (each kind's colour, the peak's marks)
//! and its words. The renderings are left as PNGs in Cargo's scratch
//! directory for a look.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fmt::Write;
use std::path::{Path, PathBuf};

use assert_cmd::cargo::cargo_bin_cmd;
use resvg::{tiny_skia, usvg};

const PARAMETER: [u8; 3] = [0x00, 0x72, 0xb2];
const OUTPUT: [u8; 3] = [0x00, 0x9e, 0x73];
const TEMPORARY: [u8; 3] = [0xe6, 0x9f, 0x00];
const PEAK: [u8; 3] = [0xd5, 0x5e, 0x00];
const AGGREGATE: [u8; 3] = [0xb0, 0xb0, 0xb0];

fn golden(program: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/golden/peak_memory")
        .join(program)
}

/// `xla-shape hlo FILE --timeline`: the SVG, and the colours of its
/// rendering (also written as `NAME.png` in the scratch directory).
fn timeline(name: &str, file: &Path) -> (String, Vec<[u8; 3]>) {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.svg"));
    let output = cargo_bin_cmd!("xla-shape")
        .arg("hlo")
        .arg(file)
        .arg("--timeline")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.starts_with("peak: "), "{stdout}");
    assert!(
        stdout.ends_with(&format!("wrote {}\n", out.display())),
        "{stdout}"
    );
    let svg = std::fs::read_to_string(&out).unwrap();
    let tree = usvg::Tree::from_str(&svg, &usvg::Options::default()).unwrap();
    let size = tree.size().to_int_size();
    assert!(size.width() <= 1200, "{name}: {} wide", size.width());
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height()).unwrap();
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    pixmap.save_png(out.with_extension("png")).unwrap();
    let colours = pixmap
        .pixels()
        .iter()
        .map(|p| {
            let p = p.demultiply();
            [p.red(), p.green(), p.blue()]
        })
        .collect();
    (svg, colours)
}

fn count(colours: &[[u8; 3]], rgb: [u8; 3]) -> usize {
    colours.iter().filter(|&&c| c == rgb).count()
}

#[test]
fn a_small_program_from_its_hlo_proto() {
    let (svg, colours) = timeline(
        "timeline-attention",
        &golden("attention").join("after_optimizations.hlo.pb"),
    );
    assert!(svg.contains("peak 96 KiB (98304 bytes)"), "{svg}");
    assert!(svg.contains("heap event (XLA's heap simulator traces"));
    assert!(
        svg.contains(
            "<title>ynn_fusion.2{} f32[2,64,64]{2,1,0} \u{b7} 32768 bytes \u{b7} temporary"
        )
    );
    assert!(svg.contains("the 5 buffers live at the peak"));
    for rgb in [PARAMETER, OUTPUT, TEMPORARY, PEAK] {
        assert!(count(&colours, rgb) > 100, "{rgb:?}");
    }
}

#[test]
fn a_large_program_from_its_text_dumps() {
    let (svg, colours) = timeline(
        "timeline-scan-layers-grad",
        &golden("scan_layers_grad").join("buffer-assignment.txt"),
    );
    assert!(svg.contains("time step of the flattened schedule"));
    assert!(svg.contains("smaller blocks of"), "{svg}");
    for rgb in [PARAMETER, OUTPUT, TEMPORARY, PEAK, AGGREGATE] {
        assert!(count(&colours, rgb) > 50, "{rgb:?}");
    }
}

/// A dump of `steps` steps: a parameter, an output, and one temporary
/// born at every step and dead four steps later, the one at `steps / 3`
/// much larger.
fn synthetic(dir: &Path, steps: u64) -> PathBuf {
    let mut assignment = String::from(
        "BufferAssignment:\n\
         allocation 0: size 4096, parameter 0, shape |f32[1024]| at ShapeIndex {}:\n \
         value: <0 p @0> (size=4096,offset=0): f32[1024]{0}\n\
         allocation 1: size 4096, output shape is |f32[1024]|, maybe-live-out:\n \
         value: <1 out @0> (size=4096,offset=0): f32[1024]{0}\n",
    );
    let mut live = format!("HloLiveRange (max {steps}):\n  InstructionSequence:\n");
    for t in 0..steps {
        writeln!(live, "    {t}:t{t}").unwrap();
    }
    live.push_str("  BufferLiveRange:\n    p{}:0-");
    writeln!(live, "{steps}\n    out{{}}:{}-{steps}", steps - 1).unwrap();
    for t in 0..steps {
        let bytes = if t == steps / 3 {
            1 << 20
        } else {
            64 + (t % 7) * 16
        };
        writeln!(
            assignment,
            "allocation {}: size {bytes}, preallocated-temp:\n value: <{} t{t} @0> (size={bytes},offset=0): u8[{bytes}]{{0}}",
            t + 2,
            t + 2
        )
        .unwrap();
        writeln!(live, "    t{t}{{}}:{t}-{}", (t + 4).min(steps)).unwrap();
    }
    let path = dir.join("big-buffer-assignment.txt");
    std::fs::write(&path, assignment).unwrap();
    std::fs::write(dir.join("big-live-range.txt"), live).unwrap();
    path
}

#[test]
fn a_hundred_thousand_steps_stay_legible() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("timeline-100k");
    std::fs::create_dir_all(&dir).unwrap();
    let (svg, colours) = timeline("timeline-100k", &synthetic(&dir, 100_000));
    assert!(svg.len() < 400_000, "{} bytes of SVG", svg.len());
    assert!(svg.contains("the 12 largest of 100002 blocks"), "{svg}");
    assert!(svg.contains("99990 smaller blocks of 160 B or less, together"));
    assert!(svg.contains("peak 1.01 MiB (1057248 bytes)"));
    assert!(svg.contains(">33333</text>") || svg.contains("at step 33333"));
    for rgb in [PARAMETER, OUTPUT, TEMPORARY, PEAK, AGGREGATE] {
        assert!(count(&colours, rgb) > 20, "{rgb:?}");
    }
}
