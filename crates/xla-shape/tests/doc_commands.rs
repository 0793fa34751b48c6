//! Every `$` command of the pages (`README.md` and `docs/*.md`) runs, and
//! prints what the page shows.
//!
//! The convention the pages follow:
//!
//! - In a fenced code block, a line starting with `$ ` is a command. It runs
//!   with `sh -c` in a scratch copy of the repository root (each top-level
//!   entry linked, `docs/images/` empty), with the directory of the built
//!   `xla-shape` first on `PATH` and an empty standard input. Pipes,
//!   `printf ... |` and `echo ... |` are allowed; write escapes in octal
//!   (`printf '\001'`), which every `sh` reads.
//! - The lines after it, up to the next `$ ` line or the block's end, are
//!   its output: standard output, then standard error. Blank lines at the
//!   end of that output only separate commands and are not compared.
//! - A command whose shown output has a line starting with `error:` must
//!   exit with status 1 (an input failed); any other must exit with 0.
//! - Commands that must not run here (builds, installs, benchmarks, fuzzing,
//!   servers) are shown without the `$ ` prefix, in blocks of their own.
//! - A command that writes a picture writes it under `docs/images/`. Each
//!   file written there must equal the committed one byte for byte, and
//!   every committed `docs/images/*.svg` must be written by some command.

// The pages' commands are POSIX shell command lines.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// One `$` command of a page, with the output the page shows.
#[derive(Debug)]
struct Example {
    /// The page and the line of the command, for messages.
    place: String,
    /// The command line after `$ `.
    command: String,
    /// The lines shown after it, each ending in a newline.
    output: String,
}

/// The repository root (two levels above this crate).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// `README.md`, then `docs/*.md` in name order.
fn pages() -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    let mut pages = vec![root().join("README.md")];
    pages.extend(docs);
    pages
}

/// The fenced code blocks of a page: each line with its line number, the
/// block's indentation removed.
fn blocks(text: &str) -> Vec<Vec<(usize, &str)>> {
    let mut blocks = Vec::new();
    let mut open: Option<(&str, Vec<(usize, &str)>)> = None;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        match open.take() {
            None if trimmed.starts_with("```") => open = Some((indent, Vec::new())),
            None => {}
            Some((_, lines)) if trimmed.starts_with("```") => blocks.push(lines),
            Some((fence, mut lines)) => {
                lines.push((index + 1, line.strip_prefix(fence).unwrap_or(trimmed)));
                open = Some((fence, lines));
            }
        }
    }
    assert!(open.is_none(), "a fenced block is not closed");
    blocks
}

/// The `$` commands of the page `name` whose text is `text`.
fn examples(name: &str, text: &str) -> Vec<Example> {
    let mut examples = Vec::new();
    for block in blocks(text) {
        let mut current: Option<Example> = None;
        for (number, line) in block {
            if let Some(command) = line.strip_prefix("$ ") {
                examples.extend(current.take());
                current = Some(Example {
                    place: format!("{name}:{number}"),
                    command: command.to_owned(),
                    output: String::new(),
                });
            } else if let Some(example) = current.as_mut() {
                example.output.push_str(line);
                example.output.push('\n');
            }
        }
        examples.extend(current);
    }
    for example in &mut examples {
        while example.output.ends_with("\n\n") || example.output == "\n" {
            example.output.pop();
        }
    }
    examples
}

/// A scratch copy of the repository root: every top-level entry but `docs`
/// linked, and an empty `docs/images/` for the pictures commands write.
fn scratch_root() -> tempfile::TempDir {
    let scratch = tempfile::tempdir().unwrap();
    for entry in fs::read_dir(root()).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name() != "docs" {
            std::os::unix::fs::symlink(entry.path(), scratch.path().join(entry.file_name()))
                .unwrap();
        }
    }
    fs::create_dir_all(scratch.path().join("docs/images")).unwrap();
    scratch
}

/// Runs `command` with `sh -c` in `dir`: standard output then standard
/// error, and the exit status.
fn run(command: &str, dir: &Path) -> (String, Option<i32>) {
    let binary = Path::new(env!("CARGO_BIN_EXE_xla-shape"));
    let bin_dir = binary.parent().unwrap();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![bin_dir.to_path_buf()];
    dirs.extend(std::env::split_paths(&path));
    let output = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .env("PATH", std::env::join_paths(dirs).unwrap())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let mut text = String::from_utf8(output.stdout).unwrap();
    text.push_str(&String::from_utf8(output.stderr).unwrap());
    (text, output.status.code())
}

/// The files of a directory, by name.
fn file_names(dir: &Path) -> BTreeSet<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect()
}

#[test]
fn every_dollar_command_of_the_pages_prints_what_the_page_shows() {
    let scratch = scratch_root();
    let mut failures = Vec::new();
    let mut count = 0;
    for page in pages() {
        let text = fs::read_to_string(&page).unwrap();
        let name = page.strip_prefix(root()).unwrap().display().to_string();
        for example in examples(&name, &text) {
            count += 1;
            let (output, status) = run(&example.command, scratch.path());
            let shows_error = example.output.lines().any(|l| l.starts_with("error:"));
            let expected_status = if shows_error { 1 } else { 0 };
            if output != example.output || status != Some(expected_status) {
                failures.push(format!(
                    "{}: $ {}\n--- the page shows (exit status {expected_status}):\n{}--- it printed (exit status {status:?}):\n{output}",
                    example.place, example.command, example.output
                ));
            }
        }
    }
    assert!(count >= 20, "only {count} commands found in the pages");
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    let images = root().join("docs/images");
    let written = file_names(&scratch.path().join("docs/images"));
    // The explorer page's screenshots are taken by its browser test
    // (build-tools/explorer), not by a command of the pages.
    let committed: BTreeSet<String> = file_names(&images)
        .into_iter()
        .filter(|name| !(name.starts_with("explorer-") && name.ends_with(".png")))
        .collect();
    assert_eq!(
        written, committed,
        "the pictures the pages' commands write are the committed docs/images/"
    );
    for name in &written {
        let drawn = fs::read(scratch.path().join("docs/images").join(name)).unwrap();
        assert!(
            drawn == fs::read(images.join(name)).unwrap(),
            "docs/images/{name} differs from what its command draws"
        );
    }
}

#[test]
fn commands_are_split_from_their_output() {
    let page = "text\n\n```console\n$ a\nx\n\n$ b\n```\n\n  ```sh\n  cargo c\n  ```\n\n```console\n$ d 'e'\nerror: f\n```\n";
    let found: Vec<(String, String, String)> = examples("page.md", page)
        .into_iter()
        .map(|e| (e.place, e.command, e.output))
        .collect();
    let expected = [
        ("page.md:4", "a", "x\n"),
        ("page.md:7", "b", ""),
        ("page.md:15", "d 'e'", "error: f\n"),
    ]
    .map(|(p, c, o)| (p.to_owned(), c.to_owned(), o.to_owned()));
    assert_eq!(found, expected);
}
