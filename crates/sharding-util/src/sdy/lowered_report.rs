//! What each device holds of a lowered module's arguments and results (the
//! report `xla-shape lowered` prints).

use std::collections::HashMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::{ErrorKind, ShardingError};
use crate::sdy::error::ShardyError;
use crate::sdy::error::invalid;
use crate::sdy::lowered::{LoweredModule, LoweredValue, ValueKind};
use crate::sdy::mesh::SdyMesh;
use crate::sdy::mesh_index::MeshIndex;
use crate::sdy::sharding::{MeshRef, SdySharding};
use crate::shard_report::{MAX_LISTED_DEVICES, ShardReport};
use crate::sharding::{HloSharding, Kind};
use crate::table::{header, table};

/// Where an argument's or result's sharding comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ShardingSource {
    /// The lowered module: its `sdy.sharding`, or for a module of one
    /// device, that device (a value without a sharding is whole there).
    Lowered,
    /// None in the lowered module: the sharding XLA chose, read from the
    /// compiled module ([`LoweredReport::with_chosen`]).
    Compiled,
    /// None in the lowered module of more than one device: left to XLA's
    /// sharding propagation, which chooses it when the module is compiled
    /// (jax's `jit` without `out_shardings`); no bytes are known.
    Unspecified,
}

impl fmt::Display for ShardingSource {
    /// `lowered`, `compiled` or `unspecified`, as the JSON form spells it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            Self::Lowered => "lowered",
            Self::Compiled => "compiled",
            Self::Unspecified => "unspecified",
        })
    }
}

/// One argument or result: its type, its sharding in Shardy's and XLA's
/// text, its shard shape and the bytes each device holds (none of these
/// three for an unspecified sharding).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoweredEntry {
    /// Argument or result.
    pub kind: ValueKind,
    /// Its position among the arguments or among the results.
    pub index: usize,
    /// `%arg0`, or jax's result name.
    pub name: Option<String>,
    /// The MLIR type (`tensor<16x8xf32>`).
    pub tensor_type: String,
    /// The XLA shape (`f32[16,8]`).
    pub shape: String,
    /// The `#sdy.sharding`, if it has one.
    pub sdy: Option<String>,
    /// XLA's sharding (`{replicated}` for a value without one on a single
    /// device; none where it is unspecified).
    pub hlo: Option<String>,
    /// The shard shape each device holds (none where unspecified).
    pub shard_shape: Option<String>,
    /// The bytes each device holds, by device (none where unspecified).
    pub bytes: Option<Vec<i64>>,
    /// Where the sharding comes from.
    pub source: ShardingSource,
}

/// A lowered module's arguments and results over its devices, with each
/// device's total bytes.
///
/// ```
/// use sharding_util::sdy::{LoweredModule, LoweredReport};
///
/// let text = r#"module @jit_f attributes {mhlo.num_partitions = 2 : i32} {
///   sdy.mesh @mesh = <["a"=2]>
///   func.func public @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}]>}) -> (tensor<8xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{}]>}) {
///     return %arg0 : tensor<8xf32>
///   }
/// }"#;
/// let report = LoweredReport::new(&LoweredModule::parse(text).unwrap()).unwrap();
/// assert_eq!(report.entries[0].hlo.as_deref(), Some("{devices=[2]<=[2]}"));
/// assert_eq!(report.entries[1].hlo.as_deref(), Some("{replicated}"));
/// assert_eq!(report.argument_bytes, [16, 16]);
/// assert_eq!(report.result_bytes, [32, 32]);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LoweredReport {
    /// The device count: `mhlo.num_partitions`, else the first mesh's.
    pub devices: i64,
    /// The arguments, then the results.
    pub entries: Vec<LoweredEntry>,
    /// Each device's bytes of all arguments.
    pub argument_bytes: Vec<i64>,
    /// Each device's bytes of all results.
    pub result_bytes: Vec<i64>,
}

