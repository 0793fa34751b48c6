//! `draw`: the seeds' pictures as golden SVGs, rendered with resvg and
//! checked cell by cell (gradient ends at the first and last memory
//! positions, padding hatched, a view's elements outlined in the buffer).
//!
//! The goldens are `tests/golden/draw/*.svg`; after an intended change to the
//! pictures, regenerate them with
//! `UPDATE_GOLDEN=1 cargo test -p xla-shape --test draw` and review the diff.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use assert_cmd::cargo::cargo_bin_cmd;
use resvg::{tiny_skia, usvg};

/// The gradient's ends (viridis) and the padding colours.
const FIRST: [u8; 3] = [0x44, 0x01, 0x54];
const LAST: [u8; 3] = [0xfd, 0xe7, 0x25];
const PADDING: [u8; 3] = [0xf2, 0xf2, 0xf2];
const HATCH: [u8; 3] = [0x8c, 0x8c, 0x8c];
const FADED: [u8; 3] = [0xe6, 0xe6, 0xe6];

/// `xla-shape draw args...`: the SVG, checked against its golden file.
fn draw(golden: &str, args: &[&str]) -> Picture {
    let output = cargo_bin_cmd!("xla-shape")
        .arg("draw")
        .args(args)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let svg = String::from_utf8(output.stdout).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/draw")
        .join(format!("{golden}.svg"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &svg).unwrap();
    }
    if let Some(doc) = doc_copy(golden) {
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(&doc, &svg).unwrap();
        }
        assert!(
            std::fs::read_to_string(&doc).is_ok_and(|d| d == svg),
            "{}: the README's copy differs (UPDATE_GOLDEN=1 rewrites it)",
            doc.display()
        );
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_GOLDEN=1 writes it)", path.display()));
    assert!(
        svg == expected,
        "{golden}: the SVG differs from {} (UPDATE_GOLDEN=1 rewrites it)",
        path.display()
    );
    Picture::new(svg)
}

/// The README's copy of a golden picture, under `docs/images/`.
fn doc_copy(golden: &str) -> Option<PathBuf> {
    let name = match golden {
        "f32_2x3_pad_3x5" => "draw-padded.svg",
        "view_3x4_slice" => "draw-view.svg",
        "f32_3x5_tiled_2x2" => "draw-tiled.svg",
        _ => return None,
    };
    Some(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../docs/images")
            .join(name),
    )
}

/// A rendered SVG and its source.
struct Picture {
    svg: String,
    pixmap: tiny_skia::Pixmap,
}

/// A named rectangle of the SVG: where it is, its fill, its label.
#[derive(Debug)]
struct Rect {
    x: u32,
    y: u32,
    size: u32,
    fill: String,
    label: String,
}

