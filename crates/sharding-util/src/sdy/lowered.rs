//! A lowered module's text (jax's `lowered.as_text()`: StableHLO with
//! Shardy attributes): its meshes and the arguments and results of its
//! public `main` with their tensor types and shardings.

use std::fmt;

use std::collections::HashMap;

use schema::Shape;
use serde::{Deserialize, Serialize};

use crate::error::ParseError;
use crate::sdy::error::{ShardyError, TensorTypeError};
use crate::sdy::lowered_header::{closing_brace, header, skip_attribute_value};
use crate::sdy::mesh::SdyMesh;
use crate::sdy::parse::{Cursor, Parsed};
use crate::sdy::sharding::SdySharding;

/// Whether a value is an argument or a result of `main`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ValueKind {
    /// A function argument (`%arg0`).
    Argument,
    /// A function result.
    Result,
}

impl fmt::Display for ValueKind {
    /// `argument` or `result`, as the JSON form spells it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            Self::Argument => "argument",
            Self::Result => "result",
        })
    }
}

/// One argument or result of `main`.
#[derive(Debug, Clone, PartialEq)]
pub struct LoweredValue {
    /// Argument or result.
    pub kind: ValueKind,
    /// Its position among the arguments or among the results.
    pub index: usize,
    /// `%arg0` for an argument; jax's `jax.result_info` for a result,
    /// when given.
    pub name: Option<String>,
    /// The MLIR type as written (`tensor<16x8xf32>`).
    pub tensor_type: String,
    /// The same as an XLA shape (`f32[16,8]`).
    pub shape: Shape,
    /// Its `sdy.sharding`, when it has one.
    pub sharding: Option<SdySharding>,
}

/// What a lowered module says about `main`'s values.
///
/// ```
/// use sharding_util::sdy::LoweredModule;
///
/// let text = r#"module @jit_f attributes {mhlo.num_partitions = 8 : i32} {
///   sdy.mesh @mesh = <["a"=2, "b"=4]>
///   func.func public @main(%arg0: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {}]>}) -> (tensor<16x8xf32> {jax.result_info = "result"}) {
///     return %arg0 : tensor<16x8xf32>
///   }
/// }"#;
/// let module = LoweredModule::parse(text).unwrap();
/// assert_eq!(module.num_partitions, Some(8));
/// assert_eq!(module.meshes[0].name.as_deref(), Some("mesh"));
/// assert_eq!(module.values[0].shape.to_string(), "f32[16,8]{1,0}");
/// assert_eq!(module.values[1].name.as_deref(), Some("result"));
/// assert!(module.values[1].sharding.is_none());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct LoweredModule {
    /// `mhlo.num_partitions`, when the module gives it.
    pub num_partitions: Option<i64>,
    /// The `sdy.mesh` symbols, in order.
    pub meshes: Vec<SdyMesh>,
    /// The arguments, then the results, of the public `main`.
    pub values: Vec<LoweredValue>,
    /// Each named mesh's position in `meshes`.
    names: HashMap<String, usize>,
}

/// An MLIR tensor type (`tensor<16x8xf32>`, `tensor<bf16>`) as an XLA
/// shape.
///
/// ```
/// let shape = sharding_util::sdy::tensor_shape("tensor<16x8xbf16>").unwrap();
/// assert_eq!(shape.to_string(), "bf16[16,8]{1,0}");
/// assert_eq!(sharding_util::sdy::tensor_shape("tensor<i1>").unwrap().to_string(), "pred[]");
/// ```
///
/// # Errors
///
/// [`TensorTypeError`]: not a ranked, static tensor type of an element type
/// XLA has.
pub fn tensor_shape(ty: &str) -> Result<Shape, TensorTypeError> {
    tensor_shape_text(ty).map_err(|message| TensorTypeError::new(ty, message))
}

