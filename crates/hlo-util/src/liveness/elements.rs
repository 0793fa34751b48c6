//! Tuple elements named as operands: XLA's dumps (`--xla_dump_to`'s
//! `*after_optimizations.txt`) leave out the `get-tuple-element` of a
//! tuple's element and name it `%tuple#k` where it is used. Each such name
//! is numbered as an instruction of its own, the `get-tuple-element` it
//! stands for.

use std::collections::HashMap;

/// The elements named so far, each with the instruction number it gets.
#[derive(Debug, Default)]
pub(crate) struct Elements {
    first_id: usize,
    /// By tuple and index.
    by_element: HashMap<(usize, usize), usize>,
    /// Per element: its name, the tuple, the index, its first user.
    list: Vec<(String, usize, usize, usize)>,
}

impl Elements {
    /// Elements numbered from `first_id` (the module's instruction count).
    pub fn new(first_id: usize) -> Self {
        Self {
            first_id,
            ..Self::default()
        }
    }

    /// The instruction `name` stands for when it is `tuple#k` of an
    /// instruction of `names`, used by `user`.
    pub fn resolve(
        &mut self,
        name: &str,
        names: &HashMap<&str, usize>,
        user: usize,
    ) -> Option<usize> {
        let (tuple, index) = name.rsplit_once('#')?;
        if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let index: usize = index.parse().ok()?;
        let &tuple = names.get(tuple)?;
        if let Some(&id) = self.by_element.get(&(tuple, index)) {
            return Some(id);
        }
        let id = self.first_id.checked_add(self.list.len())?;
        self.by_element.insert((tuple, index), id);
        self.list.push((name.to_owned(), tuple, index, user));
        Some(id)
    }

    /// The elements: name, tuple, index, first user; the first numbered
    /// `first_id`, the next one more, and so on.
    pub fn into_list(self) -> Vec<(String, usize, usize, usize)> {
        self.list
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_known_tuple_and_a_number_name_an_element() {
        let names: HashMap<&str, usize> = HashMap::from([("t", 0), ("a#b", 1)]);
        let mut elements = Elements::new(5);
        assert_eq!(elements.resolve("t#1", &names, 2), Some(5));
        assert_eq!(elements.resolve("t#1", &names, 3), Some(5));
        assert_eq!(elements.resolve("t#0", &names, 3), Some(6));
        assert_eq!(elements.resolve("t#", &names, 3), None);
        assert_eq!(elements.resolve("t#x", &names, 3), None);
        assert_eq!(elements.resolve("u#1", &names, 3), None);
        assert_eq!(elements.resolve("t", &names, 3), None);
    }
}