impl Picture {
    fn new(svg: String) -> Self {
        let tree = usvg::Tree::from_str(&svg, &usvg::Options::default()).unwrap();
        let size = tree.size().to_int_size();
        let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height()).unwrap();
        resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
        Self { svg, pixmap }
    }

    /// The rectangle with `id` (`cell-P-R-C`, `strip-N`) and the label
    /// written on it.
    fn rect(&self, id: &str) -> Rect {
        let start = self
            .svg
            .find(&format!("<rect id=\"{id}\" "))
            .unwrap_or_else(|| panic!("no {id}"));
        let tag = &self.svg[start..start + self.svg[start..].find("/>").unwrap()];
        let attribute = |name: &str| {
            let from = tag.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
            tag[from..from + tag[from..].find('"').unwrap()].to_owned()
        };
        let text = &self.svg[start..];
        let text = &text[text.find("<text ").unwrap()..];
        let label = &text[text.find('>').unwrap() + 1..text.find("</text>").unwrap()];
        Rect {
            x: attribute("x").parse().unwrap(),
            y: attribute("y").parse().unwrap(),
            size: attribute("width").parse().unwrap(),
            fill: attribute("fill"),
            label: label.to_owned(),
        }
    }

    fn pixel(&self, x: u32, y: u32) -> [u8; 3] {
        let p = self.pixmap.pixel(x, y).unwrap().demultiply();
        [p.red(), p.green(), p.blue()]
    }

    /// The colour inside the cell's corner, clear of border and text.
    fn colour(&self, id: &str) -> [u8; 3] {
        let r = self.rect(id);
        self.pixel(r.x + 4, r.y + 4)
    }

    /// Asserts the cell `id` is labelled `label` and filled `rgb`.
    fn assert_cell(&self, id: &str, label: &str, rgb: [u8; 3]) {
        let r = self.rect(id);
        assert_eq!(r.label, label, "{id}");
        assert_eq!(self.colour(id), rgb, "{id} ({r:?})");
        // The pixel is the fill the SVG says.
        let hex = format!("#{:02x}{:02x}{:02x}", rgb[0], rgb[1], rgb[2]);
        assert_eq!(r.fill, hex, "{id}");
    }

    /// Asserts the cell `id` shows padding `label` on hatching: its corner
    /// has both the hatch lines and the background between them.
    fn assert_hatched(&self, id: &str, label: &str) {
        let r = self.rect(id);
        assert_eq!(
            (r.label.as_str(), r.fill.as_str()),
            (label, "url(#padding-hatch)")
        );
        let mut seen = Vec::new();
        // The top-left quarter, clear of the value's patch.
        for dy in 2..r.size / 4 {
            for dx in 2..r.size / 4 {
                seen.push(self.pixel(r.x + dx, r.y + dy));
            }
        }
        assert!(
            seen.contains(&PADDING) && seen.contains(&HATCH),
            "{id}: {seen:?}"
        );
    }

    /// The labels of the strip's entries, in memory order.
    fn strip(&self) -> Vec<String> {
        (0..)
            .map_while(|n| {
                let id = format!("strip-{n}");
                self.svg
                    .contains(&format!("\"{id}\""))
                    .then(|| self.rect(&id).label)
            })
            .collect()
    }
}

/// The colour `#rrggbb`.
fn rgb_of(hex: &str) -> [u8; 3] {
    let channel = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).unwrap();
    [channel(1), channel(3), channel(5)]
}

fn words(text: &str) -> Vec<String> {
    text.split(' ').map(str::to_owned).collect()
}

#[test]
fn column_major_is_the_seeds_a_d_b_e_c_f() {
    let p = draw("f32_2x3_col_major", &["f32[2,3]{0,1}"]);
    assert_eq!(p.strip(), words("a d b e c f"));
    p.assert_cell("cell-0-0-0", "a", FIRST);
    p.assert_cell("cell-0-1-2", "f", LAST);
    p.assert_cell("strip-0", "a", FIRST);
    p.assert_cell("strip-5", "f", LAST);
    assert!(p.svg.contains(">@1</text>"));
    assert!(p.svg.contains("rows: dim 0 · size 2 · stride 1"));
    assert!(p.svg.contains("columns: dim 1 · size 3 · stride 2"));
}

#[test]
fn row_major_is_the_seeds_a_b_c_d_e_f() {
    let p = draw("f32_2x3_row_major", &["f32[2,3]{1,0}"]);
    assert_eq!(p.strip(), words("a b c d e f"));
    p.assert_cell("cell-0-0-0", "a", FIRST);
    p.assert_cell("cell-0-1-2", "f", LAST);
    // Byte offsets every entry: 4 bytes each.
    assert!(p.svg.contains(">20</text>"));
}