impl LoweredReport {
    /// Converts every sharding and lists what each device holds; a value
    /// without a sharding in a module of more than one device is
    /// [`ShardingSource::Unspecified`] and counts in no total.
    ///
    /// # Errors
    ///
    /// As [`LoweredTotals::new`] and [`LoweredTotals::entry`].
    pub fn new(module: &LoweredModule) -> Result<Self, ShardyError> {
        Self::with_chosen(module, &[])
    }

    /// As [`LoweredReport::new`], with the shardings XLA chose where the
    /// lowered module gives none: `chosen[i]` for `module.values[i]` (the
    /// arguments, then the results; what the compiled module's entry
    /// computation gives its parameters and its root, or jax's
    /// `compiled.input_shardings` and `compiled.output_shardings`); `None`,
    /// or a slice shorter than the values, leaves a value as it is. A value
    /// the lowered module shards keeps its own sharding.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// use sharding_util::sdy::{LoweredModule, LoweredReport, ShardingSource};
    ///
    /// let text = r#"module @jit_f attributes {mhlo.num_partitions = 4 : i32} {
    ///   sdy.mesh @mesh = <["a"=4]>
    ///   func.func public @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}]>}) -> (tensor<8xf32> {jax.result_info = "result"}) {
    ///     return %arg0 : tensor<8xf32>
    ///   }
    /// }"#;
    /// let module = LoweredModule::parse(text).unwrap();
    /// let lowered = LoweredReport::new(&module).unwrap();
    /// assert_eq!(lowered.entries[1].source, ShardingSource::Unspecified);
    /// assert_eq!(lowered.entries[1].bytes, None);
    /// assert_eq!(lowered.result_bytes, [0, 0, 0, 0]);
    ///
    /// let chosen: HloSharding = "{devices=[4]<=[4]}".parse().unwrap();
    /// let compiled = LoweredReport::with_chosen(&module, &[None, Some(chosen)]).unwrap();
    /// assert_eq!(compiled.entries[1].source, ShardingSource::Compiled);
    /// assert_eq!(compiled.result_bytes, [8, 8, 8, 8]);
    /// ```
    ///
    /// # Errors
    ///
    /// As [`LoweredReport::new`]; also a chosen sharding that does not fit
    /// its value or the device count.
    pub fn with_chosen(
        module: &LoweredModule,
        chosen: &[Option<HloSharding>],
    ) -> Result<Self, ShardyError> {
        let mut totals = LoweredTotals::new(module)?;
        let entries = module
            .values
            .iter()
            .enumerate()
            .map(|(k, v)| totals.entry_chosen(module, v, chosen.get(k).and_then(Option::as_ref)))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            devices: totals.devices,
            entries,
            argument_bytes: totals.argument_bytes,
            result_bytes: totals.result_bytes,
        })
    }
}

/// The most device byte counts a report lists (entries times devices):
/// 2^25, about 300 MB of JSON.
pub const MAX_LISTED_BYTES: u64 = 1 << 25;

/// A [`LoweredReport`] built one entry at a time (for a module read with
/// [`LoweredModule::read`]): the device count, checked against the
/// module's meshes, and each device's totals so far.
///
/// ```
/// use sharding_util::sdy::{LoweredModule, LoweredTotals};
///
/// let text = r#"module attributes {mhlo.num_partitions = 2 : i32} {
///   sdy.mesh @mesh = <["a"=2]>
///   func.func public @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}]>}) -> tensor<8xf32> {
///   }
/// }"#;
/// let mut totals = None;
/// let mut hlo = Vec::new();
/// LoweredModule::read(text, |module, value| {
///     let t = match &mut totals {
///         Some(t) => t,
///         None => totals.insert(LoweredTotals::new(module)?),
///     };
///     hlo.push(t.entry(module, &value)?.hlo);
///     Ok(())
/// })
/// .unwrap();
/// // The result has no sharding: left to XLA's propagation.
/// assert_eq!(hlo, [Some("{devices=[2]<=[2]}".to_owned()), None]);
/// assert_eq!(totals.unwrap().result_bytes, [0, 0]);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct LoweredTotals {
    /// The device count: `mhlo.num_partitions`, else the first mesh's
    /// with axes, else 1.
    pub devices: i64,
    /// Each device's bytes of the arguments so far.
    pub argument_bytes: Vec<i64>,
    /// Each device's bytes of the results so far.
    pub result_bytes: Vec<i64>,
    /// The device byte counts listed so far.
    listed: u64,
    /// Each sharding converted so far, with the rank it was verified for.
    converted: HashMap<(SdySharding, usize), HloSharding>,
    /// The index of each of the module's meshes.
    indexes: Vec<MeshIndex>,
}

