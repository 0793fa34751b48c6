//! Every xla_data.proto message that XLA embedded in real `HloModuleProto`s
//! (`tests/golden/embedded_messages.jsonl`, cut from the module bytes by
//! `build-tools/gen_embedded_messages.py`) decodes and encodes back to the
//! very bytes XLA wrote: with the prost type of the message, and as a
//! prost-reflect `DynamicMessage` through [`schema::decode_message`] and
//! [`schema::encode_message`].
//!
//! A map entry (`xla.FrontendAttributes.MapEntry`) is not a message on its
//! own on the wire: it is checked inside its map, as a one-entry message of
//! the type that holds the map.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;

use prost::Message;
use prost_reflect::Kind;

/// The prost type of each message of XLA's xla_data.proto (by XLA's full
/// name; map entries have none): decodes the bytes and encodes them again.
macro_rules! typed {
    ($($name:literal => $type:ty,)*) => {
        /// The names [`typed_round_trip`] knows.
        const TYPED: &[&str] = &[$($name),*];

        /// `bytes` decoded as the prost type of `name` and encoded again;
        /// `None` if `name` has no prost type.
        fn typed_round_trip(name: &str, bytes: &[u8]) -> Option<Result<Vec<u8>, String>> {
            match name {
                $($name => Some(<$type>::decode(bytes).map(|m| m.encode_to_vec()).map_err(|e| e.to_string())),)*
                _ => None,
            }
        }
    };
}

typed! {
    "xla.PaddingConfig" => schema::PaddingConfig,
    "xla.PaddingConfig.PaddingConfigDimension" => schema::padding_config::PaddingConfigDimension,
    "xla.TileProto" => schema::Tile,
    "xla.SplitConfigProto" => schema::SplitConfig,
    "xla.LayoutProto" => schema::Layout,
    "xla.ShapeProto" => schema::Shape,
    "xla.ProgramShapeProto" => schema::ProgramShape,
    "xla.ComputationStats" => schema::ComputationStats,
    "xla.Payload" => schema::Payload,
    "xla.OpMetadata" => schema::OpMetadata,
    "xla.OpMetadata.ProfileInfo" => schema::op_metadata::ProfileInfo,
    "xla.ExecutionProfile" => schema::ExecutionProfile,
    "xla.ExecutionHandle" => schema::ExecutionHandle,
    "xla.GlobalDataHandle" => schema::GlobalDataHandle,
    "xla.DeviceHandle" => schema::DeviceHandle,
    "xla.ChannelHandle" => schema::ChannelHandle,
    "xla.DeviceAssignmentProto" => schema::DeviceAssignmentProto,
    "xla.DeviceAssignmentProto.ComputationDevice" => schema::device_assignment_proto::ComputationDevice,
    "xla.LiteralProto" => schema::LiteralProto,
    "xla.WindowDimension" => schema::WindowDimension,
    "xla.Window" => schema::Window,
    "xla.GatherDimensionNumbers" => schema::GatherDimensionNumbers,
    "xla.ScatterDimensionNumbers" => schema::ScatterDimensionNumbers,
    "xla.ConvolutionDimensionNumbers" => schema::ConvolutionDimensionNumbers,
    "xla.SparsityConfig" => schema::SparsityConfig,
    "xla.SparsityConfig.TensorSparsityConfig" => schema::sparsity_config::TensorSparsityConfig,
    "xla.BlockScalingConfig" => schema::BlockScalingConfig,
    "xla.BlockScalingConfig.TensorBlockScalingConfig" => schema::block_scaling_config::TensorBlockScalingConfig,
    "xla.DotDimensionNumbers" => schema::DotDimensionNumbers,
    "xla.RaggedDotDimensionNumbers" => schema::RaggedDotDimensionNumbers,
    "xla.ShuffleMode" => schema::ShuffleMode,
    "xla.ShuffleMode.Rotate" => schema::shuffle_mode::Rotate,
    "xla.TriangularSolveOptions" => schema::TriangularSolveOptions,
    "xla.CholeskyOptions" => schema::CholeskyOptions,
    "xla.CubScanOptions" => schema::CubScanOptions,
    "xla.SortOptions" => schema::SortOptions,
    "xla.FrontendAttributes" => schema::FrontendAttributes,
    "xla.Statistic" => schema::Statistic,
    "xla.StatisticsViz" => schema::StatisticsViz,
    "xla.MeshProto" => schema::MeshProto,
    "xla.MeshProto.MeshAxis" => schema::mesh_proto::MeshAxis,
    "xla.MeshProto.IotaTransform" => schema::mesh_proto::IotaTransform,
    "xla.AxisRefProto" => schema::AxisRefProto,
    "xla.AxisRefProto.SubAxis" => schema::axis_ref_proto::SubAxis,
    "xla.NamedShardingProto" => schema::NamedShardingProto,
    "xla.NamedShardingProto.DimensionSharding" => schema::named_sharding_proto::DimensionSharding,
    "xla.OpSharding" => schema::OpSharding,
    "xla.ReplicaGroup" => schema::ReplicaGroup,
    "xla.MeshAxesReplicaGroupListProto" => schema::MeshAxesReplicaGroupListProto,
    "xla.IotaReplicaGroupListProto" => schema::IotaReplicaGroupListProto,
    "xla.CollectiveDeviceListProto" => schema::CollectiveDeviceListProto,
    "xla.SourceTarget" => schema::SourceTarget,
    "xla.ResultAccuracy" => schema::ResultAccuracy,
    "xla.ResultAccuracy.Tolerance" => schema::result_accuracy::Tolerance,
    "xla.PrecisionConfig" => schema::PrecisionConfig,
    "xla.ParameterReplication" => schema::ParameterReplication,
    "xla.WhileLoopBackendConfig" => schema::WhileLoopBackendConfig,
    "xla.WhileLoopBackendConfig.KnownInitStep" => schema::while_loop_backend_config::KnownInitStep,
    "xla.WhileLoopBackendConfig.KnownTripCount" => schema::while_loop_backend_config::KnownTripCount,
    "xla.WhileLoopBackendConfig.KnownInductionVariable" => schema::while_loop_backend_config::KnownInductionVariable,
    "xla.WhileLoopBackendConfig.DynamicVariable" => schema::while_loop_backend_config::DynamicVariable,
    "xla.OutputOperandAliasing" => schema::OutputOperandAliasing,
    "xla.OriginalArrayProto" => schema::OriginalArrayProto,
    "xla.OriginalValueElementProto" => schema::OriginalValueElementProto,
    "xla.OriginalValueProto" => schema::OriginalValueProto,
    "xla.GemmPerfTableEntry" => schema::GemmPerfTableEntry,
    "xla.GemmPerfTableEntryValues" => schema::GemmPerfTableEntryValues,
    "xla.GemmPerfTable" => schema::GemmPerfTable,
}