#[test]
fn padding_is_hatched_with_its_value() {
    let p = draw("f32_2x3_pad_3x5", &["f32[2,3]{0,1:PAD(3,5)PV(zero)}"]);
    assert_eq!(p.strip(), words("a d 0 b e 0 c f 0 0 0 0 0 0 0"));
    p.assert_cell("cell-0-0-0", "a", FIRST);
    // f is position 7 of 15: the gradient's middle stop exactly.
    p.assert_cell("cell-0-1-2", "f", [0x21, 0x91, 0x8c]);
    p.assert_hatched("cell-0-2-4", "0");
    p.assert_hatched("cell-0-0-3", "0");
    p.assert_hatched("strip-2", "0");
    // The last position is padding.
    p.assert_hatched("strip-14", "0");
    assert!(p.svg.contains("padded to 5"));
}

#[test]
fn dhw_is_two_slices() {
    let p = draw("f32_2x2x3_dhw", &["f32[2,2,3]{2,1,0}"]);
    assert_eq!(p.strip(), words("a b c d e f g h i j k l"));
    assert!(p.svg.contains(">[0,:,:]</text>") && p.svg.contains(">[1,:,:]</text>"));
    p.assert_cell("cell-0-0-0", "a", FIRST);
    p.assert_cell("cell-1-0-0", "g", p.colour("strip-6"));
    p.assert_cell("cell-1-1-2", "l", LAST);
    assert!(p.svg.contains("strides [6,3,1]"));
}

#[test]
fn nchw_and_nhwc_store_the_same_3x5_image() {
    let nchw = draw("f32_1x1x3x5_nchw", &["f32[1,1,3,5]{3,2,1,0}"]);
    let nhwc = draw("f32_1x1x3x5_nhwc", &["f32[1,1,3,5]{1,3,2,0}"]);
    for p in [&nchw, &nhwc] {
        assert_eq!(p.strip(), words("a b c d e f g h i j k l m n o"));
        p.assert_cell("cell-0-0-0", "a", FIRST);
        p.assert_cell("cell-0-2-4", "o", LAST);
        assert!(p.svg.contains(">[0,0,:,:]</text>"));
    }
    // DirectML's strides: NCHW {15,15,5,1}, NHWC {15,1,5,1}.
    assert!(nchw.svg.contains("strides [15,15,5,1]"));
    assert!(nhwc.svg.contains("strides [15,1,5,1]"));
}

#[test]
fn a_view_reads_b_d_j_l() {
    let p = draw("view_3x4_slice", &["--view", "[3,4]", "[0:3:2, 1:4:2]"]);
    assert_eq!(p.strip(), words("a b c d e f g h i j k l"));
    p.assert_cell("cell-0-0-0", "b", p.colour("strip-1"));
    p.assert_cell("cell-0-0-1", "d", p.colour("strip-3"));
    p.assert_cell("cell-0-1-0", "j", p.colour("strip-9"));
    p.assert_cell("cell-0-1-1", "l", LAST);
    // Outside the view: faded; inside: the position's colour, outlined.
    p.assert_cell("strip-0", "a", FADED);
    p.assert_cell("strip-2", "c", FADED);
    p.assert_cell("strip-11", "l", LAST);
    assert!(p.svg.contains("rows: axis 0 · size 2 · stride 8"));
    assert!(p.svg.contains("columns: axis 1 · size 2 · stride 2"));
    assert!(p.svg.contains("offset 1"));
}

#[test]
fn xlas_tiled_figure() {
    // XLA's tiled-layout figure: 2x2 tiles of a 3x5 array, padded to 4x6.
    let p = draw("f32_3x5_tiled_2x2", &["f32[3,5]{1,0:T(2,2)}"]);
    assert_eq!(
        p.strip(),
        words("a b f g c d h i e ? j ? k l ? ? m n ? ? o ? ? ?")
    );
    p.assert_cell("cell-0-0-0", "a", FIRST);
    p.assert_cell("cell-0-1-1", "g", p.colour("strip-3"));
    p.assert_cell("cell-0-2-4", "o", p.colour("strip-20"));
    assert!(p.svg.contains(">@20</text>"));
    p.assert_hatched("cell-0-3-5", "?");
    p.assert_hatched("strip-23", "?");
    assert_eq!(p.rect("strip-23").fill, "url(#padding-hatch)");
    // Six 2x2 tile outlines.
    assert_eq!(
        p.svg
            .matches("width=\"88\" height=\"88\" fill=\"none\"")
            .count(),
        6
    );
}