impl LoweredTotals {
    /// The device count of `module`, its meshes verified once and checked
    /// against it: a mesh with axes must hold exactly that many devices, a
    /// maximal mesh's device must be one of them.
    ///
    /// # Errors
    ///
    /// A device count not between 1 and [`MAX_LISTED_DEVICES`]; a mesh that
    /// Shardy's verifier rejects or that contradicts the count (or, with
    /// no `mhlo.num_partitions`, the first mesh).
    pub fn new(module: &LoweredModule) -> Result<Self, ShardyError> {
        let named = |mesh: &SdyMesh, e: ShardingError| {
            let name = mesh.name.as_deref().unwrap_or_default();
            ShardingError::new(e.kind(), format!("mesh @{name}: {}", e.message()))
        };
        let with_axes = module.meshes.iter().find(|m| !m.axes.is_empty());
        let (devices, from) = match (module.num_partitions, with_axes) {
            (Some(n), _) => (n, "mhlo.num_partitions is".to_string()),
            (None, Some(m)) => (
                m.device_count().map_err(|e| named(m, e))?,
                format!("mesh @{} holds", m.name.as_deref().unwrap_or_default()),
            ),
            (None, None) => (1, "the module has".to_string()),
        };
        if !(1..=MAX_LISTED_DEVICES).contains(&devices) {
            return Err(ShardingError::new(
                ErrorKind::TooLarge,
                format!("device count {devices} is not between 1 and {MAX_LISTED_DEVICES}"),
            )
            .into());
        }
        let mut indexes = Vec::with_capacity(module.meshes.len());
        for mesh in &module.meshes {
            let index = MeshIndex::new(mesh);
            mesh.verify_indexed(&index).map_err(|e| named(mesh, e))?;
            indexes.push(index);
            let contradiction = match mesh.maximal_device() {
                Some(id) if id >= devices => Some(format!("names device {id}")),
                Some(_) => None,
                None if mesh.axes.is_empty() => None,
                None => {
                    let n = mesh.device_count().map_err(|e| named(mesh, e))?;
                    (n != devices).then(|| format!("holds {n} devices"))
                }
            };
            if let Some(what) = contradiction {
                return Err(ShardingError::new(
                    ErrorKind::Invalid,
                    format!(
                        "mesh @{} {what}, but {from} {devices}",
                        mesh.name.as_deref().unwrap_or_default()
                    ),
                )
                .into());
            }
        }
        let width = usize::try_from(devices).unwrap_or(0);
        Ok(Self {
            devices,
            argument_bytes: vec![0; width],
            result_bytes: vec![0; width],
            listed: 0,
            converted: HashMap::new(),
            indexes,
        })
    }

    /// The entry of `value` (of `module`), its bytes added to the totals
    /// (none for a value left to XLA's sharding propagation:
    /// [`ShardingSource::Unspecified`]).
    ///
    /// # Errors
    ///
    /// A sharding that names an unknown mesh or that Shardy's verifier
    /// rejects (the message names the value), a sharding that does not fit
    /// its shape or the device count, sizes beyond `i64`, more than
    /// [`MAX_LISTED_BYTES`] device byte counts in all.
    pub fn entry(
        &mut self,
        module: &LoweredModule,
        v: &LoweredValue,
    ) -> Result<LoweredEntry, ShardyError> {
        self.entry_chosen(module, v, None)
    }

