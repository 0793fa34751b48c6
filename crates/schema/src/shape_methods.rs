//! XLA's `Shape` and `ProgramShape` methods (`xla/shape.h`) that compute
//! something, on the prost types: the kind of shape, its dynamic
//! dimensions, and the dimensions in layout order. Dimension numbers out of
//! range (where XLA's precondition fails) answer `false` or `None`.

use crate::{PrimitiveType, ProgramShape, Shape, UNBOUNDED_SIZE};

impl Shape {
    fn type_is(&self, ty: PrimitiveType) -> bool {
        self.element_type == ty as i32
    }

    /// XLA's `Shape::IsArrayExcludingBuffer`: an array element type.
    ///
    /// ```
    /// let shape: schema::Shape = "b(f32[2])".parse().unwrap();
    /// assert!(!shape.is_array_excluding_buffer() && shape.is_array());
    /// ```
    pub fn is_array_excluding_buffer(&self) -> bool {
        PrimitiveType::try_from(self.element_type).is_ok_and(PrimitiveType::is_array_type)
    }

    /// XLA's `Shape::IsArray`: an array or a buffer of one.
    ///
    /// ```
    /// assert!("f32[2]".parse::<schema::Shape>().unwrap().is_array());
    /// ```
    pub fn is_array(&self) -> bool {
        self.is_array_excluding_buffer() || self.is_buffer()
    }

    /// XLA's `Shape::IsTuple`.
    ///
    /// ```
    /// assert!("()".parse::<schema::Shape>().unwrap().is_tuple());
    /// ```
    pub fn is_tuple(&self) -> bool {
        self.type_is(PrimitiveType::Tuple)
    }

    /// XLA's `Shape::IsToken`.
    ///
    /// ```
    /// assert!("token[]".parse::<schema::Shape>().unwrap().is_token());
    /// ```
    pub fn is_token(&self) -> bool {
        self.type_is(PrimitiveType::Token)
    }

    /// XLA's `Shape::IsOpaque`.
    ///
    /// ```
    /// assert!("opaque[]".parse::<schema::Shape>().unwrap().is_opaque());
    /// ```
    pub fn is_opaque(&self) -> bool {
        self.type_is(PrimitiveType::OpaqueType)
    }

    /// XLA's `Shape::IsBuffer`.
    ///
    /// ```
    /// assert!("b(s8[3])".parse::<schema::Shape>().unwrap().is_buffer());
    /// ```
    pub fn is_buffer(&self) -> bool {
        self.type_is(PrimitiveType::Buffer)
    }

    /// XLA's `Shape::AreAllLeavesIntegers`: every leaf an integer array
    /// (through tuples; a buffer answers for its array).
    ///
    /// ```
    /// assert!("(s8[2], (u4[]))".parse::<schema::Shape>().unwrap().are_all_leaves_integers());
    /// assert!(!"(s8[2], pred[])".parse::<schema::Shape>().unwrap().are_all_leaves_integers());
    /// ```
    pub fn are_all_leaves_integers(&self) -> bool {
        if self.is_tuple() || self.is_buffer() {
            return self.tuple_shapes.iter().all(Shape::are_all_leaves_integers);
        }
        PrimitiveType::try_from(self.element_type).is_ok_and(PrimitiveType::is_integral)
    }

    /// XLA's `Shape::is_dynamic_dimension`: whether dimension `d` is
    /// dynamic (`false` for a dimension the shape does not have).
    ///
    /// ```
    /// let shape: schema::Shape = "f32[<=2,3]".parse().unwrap();
    /// assert!(shape.is_dynamic_dimension(0) && !shape.is_dynamic_dimension(1));
    /// ```
    pub fn is_dynamic_dimension(&self, d: usize) -> bool {
        self.is_dynamic_dimension.get(d).copied().unwrap_or(false)
    }

    /// XLA's `Shape::is_static_dimension`: dimension `d` exists and is not
    /// dynamic.
    ///
    /// ```
    /// let shape: schema::Shape = "f32[<=2,3]".parse().unwrap();
    /// assert!(shape.is_static_dimension(1) && !shape.is_static_dimension(0));
    /// ```
    pub fn is_static_dimension(&self, d: usize) -> bool {
        d < self.dimensions.len() && !self.is_dynamic_dimension(d)
    }

    /// XLA's `Shape::is_unbounded_dynamic_dimension`: dimension `d` is `?`.
    ///
    /// ```
    /// let shape: schema::Shape = "f32[?,<=3]".parse().unwrap();
    /// assert!(shape.is_unbounded_dynamic_dimension(0) && !shape.is_unbounded_dynamic_dimension(1));
    /// ```
    pub fn is_unbounded_dynamic_dimension(&self, d: usize) -> bool {
        self.dimensions.get(d) == Some(&UNBOUNDED_SIZE)
    }

    /// XLA's `Shape::is_bounded_dynamic_dimension`: dimension `d` is
    /// dynamic with a bound (`<=N`).
    ///
    /// ```
    /// let shape: schema::Shape = "f32[?,<=3]".parse().unwrap();
    /// assert!(shape.is_bounded_dynamic_dimension(1) && !shape.is_bounded_dynamic_dimension(0));
    /// ```
    pub fn is_bounded_dynamic_dimension(&self, d: usize) -> bool {
        self.is_dynamic_dimension(d) && !self.is_unbounded_dynamic_dimension(d)
    }

