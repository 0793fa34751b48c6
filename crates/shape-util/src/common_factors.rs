//! XLA's `CommonFactors` (`xla/util.cc`): the boundaries where two
//! factorizations of the same number line up.

/// The bounds `(i, j)` such that `a[i0..i1]` and `b[j0..j1]` have equal
/// products for consecutive bounds, starting with `(0, 0)` and ending with
/// `(a.len(), b.len())`, in XLA's order. `None` if the products of `a` and
/// `b` differ or overflow.
pub(crate) fn common_factors(a: &[i64], b: &[i64]) -> Option<Vec<(usize, usize)>> {
    let product = |v: &[i64]| v.iter().try_fold(1_i64, |p, &d| p.checked_mul(d));
    if product(a)? != product(b)? {
        return None;
    }
    if a == b {
        return Some((0..=a.len()).map(|i| (i, i)).collect());
    }
    let mut bounds = Vec::new();
    let (mut i, mut j) = (0, 0);
    let mut prior: Option<(usize, usize)> = None;
    while i < a.len() && j < b.len() && a[i] == b[j] {
        prior = Some((i, j));
        bounds.push((i, j));
        i += 1;
        j += 1;
    }
    // Zeros make the remaining products equal without the factors lining
    // up: the rest is one group.
    if product(&a[i..])? != product(&b[j..])? {
        return Some(vec![(0, 0), (a.len(), b.len())]);
    }
    if product(&a[i..])? == 0 {
        bounds.push((i, j));
        bounds.push((a.len(), b.len()));
        return Some(bounds);
    }
    let (mut partial_a, mut partial_b) = (1_i64, 1_i64);
    loop {
        let advanced = prior.is_none_or(|(pi, pj)| i > pi || j > pj);
        if partial_a == partial_b && advanced {
            prior = Some((i, j));
            bounds.push((i, j));
            continue;
        }
        let (in_a, in_b) = (i < a.len(), j < b.len());
        if !in_a && !in_b {
            break;
        }
        let both_in = in_a && in_b;
        let step_a = in_a
            && (partial_a < partial_b
                || !in_b
                || (partial_a == partial_b && both_in && a[i] <= b[j]));
        let step_b = in_b
            && (partial_b < partial_a
                || !in_a
                || (partial_a == partial_b && both_in && b[j] <= a[i]));
        if step_a {
            partial_a = partial_a.checked_mul(a[i])?;
            i += 1;
        }
        if step_b {
            partial_b = partial_b.checked_mul(b[j])?;
            j += 1;
        }
        if !step_a && !step_b {
            // Cannot happen for equal products; stop rather than spin.
            return None;
        }
    }
    Some(bounds)
}

#[cfg(test)]
mod tests {
    use super::common_factors;

    #[test]
    fn spec_examples() {
        assert_eq!(
            common_factors(&[4, 1, 3, 5, 6, 7], &[2, 6, 1, 5, 1, 42]).unwrap(),
            [(0, 0), (3, 2), (3, 3), (4, 4), (4, 5), (6, 6)]
        );
        assert_eq!(
            common_factors(&[1, 1, 1, 1], &[1, 1, 1]).unwrap(),
            [(0, 0), (1, 1), (2, 2), (3, 3), (4, 3)]
        );
    }

    #[test]
    fn equal_inputs_pair_every_dimension() {
        assert_eq!(
            common_factors(&[2, 3], &[2, 3]).unwrap(),
            [(0, 0), (1, 1), (2, 2)]
        );
    }

    #[test]
    fn zeros_make_one_group() {
        // XLA's own example: after the common prefix the products differ.
        assert_eq!(
            common_factors(&[0, 10, 3], &[0, 3]).unwrap(),
            [(0, 0), (3, 2)]
        );
        assert_eq!(common_factors(&[2, 0], &[0, 5]).unwrap(), [(0, 0), (2, 2)]);
    }

    #[test]
    fn different_products_have_no_factors() {
        assert_eq!(common_factors(&[2, 3], &[7]), None);
    }

    #[test]
    fn simple_split() {
        assert_eq!(common_factors(&[6], &[2, 3]).unwrap(), [(0, 0), (1, 2)]);
        assert_eq!(common_factors(&[3, 4], &[6, 2]).unwrap(), [(0, 0), (2, 2)]);
    }
}
