//! A gRPC service over XLA shapes, and the example of a service whose own
//! `.proto` (`proto/shape_service.proto`) imports `xla_data.proto` and uses
//! `xla.Shape`/`xla.Layout` in its messages: the build script compiles it
//! with protox (no `protoc`) and maps `.xla` to the `schema` crate's types
//! with `extern_path`, so [`proto::ValidateRequest::shape`] is a
//! [`schema::Shape`].
//!
//! The RPCs: `Validate` (XLA's verdict and message), `Explain` (sizes,
//! strides, memory order) and `Relayout` (a buffer streamed in one layout,
//! streamed back in another, in bounded memory). Bad input answers
//! `INVALID_ARGUMENT` with the validation message (a message that does not
//! decode too: see [`codec`]); a buffer over [`Limits::max_buffer_bytes`]
//! answers `RESOURCE_EXHAUSTED`.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use shape_service::proto::{ValidateRequest, shape_service_client::ShapeServiceClient};
//!
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! let address = listener.local_addr()?;
//! tokio::spawn(shape_service::serve(listener, shape_service::Limits::default(), std::future::pending()));
//!
//! let mut client = ShapeServiceClient::connect(format!("http://{address}")).await?;
//! let shape: schema::Shape = "f32[2,3]{0,1}".parse()?;
//! let verdict = client.validate(ValidateRequest { shape: Some(shape) }).await?.into_inner();
//! assert!(verdict.valid);
//! # Ok(())
//! # }
//! ```

#![forbid(unsafe_code)]

/// The messages, client and server generated from
/// `proto/shape_service.proto`.
pub mod proto {
    #![allow(clippy::all, clippy::pedantic)]
    tonic::include_proto!("shape_service");
}

pub mod codec;
mod explain;
mod relayout;
mod service;

pub use service::{Limits, ShapeServer, serve};
