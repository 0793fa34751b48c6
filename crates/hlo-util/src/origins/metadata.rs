//! Where an instruction comes from, as its metadata says: its `op_name`,
//! and its frame (`stack_frame_id`, or the older `source_file` and
//! `source_line`).

use std::sync::Arc;

use super::escape::quoted;
use super::frame::{Frame, FrameTable, Stack};
use super::tables::Tables;
use crate::proto::StackFrameIndexProto;
use crate::scan::{scan, split_top};

/// What an instruction's metadata says of its origin.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub(crate) struct InstOrigin {
    /// Its `op_name`, none when empty or absent.
    pub op_name: Option<Arc<str>>,
    /// Its frame in the module's tables (0-based).
    pub frame: Option<usize>,
    /// A `stack_frame_id` the tables lack.
    pub missing_frame: Option<i64>,
}

impl InstOrigin {
    /// The origin of an instruction whose metadata has `op_name`, a
    /// `stack_frame_id` and a `source_file`/`source_line` (the newer form
    /// first); `frame` is filled in from `tables`.
    pub fn of(
        op_name: &str,
        stack_frame_id: i64,
        source: Option<Frame>,
        tables: &mut Tables,
    ) -> Self {
        let op_name = (!op_name.is_empty()).then(|| Arc::from(op_name));
        let mut missing_frame = None;
        let frame = match tables.frame(stack_frame_id) {
            Some(k) => Some(k),
            None => {
                if stack_frame_id != 0 {
                    missing_frame = Some(stack_frame_id);
                }
                source
                    .filter(|s| !s.file.is_empty())
                    .map(|s| tables.source(s))
            }
        };
        Self {
            op_name,
            frame,
            missing_frame,
        }
    }

    /// The origin's op_name and stack over the module's table.
    pub fn resolve(&self, table: Option<&Arc<FrameTable>>) -> Origin {
        Origin {
            op_name: self.op_name.clone(),
            stack: match (table, self.frame) {
                (Some(table), Some(frame)) => Stack::new(table, frame),
                _ => Stack::default(),
            },
        }
    }
}

/// The origin of a value: its defining instruction's `op_name` and stack.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Origin {
    pub op_name: Option<Arc<str>>,
    pub stack: Stack,
}

/// Reads the text of a `metadata={...}` attribute's value.
pub(crate) fn read_metadata(value: &str, tables: &mut Tables) -> InstOrigin {
    let inner = value
        .trim()
        .strip_prefix('{')
        .and_then(|v| v.strip_suffix('}'))
        .unwrap_or("");
    let mut op_name = String::new();
    let mut stack_frame_id = 0_i64;
    let mut source = Frame::default();
    let mut rest = inner;
    loop {
        rest = rest.trim_start();
        let Some((key, after)) = rest.split_once('=') else {
            break;
        };
        let key = key.trim();
        let (text, next) = if after.starts_with('"') {
            match quoted(after) {
                Some((text, next)) => (text, next),
                None => break,
            }
        } else {
            let end = scan(after, 0, b" \t").unwrap_or(after.len());
            (
                after.get(..end).unwrap_or("").to_owned(),
                after.get(end..).unwrap_or(""),
            )
        };
        let number = || text.parse::<i64>().unwrap_or(0);
        let positive = || u64::try_from(number()).ok().filter(|&n| n > 0);
        match key {
            "op_name" => op_name = text.clone(),
            "stack_frame_id" => stack_frame_id = number(),
            "source_file" => source.file = text.clone(),
            "source_line" => source.line = positive().unwrap_or(0),
            "source_end_line" => source.end_line = positive(),
            "source_column" => source.column = positive(),
            "source_end_column" => source.end_column = positive(),
            _ => {}
        }
        rest = next;
    }
    InstOrigin::of(&op_name, stack_frame_id, Some(source), tables)
}

/// Where a serialized module's instruction comes from: its `metadata`,
/// and the module's `stack_frame_index` its frames are in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ProtoMetadata<'a> {
    pub metadata: Option<&'a schema::OpMetadata>,
    pub frames: Option<&'a StackFrameIndexProto>,
}

/// Reads a serialized module's `OpMetadata`: its `op_name`, and its
/// `stack_frame_id` or `source_file` and `source_line` (the newer form
/// first), with frames from `tables` (the module's `stack_frame_index`).
pub(crate) fn read_proto_metadata(m: &schema::OpMetadata, tables: &mut Tables) -> InstOrigin {
    let positive = |n: i32| u64::try_from(n).ok().filter(|&n| n > 0);
    let source = Frame {
        file: m.source_file.clone(),
        line: positive(m.source_line).unwrap_or(0),
        function: String::new(),
        end_line: positive(m.source_end_line),
        column: positive(m.source_column),
        end_column: positive(m.source_end_column),
    };
    InstOrigin::of(&m.op_name, m.stack_frame_id.into(), Some(source), tables)
}

/// The value of the `metadata={...}` attribute among an instruction's
/// `attributes` (as the text reader hands them over), if it has one.
pub(crate) fn metadata_attribute(attributes: &str) -> Option<&str> {
    split_top(attributes)
        .into_iter()
        .find_map(|a| a.strip_prefix("metadata="))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_name_and_frames_read_from_metadata() {
        let mut tables = Tables::default();
        let origin = read_metadata(
            r#"{op_type="x" op_name="jit(f)/transpose(jvp(g))/dot_general" source_file="m.py" source_line=12 scheduling_name="d.1"}"#,
            &mut tables,
        );
        assert_eq!(
            origin.op_name.as_deref(),
            Some("jit(f)/transpose(jvp(g))/dot_general")
        );
        assert_eq!(origin.frame, Some(0));
        let again = read_metadata(r#"{source_file="m.py" source_line=12}"#, &mut tables);
        assert_eq!((again.op_name, again.frame), (None, Some(0)));
        let params = read_metadata(
            r#"{op_name="args[0][\'w1\']" stack_frame_id=4}"#,
            &mut tables,
        );
        assert_eq!(params.op_name.as_deref(), Some("args[0]['w1']"));
        assert_eq!((params.frame, params.missing_frame), (None, Some(4)));
        let table = tables.build().unwrap();
        let stack = origin.resolve(table.as_ref()).stack;
        assert_eq!(stack.to_vec(), [Frame::at("m.py", 12, "")]);
        assert_eq!(
            read_metadata("{}", &mut Tables::default()),
            InstOrigin::default()
        );
        assert_eq!(
            read_metadata("{op_name=\"open", &mut Tables::default()),
            InstOrigin::default()
        );
    }
}