    /// As [`LoweredTotals::entry`], with `chosen` the sharding XLA chose
    /// for a value the lowered module gives none
    /// ([`ShardingSource::Compiled`]).
    ///
    /// # Errors
    ///
    /// As [`LoweredTotals::entry`]; also a chosen sharding that does not
    /// fit the value or the device count.
    pub fn entry_chosen(
        &mut self,
        module: &LoweredModule,
        v: &LoweredValue,
        chosen: Option<&HloSharding>,
    ) -> Result<LoweredEntry, ShardyError> {
        let devices = self.devices;
        let what = match (&v.name, v.kind) {
            (Some(n), _) => n.clone(),
            (None, ValueKind::Argument) => format!("argument {}", v.index),
            (None, ValueKind::Result) => format!("result {}", v.index),
        };
        let named =
            |e: ShardingError| ShardingError::new(e.kind(), format!("{what}: {}", e.message()));
        self.listed = self
            .listed
            .saturating_add(u64::try_from(devices).unwrap_or(u64::MAX));
        if self.listed > MAX_LISTED_BYTES {
            return Err(ShardingError::new(
                ErrorKind::TooLarge,
                format!(
                    "{what}: the report would list more than {MAX_LISTED_BYTES} device byte counts ({devices} devices per value)"
                ),
            )
            .into());
        }
        let rank = v.shape.dimensions.len();
        let (hlo, source) = match (&v.sharding, chosen) {
            (Some(s), _) => (
                self.converted(module, s, rank).map_err(named)?,
                ShardingSource::Lowered,
            ),
            (None, Some(hlo)) => (hlo.clone(), ShardingSource::Compiled),
            (None, None) if devices == 1 => {
                (HloSharding::new(Kind::Replicated), ShardingSource::Lowered)
            }
            (None, None) => {
                return Ok(LoweredEntry {
                    kind: v.kind,
                    index: v.index,
                    name: v.name.clone(),
                    tensor_type: v.tensor_type.clone(),
                    shape: v.shape.human_string(),
                    sdy: None,
                    hlo: None,
                    shard_shape: None,
                    bytes: None,
                    source: ShardingSource::Unspecified,
                });
            }
        };
        let report = ShardReport::new(&hlo, &v.shape, Some(devices)).map_err(named)?;
        let totals = match v.kind {
            ValueKind::Argument => &mut self.argument_bytes,
            ValueKind::Result => &mut self.result_bytes,
        };
        for (total, d) in totals.iter_mut().zip(&report.devices) {
            *total = total
                .checked_add(d.bytes)
                .ok_or_else(|| ShardingError::new(ErrorKind::TooLarge, "byte total overflows"))?;
        }
        Ok(LoweredEntry {
            kind: v.kind,
            index: v.index,
            name: v.name.clone(),
            tensor_type: v.tensor_type.clone(),
            shape: v.shape.human_string(),
            sdy: v.sharding.as_ref().map(ToString::to_string),
            hlo: Some(hlo.to_string()),
            shard_shape: Some(report.shard_shape.human_string()),
            bytes: Some(report.devices.iter().map(|d| d.bytes).collect()),
            source,
        })
    }

    /// The XLA sharding of `s` for a value of rank `rank`, verified once per
    /// sharding and rank (a module mesh by `new`, an inline one here).
    fn converted(
        &mut self,
        module: &LoweredModule,
        s: &SdySharding,
        rank: usize,
    ) -> Result<HloSharding, ShardingError> {
        if let Some(hlo) = self.converted.get(&(s.clone(), rank)) {
            return Ok(hlo.clone());
        }
        let inline;
        let index = match &s.mesh {
            MeshRef::Inline(m) => {
                inline = MeshIndex::new(m);
                m.verify_indexed(&inline)?;
                &inline
            }
            MeshRef::Symbol(name) => module
                .mesh(name)
                .and_then(|_| module.mesh_position(name))
                .and_then(|k| self.indexes.get(k))
                .ok_or_else(|| invalid(format!("unknown mesh: @{name}")))?,
        };
        s.verify_indexed(index, Some(rank))?;
        let hlo = s.to_hlo_verified(index)?;
        self.converted.insert((s.clone(), rank), hlo.clone());
        Ok(hlo)
    }
}

