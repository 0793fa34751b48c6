//! The schema's types inside a user's serde types: protobuf's JSON mapping,
//! the same JSON as `ProtoFormat::to_json`, read back equal.

#![cfg(feature = "serde")]
#![allow(clippy::unwrap_used)]

mod common;

use std::fmt::Debug;

use schema::{
    ChannelHandle, FrontendAttributes, GemmPerfTable, GemmPerfTableEntry, GemmPerfTableEntryValues,
    Layout, OpSharding, PrimitiveType, ProtoFormat, Shape, channel_handle, op_sharding,
};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// What a user's request type looks like.
#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Request {
    shape: Shape,
    sharding: OpSharding,
    #[serde(default)]
    channel: Option<ChannelHandle>,
}

/// serde's JSON of `message` is `to_json`'s, and reads back as `message`,
/// alone and inside a vector. Returns the JSON.
fn same_as_to_json<M>(message: &M) -> String
where
    M: ProtoFormat + Serialize + DeserializeOwned + PartialEq + Debug,
{
    let json = serde_json::to_string(message).unwrap();
    assert_eq!(json, message.to_json().unwrap());
    assert_eq!(
        &serde_json::from_str::<M>(&json).unwrap(),
        message,
        "{json}"
    );
    assert_eq!(&M::from_json(&json).unwrap(), message, "{json}");
    let list = serde_json::to_string(&[message, message]).unwrap();
    assert_eq!(list, format!("[{json},{json}]"));
    let back: Vec<M> = serde_json::from_str(&list).unwrap();
    assert_eq!(back.len(), 2);
    assert!(back.iter().all(|item| item == message));
    json
}

fn iota_sharding() -> OpSharding {
    OpSharding {
        r#type: op_sharding::Type::Other.into(),
        tile_assignment_dimensions: vec![2, 4],
        iota_reshape_dims: vec![4, 2],
        iota_transpose_perm: vec![1, 0],
        last_tile_dims: vec![op_sharding::Type::Manual.into()],
        shard_group_id: -3,
        ..Default::default()
    }
}

