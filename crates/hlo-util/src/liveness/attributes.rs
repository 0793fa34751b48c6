//! The few attribute values buffer assignment reads: computation names,
//! shape indices and alias lists.

use crate::scan::{scan, split_top};

/// An output (at a shape index) that shares the buffer of an operand or a
/// parameter (at a shape index).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Alias {
    pub output: Vec<usize>,
    pub operand: usize,
    pub operand_index: Vec<usize>,
}

/// `{1,0}` as indices.
fn shape_index(text: &str) -> Result<Vec<usize>, String> {
    let inner = text
        .trim()
        .strip_prefix('{')
        .and_then(|v| v.strip_suffix('}'))
        .ok_or_else(|| format!("expected a shape index, not `{text}`"))?;
    split_top(inner)
        .into_iter()
        .map(|i| {
            i.parse()
                .map_err(|_| format!("not a shape index: `{text}`"))
        })
        .collect()
}

/// `{ {0}: (1, {}, may-alias), ... }` (a module's `input_output_alias`) or
/// `{{0}: (1, {})}` (a custom call's `output_to_operand_aliasing`); empty
/// text is no alias.
pub(crate) fn aliases(value: &str) -> Result<Vec<Alias>, String> {
    let value = value.trim();
    if value.is_empty() {
        return Ok(Vec::new());
    }
    let inner = value
        .strip_prefix('{')
        .and_then(|v| v.strip_suffix('}'))
        .ok_or_else(|| format!("expected `{{...}}`, not `{value}`"))?;
    let mut out = Vec::new();
    for item in split_top(inner) {
        let colon = scan(item, 0, b":").map_err(|(_, m)| m)?;
        let (output, target) = (item.get(..colon).unwrap_or(""), item.get(colon + 1..));
        let target = target
            .map(str::trim)
            .and_then(|t| t.strip_prefix('('))
            .and_then(|t| t.strip_suffix(')'))
            .ok_or_else(|| format!("expected `(operand, {{index}})` in `{item}`"))?;
        let parts = split_top(target);
        let operand = parts
            .first()
            .and_then(|p| p.parse().ok())
            .ok_or_else(|| format!("expected an operand number in `{item}`"))?;
        let operand_index = shape_index(parts.get(1).copied().unwrap_or("{}"))?;
        out.push(Alias {
            output: shape_index(output)?,
            operand,
            operand_index,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alias_lists_read() {
        let a = aliases("{ {0}: (0, {}, may-alias), {1,2}: (3, {1}, must-alias) }").unwrap();
        assert_eq!(a.len(), 2);
        assert_eq!(a[1].output, [1, 2]);
        assert_eq!((a[1].operand, a[1].operand_index.as_slice()), (3, &[1][..]));
        assert_eq!(aliases("{{}: (1, {})}").unwrap()[0].operand, 1);
        assert!(aliases("{x}").is_err());
    }
}
