//! `Relayout`: the source buffer arrives in chunks, is copied into the
//! destination layout by `relayout::relayout_xla`, and leaves in chunks.
//! Memory is bounded: each buffer by [`Limits::max_buffer_bytes`], all calls
//! together by [`Limits::memory_budget_bytes`].

use std::sync::Arc;

use prost::bytes::Bytes;
use schema::{Layout, Shape};
use tokio::sync::Semaphore;
use tokio_stream::StreamExt as _;
use tonic::{Status, Streaming};

use crate::proto::{RelayoutRequest, RelayoutResponse};
use crate::service::{BUDGET_UNIT, Limits, RelayoutStream, invalid};

/// The shapes of one call and the sizes of their buffers.
struct Plan {
    source: Shape,
    destination: Shape,
    source_bytes: usize,
    destination_bytes: usize,
}

impl Plan {
    /// Checks both shapes (`INVALID_ARGUMENT` with XLA's message) and their
    /// sizes (`RESOURCE_EXHAUSTED` over the limit) before any data is read.
    fn new(source: Shape, layout: Layout, limits: Limits) -> Result<Self, Status> {
        if !shape_util::is_array(&source) {
            return Err(Status::invalid_argument(format!(
                "Relayout takes an array shape; got {}",
                source.human_string()
            )));
        }
        if source.layout.is_none() {
            return Err(Status::invalid_argument(format!(
                "the source shape {} has no layout",
                source.human_string()
            )));
        }
        let mut destination = source.clone();
        destination.layout = Some(Box::new(layout));
        shape_util::validate_shape(&source).map_err(invalid)?;
        shape_util::validate_shape(&destination).map_err(invalid)?;
        // What XLA allocates: tiles, padding and packing included.
        let size = |shape: &Shape| -> Result<usize, Status> {
            let bytes = shape_util::array_size(shape).map_err(invalid)?;
            usize::try_from(bytes)
                .ok()
                .filter(|&b| b <= limits.max_buffer_bytes)
                .ok_or_else(|| {
                    Status::resource_exhausted(format!(
                        "{shape} takes {bytes} bytes; this server relayouts buffers of at most {} bytes",
                        limits.max_buffer_bytes
                    ))
                })
        };
        Ok(Self {
            source_bytes: size(&source)?,
            destination_bytes: size(&destination)?,
            source,
            destination,
        })
    }
}

/// The `Relayout` RPC.
pub async fn relayout(
    mut requests: Streaming<RelayoutRequest>,
    limits: Limits,
    budget: &Arc<Semaphore>,
) -> Result<RelayoutStream, Status> {
    let first = requests.message().await?.ok_or_else(|| {
        Status::invalid_argument("Relayout got no message; the first names the shapes")
    })?;
    let source = first
        .source
        .ok_or_else(|| Status::invalid_argument("the first RelayoutRequest has no source"))?;
    let layout = first.destination_layout.ok_or_else(|| {
        Status::invalid_argument("the first RelayoutRequest has no destination_layout")
    })?;
    let plan = Plan::new(source, layout, limits)?;

    // Both buffers are counted against the budget before they exist.
    let units = (plan.source_bytes + plan.destination_bytes).div_ceil(BUDGET_UNIT);
    let units =
        u32::try_from(units).map_err(|_| Status::resource_exhausted("buffers too large"))?;
    let permit = Arc::clone(budget)
        .acquire_many_owned(units)
        .await
        .map_err(|_| Status::unavailable("the server is shutting down"))?;

    let mut source_buffer = Vec::with_capacity(plan.source_bytes);
    let mut append = |data: &[u8]| -> Result<(), Status> {
        if data.len() > plan.source_bytes - source_buffer.len() {
            return Err(Status::invalid_argument(format!(
                "the source buffer of {} is {} bytes; got more",
                plan.source.human_string_with_layout(),
                plan.source_bytes
            )));
        }
        source_buffer.extend_from_slice(data);
        Ok(())
    };
    append(&first.data)?;
    while let Some(request) = requests.message().await? {
        if request.source.is_some() || request.destination_layout.is_some() {
            return Err(Status::invalid_argument(
                "only the first RelayoutRequest names the shapes",
            ));
        }
        append(&request.data)?;
    }
    if source_buffer.len() != plan.source_bytes {
        return Err(Status::invalid_argument(format!(
            "the source buffer of {} is {} bytes; got {}",
            plan.source.human_string_with_layout(),
            plan.source_bytes,
            source_buffer.len()
        )));
    }

    let Plan {
        source,
        destination,
        destination_bytes,
        ..
    } = plan;
    let copy_destination = destination.clone();
    let destination_buffer = tokio::task::spawn_blocking(move || {
        let mut buffer = vec![0; destination_bytes];
        relayout::relayout_xla(&source_buffer, &source, &mut buffer, &copy_destination)
            .map(|()| buffer)
    })
    .await
    .map_err(|e| Status::internal(format!("relayout task failed: {e}")))?
    .map_err(invalid)?;

    let responses = chunks(destination, destination_buffer, limits.chunk_bytes);
    // The permit is released when the answer has been streamed (or dropped).
    Ok(Box::pin(tokio_stream::iter(responses).map(
        move |response| {
            let _held = &permit;
            Ok(response)
        },
    )))
}

/// The answer: the destination shape, then the buffer in chunks that share
/// its memory.
fn chunks(destination: Shape, buffer: Vec<u8>, chunk_bytes: usize) -> Vec<RelayoutResponse> {
    let buffer = Bytes::from(buffer);
    let chunk_bytes = chunk_bytes.max(1);
    let mut responses = vec![RelayoutResponse {
        destination: Some(destination),
        data: Bytes::new(),
    }];
    responses.extend(
        (0..buffer.len())
            .step_by(chunk_bytes)
            .map(|start| RelayoutResponse {
                destination: None,
                data: buffer.slice(start..buffer.len().min(start + chunk_bytes)),
            }),
    );
    responses
}