/// [`tensor_shape`], its error the message.
fn tensor_shape_text(ty: &str) -> Result<Shape, String> {
    let body = ty
        .trim()
        .strip_prefix("tensor<")
        .and_then(|b| b.strip_suffix('>'))
        .ok_or_else(|| format!("`{ty}` is not a tensor type"))?;
    // Leading `NNx` (or `?x`) segments are dimensions; the rest is the
    // element type.
    let mut dims: Vec<&str> = Vec::new();
    let mut element = body;
    while let Some((d, rest)) = element.split_once('x') {
        if d != "?" && (d.is_empty() || !d.bytes().all(|b| b.is_ascii_digit())) {
            break;
        }
        dims.push(d);
        element = rest;
    }
    if let Some(d) = dims.iter().find(|d| d.parse::<i64>().is_err()) {
        return Err(if *d == "?" {
            format!("`{ty}` has dimension `?`: only static shapes are read")
        } else {
            format!("`{ty}` has dimension `{d}`, beyond i64")
        });
    }
    // A signed size is no dimension: say so rather than read it as part of
    // the element type.
    if let Some(d) = element.split('x').next().filter(|d| {
        d.len() > 1 && d.starts_with(['-', '+']) && d[1..].bytes().all(|b| b.is_ascii_digit())
    }) {
        return Err(format!(
            "`{ty}` has dimension `{d}`: a dimension is a size of 0 or more"
        ));
    }
    let element = xla_element(element)
        .ok_or_else(|| format!("`{ty}` has element type `{element}`, which XLA has no name for"))?;
    format!("{element}[{}]", dims.join(","))
        .parse::<Shape>()
        .map_err(|e| format!("`{ty}`: {e}"))
}

/// XLA's name of an MLIR element type.
fn xla_element(mlir: &str) -> Option<String> {
    let name = match mlir {
        "i1" => "pred".to_string(),
        "complex<f32>" => "c64".to_string(),
        "complex<f64>" => "c128".to_string(),
        _ => {
            if let Some(bits) = mlir.strip_prefix("ui") {
                format!("u{bits}")
            } else if let Some(bits) = mlir.strip_prefix("si").or_else(|| mlir.strip_prefix('i')) {
                format!("s{bits}")
            } else if mlir.starts_with('f') || mlir.starts_with("bf") {
                mlir.to_ascii_lowercase()
            } else {
                return None;
            }
        }
    };
    schema::PrimitiveType::from_lowercase_name(&name).map(|_| name)
}

impl LoweredModule {
    /// Reads the module's `mhlo.num_partitions`, its `sdy.mesh` lines and
    /// the signature of `func.func public @main`.
    ///
    /// # Errors
    ///
    /// No public `main`, or two; a mesh defined twice; an
    /// `mhlo.num_partitions` that is not an integer attribute of 1 or more;
    /// a signature or attribute that does not parse; a type that is not a
    /// static tensor; a module or `main` whose braces never close.
    pub fn parse(text: &str) -> Result<Self, ShardyError> {
        let mut values = Vec::new();
        let mut module = Self::read(text, |_, value| {
            values.push(value);
            Ok(())
        })?;
        module.values = values;
        Ok(module)
    }

