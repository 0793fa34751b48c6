//! Helpers shared by the fuzz targets' naive references.

use std::ops::AddAssign;

/// Calls `f` with every multi-index of `shape`, row-major; nothing if a
/// size is 0 (or negative).
pub fn for_each_index<T>(shape: &[T], mut f: impl FnMut(&[T]))
where
    T: Copy + PartialOrd + From<u8> + AddAssign,
{
    let (zero, one) = (T::from(0), T::from(1));
    if shape.iter().any(|&size| size <= zero) {
        return;
    }
    let mut index = vec![zero; shape.len()];
    loop {
        f(&index);
        let mut d = shape.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            index[d] += one;
            if index[d] < shape[d] {
                break;
            }
            index[d] = zero;
        }
    }
}
