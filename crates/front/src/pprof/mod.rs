//! The buffers live at the peak as a pprof profile (google/pprof's
//! `profile.proto`, gzipped as pprof reads it): the profile
//! `jax.profiler.save_device_memory_profile` writes of a running program's
//! live buffers, here of the compiled program's peak. Its sample types are
//! jax's, `allocations`/`count` then `space`/`bytes` (the one pprof shows
//! by default: the last); each buffer is one sample whose locations are
//! its stack, innermost first, labelled with its `kind`, `shape`, `buffer`
//! name and `op_name`. [`crate::peak_pprof`] writes one; the message types
//! here read one back:
//!
//! ```
//! use std::io::Read;
//! let gz = xla_shape_front::peak_pprof(None, &hlo_util::PeakReport::default()).unwrap();
//! let mut raw = Vec::new();
//! flate2::read::GzDecoder::new(&gz[..]).read_to_end(&mut raw).unwrap();
//! let profile: xla_shape_front::pprof::Profile = prost::Message::decode(&raw[..]).unwrap();
//! let space = &profile.sample_type[1];
//! assert_eq!(profile.string_table[space.r#type as usize], "space");
//! assert!(profile.sample.is_empty());
//! ```

mod proto;

use std::collections::HashMap;
use std::io::Write;

pub use proto::{Function, Label, Line, Location, Profile, Sample as ProfileSample, ValueType};

use crate::peak_samples::{Sample, SampleFrame};

/// The strings, functions and locations of a profile being built, each
/// once.
#[derive(Default)]
struct Builder {
    profile: Profile,
    strings: HashMap<String, i64>,
    functions: HashMap<(i64, i64), u64>,
    locations: HashMap<(u64, i64, i64), u64>,
}

impl Builder {
    /// The index of `text` in the string table, added if new.
    fn string(&mut self, text: &str) -> i64 {
        if let Some(&id) = self.strings.get(text) {
            return id;
        }
        let id = i64::try_from(self.profile.string_table.len()).unwrap_or(i64::MAX);
        self.profile.string_table.push(text.to_owned());
        self.strings.insert(text.to_owned(), id);
        id
    }

    /// The id of `frame`'s location (its function's and line's), added if
    /// new.
    fn location(&mut self, frame: &SampleFrame) -> u64 {
        let name = self.string(&frame.function);
        let file = self.string(&frame.file);
        let next = next_id(self.profile.function.len());
        let function = *self.functions.entry((name, file)).or_insert(next);
        if function == next {
            self.profile.function.push(Function {
                id: function,
                name,
                system_name: name,
                filename: file,
            });
        }
        let column = frame.column.unwrap_or(0);
        let next = next_id(self.profile.location.len());
        let key = (function, frame.line, column);
        let location = *self.locations.entry(key).or_insert(next);
        if location == next {
            self.profile.location.push(Location {
                id: location,
                line: vec![Line {
                    function_id: function,
                    line: frame.line,
                    column,
                }],
            });
        }
        location
    }

    /// A label `key` = `value`.
    fn label(&mut self, key: &str, value: &str) -> Label {
        Label {
            key: self.string(key),
            str: self.string(value),
        }
    }
}

/// The id after `count` entries: ids count from 1 (0 means none).
fn next_id(count: usize) -> u64 {
    u64::try_from(count).unwrap_or(u64::MAX).saturating_add(1)
}

/// The profile of `samples`, with `comment` (a line on what it is of).
pub(crate) fn profile(samples: &[Sample], comment: &str) -> Profile {
    let mut b = Builder::default();
    b.string("");
    let value_type = |b: &mut Builder, kind: &str, unit: &str| ValueType {
        r#type: b.string(kind),
        unit: b.string(unit),
    };
    let types = [
        value_type(&mut b, "allocations", "count"),
        value_type(&mut b, "space", "bytes"),
    ];
    b.profile.sample_type = types.to_vec();
    for sample in samples {
        let location_id = sample.frames.iter().map(|f| b.location(f)).collect();
        let mut label = vec![
            b.label("kind", sample.kind),
            b.label("shape", &sample.shape),
            b.label("buffer", &sample.buffer),
        ];
        if let Some(op) = &sample.op_name {
            label.push(b.label("op_name", op));
        }
        b.profile.sample.push(ProfileSample {
            location_id,
            value: vec![1, i64::try_from(sample.bytes).unwrap_or(i64::MAX)],
            label,
        });
    }
    if !comment.is_empty() {
        let id = b.string(comment);
        b.profile.comment.push(id);
    }
    b.profile
}

