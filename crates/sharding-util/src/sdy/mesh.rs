//! Shardy's mesh (`#sdy.mesh<["a"=2, "b"=4], device_ids=[...]>`).

/// A Shardy mesh: named axes (major first) and, optionally, the device of
/// each mesh position (`device_ids`). No axes and one device id is a
/// maximal mesh (one device holds everything); no axes and no ids is the
/// empty mesh (everything replicated).
///
/// ```
/// use sharding_util::sdy::SdyMesh;
///
/// let mesh: SdyMesh = r#"sdy.mesh @m = <["x"=2, "y"=2], device_ids=[3, 2, 1, 0]> {k = 1}"#
///     .parse()
///     .unwrap();
/// assert_eq!(mesh.name.as_deref(), Some("m"));
/// assert_eq!(mesh.to_string(), r#"#sdy.mesh<["x"=2, "y"=2], device_ids=[3, 2, 1, 0]>"#);
/// assert_eq!(mesh.line(), r#"sdy.mesh @m = <["x"=2, "y"=2], device_ids=[3, 2, 1, 0]>"#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SdyMesh {
    /// The symbol name when read from a `sdy.mesh @name = ...` line.
    pub name: Option<String>,
    /// The axes, name and size, major first.
    pub axes: Vec<(String, i64)>,
    /// The device ids in mesh order, when given.
    pub device_ids: Option<Vec<i64>>,
}

impl SdyMesh {
    /// A mesh of `axes` with devices `0..n` in mesh order.
    pub fn new(axes: Vec<(String, i64)>) -> Self {
        Self {
            name: None,
            axes,
            device_ids: None,
        }
    }

    /// The size of axis `name`, if the mesh has it.
    pub fn axis_size(&self, name: &str) -> Option<i64> {
        self.axes.iter().find(|(n, _)| n == name).map(|(_, s)| *s)
    }

    /// The position of axis `name` in the mesh.
    pub fn axis_index(&self, name: &str) -> Option<usize> {
        self.axes.iter().position(|(n, _)| n == name)
    }

    /// Whether this is a maximal mesh: no axes and one device id.
    pub fn maximal_device(&self) -> Option<i64> {
        match (self.axes.is_empty(), self.device_ids.as_deref()) {
            (true, Some([id])) => Some(*id),
            _ => None,
        }
    }
}
