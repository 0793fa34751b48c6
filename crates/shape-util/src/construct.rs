//! Building shapes the way XLA's `ShapeUtil::Make*Shape` functions do.
//!
//! Every array built here carries XLA's default layout (or the layout
//! asked for), one `is_dynamic_dimension` flag per dimension, and
//! `tail_padding_alignment_in_elements: 1`, so that its serialized bytes
//! equal the bytes XLA writes for the same shape.

use layout_util::{make_descending_layout, make_layout};
use schema::{Layout, PrimitiveType, ProgramShape, Shape, UNBOUNDED_SIZE};

use crate::ShapeError;
use crate::kind::{is_array, proto_type_name};
use crate::validate::validate_shape_with_optional_layout;

/// An array shape with XLA's default (descending) layout
/// (`ShapeUtil::MakeShape(type, dims)`). A dimension equal to
/// [`UNBOUNDED_SIZE`] becomes an unbounded dynamic `?` dimension; every
/// other dimension is static. For `TUPLE`, `TOKEN` and `OPAQUE_TYPE` with
/// no dimensions, the empty tuple, the token and the opaque shape.
///
/// # Errors
///
/// As [`make_validated_shape`] (XLA CHECK-fails where this returns an error).
///
/// ```
/// use schema::PrimitiveType;
/// let shape = shape_util::make_shape(PrimitiveType::F32, &[2, 3]).unwrap();
/// assert_eq!(shape.to_string(), "f32[2,3]{1,0}");
/// let dynamic = shape_util::make_shape(PrimitiveType::F32, &[schema::UNBOUNDED_SIZE, 784]).unwrap();
/// assert_eq!(dynamic.to_string(), "f32[?,784]{1,0}");
/// assert_eq!(
///     shape_util::make_shape(PrimitiveType::F32, &[-2]).unwrap_err().to_string(),
///     "Invalid dimension size -2, is_dynamic=false",
/// );
/// ```
pub fn make_shape(element_type: PrimitiveType, dimensions: &[i64]) -> Result<Shape, ShapeError> {
    let dynamic: Vec<bool> = dimensions.iter().map(|&d| d == UNBOUNDED_SIZE).collect();
    make_validated_shape(element_type, dimensions, &dynamic)
}

/// An array shape with the given dynamic flags and XLA's default layout
/// (`ShapeUtil::MakeValidatedShape(type, dims, dynamic)`). A dynamic
/// dimension's size is its upper bound (`<=N`), or [`UNBOUNDED_SIZE`] for `?`.
///
/// # Errors
///
/// XLA's messages, in XLA's order:
/// `dynamic dimensions size %d did not match number of dimensions %d`,
/// `Invalid dimensions size %d for non-array shape of type %s`,
/// `Invalid dimension size %d, is_dynamic=%s` (negative and not a dynamic
/// `?`), `overflow in static extent product: dimensions=[%s].` (the byte
/// size of the bounded dimensions overflows `i64`), and
/// `Unsupported element type: %s` for `BUFFER` and invalid types.
///
/// ```
/// use schema::PrimitiveType;
/// let shape = shape_util::make_validated_shape(PrimitiveType::F32, &[23, 44, 55], &[true, false, true]).unwrap();
/// assert_eq!(shape.human_string(), "f32[<=23,44,<=55]");
/// let err = shape_util::make_validated_shape(PrimitiveType::F32, &[2], &[]).unwrap_err();
/// assert_eq!(err.to_string(), "dynamic dimensions size 0 did not match number of dimensions 1");
/// ```
pub fn make_validated_shape(
    element_type: PrimitiveType,
    dimensions: &[i64],
    dynamic: &[bool],
) -> Result<Shape, ShapeError> {
    if dynamic.len() != dimensions.len() {
        return Err(ShapeError::DynamicDimensionsSize {
            dynamic: dynamic.len(),
            dimensions: dimensions.len(),
        });
    }
    if !element_type.is_array_type() {
        if !dimensions.is_empty() {
            return Err(ShapeError::NonArrayDimensions {
                count: dimensions.len(),
                element_type: proto_type_name(element_type as i32),
            });
        }
        return match element_type {
            PrimitiveType::Tuple => Ok(make_nil()),
            PrimitiveType::Token => Ok(make_token_shape()),
            PrimitiveType::OpaqueType => Ok(make_opaque_shape()),
            _ => Err(ShapeError::UnsupportedElementType {
                element_type: proto_type_name(element_type as i32),
            }),
        };
    }
    for (&size, &is_dynamic) in dimensions.iter().zip(dynamic) {
        if size < 0 && !(is_dynamic && size == UNBOUNDED_SIZE) {
            return Err(ShapeError::InvalidDimensionSize { size, is_dynamic });
        }
    }
    let byte_width = element_type.byte_width().unwrap_or(1);
    let extent = dimensions
        .iter()
        .filter(|&&d| d != UNBOUNDED_SIZE)
        .try_fold(byte_width, |product, &d| product.checked_mul(d));
    if extent.is_none() {
        return Err(ShapeError::StaticExtentOverflow {
            dimensions: dimensions.to_vec(),
        });
    }
    Ok(Shape {
        element_type: element_type as i32,
        dimensions: dimensions.to_vec(),
        is_dynamic_dimension: dynamic.to_vec(),
        tuple_shapes: Vec::new(),
        layout: Some(Box::new(make_descending_layout(dimensions.len()))),
    })
}

