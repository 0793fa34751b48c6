//! Shardy's tensor sharding (`#sdy.sharding<@mesh, [{"a"}, {}]>`) and its
//! per-value list.

use crate::sdy::mesh::SdyMesh;

/// A mesh axis or a sub-axis of one (`"a"`, `"a":(2)4`: pre-size 2,
/// size 4).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SdyAxisRef {
    /// The axis name.
    pub name: String,
    /// For a sub-axis, `(pre_size, size)`.
    pub sub: Option<(i64, i64)>,
}

impl SdyAxisRef {
    /// A whole axis.
    pub fn axis(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            sub: None,
        }
    }
}

/// How one tensor dimension is sharded: its axes (major first), whether more
/// may be added (`?` when open) and its priority (`p0`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SdyDim {
    /// The axes, major first.
    pub axes: Vec<SdyAxisRef>,
    /// False for an open dimension (`{"a", ?}`, `{?}`).
    pub closed: bool,
    /// The priority, if any.
    pub priority: Option<i64>,
}

/// The mesh a sharding names: a symbol (`@mesh`) or an inline mesh.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum MeshRef {
    /// `@name`.
    Symbol(String),
    /// `mesh<[...]>` written in place.
    Inline(SdyMesh),
}

/// Shardy's `TensorShardingAttr`.
///
/// ```
/// use sharding_util::sdy::SdySharding;
///
/// let text = r#"#sdy.sharding<@mesh, [{"a", ?}p1, {?}, {"b":(1)2}], replicated={"c"}, unreduced={"b":(2)2}>"#;
/// let s: SdySharding = text.parse().unwrap();
/// assert_eq!(s.dims.len(), 3);
/// assert_eq!(s.to_string(), text);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SdySharding {
    /// The mesh.
    pub mesh: MeshRef,
    /// One entry per tensor dimension.
    pub dims: Vec<SdyDim>,
    /// Axes named as replicated.
    pub replicated: Vec<SdyAxisRef>,
    /// Axes holding partial results.
    pub unreduced: Vec<SdyAxisRef>,
}

/// Shardy's `TensorShardingPerValueAttr`: one sharding per result
/// (`#sdy.sharding_per_value<[<@mesh, [...]>, ...]>`).
///
/// ```
/// use sharding_util::sdy::SdyShardingPerValue;
///
/// let text = r#"#sdy.sharding_per_value<[<@mesh, [{}, {"a"}]>, <@mesh, []>]>"#;
/// let s: SdyShardingPerValue = text.parse().unwrap();
/// assert_eq!(s.0.len(), 2);
/// assert_eq!(s.to_string(), text);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SdyShardingPerValue(pub Vec<SdySharding>);
