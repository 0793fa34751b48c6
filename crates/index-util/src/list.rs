//! [`dimension_list`]: integers as XLA prints dimension lists.

/// `[a,b,c]`, as XLA prints dimension lists (and index and stride lists
/// in the same style).
///
/// ```
/// assert_eq!(index_util::dimension_list(&[2, -3]), "[2,-3]");
/// assert_eq!(index_util::dimension_list(&[]), "[]");
/// ```
#[must_use]
pub fn dimension_list(values: &[i64]) -> String {
    let items: Vec<String> = values.iter().map(i64::to_string).collect();
    format!("[{}]", items.join(","))
}