/// An array shape with the given `minor_to_major` layout
/// (`ShapeUtil::MakeShapeWithDenseLayout(type, dims, minor_to_major)`).
///
/// # Errors
///
/// As [`make_shape_with_layout`].
///
/// ```
/// use schema::PrimitiveType;
/// let shape = shape_util::make_shape_with_dense_layout(PrimitiveType::S32, &[3, 4], &[0, 1]).unwrap();
/// assert_eq!(shape.to_string(), "s32[3,4]{0,1}");
/// let err = shape_util::make_shape_with_dense_layout(PrimitiveType::S32, &[3, 4], &[0]).unwrap_err();
/// assert_eq!(err.to_string(), "Dimensions size is 2, but layout size is 1.");
/// ```
pub fn make_shape_with_dense_layout(
    element_type: PrimitiveType,
    dimensions: &[i64],
    minor_to_major: &[i64],
) -> Result<Shape, ShapeError> {
    make_shape_with_layout(element_type, dimensions, make_layout(minor_to_major))
}

/// An array shape with a full layout (tiles, element size, memory space,
/// ...; build it with [`layout_util::LayoutBuilder`]), as XLA's
/// `MakeShapeWithDenseLayout` with all its arguments. As in XLA, an
/// `element_size_in_bits` equal to the type's own size is stored as 0, and
/// the result is validated.
///
/// # Errors
///
/// `Dimensions size is %ld, but layout size is %ld.`,
/// `Unsupported element type: %s` for non-array types, the errors of
/// [`make_shape`], and those of [`validate_shape`](crate::validate_shape).
///
/// ```
/// use layout_util::LayoutBuilder;
/// use schema::{PrimitiveType, Tile};
/// let layout = LayoutBuilder::new(&[1, 0])
///     .tiles(vec![Tile { dimensions: vec![8, 128] }])
///     .element_size_in_bits(32)
///     .build();
/// let shape = shape_util::make_shape_with_layout(PrimitiveType::F32, &[8, 128], layout).unwrap();
/// assert_eq!(shape.to_string(), "f32[8,128]{1,0:T(8,128)}");
/// ```
pub fn make_shape_with_layout(
    element_type: PrimitiveType,
    dimensions: &[i64],
    mut layout: Layout,
) -> Result<Shape, ShapeError> {
    if dimensions.len() != layout.minor_to_major.len() {
        return Err(ShapeError::DenseLayoutSize {
            dimensions: dimensions.len(),
            layout: layout.minor_to_major.len(),
        });
    }
    if !element_type.is_array_type() {
        return Err(ShapeError::UnsupportedElementType {
            element_type: proto_type_name(element_type as i32),
        });
    }
    let mut shape = make_shape(element_type, dimensions)?;
    let own_bits = element_type.byte_width().unwrap_or(0).saturating_mul(8);
    if layout.element_size_in_bits == own_bits {
        layout.element_size_in_bits = 0;
    }
    shape.layout = Some(Box::new(layout));
    crate::validate_shape(&shape)?;
    Ok(shape)
}

/// An array shape with the descending layout `{rank-1, ..., 0}`
/// (`ShapeUtil::MakeShapeWithDescendingLayout`), the same as [`make_shape`]
/// for static dimensions.
///
/// # Errors
///
/// As [`make_shape_with_layout`].
///
/// ```
/// use schema::PrimitiveType;
/// let shape = shape_util::make_shape_with_descending_layout(PrimitiveType::U8, &[2, 3, 4]).unwrap();
/// assert_eq!(shape.to_string(), "u8[2,3,4]{2,1,0}");
/// ```
pub fn make_shape_with_descending_layout(
    element_type: PrimitiveType,
    dimensions: &[i64],
) -> Result<Shape, ShapeError> {
    make_shape_with_layout(
        element_type,
        dimensions,
        make_descending_layout(dimensions.len()),
    )
}

