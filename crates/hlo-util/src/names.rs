//! The names a module's text defines, checked as XLA's HLO parser checks
//! them: an operand names an instruction defined earlier in its
//! computation (so neither a cycle nor a use before the definition reads),
//! an attribute that calls a computation names one defined earlier in the
//! module, and no name is defined twice in its scope. The messages are the
//! parser's (`instruction does not exist: q`), at the column it reports.

use foldhash::HashMap;

use crate::scan::scan;

/// The attributes whose value names the computations an instruction calls.
const CALLING_ATTRIBUTES: [&str; 10] = [
    "to_apply",
    "calls",
    "body",
    "condition",
    "select",
    "scatter",
    "true_computation",
    "false_computation",
    "branch_computations",
    "called_computations",
];

/// Where a name was defined: its 1-based line and column.
type Place = (u64, usize);

/// A name check that failed: the byte offset in the line and the message.
pub(crate) type NameError = (usize, String);

/// The names defined so far: the module's computations, the current
/// computation's instructions.
#[derive(Debug, Default)]
pub(crate) struct Names {
    computations: HashMap<String, Place>,
    instructions: HashMap<String, Place>,
}

impl Names {
    /// A computation `name` starts at byte `at` of line `line`; its
    /// instructions' names start afresh. Its own instructions cannot call
    /// it (XLA's parser defines it once its body is read).
    pub(crate) fn start_computation(
        &mut self,
        name: &str,
        line: u64,
        at: usize,
    ) -> Result<(), NameError> {
        if let Some(&(l, c)) = self.computations.get(name) {
            return Err((
                at,
                format!(
                    "computation already exists: {name} (previously defined at line {l}, column {c})"
                ),
            ));
        }
        self.instructions.clear();
        self.computations
            .insert(name.to_owned(), (line, at.saturating_add(1)));
        Ok(())
    }

    /// Whether computation `name` is defined, and is not `current`, the one
    /// being read.
    fn is_computation(&self, name: &str, current: &str) -> bool {
        name != current && self.computations.contains_key(name)
    }

    /// Instruction `name` is defined at byte `at` of line `line`.
    pub(crate) fn define(&mut self, name: &str, line: u64, at: usize) -> Result<(), NameError> {
        if let Some(&(l, c)) = self.instructions.get(name) {
            return Err((
                at,
                format!(
                    "instruction already exists: {name} (previously defined at line {l}, column {c})"
                ),
            ));
        }
        self.instructions
            .insert(name.to_owned(), (line, at.saturating_add(1)));
        Ok(())
    }

    /// Checks the operands written between bytes `from` and `to` of `line`
    /// (an instruction's parentheses): each names an instruction defined
    /// before.
    pub(crate) fn check_operands(
        &self,
        line: &str,
        from: usize,
        to: usize,
    ) -> Result<(), NameError> {
        let operands = line.get(..to).unwrap_or(line);
        let mut at = from;
        while at < to {
            let end = scan(operands, at, b",")?;
            if let Some((offset, name)) = operand_name(operands, at, end)
                && !self.instructions.contains_key(name)
            {
                return Err((offset, format!("instruction does not exist: {name}")));
            }
            at = end.saturating_add(1);
        }
        Ok(())
    }

    /// Checks the computations the attribute between bytes `from` and `to`
    /// of `line` calls (`to_apply=%f`, `branch_computations={%a, %b}`),
    /// in computation `current`: each is defined before.
    pub(crate) fn check_calls(
        &self,
        line: &str,
        from: usize,
        to: usize,
        current: &str,
    ) -> Result<(), NameError> {
        let attribute = line.get(from..to).unwrap_or("");
        let Some((key, _)) = attribute.split_once('=') else {
            return Ok(());
        };
        if !CALLING_ATTRIBUTES.contains(&key.trim()) {
            return Ok(());
        }
        let value_at = from + key.len() + 1;
        let value = line.get(..to).unwrap_or(line);
        let mut at = skip_blank(value, value_at);
        let braced = value.as_bytes().get(at) == Some(&b'{');
        let end = if braced {
            at += 1;
            scan(value, at, b"}")?
        } else {
            to
        };
        let names = value.get(..end).unwrap_or(value);
        while at < end {
            let stop = scan(names, at, b",")?;
            if let Some((offset, name)) = name_at(names, at, stop)
                && !self.is_computation(name, current)
            {
                return Err((offset, format!("computation does not exist: {name}")));
            }
            at = stop.saturating_add(1);
        }
        Ok(())
    }
}

/// The instruction an operand between bytes `from` and `to` names (after
/// any `/*index=5*/` comment and the operand's shape), with its offset;
/// `None` for an empty operand list or what is not a plain name (a nested
/// instruction).
fn operand_name(line: &str, from: usize, to: usize) -> Option<(usize, &str)> {
    let piece = line.get(from..to)?;
    let start = piece
        .rfind([' ', '\t', '/'])
        .map_or(0, |p| p + 1)
        .max(piece.len() - piece.trim_start().len());
    name_at(line, from + start, to)
}

/// The name (`%` dropped) written between bytes `from` and `to`, blanks
/// around it ignored, with the offset of its first byte; `None` when empty
/// or not a plain name.
fn name_at(line: &str, from: usize, to: usize) -> Option<(usize, &str)> {
    let from = skip_blank(line, from);
    let text = line.get(from..to)?.trim_end();
    let name = text.strip_prefix('%').unwrap_or(text);
    let plain = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
    plain.then_some((from, name))
}

/// The offset of the first non-blank byte of `line` at or after `at`.
fn skip_blank(line: &str, at: usize) -> usize {
    line.as_bytes()
        .get(at..)
        .and_then(|rest| rest.iter().position(|b| !matches!(b, b' ' | b'\t')))
        .map_or(line.len(), |p| at + p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operands_name_instructions_defined_before() {
        let mut names = Names::default();
        names.start_computation("e", 2, 6).unwrap();
        names.define("p", 3, 2).unwrap();
        let line = "  ROOT %r = f32[] add(%p, /*index=1*/f32[] %q)";
        let open = line.find('(').unwrap();
        assert_eq!(
            names.check_operands(line, open + 1, line.len() - 1),
            Err((43, "instruction does not exist: q".to_owned()))
        );
        names.define("q", 4, 2).unwrap();
        assert_eq!(names.check_operands(line, open + 1, line.len() - 1), Ok(()));
        assert_eq!(names.check_operands("iota()", 5, 5), Ok(()));
        assert_eq!(
            names.define("p", 5, 7),
            Err((
                7,
                "instruction already exists: p (previously defined at line 3, column 3)".to_owned()
            ))
        );
    }

    #[test]
    fn calls_name_computations_defined_before() {
        let mut names = Names::default();
        names.start_computation("f", 2, 0).unwrap();
        let line = "  %c = f32[] conditional(%p), branch_computations={%f, %g}";
        let at = line.find("branch").unwrap();
        assert_eq!(
            names.check_calls(line, at, line.len(), "f"),
            Err((51, "computation does not exist: f".to_owned()))
        );
        assert_eq!(
            names.check_calls(line, at, line.len(), "e"),
            Err((55, "computation does not exist: g".to_owned()))
        );
        assert_eq!(names.check_calls("x, kind=kLoop", 3, 13, "e"), Ok(()));
        assert_eq!(
            names.start_computation("f", 9, 0),
            Err((
                0,
                "computation already exists: f (previously defined at line 2, column 1)".to_owned()
            ))
        );
    }
}
