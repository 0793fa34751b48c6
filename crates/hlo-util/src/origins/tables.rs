//! The stack-frame tables of a module (`FileNames`, `FunctionNames`,
//! `FileLocations`, `StackFrames`), as the text prints them after the
//! header or as an `HloModuleProto`'s `stack_frame_index` holds them, with
//! the frames of the older `source_file`/`source_line` metadata added.

use std::collections::HashMap;
use std::sync::Arc;

use super::escape::quoted;
use super::frame::{Frame, FrameTable};
use crate::proto::StackFrameIndexProto;

/// One `FileLocations` row: ids into the name tables (1-based), line and
/// columns.
#[derive(Debug, Clone, Copy, Default)]
struct Location {
    file: i64,
    function: i64,
    line: i64,
    end_line: i64,
    column: i64,
    end_column: i64,
}

/// The tables as read, ids not yet checked.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tables {
    files: Vec<String>,
    functions: Vec<String>,
    locations: Vec<Location>,
    /// Each frame's location id (1-based) and caller (0-based index).
    frames: Vec<(i64, Option<usize>)>,
    /// The frames of `source_file`/`source_line` metadata, after the
    /// tables' frames, each once.
    sources: Vec<Frame>,
    source_ids: HashMap<Frame, usize>,
}

/// The names of the tables in the text.
const TABLES: [&str; 4] = ["FileNames", "FunctionNames", "FileLocations", "StackFrames"];

