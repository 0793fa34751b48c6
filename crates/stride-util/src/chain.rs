//! Chains of numpy-style operations on a view, as text:
//! `.T[0:3:2, 1:4:2].reshape(2,2)`.

use thiserror::Error;

use crate::index::{IndexItem, parse_index_expression};
use crate::integers::parse_integer;
use crate::reshape::NumpyOrder;

/// A chain that does not parse: the message names the offending text and
/// its byte offset, or the operation and what it lacks.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{message}")]
#[non_exhaustive]
pub struct ChainError {
    /// The message.
    pub message: String,
}

impl ChainError {
    fn new(message: String) -> Self {
        Self { message }
    }
}

/// One operation of the chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// `.T` or `.transpose()` (reverse the axes), `.transpose(p0,p1,...)`.
    Transpose(Option<Vec<i64>>),
    /// `.reshape(d0,...)` or `.reshape(d0,..., order='F')`, one entry may
    /// be `-1`.
    Reshape(Vec<i64>, NumpyOrder),
    /// `.ravel()`, `.ravel(order='F')` or `.ravel('F')`.
    Ravel(NumpyOrder),
    /// `.broadcast_to(d0,...)`.
    BroadcastTo(Vec<i64>),
    /// `.expand_dims(a)` or `.expand_dims((a,b))`.
    ExpandDims(Vec<i64>),
    /// `.squeeze()` (all size-1 axes) or `.squeeze(a)`.
    Squeeze(Option<Vec<i64>>),
    /// `.swapaxes(a,b)`.
    SwapAxes(i64, i64),
    /// `.moveaxis(source,destination)`.
    MoveAxis(i64, i64),
    /// `.flip()` (every axis) or `.flip(a)`.
    Flip(Option<i64>),
    /// `.as_strided(shape=(..),strides=(..))`, strides in elements.
    AsStrided {
        /// The new sizes.
        shape: Vec<i64>,
        /// The new strides, in elements.
        strides: Vec<i64>,
    },
    /// `[...]`: numpy basic indexing.
    Index(Vec<IndexItem>),
}