/// The profile of `samples` serialized and gzipped: the bytes of a
/// `.pb.gz` file pprof opens.
///
/// # Errors
/// The compressor's (writing to memory: none in practice).
pub(crate) fn gzipped(samples: &[Sample], comment: &str) -> std::io::Result<Vec<u8>> {
    let bytes = prost::Message::encode_to_vec(&profile(samples, comment));
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(&bytes)?;
    encoder.finish()
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use hlo_util::BufferKind;

    use super::*;

    fn frame(function: &str, file: &str, line: i64) -> SampleFrame {
        SampleFrame {
            function: function.to_owned(),
            file: file.to_owned(),
            line,
            column: Some(4),
        }
    }

    fn samples() -> Vec<Sample> {
        let outer = frame("train_step", "train.py", 10);
        vec![
            Sample::new(
                "dot.3{}".to_owned(),
                "f32[64,64]{1,0}".to_owned(),
                16384,
                BufferKind::Temporary,
                Some("jit(train_step)/dot_general".to_owned()),
                vec![frame("attention", "model.py", 55), outer.clone()],
            ),
            Sample::new(
                "add.1{}".to_owned(),
                "f32[64]{0}".to_owned(),
                256,
                BufferKind::Output,
                None,
                vec![frame("mlp", "model.py", 70), outer],
            ),
            Sample::new(
                "p.1{}".to_owned(),
                "f32[64]{0}".to_owned(),
                256,
                BufferKind::Parameter,
                Some("params['w1']".to_owned()),
                Vec::new(),
            ),
        ]
    }

    /// The string at `index`.
    fn text(profile: &Profile, index: i64) -> &str {
        &profile.string_table[usize::try_from(index).unwrap()]
    }

    #[test]
    fn the_profile_reads_back_as_jax_writes_its_memory_profiles() {
        let gz = gzipped(&samples(), "peak 16896 bytes").unwrap();
        assert_eq!(gz[..2], [0x1f, 0x8b]);
        let mut raw = Vec::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_end(&mut raw)
            .unwrap();
        let profile: Profile = prost::Message::decode(&raw[..]).unwrap();
        assert_eq!(profile.string_table[0], "");
        let types: Vec<(&str, &str)> = profile
            .sample_type
            .iter()
            .map(|t| (text(&profile, t.r#type), text(&profile, t.unit)))
            .collect();
        assert_eq!(types, [("allocations", "count"), ("space", "bytes")]);
        let total: i64 = profile.sample.iter().map(|s| s.value[1]).sum();
        assert_eq!(total, 16384 + 256 + 256);
        assert!(profile.sample.iter().all(|s| s.value[0] == 1));
        // The shared outer frame is one location, one function.
        assert_eq!(profile.location.len(), 5);
        assert_eq!(profile.function.len(), 5);
        let first = &profile.sample[0];
        let names: Vec<String> = first
            .location_id
            .iter()
            .map(|&id| {
                let location = &profile.location[usize::try_from(id - 1).unwrap()];
                assert_eq!(location.id, id);
                let line = &location.line[0];
                let function = &profile.function[usize::try_from(line.function_id - 1).unwrap()];
                format!(
                    "{} {}:{}:{}",
                    text(&profile, function.name),
                    text(&profile, function.filename),
                    line.line,
                    line.column
                )
            })
            .collect();
        assert_eq!(
            names,
            ["attention model.py:55:4", "train_step train.py:10:4"]
        );
        let labels: Vec<(&str, &str)> = first
            .label
            .iter()
            .map(|l| (text(&profile, l.key), text(&profile, l.str)))
            .collect();
        assert_eq!(
            labels,
            [
                ("kind", "temporary"),
                ("shape", "f32[64,64]{1,0}"),
                ("buffer", "dot.3{}"),
                ("op_name", "jit(train_step)/dot_general")
            ]
        );
        // No op_name, no label; a parameter without a stack sits under
        // the arguments' block, named by its pytree path.
        assert_eq!(profile.sample[1].label.len(), 3);
        let argument = &profile.sample[2];
        let words: Vec<&str> = argument
            .location_id
            .iter()
            .map(|&id| {
                let line = &profile.location[usize::try_from(id - 1).unwrap()].line[0];
                assert_eq!(line.line, 0);
                let function = &profile.function[usize::try_from(line.function_id - 1).unwrap()];
                text(&profile, function.name)
            })
            .collect();
        assert_eq!(words, ["params['w1']", crate::peak_samples::ARGUMENTS]);
        assert_eq!(text(&profile, profile.comment[0]), "peak 16896 bytes");
    }
}