impl Tables {
    /// Reads the tables XLA prints between the module's header and its
    /// first computation.
    ///
    /// XLA prints a frame's `parent_frame_id` one above the proto's (the
    /// outermost frame, whose proto parent is 0, prints 1): a parent `p`
    /// is frame `p - 1`, and 0 or 1 is none.
    ///
    /// # Errors
    ///
    /// A row that does not read, with its line.
    pub fn from_text(text: &str) -> Result<Self, String> {
        let mut tables = Self::default();
        let mut table = None;
        let mut header = false;
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if !header {
                header = line.starts_with("HloModule");
                continue;
            }
            if line.is_empty() {
                continue;
            }
            if let Some(t) = TABLES.iter().position(|&t| t == line) {
                table = Some(t);
                continue;
            }
            let Some(t) = table.filter(|_| line.starts_with(|c: char| c.is_ascii_digit())) else {
                break;
            };
            tables
                .row(t, line)
                .map_err(|m| format!("line {}: {} row: {m}", n + 1, TABLES[t]))?;
        }
        Ok(tables)
    }

    /// One row `N value` of table `t`.
    fn row(&mut self, t: usize, line: &str) -> Result<(), String> {
        let (id, value) = line.split_once(' ').unwrap_or((line, ""));
        let id: usize = id.parse().map_err(|_| format!("`{id}` is not an id"))?;
        let count = [
            self.files.len(),
            self.functions.len(),
            self.locations.len(),
            self.frames.len(),
        ][t];
        if id != count + 1 {
            return Err(format!("id {id} where {} was expected", count + 1));
        }
        let value = value.trim();
        if t < 2 {
            let (name, rest) =
                quoted(value).ok_or_else(|| format!("expected a quoted name, not `{value}`"))?;
            if !rest.trim().is_empty() {
                return Err(format!("`{}` after the name", rest.trim()));
            }
            if t == 0 {
                self.files.push(name)
            } else {
                self.functions.push(name)
            }
            return Ok(());
        }
        let fields = value
            .strip_prefix('{')
            .and_then(|v| v.strip_suffix('}'))
            .ok_or_else(|| format!("expected `{{...}}`, not `{value}`"))?;
        let mut location = Location::default();
        let (mut file_location, mut parent) = (0, 0);
        for field in fields.split_whitespace() {
            let (key, number) = field
                .split_once('=')
                .ok_or_else(|| format!("expected `key=number`, not `{field}`"))?;
            let number: i64 = number
                .parse()
                .map_err(|_| format!("`{number}` is not a number ({key})"))?;
            let slot = match (t, key) {
                (2, "file_name_id") => &mut location.file,
                (2, "function_name_id") => &mut location.function,
                (2, "line") => &mut location.line,
                (2, "end_line") => &mut location.end_line,
                (2, "column") => &mut location.column,
                (2, "end_column") => &mut location.end_column,
                (3, "file_location_id") => &mut file_location,
                (3, "parent_frame_id") => &mut parent,
                _ => continue,
            };
            *slot = number;
        }
        if t == 2 {
            self.locations.push(location);
        } else {
            // Printed one above the proto's id, which is itself 1-based.
            let parent = usize::try_from(parent).ok().and_then(|p| p.checked_sub(2));
            self.frames.push((file_location, parent));
        }
        Ok(())
    }

    /// The tables of a serialized module's `stack_frame_index`.
    pub fn from_proto(index: &StackFrameIndexProto) -> Self {
        Self {
            files: index.file_names.clone(),
            functions: index.function_names.clone(),
            locations: index
                .file_locations
                .iter()
                .map(|l| Location {
                    file: l.file_name_id.into(),
                    function: l.function_name_id.into(),
                    line: l.line.into(),
                    end_line: l.end_line.into(),
                    column: l.column.into(),
                    end_column: l.end_column.into(),
                })
                .collect(),
            frames: index
                .stack_frames
                .iter()
                .map(|f| {
                    let parent = usize::try_from(f.parent_frame_id)
                        .ok()
                        .and_then(|p| p.checked_sub(1));
                    (i64::from(f.file_location_id), parent)
                })
                .collect(),
            ..Self::default()
        }
    }

    /// The frame (0-based) of a `stack_frame_id` (1-based; 0 is none).
    pub fn frame(&self, stack_frame_id: i64) -> Option<usize> {
        usize::try_from(stack_frame_id)
            .ok()
            .and_then(|id| id.checked_sub(1))
            .filter(|&k| k < self.frames.len())
    }

    /// The frame (0-based) of a `source_file`/`source_line` location, one
    /// frame without caller, added once.
    pub fn source(&mut self, frame: Frame) -> usize {
        let next = self.frames.len() + self.sources.len();
        *self.source_ids.entry(frame).or_insert_with_key(|frame| {
            self.sources.push(frame.clone());
            next
        })
    }

    /// The checked table; none when the module records no frame.
    ///
    /// # Errors
    ///
    /// A message naming the row that names what the tables lack, or the
    /// frame whose callers go round in a circle.
    pub fn build(self) -> Result<Option<Arc<FrameTable>>, String> {
        if self.frames.is_empty() && self.sources.is_empty() {
            return Ok(None);
        }
        let name = |names: &[String], id: i64, what: &str, row: usize| -> Result<String, String> {
            if id == 0 {
                return Ok(String::new());
            }
            usize::try_from(id)
                .ok()
                .and_then(|id| names.get(id.checked_sub(1)?))
                .cloned()
                .ok_or_else(|| {
                    format!(
                        "file location {row} names {what} {id}, which the module lacks ({} names)",
                        names.len()
                    )
                })
        };
        let number = |n: i64, what: &str, row: usize| -> Result<Option<u64>, String> {
            match u64::try_from(n) {
                Ok(0) => Ok(None),
                Ok(n) => Ok(Some(n)),
                Err(_) => Err(format!("file location {row} has {what} {n}")),
            }
        };
        let mut locations = Vec::with_capacity(self.locations.len() + self.sources.len());
        for (k, l) in self.locations.iter().enumerate() {
            let row = k + 1;
            locations.push(Frame {
                file: name(&self.files, l.file, "file", row)?,
                function: name(&self.functions, l.function, "function", row)?,
                line: number(l.line, "line", row)?.unwrap_or(0),
                end_line: number(l.end_line, "end_line", row)?,
                column: number(l.column, "column", row)?,
                end_column: number(l.end_column, "end_column", row)?,
            });
        }
        let mut frames = Vec::with_capacity(self.frames.len() + self.sources.len());
        for (k, &(id, parent)) in self.frames.iter().enumerate() {
            let location = usize::try_from(id)
                .ok()
                .and_then(|l| l.checked_sub(1))
                .filter(|&l| l < locations.len())
                .ok_or_else(|| {
                    format!(
                        "stack frame {} names file location {id}, which the module lacks ({} locations)",
                        k + 1,
                        locations.len()
                    )
                })?;
            frames.push((location, parent));
        }
        for source in self.sources {
            frames.push((locations.len(), None));
            locations.push(source);
        }
        FrameTable::new(locations, frames).map(|table| Some(Arc::new(table)))
    }

    /// [`Tables::build`]; none, with a warning in `warnings`, where the
    /// tables name what they lack or go round in a circle.
    pub fn build_or_warn(self, warnings: &mut Vec<String>) -> Option<Arc<FrameTable>> {
        self.build().unwrap_or_else(|m| {
            warnings.push(format!("{m}; the stacks are left out"));
            None
        })
    }
}

