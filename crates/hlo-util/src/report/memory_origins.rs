//! The origins of a memory report's rows, as the peak report's buffers
//! have them: each row's metadata read when the row is kept (module text:
//! its `metadata={...}` over the stack-frame tables of the module's head;
//! a serialized module: its `OpMetadata` over the module's
//! `stack_frame_index`), the stacks resolved once the module is read.

use super::memory::BufferRow;
use crate::Instruction;
use crate::origins::metadata::{
    InstOrigin, metadata_attribute, read_metadata, read_proto_metadata,
};
use crate::origins::tables::{Tables, missing_frame_warning};

/// The module's stack-frame tables, filled in as rows are kept.
#[derive(Debug, Default)]
pub(super) struct RowOrigins {
    tables: Tables,
    /// Whether `tables` are a serialized module's, taken at its first
    /// instruction kept.
    proto: bool,
    /// The warnings of tables that do not read.
    warnings: Vec<String>,
}

impl RowOrigins {
    /// The origins over a module text's `tables`, with the `warnings` of
    /// reading them.
    pub fn new(tables: Tables, warnings: Vec<String>) -> Self {
        Self {
            tables,
            proto: false,
            warnings,
        }
    }

    /// What the metadata of `i` says of its origin.
    pub fn read(&mut self, i: &Instruction<'_>) -> InstOrigin {
        match i.proto {
            Some(p) => {
                if !self.proto {
                    self.proto = true;
                    self.tables = p.frames.map(Tables::from_proto).unwrap_or_default();
                }
                p.metadata
                    .map(|m| read_proto_metadata(m, &mut self.tables))
                    .unwrap_or_default()
            }
            None => metadata_attribute(i.attributes)
                .map(|value| read_metadata(value, &mut self.tables))
                .unwrap_or_default(),
        }
    }

    /// The `rows` with the op_names and stacks of their `origins`; the
    /// warnings of tables that do not read, and of the first row naming a
    /// frame the module lacks, added to `warnings`.
    pub fn finish(
        self,
        rows: Vec<(BufferRow, InstOrigin)>,
        warnings: &mut Vec<String>,
    ) -> Vec<BufferRow> {
        warnings.extend(self.warnings);
        let missing = rows
            .iter()
            .find_map(|(row, origin)| Some((&row.name, origin.missing_frame?)));
        if let Some((name, id)) = missing {
            warnings.push(missing_frame_warning(name, id));
        }
        let table = self.tables.build_or_warn(warnings);
        rows.into_iter()
            .map(|(mut row, origin)| {
                let origin = origin.resolve(table.as_ref());
                row.op_name = origin.op_name;
                row.stack = origin.stack;
                row
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use prost::Message;

    use crate::MemoryReport;
    use crate::proto::HloModuleProto;

    /// The golden `dot.pb` module, its `stack_frame_index` changed by `edit`.
    fn dot(edit: impl FnOnce(&mut HloModuleProto)) -> Vec<u8> {
        let bytes = std::fs::read(conformance::golden_dir().join("hlo/dot.pb")).unwrap();
        let mut module = HloModuleProto::decode(bytes.as_slice()).unwrap();
        edit(&mut module);
        module.encode_to_vec()
    }

    #[test]
    fn a_serialized_modules_bad_frames_are_warnings() {
        let fine = MemoryReport::read(dot(|_| {}).as_slice(), 3).unwrap();
        assert!(fine.instructions.iter().any(|r| !r.stack.is_empty()));
        assert!(fine.module.warnings.is_empty());
        let circle = dot(|m| {
            let frames = &mut m.stack_frame_index.as_mut().unwrap().stack_frames;
            frames[0].parent_frame_id = 2;
            frames[1].parent_frame_id = 1;
        });
        let report = MemoryReport::read(circle.as_slice(), usize::MAX).unwrap();
        assert!(report.instructions.iter().all(|r| r.stack.is_empty()));
        let fusion = report
            .instructions
            .iter()
            .find(|r| r.name == "ynn_fusion")
            .unwrap();
        assert_eq!(fusion.op_name.as_deref(), Some("jit(<lambda>)/dot_general"));
        assert_eq!(
            report.module.warnings.len(),
            1,
            "{:?}",
            report.module.warnings
        );
        assert!(
            report.module.warnings[0]
                .ends_with("(the parent frames go round in a circle); the stacks are left out")
        );
        let none = dot(|m| m.stack_frame_index = None);
        let report = MemoryReport::read(none.as_slice(), usize::MAX).unwrap();
        assert!(report.instructions.iter().all(|r| r.stack.is_empty()));
        assert_eq!(
            report.module.warnings,
            [
                "instruction dot_general.0 names stack frame 4, which the module lacks; its stack is left out"
            ]
        );
    }
}
