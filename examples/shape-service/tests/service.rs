//! The service on loopback: a real tonic server on `127.0.0.1:0` in this
//! process, real clients, and real XLA messages from the golden files
//! (`tests/golden/`, read through the `conformance` crate) through every RPC.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::net::SocketAddr;

use conformance::{Row, field, hex_decode, int, ints, load, required};
use prost::Message;
use prost::bytes::Bytes;
use schema::{Layout, Shape};
use shape_service::Limits;
use shape_service::proto::shape_service_client::ShapeServiceClient;
use shape_service::proto::{ExplainRequest, RelayoutRequest, ValidateRequest};
use tokio::sync::oneshot;
use tokio_stream::StreamExt as _;
use tonic::Code;
use tonic::transport::Channel;

/// A server running in this process until the value is dropped.
struct Server {
    address: SocketAddr,
    _stop: oneshot::Sender<()>,
}

impl Server {
    async fn start(limits: Limits) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        tokio::spawn(shape_service::serve(listener, limits, async {
            let _ = stopped.await;
        }));
        Self {
            address,
            _stop: stop,
        }
    }

    async fn client(&self) -> ShapeServiceClient<Channel> {
        ShapeServiceClient::connect(format!("http://{}", self.address))
            .await
            .unwrap()
    }
}