/// `bytes` decoded as a `DynamicMessage` of XLA's type `name` and encoded
/// again; a map entry is wrapped into a one-entry message of its map's type
/// first and unwrapped after.
fn dynamic_round_trip(name: &str, bytes: &[u8]) -> Result<Vec<u8>, String> {
    let descriptor = schema::message_descriptor(name).map_err(|e| e.to_string())?;
    if !descriptor.is_map_entry() {
        let message = schema::decode_message(&descriptor, bytes).map_err(|e| e.to_string())?;
        return Ok(schema::encode_message(&message));
    }
    let parent = descriptor
        .parent_message()
        .ok_or("a map entry without a parent")?;
    let map = parent
        .fields()
        .find(|f| matches!(f.kind(), Kind::Message(m) if m == descriptor))
        .ok_or("no map field of the entry type")?;
    let wrap = |payload: &[u8]| {
        let mut out = Vec::new();
        prost::encoding::encode_key(
            map.number(),
            prost::encoding::WireType::LengthDelimited,
            &mut out,
        );
        prost::encoding::encode_varint(payload.len() as u64, &mut out);
        out.extend_from_slice(payload);
        out
    };
    let wrapped = wrap(bytes);
    let message = schema::decode_message(&parent, &wrapped).map_err(|e| e.to_string())?;
    let again = schema::encode_message(&message);
    // The prost type of the map's message must give the same bytes.
    if let Some(typed) = typed_round_trip(parent.full_name(), &wrapped) {
        let typed = typed?;
        if typed != again {
            return Err(format!(
                "the prost type of {} wrote {}",
                parent.full_name(),
                conformance::hex_encode(&typed)
            ));
        }
    }
    let header = wrap(&[]).len() - 1 + prost::encoding::encoded_len_varint(bytes.len() as u64);
    if again.len() < header || again[..header] != wrapped[..header] {
        return Err(format!(
            "the map's message came back as {}",
            conformance::hex_encode(&again)
        ));
    }
    Ok(again[header..].to_vec())
}

#[test]
fn every_embedded_message_round_trips_byte_for_byte() {
    let rows = conformance::load("embedded_messages.jsonl").unwrap();
    assert!(rows.len() > 900, "{} rows", rows.len());
    let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    for row in &rows {
        let name = conformance::required(row, "message").unwrap();
        let hex = conformance::required(row, "hex").unwrap();
        let source = conformance::required(row, "source").unwrap();
        let bytes = conformance::hex_decode(hex).unwrap();
        let count = counts.entry(name.to_string()).or_default();
        count.0 += 1;
        match dynamic_round_trip(name, &bytes) {
            Ok(again) if again == bytes => {}
            Ok(again) => failures.push(format!(
                "{name} ({source}): DynamicMessage wrote {} for {hex}",
                conformance::hex_encode(&again)
            )),
            Err(e) => failures.push(format!("{name} ({source}): DynamicMessage: {e}")),
        }
        match typed_round_trip(name, &bytes) {
            Some(Ok(again)) if again == bytes => count.1 += 1,
            Some(Ok(again)) => failures.push(format!(
                "{name} ({source}): prost wrote {} for {hex}",
                conformance::hex_encode(&again)
            )),
            Some(Err(e)) => failures.push(format!("{name} ({source}): prost: {e}")),
            None if schema::message_descriptor(name).is_ok_and(|d| d.is_map_entry()) => {}
            None => failures.push(format!("{name}: no prost type in the table")),
        }
    }
    for (name, (rows, typed)) in &counts {
        println!("{name:<45} {rows:>4} rows, {typed:>4} through the prost type");
    }
    println!("{} rows, {} message types", rows.len(), counts.len());
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_prost_table_covers_every_message_of_xlas_file() {
    let names: Vec<String> = schema::message_names()
        .unwrap()
        .into_iter()
        .filter(|n| {
            ![
                "xla.Shape",
                "xla.Layout",
                "xla.Tile",
                "xla.SplitConfig",
                "xla.ProgramShape",
                "xla.ShapeIndex",
            ]
            .contains(&n.as_str())
        })
        .collect();
    let mut typed: Vec<&str> = TYPED.to_vec();
    typed.sort_unstable();
    assert_eq!(names, typed);
}