/// `xla-shape args...`: stdout and exit code.
fn run(args: &[&str]) -> (String, i32) {
    let output = cargo_bin_cmd!("xla-shape").args(args).output().unwrap();
    (
        String::from_utf8(output.stdout).unwrap(),
        output.status.code().unwrap(),
    )
}

/// `draw args...`, which must succeed: the picture.
fn picture(args: &[&str]) -> Picture {
    let mut all = vec!["draw"];
    all.extend(args);
    let (svg, code) = run(&all);
    assert_eq!(code, 0, "{svg}");
    Picture::new(svg)
}

/// A fresh empty directory for output files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xla-shape-draw-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn output_files_hold_what_standard_output_shows() {
    let dir = scratch("output");
    let file = dir.join("a.svg");
    let file_arg = file.to_str().unwrap();
    let (said, code) = run(&["draw", "f32[2,3]{0,1}", "--output", file_arg]);
    assert_eq!((said, code), (format!("wrote {file_arg}\n"), 0));
    let (svg, _) = run(&["draw", "f32[2,3]{0,1}"]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), svg);
    assert!(svg.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "));
    assert!(svg.ends_with("</svg>\n"));
    // Only the file: no temporary left beside it.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    let (json, _) = run(&["--json", "draw", "f32[2,3]{0,1}", "-o", file_arg]);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["ok"], true);
    assert_eq!(json["output"], file_arg);
    assert_eq!(json["bytes"], svg.len() - 1);
    let (json, _) = run(&["--json", "draw", "f32[2,3]{0,1}"]);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(format!("{}\n", json["svg"].as_str().unwrap()), svg);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_is_an_error_and_writes_nothing() {
    let dir = scratch("bad");
    let file = dir.join("bad.svg");
    let file_arg = file.to_str().unwrap();
    for args in [
        vec!["draw", "f32[2,", "-o", file_arg],
        vec!["draw", "(f32[2], s32[])", "-o", file_arg],
        vec!["draw", "f32[1099511627776,1099511627776,0]", "-o", file_arg],
        vec!["draw", "--view", "[3,4]", ".frobnicate()", "-o", file_arg],
        vec!["draw", "--view", "[3,4]", "[5]", "-o", file_arg],
        vec!["draw", "--view", "f32[4]{0:T(2)}", "-o", file_arg],
    ] {
        let (out, code) = run(&args);
        assert_eq!(code, 1, "{args:?}: {out}");
        assert!(
            out.starts_with("error: ") && out.lines().count() == 1,
            "{args:?}: {out}"
        );
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    let (out, code) = run(&["draw", "f32[2]", "-o", "/nonexistent-dir/x.svg"]);
    assert_eq!(code, 1);
    assert!(
        out.starts_with("error: cannot write /nonexistent-dir/x.svg"),
        "{out}"
    );
    // Operations belong to --view: bad usage.
    assert_eq!(run(&["draw", "f32[2]", ".T"]).1, 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn big_arrays_show_a_window_and_say_so() {
    let p = picture(&["f32[100,200]"]);
    assert!(p.svg.contains("window: rows 0-31 of 100 of dim 0 shown"));
    assert!(p.svg.contains("window: columns 0-31 of 200 of dim 1 shown"));
    assert!(p.svg.contains("20000 positions of 32 bits"));
    assert!(p.svg.contains("positions 0-255 shown"));
    assert!(p.svg.contains("\"cell-0-31-31\"") && !p.svg.contains("\"cell-0-32-0\""));
    assert_eq!(p.strip().len(), 256);
    // Numbers past 26 elements; the gradient spans the whole buffer.
    p.assert_cell("cell-0-0-0", "0", FIRST);
    assert_eq!(p.rect("cell-0-31-31").label, "6231");
    assert!(p.svg.contains(">@6231</text>"));
    assert!(p.svg.contains("last (19999)"));
}

#[test]
fn huge_arrays_draw_fast_in_a_window() {
    // 2^24 positions: only the window's cells and the strip's first
    // positions are computed.
    for (text, strip) in [
        ("f32[4096,4096]", "0 1 2 3 4 5"),
        // TPU's bf16 tiles: rows paired in (2,1), so 0 4096 1 4097 ...
        ("bf16[4096,4096]{1,0:T(8,128)(2,1)}", "0 4096 1 4097 2 4098"),
    ] {
        // Only the command is timed (tens of milliseconds), not the test's
        // own rendering of the picture, which a busy machine slows down.
        let start = std::time::Instant::now();
        let (svg, code) = run(&["draw", text]);
        let elapsed = start.elapsed();
        assert_eq!(code, 0, "{svg}");
        assert!(
            elapsed < std::time::Duration::from_secs(5),
            "{text}: {elapsed:?}"
        );
        let p = Picture::new(svg);
        assert!(
            p.svg.contains("window: rows 0-31 of 4096 of dim 0 shown"),
            "{text}"
        );
        assert!(
            p.svg
                .contains("window: columns 0-31 of 4096 of dim 1 shown"),
            "{text}"
        );
        assert!(p.svg.contains("16777216 positions of"), "{text}");
        assert!(p.svg.contains("positions 0-255 shown"), "{text}");
        assert!(p.svg.contains("last (16777215)"), "{text}");
        assert_eq!(p.strip()[..6], words(strip)[..], "{text}");
        p.assert_cell("cell-0-0-0", "0", FIRST);
        assert_eq!(p.rect("cell-0-31-31").label, "127007");
    }
    // In the tiles, element (1,0) is at position 1, (0,1) at 2, (31,31)
    // in the fourth 8x128 tile down (rows 24-31), pair 3, column 31.
    let p = picture(&["bf16[4096,4096]{1,0:T(8,128)(2,1)}"]);
    for (id, position) in [
        ("cell-0-1-0", 1),
        ("cell-0-0-1", 2),
        ("cell-0-31-31", 3 * 32 * 1024 + 3 * 256 + 31 * 2 + 1),
    ] {
        let from = p.svg.find(&format!("<rect id=\"{id}\" ")).unwrap();
        let cell = &p.svg[from..];
        let cell = &cell[..cell[1..].find("<rect").map_or(cell.len(), |e| e + 1)];
        assert!(
            cell.contains(&format!(">@{position}</text>")),
            "{id}: {cell}"
        );
    }
}

#[test]
fn ranks_past_4_are_summarized() {
    let p = picture(&["f32[2,3,4,5,6]"]);
    assert!(
        p.svg
            .contains("rank 5: dims 0-2 summarized as 24 slices of dims 3-4")
    );
    assert!(p.svg.contains("window: the first 16 of 24 slices shown"));
    assert!(p.svg.contains(">[1,0,3,:,:]</text>") && !p.svg.contains(">[1,1,0,:,:]</text>"));
    assert!(p.svg.contains("slices along dim 0 · size 2 · stride 360"));
    let last = p.rect("cell-15-4-5");
    assert_eq!(last.label, "479");
    assert_eq!(p.colour("cell-15-4-5"), rgb_of(&last.fill));
}

#[test]
fn views_show_zero_and_negative_strides() {
    let p = picture(&["--view", "[2,3]", "[::-1].broadcast_to(2,2,3)"]);
    assert!(
        p.svg
            .contains("slices along axis 0 · size 2 · stride 0 (repeats one element)")
    );
    assert!(
        p.svg
            .contains("rows: axis 1 · size 2 · stride -3 (reversed)")
    );
    assert!(p.svg.contains("offset 3"));
    // Both slices read d e f / a b c.
    for slice in 0..2 {
        p.assert_cell(&format!("cell-{slice}-0-0"), "d", p.colour("strip-3"));
        p.assert_cell(&format!("cell-{slice}-1-0"), "a", FIRST);
        p.assert_cell(&format!("cell-{slice}-0-2"), "f", LAST);
    }
    // Every buffer position is read: none faded.
    assert!(!p.svg.contains("#e6e6e6"));
}

#[test]
fn views_of_padded_buffers_show_the_padding() {
    // The padded buffer's first three positions: a, d, then padding.
    let base = "f32[2,3]{0,1:PAD(3,5)PV(zero)}";
    let p = picture(&["--view", base, ".as_strided(shape=(3,),strides=(1,))"]);
    assert_eq!(p.strip(), words("a d 0 b e 0 c f 0 0 0 0 0 0 0"));
    p.assert_cell("cell-0-0-0", "a", FIRST);
    assert_eq!(p.rect("cell-0-0-1").label, "d");
    p.assert_hatched("cell-0-0-2", "0");
    assert!(p.svg.contains(">@2</text>"));
    p.assert_cell("strip-3", "b", FADED);
    // The transpose reads every element; its grid is 3x2.
    let t = picture(&["--view", base, ".T"]);
    assert!(t.svg.contains("rows: axis 0 · size 3 · stride 3"));
    assert_eq!(t.rect("cell-0-2-1").label, "f");
}

#[test]
fn scalars_and_empty_arrays() {
    let p = picture(&["f32[]"]);
    assert_eq!(p.strip(), ["a"]);
    p.assert_cell("cell-0-0-0", "a", FIRST);
    let p = picture(&["f32[0,3]"]);
    assert!(p.svg.contains("the array has no elements"));
    assert!(p.strip().is_empty());
    // Elements past 26 are numbered, the first 26 too.
    let p = picture(&["s8[27]"]);
    assert_eq!(p.rect("cell-0-0-26").label, "26");
    assert_eq!(p.rect("cell-0-0-0").label, "0");
    assert!(p.svg.contains("27 positions of 8 bits"));
}

#[test]
fn tile_outlines_mark_each_level() {
    // 2x2 tiles, each cut into 1x2 rows: outlines need no memory order.
    let p = picture(&["f32[4,6]{1,0:T(2,2)(1,2)}"]);
    assert!(p.svg.contains("tile level 1 T(2,2): solid black outlines"));
    assert!(
        p.svg
            .contains("tile level 2 T(1,2): dashed orange outlines")
    );
    let solid = "width=\"88\" height=\"88\" fill=\"none\" stroke=\"#000000\" stroke-width=\"4\"/>";
    let dashed = "width=\"88\" height=\"44\" fill=\"none\" stroke=\"#d55e00\" stroke-width=\"3\" stroke-dasharray=\"8,4\"/>";
    assert_eq!(p.svg.matches(solid).count(), 6);
    assert_eq!(p.svg.matches(dashed).count(), 12);
    // Outer outlines are drawn last, on top.
    assert!(p.svg.rfind(solid) > p.svg.rfind(dashed));
    // The outline between the first two tiles is black in the picture.
    let first = p.rect("cell-0-0-1");
    assert_eq!(p.pixel(first.x + first.size, first.y + 4), [0, 0, 0]);
    // A tile across tiles of the level above is said, not outlined.
    let p = picture(&["bf16[2048]{0:T(1024)(128)(2,1)}"]);
    assert!(p.svg.contains(
        "tile level 3 T(2,1) reaches across the tiles of the level above (an interleave): not outlined"
    ));
    assert!(
        p.svg
            .contains("window: columns 0-31 of 2048 of dim 0 shown")
    );
}