/// A scalar (rank-0 array) shape with its empty layout `{}`
/// (`ShapeUtil::MakeScalarShape`).
///
/// # Errors
///
/// `Unsupported element type: %s` for `BUFFER` and invalid types.
///
/// ```
/// use schema::PrimitiveType;
/// let scalar = shape_util::make_scalar_shape(PrimitiveType::F32).unwrap();
/// assert_eq!(scalar.to_string(), "f32[]");
/// assert!(scalar.layout.is_some());
/// ```
pub fn make_scalar_shape(element_type: PrimitiveType) -> Result<Shape, ShapeError> {
    make_shape(element_type, &[])
}

/// A tuple of `elements` (`ShapeUtil::MakeValidatedTupleShape`): each
/// element is validated, layouts optional.
///
/// # Errors
///
/// The first element's validation error (see
/// [`validate_shape_with_optional_layout`]).
///
/// ```
/// use schema::PrimitiveType;
/// let tuple = shape_util::make_tuple_shape(vec![
///     shape_util::make_opaque_shape(),
///     shape_util::make_scalar_shape(PrimitiveType::F32).unwrap(),
///     shape_util::make_shape(PrimitiveType::U32, &[1, 2]).unwrap(),
///     shape_util::make_shape_with_dense_layout(PrimitiveType::S32, &[3, 4], &[0, 1]).unwrap(),
/// ])
/// .unwrap();
/// assert_eq!(tuple.to_string(), "(opaque[], f32[], u32[1,2]{1,0}, s32[3,4]{0,1})");
/// ```
pub fn make_tuple_shape(elements: Vec<Shape>) -> Result<Shape, ShapeError> {
    elements
        .iter()
        .try_for_each(validate_shape_with_optional_layout)?;
    Ok(Shape {
        element_type: PrimitiveType::Tuple as i32,
        tuple_shapes: elements,
        ..Shape::default()
    })
}

/// The single element itself if there is exactly one, else a tuple of
/// them (`ShapeUtil::MakeMaybeTupleShape`).
///
/// # Errors
///
/// As [`make_tuple_shape`].
///
/// ```
/// use schema::PrimitiveType;
/// let s = shape_util::make_scalar_shape(PrimitiveType::S8).unwrap();
/// assert_eq!(shape_util::make_maybe_tuple_shape(vec![s.clone()]).unwrap(), s);
/// assert_eq!(shape_util::make_maybe_tuple_shape(vec![]).unwrap().to_string(), "()");
/// ```
pub fn make_maybe_tuple_shape(mut elements: Vec<Shape>) -> Result<Shape, ShapeError> {
    if elements.len() == 1
        && let Some(only) = elements.pop()
    {
        return Ok(only);
    }
    make_tuple_shape(elements)
}

/// The empty tuple `()` (`ShapeUtil::MakeNil`).
///
/// ```
/// use schema::Message;
/// let nil = shape_util::make_nil();
/// assert_eq!(nil.to_string(), "()");
/// assert_eq!(nil.encode_to_vec(), [0x10, 0x0d]);
/// ```
pub fn make_nil() -> Shape {
    Shape {
        element_type: PrimitiveType::Tuple as i32,
        ..Shape::default()
    }
}

/// The token shape `token[]` (`ShapeUtil::MakeTokenShape`).
///
/// ```
/// assert_eq!(shape_util::make_token_shape().to_string(), "token[]");
/// ```
pub fn make_token_shape() -> Shape {
    Shape {
        element_type: PrimitiveType::Token as i32,
        ..Shape::default()
    }
}

/// The opaque shape `opaque[]` (`ShapeUtil::MakeOpaqueShape`).
///
/// ```
/// assert_eq!(shape_util::make_opaque_shape().to_string(), "opaque[]");
/// ```
pub fn make_opaque_shape() -> Shape {
    Shape {
        element_type: PrimitiveType::OpaqueType as i32,
        ..Shape::default()
    }
}