/// `N bytes on every device`, or the list by device.
fn bytes_text(bytes: &[i64]) -> String {
    match bytes.first() {
        Some(first) if bytes.iter().all(|b| b == first) => format!("{first} bytes on every device"),
        _ => {
            let text: Vec<String> = bytes.iter().map(ToString::to_string).collect();
            format!("bytes by device [{}]", text.join(","))
        }
    }
}

impl fmt::Display for LoweredEntry {
    /// The entry's lines in the report: `argument 0 %arg0: TYPE = SHAPE`,
    /// then its `sdy`, `hlo` and `shard` lines, each ending in a newline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            ValueKind::Argument => "argument",
            ValueKind::Result => "result",
        };
        let name = self
            .name
            .as_deref()
            .map(|n| format!(" {n}"))
            .unwrap_or_default();
        writeln!(
            f,
            "{kind} {}{name}: {} = {}",
            self.index, self.tensor_type, self.shape
        )?;
        if let Some(sdy) = &self.sdy {
            writeln!(f, "  sdy    {sdy}")?;
        }
        match (&self.hlo, &self.shard_shape, &self.bytes) {
            (Some(hlo), Some(shard_shape), Some(bytes)) => {
                let chosen = match self.source {
                    ShardingSource::Compiled => " (chosen by XLA)",
                    _ => "",
                };
                writeln!(f, "  hlo    {hlo}{chosen}")?;
                writeln!(f, "  shard  {shard_shape}, {}", bytes_text(bytes))
            }
            _ => writeln!(
                f,
                "  hlo    unspecified: left to XLA's sharding propagation (not counted below)"
            ),
        }
    }
}

/// The report's closing table: each device's argument, result and total
/// bytes.
pub(crate) fn totals_table(argument_bytes: &[i64], result_bytes: &[i64]) -> String {
    let mut rows = vec![header(&["device", "arguments", "results", "total"])];
    for (d, (a, r)) in argument_bytes.iter().zip(result_bytes).enumerate() {
        rows.push(vec![
            d.to_string(),
            a.to_string(),
            r.to_string(),
            a.saturating_add(*r).to_string(),
        ]);
    }
    format!("bytes per device\n{}", table(&rows).trim_end())
}

impl fmt::Display for LoweredTotals {
    /// The report's closing table ([`LoweredReport`]'s last lines).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&totals_table(&self.argument_bytes, &self.result_bytes))
    }
}