    /// [`parse`](Self::parse) handing each argument and result to `visit`
    /// as it is read, with the module read so far (its partitions and
    /// meshes), instead of keeping them: `values` of the module returned is
    /// empty. An error of `visit` stops the reading.
    ///
    /// ```
    /// use sharding_util::sdy::LoweredModule;
    ///
    /// let text = "module {\n  func.func public @main(%arg0: tensor<4xi8>) -> tensor<4xi8> {\n  }\n}";
    /// let mut shapes = Vec::new();
    /// let module = LoweredModule::read(text, |_, value| {
    ///     shapes.push(value.shape.human_string());
    ///     Ok(())
    /// })
    /// .unwrap();
    /// assert_eq!(shapes, ["s8[4]", "s8[4]"]);
    /// assert!(module.values.is_empty());
    /// ```
    ///
    /// # Errors
    ///
    /// As [`parse`](Self::parse), and `visit`'s.
    pub fn read(
        text: &str,
        mut visit: impl FnMut(&Self, LoweredValue) -> Result<(), ShardyError>,
    ) -> Result<Self, ShardyError> {
        let header = header(text)?;
        let mut module = Self {
            num_partitions: header.as_ref().and_then(|h| h.num_partitions),
            meshes: Vec::new(),
            values: Vec::new(),
            names: HashMap::new(),
        };
        let mut mesh_offsets = Vec::new();
        for (offset, line) in line_offsets(text) {
            if line.trim_start().starts_with("sdy.mesh ") {
                let mesh: SdyMesh = line.parse().map_err(|e: ParseError| shifted(e, offset))?;
                if let Some(name) = &mesh.name {
                    if let Some(&first) = module.names.get(name) {
                        return Err(ParseError {
                            message: format!(
                                "mesh @{name} is defined twice (the first at byte {})",
                                mesh_offsets[first]
                            ),
                            offset,
                            found: format!("`{}`", line.trim()),
                        }
                        .into());
                    }
                    module.names.insert(name.clone(), module.meshes.len());
                }
                mesh_offsets.push(offset);
                module.meshes.push(mesh);
            }
        }
        const MAIN: &str = "func.func public @main(";
        let mut mains = text.match_indices(MAIN).map(|(k, _)| k);
        let start = mains.next().ok_or_else(|| ParseError {
            message: "no `func.func public @main(` in the module".to_string(),
            offset: 0,
            found: "end of input".to_string(),
        })?;
        if let Some(second) = mains.next() {
            return Err(ParseError {
                message: format!(
                    "`func.func public @main` is defined twice (the first at byte {start})"
                ),
                offset: second,
                found: "`func.func public @main`".to_string(),
            }
            .into());
        }
        let mut c = Cursor::new(text);
        c.at = start + MAIN.len() - 1;
        signature(&mut c, &mut |value| visit(&module, value))?;
        // The body of `main`, after its attributes if any, and the module's
        // end: a module cut short after the signature is refused.
        if c.eat("attributes") {
            c.skip_space();
            if c.peek_byte() != Some(b'{') {
                return Err(c.error("expected '{'").into());
            }
            c.at = closing_brace(text, c.at, "the attributes of @main")?;
        }
        c.skip_space();
        if c.peek_byte() != Some(b'{') {
            return Err(c.error("expected '{' (the body of @main)").into());
        }
        closing_brace(text, c.at, "the body of @main")?;
        if let Some(h) = &header {
            closing_brace(text, h.body, "the module")?;
        }
        Ok(module)
    }

    /// The mesh named `name`.
    pub fn mesh(&self, name: &str) -> Option<&SdyMesh> {
        self.mesh_position(name).and_then(|k| self.meshes.get(k))
    }

    /// The position in `meshes` of the mesh named `name`.
    pub(crate) fn mesh_position(&self, name: &str) -> Option<usize> {
        self.names.get(name).copied()
    }
}

fn line_offsets(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut offset = 0;
    text.split_inclusive('\n').map(move |line| {
        let at = offset;
        offset += line.len();
        (at, line.trim_end())
    })
}

fn shifted(mut e: ParseError, by: usize) -> ParseError {
    e.offset += by;
    e
}

/// `(%arg0: type {attrs}, ...) -> (type {attrs}, ...)` or `-> type`, each
/// value handed to `visit`.
fn signature(
    c: &mut Cursor<'_>,
    visit: &mut dyn FnMut(LoweredValue) -> Result<(), ShardyError>,
) -> Result<(), ShardyError> {
    c.expect("(")?;
    let mut arguments = 0;
    if !c.eat(")") {
        loop {
            c.expect("%")?;
            let name = format!("%{}", c.ident()?);
            c.expect(":")?;
            visit(value(c, ValueKind::Argument, arguments, Some(name), true)?)?;
            arguments += 1;
            if c.eat(")") {
                break;
            }
            c.expect(",")?;
        }
    }
    if !c.eat("->") {
        return Ok(());
    }
    if c.eat("(") {
        let mut results = 0;
        if !c.eat(")") {
            loop {
                visit(value(c, ValueKind::Result, results, None, true)?)?;
                results += 1;
                if c.eat(")") {
                    break;
                }
                c.expect(",")?;
            }
        }
    } else {
        // A bare result type has no attributes: `{` opens the body.
        visit(value(c, ValueKind::Result, 0, None, false)?)?;
    }
    Ok(())
}