/// The Shape messages XLA wrote in a golden file, with their bytes.
fn golden_shapes(file: &str) -> Vec<(Shape, Vec<u8>)> {
    load(file)
        .unwrap()
        .iter()
        .map(|row| {
            let bytes = hex_decode(required(row, "hex").unwrap()).unwrap();
            (Shape::decode(bytes.as_slice()).unwrap(), bytes)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validate_answers_for_every_shape_xla_wrote() {
    let server = Server::start(Limits::default()).await;
    let mut client = server.client().await;
    for (file, count) in [("shapes.jsonl", 526), ("hlo_shapes.jsonl", 446)] {
        let shapes = golden_shapes(file);
        assert_eq!(shapes.len(), count);
        let mut valid = 0;
        for (shape, bytes) in shapes {
            // The request carries XLA's own bytes for the shape.
            let request = ValidateRequest {
                shape: Some(shape.clone()),
            };
            assert!(request.encode_to_vec().ends_with(&bytes));
            let verdict = client.validate(request).await.unwrap().into_inner();
            let library = shape_util::validate_shape_with_optional_layout(&shape);
            assert_eq!(verdict.valid, library.is_ok(), "{shape}");
            let message = library.err().map(|e| e.to_string()).unwrap_or_default();
            assert_eq!(verdict.message, message, "{shape}");
            valid += usize::from(verdict.valid);
        }
        // The shapes of compiled HLO modules passed XLA's own validation;
        // shapes.jsonl also holds shapes XLA builds but rejects on loading
        // (sizes past int64, bad split configs, sparse fields).
        if file == "hlo_shapes.jsonl" {
            assert_eq!(valid, count);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validate_gives_xla_verdicts_and_messages_on_hand_made_protos() {
    let server = Server::start(Limits::default()).await;
    let mut client = server.client().await;
    let rows: Vec<Row> = load("validation.jsonl")
        .unwrap()
        .into_iter()
        .filter(|row| row.contains_key("hex"))
        .collect();
    assert_eq!(rows.len(), 32);
    let mut xla_messages = 0;
    for row in &rows {
        let case = required(row, "proto").unwrap();
        let shape = Shape::decode(
            hex_decode(required(row, "hex").unwrap())
                .unwrap()
                .as_slice(),
        )
        .unwrap();
        let verdict = client
            .validate(ValidateRequest {
                shape: Some(shape.clone()),
            })
            .await
            .unwrap()
            .into_inner();
        // The service answers what the library answers...
        let library = shape_util::validate_shape_with_optional_layout(&shape);
        assert_eq!(verdict.valid, library.is_ok(), "{case}");
        assert_eq!(
            verdict.message,
            library.err().map(|e| e.to_string()).unwrap_or_default(),
            "{case}"
        );
        // ... which is XLA's verdict and message where XLA rejects the
        // proto with INVALID_ARGUMENT.
        if field(row, "code") == Some("INVALID_ARGUMENT") {
            assert!(!verdict.valid, "{case}");
            assert_eq!(verdict.message, required(row, "message").unwrap(), "{case}");
            xla_messages += 1;
        }
    }
    assert_eq!(xla_messages, 9);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_without_a_shape_are_invalid_arguments() {
    let server = Server::start(Limits::default()).await;
    let mut client = server.client().await;
    let status = client
        .validate(ValidateRequest { shape: None })
        .await
        .unwrap_err();
    assert_eq!(
        (status.code(), status.message()),
        (Code::InvalidArgument, "ValidateRequest.shape is missing")
    );
    let status = client
        .explain(ExplainRequest { shape: None })
        .await
        .unwrap_err();
    assert_eq!(
        (status.code(), status.message()),
        (Code::InvalidArgument, "ExplainRequest.shape is missing")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explain_matches_xla_strides_and_device_buffers() {
    let server = Server::start(Limits::default()).await;
    let mut client = server.client().await;
    let rows = load("memory_order.jsonl").unwrap();
    let mut checked_order = 0;
    for row in &rows {
        let printed = required(row, "shape").unwrap();
        let shape: Shape = printed.parse().unwrap();
        let explained = client
            .explain(ExplainRequest {
                shape: Some(shape.clone()),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(explained.text, printed);
        assert_eq!(explained.shape.as_ref(), Some(&shape));
        assert_eq!(
            explained.byte_size,
            int(row, "on_device_size_in_bytes").unwrap(),
            "{printed}"
        );
        assert_eq!(
            explained.buffer_size,
            int(row, "on_device_size_in_bytes").unwrap(),
            "{printed}"
        );
        let dims = ints(row, "dimensions").unwrap();
        assert_eq!(explained.rank, i64::try_from(dims.len()).unwrap());
        assert_eq!(explained.element_count, dims.iter().product::<i64>());
        assert_eq!(
            explained.major_to_minor,
            ints(row, "major_to_minor").unwrap(),
            "{printed}"
        );
        if row.contains_key("dlpack_byte_strides") {
            assert_eq!(
                explained.byte_strides,
                ints(row, "dlpack_byte_strides").unwrap(),
                "{printed}"
            );
        }
        // The memory order: position p of XLA's device buffer holds the
        // element at row-major index memory_order[p].
        let bits = int(row, "element_size_in_bits").unwrap();
        if bits >= 8 {
            let width = usize::try_from(bits / 8).unwrap();
            let device = hex_decode(required(row, "device_hex").unwrap()).unwrap();
            let row_major = hex_decode(required(row, "row_major_hex").unwrap()).unwrap();
            assert_eq!(
                explained.memory_order.len() * width,
                device.len(),
                "{printed}"
            );
            for (p, &i) in explained.memory_order.iter().enumerate() {
                let i = usize::try_from(i).unwrap();
                assert_eq!(
                    device[p * width..(p + 1) * width],
                    row_major[i * width..(i + 1) * width],
                    "{printed} position {p}"
                );
            }
            checked_order += 1;
        }
    }
    assert!(checked_order > 500, "{checked_order}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explain_of_padded_and_bad_shapes() {
    let server = Server::start(Limits::default()).await;
    let mut client = server.client().await;
    // The seeds' example: a d 0 b e 0 c f 0 0 0 0 0 0 0.
    let shape: Shape = "f32[2,3]{0,1:PAD(3,5)PV(zero)}".parse().unwrap();
    let explained = client
        .explain(ExplainRequest { shape: Some(shape) })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(explained.byte_size, 60);
    assert_eq!(explained.strides, [1, 3]);
    assert_eq!(explained.padded_dimensions, [3, 5]);
    assert_eq!(
        explained.memory_order,
        [0, 3, -1, 1, 4, -1, 2, 5, -1, -1, -1, -1, -1, -1, -1]
    );

    // No layout: XLA's default one.
    let shape: Shape = "f32[2,3]".parse().unwrap();
    let mut shape = shape;
    shape.layout = None;
    let explained = client
        .explain(ExplainRequest { shape: Some(shape) })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(explained.text, "f32[2,3]{1,0}");
    assert_eq!(explained.memory_order, [0, 1, 2, 3, 4, 5]);

    // Large buffers get no memory order.
    let shape: Shape = "u8[1000,1000]{0,1}".parse().unwrap();
    let explained = client
        .explain(ExplainRequest { shape: Some(shape) })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        (explained.strides.as_slice(), explained.memory_order.len()),
        (&[1, 1000][..], 0)
    );

    for (text, message) in [
        (
            "f32[2,3]{1,1}",
            "layout minor_to_major field has duplicate values: {1, 1}; shape: f32[2,3]",
        ),
        (
            "(f32[2], s8[])",
            "Explain takes an array shape; got (f32[2], s8[])",
        ),
        ("token[]", "Explain takes an array shape; got token[]"),
    ] {
        let shape: Shape = match text.parse() {
            Ok(shape) => shape,
            // XLA's parser rejects duplicate dimensions: build the proto.
            Err(_) => {
                let mut shape: Shape = "f32[2,3]{1,0}".parse().unwrap();
                shape.layout.as_mut().unwrap().minor_to_major = vec![1, 1];
                shape
            }
        };
        let status = client
            .explain(ExplainRequest { shape: Some(shape) })
            .await
            .unwrap_err();
        assert_eq!(
            (status.code(), status.message()),
            (Code::InvalidArgument, message),
            "{text}"
        );
    }
}

/// The first message names the shapes; the data follows in `chunk`-byte
/// pieces.
fn relayout_requests(
    source: &Shape,
    layout: &Layout,
    data: &[u8],
    chunk: usize,
) -> Vec<RelayoutRequest> {
    let mut requests = vec![RelayoutRequest {
        source: Some(source.clone()),
        destination_layout: Some(layout.clone()),
        data: Bytes::new(),
    }];
    requests.extend(data.chunks(chunk).map(|piece| RelayoutRequest {
        data: Bytes::copy_from_slice(piece),
        ..Default::default()
    }));
    requests
}

/// The destination shape and buffer of a relayout, or its status.
async fn relayout(
    client: &mut ShapeServiceClient<Channel>,
    requests: Vec<RelayoutRequest>,
) -> Result<(Shape, Vec<u8>), tonic::Status> {
    let mut responses = client
        .relayout(tokio_stream::iter(requests))
        .await?
        .into_inner();
    let first = responses
        .next()
        .await
        .ok_or_else(|| tonic::Status::internal("no answer"))??;
    let destination = first
        .destination
        .ok_or_else(|| tonic::Status::internal("no shape"))?;
    let mut buffer = first.data.to_vec();
    while let Some(response) = responses.next().await {
        let response = response?;
        assert!(response.destination.is_none());
        buffer.extend_from_slice(&response.data);
    }
    Ok((destination, buffer))
}

/// A memory_order.jsonl row as a relayout: the row-major buffer XLA was
/// given, the layout of XLA's device buffer, and that buffer.
fn relayout_case(row: &Row) -> (Shape, Layout, Vec<u8>, Shape, Vec<u8>) {
    let bits = int(row, "element_size_in_bits").unwrap();
    let dims: Vec<String> = ints(row, "dimensions")
        .unwrap()
        .iter()
        .map(ToString::to_string)
        .collect();
    let mut source: Shape = format!("{}[{}]", required(row, "dtype").unwrap(), dims.join(","))
        .parse()
        .unwrap();
    let mut device: Shape = required(row, "shape").unwrap().parse().unwrap();
    // XLA's CPU client packs sub-byte types (see the README).
    if bits < 8 {
        source.layout.as_mut().unwrap().element_size_in_bits = bits;
        device.layout.as_mut().unwrap().element_size_in_bits = bits;
    }
    let row_major = hex_decode(required(row, "row_major_hex").unwrap()).unwrap();
    let device_bytes = hex_decode(required(row, "device_hex").unwrap()).unwrap();
    let layout = device.layout.as_deref().unwrap().clone();
    (source, layout, row_major, device, device_bytes)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relayout_writes_xla_device_buffers_for_concurrent_clients() {
    // Small chunks out too, so that answers span many messages.
    let limits = Limits {
        chunk_bytes: 5,
        ..Limits::default()
    };
    let server = Server::start(limits).await;
    let rows = load("memory_order.jsonl").unwrap();
    assert_eq!(rows.len(), 966);
    let clients = 6;
    let mut tasks = Vec::new();
    for k in 0..clients {
        let mut client = server.client().await;
        let rows: Vec<Row> = rows.iter().skip(k).step_by(clients).cloned().collect();
        tasks.push(tokio::spawn(async move {
            for row in &rows {
                let (source, layout, data, device, expected) = relayout_case(row);
                // Chunks of 7 bytes cut through elements of every size.
                let requests = relayout_requests(&source, &layout, &data, 7);
                let (destination, buffer) = relayout(&mut client, requests).await.unwrap();
                assert_eq!(destination, device, "{}", device.human_string_with_layout());
                assert_eq!(buffer, expected, "{destination}");
            }
            rows.len()
        }));
    }
    let mut done = 0;
    for task in tasks {
        done += task.await.unwrap();
    }
    assert_eq!(done, 966);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relayout_fills_padding_and_waits_for_its_memory_budget() {
    // Room for one 2 KiB relayout (source and destination) at a time.
    let limits = Limits {
        max_buffer_bytes: 1 << 10,
        memory_budget_bytes: 2 << 10,
        chunk_bytes: 100,
    };
    let server = Server::start(limits).await;
    let source: Shape = "u8[32,32]{1,0}".parse().unwrap();
    let layout: Layout = "{0,1}".parse().unwrap();
    let data: Vec<u8> = (0..1024).map(|i| u8::try_from(i % 251).unwrap()).collect();
    let transposed: Vec<u8> = (0..1024).map(|p| data[(p % 32) * 32 + p / 32]).collect();
    let mut tasks = Vec::new();
    for _ in 0..4 {
        let mut client = server.client().await;
        let requests = relayout_requests(&source, &layout, &data, 300);
        let transposed = transposed.clone();
        tasks.push(tokio::spawn(async move {
            let (destination, buffer) = relayout(&mut client, requests).await.unwrap();
            assert_eq!(destination.to_string(), "u8[32,32]{0,1}");
            assert_eq!(buffer, transposed);
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }

    // The seeds' padded layout: a d 0 b e 0 c f 0 0 0 0 0 0 0.
    let mut client = server.client().await;
    let source: Shape = "f32[2,3]{1,0}".parse().unwrap();
    let layout: Layout = "{0,1:PAD(3,5)PV(zero)}".parse().unwrap();
    let data: Vec<u8> = [1f32, 2., 3., 4., 5., 6.]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let (destination, buffer) =
        relayout(&mut client, relayout_requests(&source, &layout, &data, 24))
            .await
            .unwrap();
    assert_eq!(destination.to_string(), "f32[2,3]{0,1:PAD(3,5)PV(zero)}");
    let values: Vec<f32> = buffer
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(
        values,
        [1., 4., 0., 2., 5., 0., 3., 6., 0., 0., 0., 0., 0., 0., 0.]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relayout_rejects_bad_input_and_oversized_buffers() {
    let limits = Limits {
        max_buffer_bytes: 1 << 10,
        ..Limits::default()
    };
    let server = Server::start(limits).await;
    let mut client = server.client().await;
    let source: Shape = "u8[2,3]{1,0}".parse().unwrap();
    let layout: Layout = "{0,1}".parse().unwrap();
    let mut duplicate = layout.clone();
    duplicate.minor_to_major = vec![1, 1];
    let tiled: Layout = "{1,0:T(2,128)}".parse().unwrap();
    let tuple: Shape = "(u8[2,3])".parse().unwrap();
    let mut no_layout = source.clone();
    no_layout.layout = None;
    let big: Shape = "u8[32,33]{1,0}".parse().unwrap();
    let mut second_names_shapes = relayout_requests(&source, &layout, b"abcdef", 3);
    second_names_shapes[1].source = Some(source.clone());
    let cases = [
        (
            relayout_requests(&source, &layout, b"abcde", 2),
            Code::InvalidArgument,
            "the source buffer of u8[2,3]{1,0} is 6 bytes; got 5",
        ),
        (
            relayout_requests(&source, &layout, b"abcdefg", 2),
            Code::InvalidArgument,
            "the source buffer of u8[2,3]{1,0} is 6 bytes; got more",
        ),
        (
            relayout_requests(&source, &duplicate, b"abcdef", 2),
            Code::InvalidArgument,
            "layout minor_to_major field has duplicate values: {1, 1}; shape: u8[2,3]",
        ),
        (
            relayout_requests(&tuple, &layout, b"abcdef", 2),
            Code::InvalidArgument,
            "Relayout takes an array shape; got (u8[2,3])",
        ),
        (
            relayout_requests(&no_layout, &layout, b"abcdef", 2),
            Code::InvalidArgument,
            "the source shape u8[2,3] has no layout",
        ),
        (
            second_names_shapes,
            Code::InvalidArgument,
            "only the first RelayoutRequest names the shapes",
        ),
        (
            vec![RelayoutRequest::default()],
            Code::InvalidArgument,
            "the first RelayoutRequest has no source",
        ),
        (
            Vec::new(),
            Code::InvalidArgument,
            "Relayout got no message; the first names the shapes",
        ),
        (
            relayout_requests(&big, &layout, &[0; 1056], 512),
            Code::ResourceExhausted,
            "u8[32,33]{1,0} takes 1056 bytes; this server relayouts buffers of at most 1024 bytes",
        ),
    ];
    for (requests, code, message) in cases {
        let status = relayout(&mut client, requests).await.unwrap_err();
        assert_eq!((status.code(), status.message()), (code, message));
    }
    // Tiled layouts are sized as XLA allocates them: u8[2,3] in (2,128)
    // tiles takes 256 bytes.
    let (destination, buffer) = relayout(
        &mut client,
        relayout_requests(&source, &tiled, b"abcdef", 6),
    )
    .await
    .unwrap();
    assert_eq!(destination.to_string(), "u8[2,3]{1,0:T(2,128)}");
    assert_eq!(buffer.len(), 256);
    // u8[9,8] takes 72 bytes, but 2048 in (8,128) tiles.
    let status = relayout(
        &mut client,
        relayout_requests(
            &"u8[9,8]{1,0}".parse().unwrap(),
            &"{1,0:T(8,128)}".parse().unwrap(),
            &[0; 72],
            72,
        ),
    )
    .await
    .unwrap_err();
    assert_eq!(
        (status.code(), status.message()),
        (
            Code::ResourceExhausted,
            "u8[9,8]{1,0:T(8,128)} takes 2048 bytes; this server relayouts buffers of at most 1024 bytes"
        )
    );
    // A tiling whose later tile pads beyond XLA's allocation is refused.
    let status = relayout(
        &mut client,
        relayout_requests(
            &"f32[4]{0}".parse().unwrap(),
            &"{0:T(2)(3)}".parse().unwrap(),
            &[0; 16],
            16,
        ),
    )
    .await
    .unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    assert!(status.message().contains("f32[4]{0:T(2)(3)}"), "{status:?}");
}

/// f32 values as little-endian bytes.
fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relayout_and_explain_follow_xla_tiles() {
    let server = Server::start(Limits::default()).await;
    let mut client = server.client().await;
    // XLA's tiled-layout figure: f32[3,5]{1,0:T(2,2)} holds the row-major
    // elements in the order 0 1 5 6 2 3 7 8 4 . 9 . 10 11 . . 12 13 . .
    // 14 . . . (`.` padding, written as zeros).
    let source: Shape = "f32[3,5]{1,0}".parse().unwrap();
    let tiled: Layout = "{1,0:T(2,2)}".parse().unwrap();
    let values: Vec<f32> = (0..15u8).map(|v| f32::from(v) + 100.0).collect();
    let (destination, buffer) = relayout(
        &mut client,
        relayout_requests(&source, &tiled, &f32_bytes(&values), 7),
    )
    .await
    .unwrap();
    assert_eq!(destination.to_string(), "f32[3,5]{1,0:T(2,2)}");
    let order = [
        0, 1, 5, 6, 2, 3, 7, 8, 4, -1, 9, -1, 10, 11, -1, -1, 12, 13, -1, -1, 14, -1, -1, -1,
    ];
    let expected: Vec<f32> = order
        .iter()
        .map(|&e| usize::try_from(e).map_or(0.0, |e| values[e]))
        .collect();
    assert_eq!(buffer, f32_bytes(&expected));
    // And back into row-major.
    let (back_shape, back) = relayout(
        &mut client,
        relayout_requests(&destination, &"{1,0}".parse().unwrap(), &buffer, 10),
    )
    .await
    .unwrap();
    assert_eq!(back_shape, source);
    assert_eq!(back, f32_bytes(&values));

    // Explain: the same memory order, XLA's allocation, no strides.
    let explained = client
        .explain(ExplainRequest {
            shape: Some(destination),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(explained.memory_order, order);
    assert_eq!((explained.byte_size, explained.buffer_size), (60, 96));
    assert!(explained.strides.is_empty() && explained.byte_strides.is_empty());
    assert_eq!(explained.major_to_minor, [0, 1]);

    // The buffer size of every tiled layout XLA sized is what XLA
    // allocates; layouts whose later tiles pad beyond that allocation (XLA
    // would address past it) are refused, as the library refuses them.
    let rows = load("tiled_sizes.jsonl").unwrap();
    let (mut sized, mut refused) = (0, 0);
    for row in rows.iter().filter(|row| !row.contains_key("error")) {
        let printed = required(row, "shape").unwrap();
        let answer = client
            .explain(ExplainRequest {
                shape: Some(printed.parse().unwrap()),
            })
            .await;
        match answer {
            Ok(explained) => {
                let explained = explained.into_inner();
                assert_eq!(
                    explained.buffer_size,
                    int(row, "on_device_size_in_bytes").unwrap(),
                    "{printed}"
                );
                assert!(explained.strides.is_empty(), "{printed}");
                sized += 1;
            }
            Err(status) => {
                assert_eq!(status.code(), Code::InvalidArgument, "{printed}");
                assert!(status.message().contains("XLA allocates"), "{status:?}");
                refused += 1;
            }
        }
    }
    assert!(sized > 2000 && refused < sized / 4, "{sized} {refused}");
}

/// Sends request bytes as they are and reads the answer's bytes: a client
/// that can send messages no generated client would write.
#[derive(Debug, Default, Clone, Copy)]
struct RawCodec;

impl tonic::codec::Codec for RawCodec {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = Self;
    type Decoder = Self;
    fn encoder(&mut self) -> Self {
        Self
    }
    fn decoder(&mut self) -> Self {
        Self
    }
}

impl tonic::codec::Encoder for RawCodec {
    type Item = Vec<u8>;
    type Error = tonic::Status;
    fn encode(
        &mut self,
        item: Vec<u8>,
        buf: &mut tonic::codec::EncodeBuf<'_>,
    ) -> Result<(), tonic::Status> {
        prost::bytes::BufMut::put_slice(buf, &item);
        Ok(())
    }
}

impl tonic::codec::Decoder for RawCodec {
    type Item = Vec<u8>;
    type Error = tonic::Status;
    fn decode(
        &mut self,
        buf: &mut tonic::codec::DecodeBuf<'_>,
    ) -> Result<Option<Vec<u8>>, tonic::Status> {
        let len = prost::bytes::Buf::remaining(buf);
        Ok(Some(prost::bytes::Buf::copy_to_bytes(buf, len).to_vec()))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn messages_that_do_not_decode_are_invalid_arguments() {
    let server = Server::start(Limits::default()).await;
    let channel = Channel::from_shared(format!("http://{}", server.address))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut grpc = tonic::client::Grpc::new(channel);
    let call = |bytes: Vec<u8>| {
        let mut grpc = grpc.clone();
        async move {
            grpc.ready().await.unwrap();
            let path = tonic::codegen::http::uri::PathAndQuery::from_static(
                "/shape_service.ShapeService/Validate",
            );
            grpc.unary(tonic::Request::new(bytes), path, RawCodec).await
        }
    };
    // XLA's bytes for f32[2,3]{1,0} as ValidateRequest.shape: accepted.
    let shape = hex_decode("100b1a0202032a070a02010080010132020000").unwrap();
    let answer = call(conformance::length_delimited(0x0a, &shape))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(answer, [0x08, 0x01]); // valid: true
    // A length past the end of the message.
    let status = call(vec![0x0a, 0x05, 0x10]).await.unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    assert!(
        status.message().starts_with("invalid message: "),
        "{status:?}"
    );
    // Tuples nested past protobuf's recursion limit (100).
    let deep = conformance::length_delimited(0x0a, &conformance::nested_tuple_bytes(200));
    let status = call(deep).await.unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    assert!(status.message().contains("recursion limit"), "{status:?}");
    // The server is still there.
    let answer = call(conformance::length_delimited(0x0a, &shape))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(answer, [0x08, 0x01]);
    grpc.ready().await.unwrap();
}