impl fmt::Display for LoweredReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} devices", self.devices)?;
        for e in &self.entries {
            write!(f, "{e}")?;
        }
        f.write_str(&totals_table(&self.argument_bytes, &self.result_bytes))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// A module over a mesh of `n` axes of size 1 (and one of 2), its
    /// argument sharded along the last and replicated on the first.
    fn many_axes(n: usize) -> String {
        let mut axes: Vec<String> = (0..n).map(|k| format!("\"a{k}\"=1")).collect();
        axes.push("\"z\"=2".to_string());
        let last = n - 1;
        format!(
            "module attributes {{mhlo.num_partitions = 2 : i32}} {{\n  sdy.mesh @mesh = <[{}]>\n  func.func public @main(%arg0: tensor<8xf32> {{sdy.sharding = #sdy.sharding<@mesh, [{{\"z\", \"a{last}\"}}], replicated={{\"a0\", \"a5\"}}>}}) -> (tensor<8xf32> {{sdy.sharding = #sdy.sharding<@mesh, [{{}}]>}}) {{\n    return %arg0 : tensor<8xf32>\n  }}\n}}\n",
            axes.join(", ")
        )
    }

    #[test]
    fn kinds_and_sources_honour_width_fill_and_alignment() {
        assert_eq!(format!("{:>10}|", ValueKind::Result), "    result|");
        assert_eq!(
            format!("{:-<12}|", ShardingSource::Lowered),
            "lowered-----|"
        );
        let by = crate::sdy::CountSource::Devices;
        assert_eq!(format!("{by:^13}|"), "  --devices  |");
    }

    #[test]
    fn a_report_too_large_to_list_is_refused_before_the_value_is_laid_out() {
        let text = "module attributes {mhlo.num_partitions = 4 : i32} {\n  func.func public @main(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>) {\n  }\n}";
        let module = LoweredModule::parse(text).unwrap();
        let mut totals = LoweredTotals::new(&module).unwrap();
        totals.listed = MAX_LISTED_BYTES - 4;
        let replicated = HloSharding::new(Kind::Replicated);
        assert_eq!(
            totals
                .entry_chosen(&module, &module.values[0], Some(&replicated))
                .unwrap()
                .bytes,
            Some(vec![32; 4])
        );
        let error = totals.entry(&module, &module.values[1]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "%arg1: the report would list more than 33554432 device byte counts (4 devices per value)"
        );
        assert_eq!(totals.argument_bytes, [32; 4]);
    }

    /// Reads and reports the module of `many_axes(100_000)`: the time it
    /// took.
    fn report_many_axes(text: &str) -> std::time::Duration {
        let start = std::time::Instant::now();
        let module = LoweredModule::parse(text).unwrap();
        let report = LoweredReport::new(&module).unwrap();
        let elapsed = start.elapsed();
        assert_eq!(report.entries[0].hlo.as_deref(), Some("{devices=[2]<=[2]}"));
        assert_eq!(report.argument_bytes, [16, 16]);
        assert_eq!(report.entries[1].hlo.as_deref(), Some("{replicated}"));
        elapsed
    }

    #[test]
    #[ignore = "times a mesh of 100,000 axes: run alone, in release"]
    fn a_mesh_of_many_axes_is_read_in_under_a_second() {
        let text = many_axes(100_000);
        let elapsed = report_many_axes(&text);
        println!("{elapsed:?} for {} bytes", text.len());
        assert!(elapsed.as_secs_f64() < 1.0, "{elapsed:?}");
    }

    #[test]
    fn a_mesh_of_many_axes_is_read_in_linear_time() {
        let text = many_axes(100_000);
        // 226 s of CPU before (a scan of the mesh per axis and per
        // reference); 0.37 s in a debug build now, seconds on a loaded
        // machine.
        let elapsed = report_many_axes(&text);
        assert!(
            elapsed.as_secs_f64() < 20.0,
            "{elapsed:?} for {} bytes",
            text.len()
        );
        // The verifier's errors are found as before, by lookups.
        let twice = text.replace("\"a7\"=1", "\"a3\"=1");
        let error = LoweredReport::new(&LoweredModule::parse(&twice).unwrap()).unwrap_err();
        assert_eq!(error.to_string(), "mesh @mesh: duplicate axis name: \"a3\"");
        let unknown = text.replace("[{\"z\", ", "[{\"b5\", ");
        let error = LoweredReport::new(&LoweredModule::parse(&unknown).unwrap()).unwrap_err();
        assert_eq!(error.to_string(), "%arg0: unknown axis name: \"b5\"");
        let unordered = text.replace("replicated={\"a0\", \"a5\"}", "replicated={\"a5\", \"a0\"}");
        let error = LoweredReport::new(&LoweredModule::parse(&unordered).unwrap()).unwrap_err();
        assert_eq!(
            error.to_string(),
            "%arg0: replicated axes are not ordered w.r.t. mesh"
        );
    }
}