    /// XLA's `Shape::set_unbounded_dynamic_dimension`: makes dimension `d`
    /// `?`; `false` (and no change) for a dimension the shape does not
    /// have.
    ///
    /// ```
    /// let mut shape: schema::Shape = "f32[2,3]".parse().unwrap();
    /// assert!(shape.set_unbounded_dynamic_dimension(1));
    /// assert_eq!(shape.to_string(), "f32[2,?]{1,0}");
    /// ```
    pub fn set_unbounded_dynamic_dimension(&mut self, d: usize) -> bool {
        if d >= self.dimensions.len() {
            return false;
        }
        if self.is_dynamic_dimension.len() != self.dimensions.len() {
            self.is_dynamic_dimension
                .resize(self.dimensions.len(), false);
        }
        self.is_dynamic_dimension[d] = true;
        self.dimensions[d] = UNBOUNDED_SIZE;
        true
    }

    /// Whether some array of the shape (through tuples) has a dimension
    /// for which `pred` holds.
    fn any_dimension(&self, pred: &impl Fn(&Shape, usize) -> bool) -> bool {
        if self.is_tuple() || self.is_buffer() {
            return self.tuple_shapes.iter().any(|s| s.any_dimension(pred));
        }
        (0..self.dimensions.len()).any(|d| pred(self, d))
    }

    /// XLA's `Shape::is_static`: no dynamic dimension (through tuples).
    ///
    /// ```
    /// assert!(!"(f32[2], s8[<=3])".parse::<schema::Shape>().unwrap().is_static());
    /// ```
    pub fn is_static(&self) -> bool {
        !self.any_dimension(&|s, d| s.is_dynamic_dimension(d))
    }

    /// XLA's `Shape::is_dynamic`: some dynamic dimension (through tuples).
    ///
    /// ```
    /// assert!("(f32[2], s8[<=3])".parse::<schema::Shape>().unwrap().is_dynamic());
    /// ```
    pub fn is_dynamic(&self) -> bool {
        !self.is_static()
    }

    /// XLA's `Shape::is_unbounded_dynamic`: some `?` dimension (through
    /// tuples).
    ///
    /// ```
    /// assert!("(f32[?])".parse::<schema::Shape>().unwrap().is_unbounded_dynamic());
    /// ```
    pub fn is_unbounded_dynamic(&self) -> bool {
        self.any_dimension(&|s, d| s.is_unbounded_dynamic_dimension(d))
    }

    /// XLA's `Shape::is_bounded_dynamic`: some `<=N` dimension (through
    /// tuples).
    ///
    /// ```
    /// assert!(!"(f32[?])".parse::<schema::Shape>().unwrap().is_bounded_dynamic());
    /// assert!("f32[<=4]".parse::<schema::Shape>().unwrap().is_bounded_dynamic());
    /// ```
    pub fn is_bounded_dynamic(&self) -> bool {
        self.any_dimension(&|s, d| s.is_bounded_dynamic_dimension(d))
    }

    /// XLA's `Shape::dimensions_minor`: the size of the `index`-th most
    /// minor dimension in the layout (`None` without a layout or for an
    /// index outside it).
    ///
    /// ```
    /// let shape: schema::Shape = "f32[2,3,5]{0,2,1}".parse().unwrap();
    /// assert_eq!((shape.dimensions_minor(0), shape.dimensions_minor(1)), (Some(2), Some(5)));
    /// ```
    pub fn dimensions_minor(&self, index: usize) -> Option<i64> {
        let layout = self.layout.as_deref()?;
        let d = usize::try_from(*layout.minor_to_major.get(index)?).ok()?;
        self.dimensions.get(d).copied()
    }

    /// XLA's `Shape::clear_dynamic_dimensions`: every dimension static at
    /// its bound (through tuples), and the dynamic-shape metadata prefix of
    /// a dynamic array's layout cleared.
    ///
    /// ```
    /// let mut shape: schema::Shape = "(f32[<=2,3], s8[4])".parse().unwrap();
    /// shape.clear_dynamic_dimensions();
    /// assert_eq!(shape.to_string(), "(f32[2,3]{1,0}, s8[4]{0})");
    /// ```
    pub fn clear_dynamic_dimensions(&mut self) {
        if self.is_tuple() || self.is_buffer() {
            for element in &mut self.tuple_shapes {
                element.clear_dynamic_dimensions();
            }
            return;
        }
        if self.is_dynamic()
            && let Some(layout) = self.layout.as_deref_mut()
        {
            layout.dynamic_shape_metadata_prefix_bytes = 0;
        }
        for flag in &mut self.is_dynamic_dimension {
            *flag = false;
        }
    }
}

impl ProgramShape {
    /// XLA's `ProgramShape::AddParameter`: a parameter with its name.
    ///
    /// ```
    /// let mut program = schema::ProgramShape::default();
    /// program.add_parameter("f32[2]".parse().unwrap(), "x");
    /// program.result = Some("f32[2]".parse().unwrap());
    /// assert_eq!(program.to_string(), "(x: f32[2]) -> f32[2]");
    /// ```
    pub fn add_parameter(&mut self, shape: Shape, name: impl Into<String>) {
        self.parameters.push(shape);
        self.parameter_names.push(name.into());
    }

    /// XLA's `ProgramShape::clear_parameter_names`: every name emptied (the
    /// parameters kept).
    ///
    /// ```
    /// let mut program = schema::ProgramShape::default();
    /// program.add_parameter("f32[2]".parse().unwrap(), "x");
    /// program.clear_parameter_names();
    /// assert_eq!(program.parameter_names, [""]);
    /// ```
    pub fn clear_parameter_names(&mut self) {
        for name in &mut self.parameter_names {
            name.clear();
        }
    }
}
