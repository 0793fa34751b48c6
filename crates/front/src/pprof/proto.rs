//! The messages of google/pprof's `profile.proto` that a memory profile
//! uses, with their field numbers (mappings, the drop/keep regexes and
//! the period are left out: a decoder skips what it does not know, and
//! pprof defaults what is absent).

/// A whole profile: every string once in `string_table` (entry 0 the
/// empty string), referred to by index.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Profile {
    /// What each of a sample's values measures.
    #[prost(message, repeated, tag = "1")]
    pub sample_type: Vec<ValueType>,
    /// The samples: one per buffer.
    #[prost(message, repeated, tag = "2")]
    pub sample: Vec<Sample>,
    /// The locations the samples' stacks name.
    #[prost(message, repeated, tag = "4")]
    pub location: Vec<Location>,
    /// The functions the locations are in.
    #[prost(message, repeated, tag = "5")]
    pub function: Vec<Function>,
    /// Every string, entry 0 the empty one.
    #[prost(string, repeated, tag = "6")]
    pub string_table: Vec<String>,
    /// Free text shown with the profile (indices into the string table).
    #[prost(int64, repeated, tag = "13")]
    pub comment: Vec<i64>,
}

/// A value's type and unit (indices into the string table).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ValueType {
    /// `space`, `allocations`.
    #[prost(int64, tag = "1")]
    pub r#type: i64,
    /// `bytes`, `count`.
    #[prost(int64, tag = "2")]
    pub unit: i64,
}

/// One sample: its stack (innermost location first), its values (one per
/// sample type) and its labels.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Sample {
    /// Location ids, the innermost first.
    #[prost(uint64, repeated, tag = "1")]
    pub location_id: Vec<u64>,
    /// One value per sample type.
    #[prost(int64, repeated, tag = "2")]
    pub value: Vec<i64>,
    /// Key-value labels.
    #[prost(message, repeated, tag = "3")]
    pub label: Vec<Label>,
}

/// A label of a sample: `key` and its string (indices into the string
/// table).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Label {
    /// The key.
    #[prost(int64, tag = "1")]
    pub key: i64,
    /// The value, a string.
    #[prost(int64, tag = "2")]
    pub str: i64,
}

/// A place in the program: here one line of one function.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Location {
    /// Its id, from 1.
    #[prost(uint64, tag = "1")]
    pub id: u64,
    /// The lines (one: no inlining here).
    #[prost(message, repeated, tag = "4")]
    pub line: Vec<Line>,
}

/// A line of a function.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Line {
    /// The function's id.
    #[prost(uint64, tag = "1")]
    pub function_id: u64,
    /// The line number (0: unknown).
    #[prost(int64, tag = "2")]
    pub line: i64,
    /// The column (0: unknown).
    #[prost(int64, tag = "3")]
    pub column: i64,
}

/// A function: its name and file (indices into the string table).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Function {
    /// Its id, from 1.
    #[prost(uint64, tag = "1")]
    pub id: u64,
    /// The name people read.
    #[prost(int64, tag = "2")]
    pub name: i64,
    /// The name the system knows it by (the same here).
    #[prost(int64, tag = "3")]
    pub system_name: i64,
    /// The source file.
    #[prost(int64, tag = "4")]
    pub filename: i64,
}
