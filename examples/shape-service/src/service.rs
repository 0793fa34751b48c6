//! The server: the `ShapeService` RPCs over the library crates, its limits,
//! and [`serve`].

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_stream::wrappers::TcpListenerStream;
use tokio_stream::{Stream, StreamExt as _};
use tonic::{Request, Response, Status, Streaming};

use crate::proto::shape_service_server::{ShapeService, ShapeServiceServer};
use crate::proto::{
    ExplainRequest, ExplainResponse, RelayoutRequest, RelayoutResponse, ValidateRequest,
    ValidateResponse,
};

/// How much one request and all requests together may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The largest source or destination buffer of one `Relayout`, in bytes;
    /// larger ones answer `RESOURCE_EXHAUSTED`.
    pub max_buffer_bytes: usize,
    /// The bytes all `Relayout` calls in progress may hold together (source
    /// and destination); a call waits until its buffers fit.
    pub memory_budget_bytes: usize,
    /// The size of the chunks the destination buffer is streamed in.
    pub chunk_bytes: usize,
}

impl Default for Limits {
    /// 64 MiB buffers, 256 MiB for all calls together, 64 KiB chunks.
    fn default() -> Self {
        Self {
            max_buffer_bytes: 64 << 20,
            memory_budget_bytes: 256 << 20,
            chunk_bytes: 64 << 10,
        }
    }
}

/// The service: stateless but for the memory budget of `Relayout`.
#[derive(Debug, Clone)]
pub struct ShapeServer {
    limits: Limits,
    /// Permits of [`BUDGET_UNIT`] bytes.
    budget: Arc<Semaphore>,
}

/// The memory budget counts in KiB.
pub(crate) const BUDGET_UNIT: usize = 1 << 10;

impl ShapeServer {
    /// A server with these limits.
    #[must_use]
    pub fn new(limits: Limits) -> Self {
        let permits = (limits.memory_budget_bytes / BUDGET_UNIT).min(Semaphore::MAX_PERMITS);
        Self {
            limits,
            budget: Arc::new(Semaphore::new(permits)),
        }
    }

    /// The tonic service, to add to a `tonic::transport::Server`.
    #[must_use]
    pub fn into_service(self) -> ShapeServiceServer<Self> {
        ShapeServiceServer::new(self)
    }
}

/// Serves [`ShapeServer`] with `limits` on `listener` until `shutdown`
/// completes.
///
/// # Errors
///
/// A transport error of the server.
pub async fn serve(
    listener: TcpListener,
    limits: Limits,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), tonic::transport::Error> {
    // No Nagle delay: an answer of several segments (a memory order) would
    // otherwise wait for the client's delayed acknowledgement (~40 ms).
    let incoming = TcpListenerStream::new(listener).map(|stream| {
        let stream = stream?;
        stream.set_nodelay(true)?;
        Ok::<_, std::io::Error>(stream)
    });
    tonic::transport::Server::builder()
        .add_service(ShapeServer::new(limits).into_service())
        .serve_with_incoming_shutdown(incoming, shutdown)
        .await
}

/// `INVALID_ARGUMENT` with the error's message (XLA's, for validation).
pub(crate) fn invalid(error: impl ToString) -> Status {
    Status::invalid_argument(error.to_string())
}

/// The response stream of `Relayout`.
pub type RelayoutStream = Pin<Box<dyn Stream<Item = Result<RelayoutResponse, Status>> + Send>>;

#[tonic::async_trait]
impl ShapeService for ShapeServer {
    async fn validate(
        &self,
        request: Request<ValidateRequest>,
    ) -> Result<Response<ValidateResponse>, Status> {
        let shape = request
            .into_inner()
            .shape
            .ok_or_else(|| Status::invalid_argument("ValidateRequest.shape is missing"))?;
        // A shape received as a message is checked as XLA checks a loaded
        // ShapeProto: the layout is optional.
        let response = match shape_util::validate_shape_with_optional_layout(&shape) {
            Ok(()) => ValidateResponse {
                valid: true,
                message: String::new(),
            },
            Err(error) => ValidateResponse {
                valid: false,
                message: error.to_string(),
            },
        };
        Ok(Response::new(response))
    }

    async fn explain(
        &self,
        request: Request<ExplainRequest>,
    ) -> Result<Response<ExplainResponse>, Status> {
        let shape = request
            .into_inner()
            .shape
            .ok_or_else(|| Status::invalid_argument("ExplainRequest.shape is missing"))?;
        crate::explain::explain(shape).map(Response::new)
    }

    type RelayoutStream = RelayoutStream;

    async fn relayout(
        &self,
        request: Request<Streaming<RelayoutRequest>>,
    ) -> Result<Response<RelayoutStream>, Status> {
        crate::relayout::relayout(request.into_inner(), self.limits, &self.budget)
            .await
            .map(Response::new)
    }
}