#[test]
fn messages_serialize_as_to_json_writes_them() {
    let tiled: Shape = "bf16[10,200]{1,0:T(8,128)(2,1)}".parse().unwrap();
    assert_eq!(
        same_as_to_json(&tiled),
        r#"{"elementType":"BF16","dimensions":["10","200"],"layout":{"minorToMajor":["1","0"],"tiles":[{"dimensions":["8","128"]},{"dimensions":["2","1"]}],"tailPaddingAlignmentInElements":"1"},"isDynamicDimension":[false,false]}"#
    );
    let tuple: Shape = "(f32[2,3]{0,1}, (s32[], pred[4]))".parse().unwrap();
    let json = same_as_to_json(&tuple);
    assert!(json.starts_with(r#"{"elementType":"TUPLE","tupleShapes":[{"elementType":"F32""#));
    same_as_to_json(tiled.layout.as_deref().unwrap());

    assert_eq!(
        same_as_to_json(&iota_sharding()),
        r#"{"type":"OTHER","tileAssignmentDimensions":["2","4"],"lastTileDims":["MANUAL"],"iotaReshapeDims":["4","2"],"iotaTransposePerm":[1,0],"shardGroupId":"-3"}"#
    );
    let channel = ChannelHandle {
        handle: i64::MIN,
        r#type: channel_handle::ChannelType::HostToDevice.into(),
    };
    assert_eq!(
        same_as_to_json(&channel),
        r#"{"handle":"-9223372036854775808","type":"HOST_TO_DEVICE"}"#
    );
    assert_eq!(same_as_to_json(&Shape::default()), "{}");
}

#[test]
fn maps_serialize_in_key_order() {
    // Enough keys that a hash map's order would show.
    let mut attributes = FrontendAttributes::default();
    for key in [
        "sharding", "", "b", "a", "_xla", "zz", "k10", "k9", "k1", "Z",
    ] {
        attributes.map.insert(key.into(), format!("{key}!"));
    }
    attributes.map.insert("empty".into(), String::new());
    let json = same_as_to_json(&attributes);
    assert_eq!(
        json,
        r#"{"map":{"":"!","Z":"Z!","_xla":"_xla!","a":"a!","b":"b!","empty":"","k1":"k1!","k10":"k10!","k9":"k9!","sharding":"sharding!","zz":"zz!"}}"#
    );
    for _ in 0..20 {
        assert_eq!(serde_json::to_string(&attributes).unwrap(), json);
    }

    let mut entry = GemmPerfTableEntry {
        b: 1,
        m: 2,
        ..Default::default()
    };
    for (name, rate) in [("f32", 5), ("bf16", 7), ("s8", 0), ("f16", -1)] {
        entry.flops.insert(name.into(), rate);
    }
    assert_eq!(
        same_as_to_json(&entry),
        r#"{"b":"1","m":"2","flops":{"bf16":"7","f16":"-1","f32":"5","s8":"0"}}"#
    );
    let mut table = GemmPerfTable::default();
    table.entries.insert(
        "z".into(),
        GemmPerfTableEntryValues {
            entries: vec![entry.clone(), GemmPerfTableEntry::default()],
        },
    );
    table
        .entries
        .insert("a".into(), GemmPerfTableEntryValues::default());
    assert_eq!(
        same_as_to_json(&table),
        r#"{"entries":{"a":{},"z":{"entries":[{"b":"1","m":"2","flops":{"bf16":"7","f16":"-1","f32":"5","s8":"0"}},{}]}}}"#
    );
}

#[test]
fn a_users_struct_round_trips() {
    let request = Request {
        shape: "f32[16,256]{1,0:T(8,128)}".parse().unwrap(),
        sharding: iota_sharding(),
        channel: None,
    };
    let json = serde_json::to_string(&request).unwrap();
    assert_eq!(
        json,
        format!(
            r#"{{"shape":{},"sharding":{},"channel":null}}"#,
            request.shape.to_json().unwrap(),
            request.sharding.to_json().unwrap()
        )
    );
    assert_eq!(serde_json::from_str::<Request>(&json).unwrap(), request);
    let pretty = serde_json::to_string_pretty(&request).unwrap();
    assert_eq!(serde_json::from_str::<Request>(&pretty).unwrap(), request);
    let value = serde_json::to_value(&request).unwrap();
    assert_eq!(serde_json::from_value::<Request>(value).unwrap(), request);
}

#[test]
fn parsing_accepts_what_proto3_json_accepts() {
    // Both field-name spellings, 64-bit integers as numbers or strings,
    // enums by name or number.
    let request: Request = serde_json::from_str(
        r#"{
          "shape": {"element_type": "F32", "dimensions": [2, "3"], "layout": {"minor_to_major": [0, 1]}},
          "sharding": {"type": 3, "tileAssignmentDimensions": ["2", 4], "iota_reshape_dims": [8]},
          "channel": {"handle": 7, "type": "DEVICE_TO_HOST"}
        }"#,
    )
    .unwrap();
    assert_eq!(request.shape.to_string(), "f32[2,3]{0,1}");
    assert_eq!(request.sharding.r#type(), op_sharding::Type::Other);
    assert_eq!(request.sharding.tile_assignment_dimensions, [2, 4]);
    assert_eq!(request.sharding.iota_reshape_dims, [8]);
    let channel = request.channel.unwrap();
    assert_eq!(channel.handle, 7);
    assert_eq!(channel.r#type(), channel_handle::ChannelType::DeviceToHost);
}

#[test]
fn enums_go_by_name() {
    assert_eq!(
        serde_json::to_string(&PrimitiveType::F32).unwrap(),
        r#""F32""#
    );
    assert_eq!(
        serde_json::to_string(&op_sharding::Type::Maximal).unwrap(),
        r#""MAXIMAL""#
    );
    let types: Vec<PrimitiveType> = serde_json::from_str(r#"["BF16", 11, "PRED"]"#).unwrap();
    assert_eq!(
        types,
        [PrimitiveType::Bf16, PrimitiveType::F32, PrimitiveType::Pred]
    );
    assert_eq!(
        serde_json::from_str::<PrimitiveType>(r#""f32""#)
            .unwrap_err()
            .to_string(),
        r#"invalid value: string "f32", expected the name or number of a xla.PrimitiveType value at line 1 column 5"#
    );
    assert_eq!(
        serde_json::from_str::<channel_handle::ChannelType>("99")
            .unwrap_err()
            .to_string(),
        "invalid value: integer `99`, expected the name or number of a xla.ChannelHandle.ChannelType value at line 1 column 2"
    );
    assert!(serde_json::from_str::<PrimitiveType>("[]").is_err());
}

#[test]
fn bad_json_is_a_serde_error_naming_the_problem() {
    let error = |json: &str| serde_json::from_str::<Shape>(json).unwrap_err().to_string();
    assert_eq!(
        error(r#"{"dimensions": [1], "bogus": 2}"#),
        r#"unrecognized field name 'bogus' at line 1 column 27"#
    );
    assert!(error(r#"{"elementType": "F33"}"#).contains("F33"));
    assert!(error(r#"{"dimensions": ["x"]}"#).contains("invalid"));
    assert!(error(r#"{"dimensions": [1]"#).contains("EOF"));
    assert!(error("[]").contains("expected"));
    assert!(error("null").contains("expected"));
    assert!(
        serde_json::from_str::<Request>(r#"{"shape": {}}"#)
            .unwrap_err()
            .to_string()
            .contains("missing field `sharding`")
    );
}

#[test]
fn the_depth_limits_hold_through_serde() {
    common::on_small_stack(|| {
        // serde_json's limit of 128 nested objects and arrays.
        let nested = |depth: usize| "{\"tupleShapes\":[".repeat(depth) + &"]}".repeat(depth);
        let deepest: Shape = serde_json::from_str(&nested(63)).unwrap();
        assert_eq!(
            serde_json::to_string(&deepest).unwrap(),
            deepest.to_json().unwrap()
        );
        let error = serde_json::from_str::<Shape>(&nested(10_000)).unwrap_err();
        assert_eq!(
            error.to_string(),
            "recursion limit exceeded at line 1 column 1024"
        );
        // protobuf's limit of 100 nested messages, when the message goes
        // to its typed form.
        let layouts = |pairs: usize| {
            "{\"physicalShape\":{\"layout\":".repeat(pairs) + "{}" + &"}}".repeat(pairs)
        };
        assert!(serde_json::from_str::<Layout>(&layouts(50)).is_ok());
        let error = serde_json::from_str::<Layout>(&layouts(63)).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("cannot convert xla.Layout: failed to decode Protobuf message"),
            "{error}"
        );
        assert!(error.to_string().contains("recursion limit reached"));
        // A shape nested past that limit cannot be serialized: an error,
        // not a panic.
        let mut deep = Shape::default();
        for _ in 0..120 {
            deep = Shape {
                tuple_shapes: vec![deep],
                ..Default::default()
            };
        }
        let error = serde_json::to_string(&deep).unwrap_err();
        assert!(
            error.to_string().starts_with("cannot convert xla.Shape"),
            "{error}"
        );
    });
}
