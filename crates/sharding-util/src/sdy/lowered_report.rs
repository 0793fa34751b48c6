//! What each device holds of a lowered module's arguments and results (the
//! report `xla-shape lowered` prints).

use std::fmt;

use serde::Serialize;

use crate::error::{ErrorKind, ShardingError};
use crate::sdy::error::ShardyError;
use crate::sdy::lowered::{LoweredModule, ValueKind};
use crate::shard_report::{MAX_LISTED_DEVICES, ShardReport};
use crate::sharding::{HloSharding, Kind};
use crate::table::{header, table};

/// Where an argument's or result's sharding comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
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

/// One argument or result: its type, its sharding in Shardy's and XLA's
/// text, its shard shape and the bytes each device holds (none of these
/// three for an unspecified sharding).
#[derive(Debug, Clone, PartialEq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    /// A sharding that names an unknown mesh or that Shardy's verifier
    /// rejects (the message names the value), a sharding that does not fit
    /// its shape or the device count, sizes beyond `i64`.
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
        let devices = match module.num_partitions {
            Some(n) => n,
            None => match module.meshes.first() {
                Some(m) => m.device_count()?,
                None => 1,
            },
        };
        if !(1..=MAX_LISTED_DEVICES).contains(&devices) {
            return Err(ShardingError::new(
                ErrorKind::TooLarge,
                format!("device count {devices} is not between 1 and {MAX_LISTED_DEVICES}"),
            )
            .into());
        }
        let width = usize::try_from(devices).unwrap_or(0);
        let mut argument_bytes = vec![0_i64; width];
        let mut result_bytes = vec![0_i64; width];
        let mut entries = Vec::new();
        for (position, v) in module.values.iter().enumerate() {
            let what = match (&v.name, v.kind) {
                (Some(n), _) => n.clone(),
                (None, ValueKind::Argument) => format!("argument {}", v.index),
                (None, ValueKind::Result) => format!("result {}", v.index),
            };
            let named =
                |e: ShardingError| ShardingError::new(e.kind(), format!("{what}: {}", e.message()));
            let known = match (&v.sharding, chosen.get(position).and_then(Option::as_ref)) {
                (Some(s), _) => {
                    let mesh = match &s.mesh {
                        crate::sdy::MeshRef::Symbol(name) => module.mesh(name),
                        crate::sdy::MeshRef::Inline(_) => None,
                    };
                    let resolved = s.resolve_mesh(mesh).map_err(named)?;
                    s.verify(resolved, Some(v.shape.dimensions.len()))
                        .map_err(named)?;
                    Some((s.to_hlo(mesh).map_err(named)?, ShardingSource::Lowered))
                }
                (None, Some(hlo)) => Some((hlo.clone(), ShardingSource::Compiled)),
                (None, None) if devices == 1 => {
                    Some((HloSharding::new(Kind::Replicated), ShardingSource::Lowered))
                }
                (None, None) => None,
            };
            let (hlo, shard_shape, bytes, source) = match known {
                Some((hlo, source)) => {
                    let report = ShardReport::new(&hlo, &v.shape, Some(devices)).map_err(named)?;
                    let totals = match v.kind {
                        ValueKind::Argument => &mut argument_bytes,
                        ValueKind::Result => &mut result_bytes,
                    };
                    for (total, d) in totals.iter_mut().zip(&report.devices) {
                        *total = total.checked_add(d.bytes).ok_or_else(|| {
                            ShardingError::new(ErrorKind::TooLarge, "byte total overflows")
                        })?;
                    }
                    (
                        Some(hlo.to_string()),
                        Some(report.shard_shape.human_string()),
                        Some(report.devices.iter().map(|d| d.bytes).collect()),
                        source,
                    )
                }
                None => (None, None, None, ShardingSource::Unspecified),
            };
            entries.push(LoweredEntry {
                kind: v.kind,
                index: v.index,
                name: v.name.clone(),
                tensor_type: v.tensor_type.clone(),
                shape: v.shape.human_string(),
                sdy: v.sharding.as_ref().map(ToString::to_string),
                hlo,
                shard_shape,
                bytes,
                source,
            });
        }
        Ok(Self {
            devices,
            entries,
            argument_bytes,
            result_bytes,
        })
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

impl fmt::Display for LoweredReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} devices", self.devices)?;
        for e in &self.entries {
            let kind = match e.kind {
                ValueKind::Argument => "argument",
                ValueKind::Result => "result",
            };
            let name = e
                .name
                .as_deref()
                .map(|n| format!(" {n}"))
                .unwrap_or_default();
            writeln!(
                f,
                "{kind} {}{name}: {} = {}",
                e.index, e.tensor_type, e.shape
            )?;
            if let Some(sdy) = &e.sdy {
                writeln!(f, "  sdy    {sdy}")?;
            }
            match (&e.hlo, &e.shard_shape, &e.bytes) {
                (Some(hlo), Some(shard_shape), Some(bytes)) => {
                    let chosen = match e.source {
                        ShardingSource::Compiled => " (chosen by XLA)",
                        _ => "",
                    };
                    writeln!(f, "  hlo    {hlo}{chosen}")?;
                    writeln!(f, "  shard  {shard_shape}, {}", bytes_text(bytes))?;
                }
                _ => writeln!(
                    f,
                    "  hlo    unspecified: left to XLA's sharding propagation (not counted below)"
                )?,
            }
        }
        let mut rows = vec![header(&["device", "arguments", "results", "total"])];
        for (d, (a, r)) in self
            .argument_bytes
            .iter()
            .zip(&self.result_bytes)
            .enumerate()
        {
            rows.push(vec![
                d.to_string(),
                a.to_string(),
                r.to_string(),
                a.saturating_add(*r).to_string(),
            ]);
        }
        write!(f, "bytes per device\n{}", table(&rows).trim_end())
    }
}