/// Parses a chain of operations.
///
/// ```
/// use stride_util::{Op, parse_chain};
/// assert_eq!(parse_chain(".T.flip(0)"), Ok(vec![Op::Transpose(None), Op::Flip(Some(0))]));
/// ```
///
/// # Errors
/// A message naming the offending text and its byte offset.
pub fn parse_chain(text: &str) -> Result<Vec<Op>, ChainError> {
    let mut parser = Parser { text, pos: 0 };
    let mut ops = Vec::new();
    loop {
        parser.skip_space();
        match parser.peek() {
            None => return Ok(ops),
            Some('.') => {
                parser.pos += 1;
                ops.push(parser.method()?);
            }
            Some('[') => ops.push(Op::Index(parser.index_expression()?)),
            Some(_) => return Err(parser.error("expected `.method(...)` or `[...]`")),
        }
    }
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn rest(&self) -> &str {
        self.text.get(self.pos..).unwrap_or_default()
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn skip_space(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn error(&self, what: &str) -> ChainError {
        let found: String = self.rest().chars().take(12).collect();
        ChainError::new(if found.is_empty() {
            format!("{what} at the end of {:?}", self.text)
        } else {
            format!("{what} at offset {} (found {found:?})", self.pos)
        })
    }

    /// Consumes `token` (after optional whitespace) or fails.
    fn expect(&mut self, token: &str) -> Result<(), ChainError> {
        if self.eat(token) {
            Ok(())
        } else {
            Err(self.error(&format!("expected `{token}`")))
        }
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_space();
        if self.rest().starts_with(token) {
            self.pos += token.len();
            true
        } else {
            false
        }
    }

    fn identifier(&mut self) -> &str {
        let start = self.pos;
        let len = self
            .rest()
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(self.rest().len());
        self.pos += len;
        self.text.get(start..self.pos).unwrap_or_default()
    }

    fn integer(&mut self) -> Result<i64, ChainError> {
        self.skip_space();
        let rest = self.rest();
        let sign = usize::from(rest.starts_with('-') || rest.starts_with('+'));
        let digits = rest
            .get(sign..)
            .unwrap_or_default()
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len() - sign);
        if digits == 0 {
            return Err(self.error("expected an integer"));
        }
        let token = rest.get(..sign + digits).unwrap_or_default();
        let value = parse_integer(token).map_err(|e| self.error(&e.to_string()))?;
        self.pos += sign + digits;
        Ok(value)
    }

    /// `a, b, c` or `(a, b, c)` up to the closing `)` of the call.
    fn integers(&mut self) -> Result<Vec<i64>, ChainError> {
        let tuple = self.eat("(");
        let mut values = Vec::new();
        let close = if tuple { ")" } else { "" };
        self.skip_space();
        if !(self.rest().starts_with(')')) {
            loop {
                values.push(self.integer()?);
                if !self.eat(",") {
                    break;
                }
                self.skip_space();
                // `)` ends the list, a letter starts a keyword (`order=`).
                if self
                    .rest()
                    .starts_with(|c: char| c == ')' || c.is_ascii_alphabetic())
                {
                    break;
                }
            }
        }
        if tuple {
            self.expect(close)?;
            self.eat(",");
        }
        Ok(values)
    }

    fn method(&mut self) -> Result<Op, ChainError> {
        let start = self.pos;
        let name = self.identifier().to_owned();
        if name == "T" {
            return Ok(Op::Transpose(None));
        }
        if !self.eat("(") {
            self.pos = start;
            return Err(self.error("expected a method call such as `.reshape(2,3)`"));
        }
        let op = match name.as_str() {
            "transpose" => {
                let axes = self.integers()?;
                Op::Transpose((!axes.is_empty()).then_some(axes))
            }
            "reshape" => {
                let sizes = self.integers()?;
                Op::Reshape(sizes, self.order(false)?)
            }
            "ravel" => Op::Ravel(self.order(true)?),
            "broadcast_to" => Op::BroadcastTo(self.integers()?),
            "expand_dims" => Op::ExpandDims(self.nonempty(&name)?),
            "squeeze" => {
                let axes = self.integers()?;
                Op::Squeeze((!axes.is_empty()).then_some(axes))
            }
            "swapaxes" => {
                let (a, b) = self.pair(&name)?;
                Op::SwapAxes(a, b)
            }
            "moveaxis" => {
                let (a, b) = self.pair(&name)?;
                Op::MoveAxis(a, b)
            }
            "flip" => {
                let axes = self.integers()?;
                match axes.as_slice() {
                    [] => Op::Flip(None),
                    [axis] => Op::Flip(Some(*axis)),
                    _ => {
                        return Err(ChainError::new(format!(
                            "flip takes one axis, got {axes:?}"
                        )));
                    }
                }
            }
            "as_strided" => self.as_strided()?,
            _ => {
                self.pos = start;
                return Err(self.error(&format!("unknown operation `.{name}`")));
            }
        };
        self.expect(")")?;
        Ok(op)
    }

    /// An optional `order='C'` (`'F'`, `'A'`, `'K'`; either quote), or with
    /// `positional` just the quoted letter; `C` when absent.
    fn order(&mut self, positional: bool) -> Result<NumpyOrder, ChainError> {
        self.skip_space();
        let start = self.pos;
        let keyword = self.identifier() == "order" && self.eat("=");
        if !keyword {
            self.pos = start;
            if !(positional && self.rest().starts_with(['\'', '"'])) {
                return Ok(NumpyOrder::C);
            }
        }
        self.skip_space();
        let mut chars = self.rest().chars();
        let order = match (chars.next(), chars.next(), chars.next()) {
            (Some(open @ ('\'' | '"')), Some(letter), Some(close)) if open == close => match letter
            {
                'C' => Some(NumpyOrder::C),
                'F' => Some(NumpyOrder::F),
                'A' => Some(NumpyOrder::A),
                'K' => Some(NumpyOrder::K),
                _ => None,
            },
            _ => None,
        };
        let Some(order) = order else {
            return Err(self.error("expected an order 'C', 'F', 'A' or 'K'"));
        };
        self.pos += 3;
        Ok(order)
    }

    fn nonempty(&mut self, name: &str) -> Result<Vec<i64>, ChainError> {
        let values = self.integers()?;
        if values.is_empty() {
            return Err(ChainError::new(format!("{name} needs an axis")));
        }
        Ok(values)
    }

    fn pair(&mut self, name: &str) -> Result<(i64, i64), ChainError> {
        match self.integers()?.as_slice() {
            &[a, b] => Ok((a, b)),
            other => Err(ChainError::new(format!(
                "{name} takes two axes, got {other:?}"
            ))),
        }
    }

    /// `shape=(..), strides=(..)` in either order, or positionally.
    fn as_strided(&mut self) -> Result<Op, ChainError> {
        let mut shape = None;
        let mut strides = None;
        for position in 0..2 {
            self.skip_space();
            let save = self.pos;
            let keyword = self.identifier().to_owned();
            let slot = if self.eat("=") {
                match keyword.as_str() {
                    "shape" => &mut shape,
                    "strides" => &mut strides,
                    _ => {
                        self.pos = save;
                        return Err(self.error("expected `shape=` or `strides=`"));
                    }
                }
            } else {
                self.pos = save;
                if position == 0 {
                    &mut shape
                } else {
                    &mut strides
                }
            };
            *slot = Some(self.integers()?);
            self.eat(",");
        }
        match (shape, strides) {
            (Some(shape), Some(strides)) => Ok(Op::AsStrided { shape, strides }),
            _ => Err(ChainError::new(
                "as_strided needs shape=(...) and strides=(...)".to_owned(),
            )),
        }
    }

    /// `[...]` up to its closing bracket, parsed by stride-util.
    fn index_expression(&mut self) -> Result<Vec<IndexItem>, ChainError> {
        let Some(len) = self.rest().find(']') else {
            return Err(self.error("expected `]` closing the index"));
        };
        let expression = self.rest().get(..=len).unwrap_or_default();
        let items = parse_index_expression(expression)
            .map_err(|e| ChainError::new(format!("{e} (at offset {})", self.pos)))?;
        self.pos += len + 1;
        Ok(items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_chain() {
        let ops = parse_chain(".T[0:3:2, 1:4:2].reshape(2,2)").unwrap();
        assert_eq!(
            ops,
            [
                Op::Transpose(None),
                Op::Index(vec![
                    IndexItem::slice(Some(0), Some(3), Some(2)),
                    IndexItem::slice(Some(1), Some(4), Some(2))
                ]),
                Op::Reshape(vec![2, 2], NumpyOrder::C),
            ]
        );
    }

    #[test]
    fn parses_every_index_item() {
        let ops = parse_chain("[::-1, 2][..., None][:, -1:]").unwrap();
        assert_eq!(
            ops,
            [
                Op::Index(vec![
                    IndexItem::slice(None, None, Some(-1)),
                    IndexItem::Index(2)
                ]),
                Op::Index(vec![IndexItem::Ellipsis, IndexItem::NewAxis]),
                Op::Index(vec![
                    IndexItem::full(),
                    IndexItem::slice(Some(-1), None, None)
                ]),
            ]
        );
    }

    #[test]
    fn parses_methods_with_tuples_and_keywords() {
        let ops = parse_chain(
            ".reshape((3,-1)) .transpose(1,0).as_strided(strides=(1,1), shape=(2,2)).squeeze().flip(0)",
        )
        .unwrap();
        assert_eq!(
            ops,
            [
                Op::Reshape(vec![3, -1], NumpyOrder::C),
                Op::Transpose(Some(vec![1, 0])),
                Op::AsStrided {
                    shape: vec![2, 2],
                    strides: vec![1, 1]
                },
                Op::Squeeze(None),
                Op::Flip(Some(0)),
            ]
        );
        assert_eq!(
            parse_chain(".swapaxes(0, 2).moveaxis(0,-1).expand_dims(1)").unwrap(),
            [
                Op::SwapAxes(0, 2),
                Op::MoveAxis(0, -1),
                Op::ExpandDims(vec![1])
            ]
        );
    }

    #[test]
    fn parses_orders_as_numpy_writes_them() {
        assert_eq!(
            parse_chain(
                ".reshape(2, 3, order='F') .reshape((6,), order=\"C\").reshape(3,2,order='A')"
            )
            .unwrap(),
            [
                Op::Reshape(vec![2, 3], NumpyOrder::F),
                Op::Reshape(vec![6], NumpyOrder::C),
                Op::Reshape(vec![3, 2], NumpyOrder::A),
            ]
        );
        assert_eq!(
            parse_chain(".ravel().ravel(order='F').ravel('K').ravel( order = 'A' )").unwrap(),
            [
                Op::Ravel(NumpyOrder::C),
                Op::Ravel(NumpyOrder::F),
                Op::Ravel(NumpyOrder::K),
                Op::Ravel(NumpyOrder::A),
            ]
        );
        assert!(
            parse_chain(".reshape(6, order='X')")
                .unwrap_err()
                .to_string()
                .contains("expected an order")
        );
        assert!(parse_chain(".reshape(6, 'F')").is_err());
    }

    #[test]
    fn errors_name_the_offending_text() {
        assert!(
            parse_chain(".frobnicate(1)")
                .unwrap_err()
                .to_string()
                .contains("`.frobnicate`")
        );
        assert!(
            parse_chain(".T[1:x]")
                .unwrap_err()
                .to_string()
                .contains("\"x\"")
        );
        assert!(
            parse_chain(".reshape(2,3")
                .unwrap_err()
                .to_string()
                .contains("expected `)`")
        );
        assert!(
            parse_chain("reshape(2)")
                .unwrap_err()
                .to_string()
                .contains("offset 0")
        );
        assert!(
            parse_chain(".swapaxes(1)")
                .unwrap_err()
                .to_string()
                .contains("two axes")
        );
        assert_eq!(
            parse_chain(".reshape(99999999999999999999)")
                .unwrap_err()
                .to_string(),
            "99999999999999999999 is out of range: integers run from -9223372036854775808 \
             to 9223372036854775807 at offset 9 (found \"999999999999\")"
        );
    }
}