/// `tensor<...> {attr = value, ...}` (the attributes only with
/// `attributes`).
fn value(
    c: &mut Cursor<'_>,
    kind: ValueKind,
    index: usize,
    mut name: Option<String>,
    attributes: bool,
) -> Parsed<LoweredValue> {
    let at = c.at;
    c.expect("tensor")?;
    let tensor_type = format!("tensor{}", c.balanced()?);
    let shape = tensor_shape_text(&tensor_type).map_err(|message| {
        c.at = at;
        c.error(message)
    })?;
    let mut sharding = None;
    if attributes && c.eat("{") && !c.eat("}") {
        loop {
            let key = c.ident()?.to_string();
            c.expect("=")?;
            match key.as_str() {
                "sdy.sharding" => sharding = Some(c.sharding()?),
                "jax.result_info" if kind == ValueKind::Result => name = Some(c.string()?),
                _ => skip_attribute_value(c)?,
            }
            if c.eat("}") {
                break;
            }
            c.expect(",")?;
        }
    }
    Ok(LoweredValue {
        kind,
        index,
        name,
        tensor_type,
        shape,
        sharding,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_result_type_is_followed_by_the_body() {
        let text = "module {\n  func.func public @main(%arg0: tensor<4xi8>) -> tensor<4x2xui4> {\n    return %arg0 : tensor<4xi8>\n  }\n}";
        let module = LoweredModule::parse(text).unwrap();
        assert_eq!(module.values.len(), 2);
        assert_eq!(module.values[1].shape.to_string(), "u4[4,2]{1,0}");
        assert_eq!(module.values[1].kind, ValueKind::Result);
    }

    #[test]
    fn a_tensor_type_that_opens_with_a_wide_character_is_an_error() {
        let text = "module {\n  func.func public @main(%arg0: tensor\u{96714}4xf32>) -> tensor<4xf32> {\n  }\n}";
        let error = LoweredModule::parse(text).unwrap_err();
        assert!(
            error.to_string().contains("expected a bracketed group"),
            "{error}"
        );
    }

    #[test]
    fn device_counts_out_of_range_are_errors_not_allocations() {
        let text = "module attributes {mhlo.num_partitions = 1000000000000 : i64} {\n  func.func public @main(%arg0: tensor<4xi8> {a = \"\u{e9}\", b = \u{e9}}) -> tensor<4xi8> {\n  }\n}";
        let module = LoweredModule::parse(text).unwrap();
        let error = crate::sdy::LoweredReport::new(&module).unwrap_err();
        assert_eq!(
            error.to_string(),
            "device count 1000000000000 is not between 1 and 1048576"
        );
    }

    #[test]
    fn tensor_types_name_xla_shapes_or_say_why_not() {
        let shape = |t| {
            tensor_shape(t)
                .map(|s| s.to_string())
                .map_err(|e| e.to_string())
        };
        assert_eq!(shape("tensor<2xcomplex<f32>>").unwrap(), "c64[2]{0}");
        assert_eq!(shape("tensor<3xf8E4M3FN>").unwrap(), "f8e4m3fn[3]{0}");
        assert_eq!(shape("tensor<si32>").unwrap(), "s32[]");
        assert_eq!(
            shape("tensor<?x4xf32>").unwrap_err(),
            "`tensor<?x4xf32>` has dimension `?`: only static shapes are read"
        );
        assert_eq!(
            shape("tensor<4xindex>").unwrap_err(),
            "`tensor<4xindex>` has element type `index`, which XLA has no name for"
        );
        assert_eq!(
            shape("tensor<-2x2xf32>").unwrap_err(),
            "`tensor<-2x2xf32>` has dimension `-2`: a dimension is a size of 0 or more"
        );
        assert_eq!(
            shape("tensor<2x-2xf32>").unwrap_err(),
            "`tensor<2x-2xf32>` has dimension `-2`: a dimension is a size of 0 or more"
        );
        assert_eq!(
            shape("tensor<99999999999999999999x2xf32>").unwrap_err(),
            "`tensor<99999999999999999999x2xf32>` has dimension `99999999999999999999`, beyond i64"
        );
        assert_eq!(
            shape("memref<4xf32>").unwrap_err(),
            "`memref<4xf32>` is not a tensor type"
        );
    }
}