/// The warning of instruction `name`, whose metadata names stack frame
/// `id`, which the module lacks.
pub(crate) fn missing_frame_warning(name: &str, id: i64) -> String {
    format!(
        "instruction {name} names stack frame {id}, which the module lacks; its stack is left out"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::origins::frame::Stack;

    const TEXT: &str = "
HloModule m, is_scheduled=true

FileNames
1 \"a.py\"
2 \"lib/b.py\"

FunctionNames
1 \"<module>\"
2 \"f.<locals>.g\"

FileLocations
1 {file_name_id=1 function_name_id=1 line=30 end_line=30 column=4 end_column=9}
2 {file_name_id=2 function_name_id=2 line=7 end_line=8 column=15 end_column=26}

StackFrames
1 {file_location_id=1 parent_frame_id=1}
2 {file_location_id=2 parent_frame_id=2}

ENTRY %e (p: f32[]) -> f32[] {
  ROOT %p = f32[] parameter(0)
}
";

    #[test]
    fn the_text_tables_give_each_frame_its_callers() {
        let mut tables = Tables::from_text(TEXT).unwrap();
        assert_eq!(tables.frame(2), Some(1));
        assert_eq!(tables.frame(0), None);
        assert_eq!(tables.frame(3), None);
        let old = tables.source(Frame::at("c.py", 4, ""));
        assert_eq!(old, 2);
        assert_eq!(tables.source(Frame::at("c.py", 4, "")), 2);
        let table = tables.build().unwrap().unwrap();
        let stack = Stack::new(&table, 1);
        let frames = stack.to_vec();
        assert_eq!(frames.len(), 2);
        assert_eq!(
            frames[0],
            Frame {
                file: "lib/b.py".to_owned(),
                line: 7,
                function: "f.<locals>.g".to_owned(),
                end_line: Some(8),
                column: Some(15),
                end_column: Some(26),
            }
        );
        assert_eq!(frames[1].to_string(), "<module> (a.py:30)");
        assert_eq!(Stack::new(&table, 2).to_vec(), [Frame::at("c.py", 4, "")]);
    }

    #[test]
    fn bad_rows_and_tables_are_named() {
        let bad = TEXT.replace(
            "2 {file_location_id=2 parent_frame_id=2}",
            "2 {file_location_id=2 parent_frame_id=3}",
        );
        let error = Tables::from_text(&bad).unwrap().build().unwrap_err();
        assert!(error.contains("stack frame 2"), "{error}");
        let missing = TEXT.replace("file_location_id=2 ", "file_location_id=9 ");
        let error = Tables::from_text(&missing).unwrap().build().unwrap_err();
        assert!(error.contains("names file location 9"), "{error}");
        let zero = TEXT.replace("file_location_id=2 ", "file_location_id=0 ");
        let error = Tables::from_text(&zero).unwrap().build().unwrap_err();
        assert!(error.contains("names file location 0"), "{error}");
        let file = TEXT.replace("file_name_id=2", "file_name_id=5");
        let error = Tables::from_text(&file).unwrap().build().unwrap_err();
        assert_eq!(
            error,
            "file location 2 names file 5, which the module lacks (2 names)"
        );
        let order = TEXT.replace("2 \"lib/b.py\"", "3 \"lib/b.py\"");
        let error = Tables::from_text(&order).unwrap_err();
        assert_eq!(error, "line 6: FileNames row: id 3 where 2 was expected");
        let row = TEXT.replace("line=7 ", "line=x ");
        assert!(
            Tables::from_text(&row)
                .unwrap_err()
                .contains("`x` is not a number (line)")
        );
        assert_eq!(Tables::default().build().unwrap(), None);
    }
}