/// A buffer of an array shape with the default layout
/// (`ShapeUtil::MakeValidatedBufferShape`).
///
/// # Errors
///
/// As [`make_shape`], and `Buffer shape must have array shape.` for a
/// non-array element type.
///
/// ```
/// use schema::PrimitiveType;
/// let buffer = shape_util::make_buffer_shape(PrimitiveType::S32, &[3, 4]).unwrap();
/// assert_eq!(buffer.to_string(), "b(s32[3,4]{1,0})");
/// ```
pub fn make_buffer_shape(
    element_type: PrimitiveType,
    dimensions: &[i64],
) -> Result<Shape, ShapeError> {
    let array = make_shape(element_type, dimensions)?;
    if !is_array(&array) {
        return Err(ShapeError::BufferNotArray {
            shape: Box::new(array.clone()),
        });
    }
    Ok(Shape {
        element_type: PrimitiveType::Buffer as i32,
        tuple_shapes: vec![array],
        ..Shape::default()
    })
}

/// A program shape `(params) -> result` (`ShapeUtil::MakeProgramShape`).
/// Each parameter gets an empty name, as XLA's `AddParameter(shape, "")`
/// does, so the program shape passes [`validate_program_shape`].
///
/// ```
/// use schema::PrimitiveType;
/// let f32_2 = shape_util::make_shape(PrimitiveType::F32, &[2]).unwrap();
/// let s32 = shape_util::make_scalar_shape(PrimitiveType::S32).unwrap();
/// let program = shape_util::make_program_shape(vec![f32_2.clone(), s32], f32_2.clone());
/// assert_eq!(program.parameters.len(), 2);
/// assert_eq!(program.parameter_names, ["", ""]);
/// assert_eq!(program.result, Some(f32_2));
/// assert_eq!(program.to_string(), "((unknown): f32[2], (unknown): s32[]) -> f32[2]");
/// assert!(shape_util::validate_program_shape(&program).is_ok());
/// ```
pub fn make_program_shape(parameters: Vec<Shape>, result: Shape) -> ProgramShape {
    ProgramShape {
        parameter_names: vec![String::new(); parameters.len()],
        parameters,
        result: Some(result),
    }
}

/// Checks a program shape as XLA's `ProgramShape::FromProto` does (one name
/// per parameter) and validates each parameter and the result, layouts
/// optional.
///
/// # Errors
///
/// `ProgramShapeProto has different numbers of parameters and parameter
/// names: %d vs %d`, then the first validation error (see
/// [`validate_shape_with_optional_layout`]).
///
/// ```
/// use schema::{PrimitiveType, ProgramShape};
/// let f32 = shape_util::make_scalar_shape(PrimitiveType::F32).unwrap();
/// let unnamed = ProgramShape { parameters: vec![f32.clone()], parameter_names: vec![], result: Some(f32) };
/// assert_eq!(
///     shape_util::validate_program_shape(&unnamed).unwrap_err().to_string(),
///     "ProgramShapeProto has different numbers of parameters and parameter names: 1 vs 0",
/// );
/// ```
pub fn validate_program_shape(program: &ProgramShape) -> Result<(), ShapeError> {
    let (parameters, names) = (program.parameters.len(), program.parameter_names.len());
    if parameters != names {
        return Err(ShapeError::ProgramShapeParameterNames { parameters, names });
    }
    program
        .parameters
        .iter()
        .chain(program.result.as_ref())
        .try_for_each(validate_shape_with_optional_layout)
}

/// A copy of `shape` with every dynamic flag cleared, through tuples and
/// buffers, and its own layout's `dynamic_shape_metadata_prefix_bytes` set
/// to 0 (`ShapeUtil::MakeStaticShape`); bounds become static sizes.
///
/// ```
/// use schema::PrimitiveType;
/// let dynamic = shape_util::make_validated_shape(PrimitiveType::F32, &[4, 3], &[true, false]).unwrap();
/// assert_eq!(shape_util::make_static_shape(&dynamic).human_string(), "f32[4,3]");
/// ```
pub fn make_static_shape(shape: &Shape) -> Shape {
    let mut result = shape.clone();
    clear_dynamic_flags(&mut result);
    if let Some(layout) = result.layout.as_deref_mut() {
        layout.dynamic_shape_metadata_prefix_bytes = 0;
    }
    result
}

fn clear_dynamic_flags(shape: &mut Shape) {
    shape
        .is_dynamic_dimension
        .iter_mut()
        .for_each(|d| *d = false);
    shape.tuple_shapes.iter_mut().for_each(clear_dynamic_flags);
}
