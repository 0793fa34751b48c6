//! Permutations of dimension numbers, as XLA's `Permute`,
//! `InversePermutation` and `ComposePermutations` use them.

/// `permutation` as indices if it is a permutation of `0..n`.
pub(crate) fn as_permutation(permutation: &[i64], n: usize) -> Option<Vec<usize>> {
    if permutation.len() != n {
        return None;
    }
    let mut seen = vec![false; n];
    permutation
        .iter()
        .map(|&p| {
            let p = usize::try_from(p).ok().filter(|&p| p < n)?;
            (!std::mem::replace(&mut seen[p], true)).then_some(p)
        })
        .collect()
}

/// XLA's `InversePermutation`: `inverse[p[i]] = i`.
pub(crate) fn inverse(permutation: &[usize]) -> Vec<usize> {
    let mut inverse = vec![0; permutation.len()];
    for (i, &p) in permutation.iter().enumerate() {
        inverse[p] = i;
    }
    inverse
}

/// XLA's `ComposePermutations(p, q)`: `result[i] = p[q[i]]`.
pub(crate) fn compose(p: &[usize], q: &[usize]) -> Vec<usize> {
    q.iter().map(|&i| p[i]).collect()
}

/// XLA's `Permute(input, permutation)`: `result[i] = input[permutation[i]]`.
pub(crate) fn permute<T: Copy>(input: &[T], permutation: &[usize]) -> Vec<T> {
    permutation.iter().map(|&p| input[p]).collect()
}

/// Dimension numbers as XLA stores them (`i64`).
pub(crate) fn to_i64s(values: &[usize]) -> Vec<i64> {
    values.iter().map(|&v| crate::kind::to_i64(v)).collect()
}
