//! `shape-service`: the gRPC server (`serve`) and a client for each RPC
//! (`validate`, `explain`, `relayout`).
//!
//! ```sh
//! cargo run -p shape-service -- serve --addr 127.0.0.1:50051
//! cargo run -p shape-service -- validate 'f32[2,3]{0,1}'
//! cargo run -p shape-service -- explain 'f32[2,3]{0,1}'
//! printf 'abcdef' | cargo run -p shape-service -- relayout 'u8[2,3]{1,0}' '{0,1}'
//! ```

#![forbid(unsafe_code)]

use std::io::{Read as _, Write as _};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use shape_service::proto::shape_service_client::ShapeServiceClient;
use shape_service::proto::{ExplainRequest, RelayoutRequest, ValidateRequest};
use tokio_stream::StreamExt as _;

/// An XLA shape service over gRPC, and its client.
#[derive(Parser)]
#[command(version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve until interrupted (Ctrl-C).
    Serve {
        /// The address to listen on.
        #[arg(long, default_value = "127.0.0.1:50051")]
        addr: String,
    },
    /// Ask the server whether a shape is valid (XLA's verdict and message).
    Validate {
        /// A shape in XLA's text format, such as `f32[2,3]{0,1}`.
        shape: String,
        /// The server's address.
        #[arg(long, default_value = "127.0.0.1:50051")]
        addr: String,
    },
    /// Ask the server for sizes, strides and memory order of an array shape.
    Explain {
        /// An array shape in XLA's text format.
        shape: String,
        /// The server's address.
        #[arg(long, default_value = "127.0.0.1:50051")]
        addr: String,
    },
    /// Copy a buffer (standard input) from one layout into another (standard
    /// output).
    Relayout {
        /// The source array with its layout, such as `f32[2,3]{1,0}`.
        source: String,
        /// The destination layout, such as `{0,1}`.
        layout: String,
        /// The server's address.
        #[arg(long, default_value = "127.0.0.1:50051")]
        addr: String,
    },
}

/// The size of the chunks `relayout` sends.
const CHUNK_BYTES: usize = 64 << 10;

type Error = Box<dyn std::error::Error + Send + Sync>;

#[tokio::main]
async fn main() -> ExitCode {
    match run(Cli::parse().command).await {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run(command: Command) -> Result<ExitCode, Error> {
    match command {
        Command::Serve { addr } => {
            let listener = tokio::net::TcpListener::bind(&addr).await?;
            eprintln!("shape-service listening on {}", listener.local_addr()?);
            let shutdown = async {
                // Without a signal handler the server runs until killed.
                if tokio::signal::ctrl_c().await.is_err() {
                    std::future::pending::<()>().await;
                }
            };
            shape_service::serve(listener, shape_service::Limits::default(), shutdown).await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Validate { shape, addr } => {
            let shape = shape.parse()?;
            let mut client = connect(&addr).await?;
            let verdict = client
                .validate(ValidateRequest { shape: Some(shape) })
                .await?
                .into_inner();
            if verdict.valid {
                println!("valid");
                Ok(ExitCode::SUCCESS)
            } else {
                println!("invalid: {}", verdict.message);
                Ok(ExitCode::FAILURE)
            }
        }
        Command::Explain { shape, addr } => {
            let shape = shape.parse()?;
            let mut client = connect(&addr).await?;
            let explained = client
                .explain(ExplainRequest { shape: Some(shape) })
                .await?
                .into_inner();
            println!("shape: {}", explained.text);
            println!(
                "rank: {} (true rank {})",
                explained.rank, explained.true_rank
            );
            println!("elements: {}", explained.element_count);
            println!("byte size: {}", explained.byte_size);
            println!("buffer size: {} bytes", explained.buffer_size);
            println!("major to minor: {:?}", explained.major_to_minor);
            // A tiled buffer has no strides: the server sends none.
            if !explained.strides.is_empty() {
                println!("strides: {:?} elements", explained.strides);
                println!("byte strides: {:?}", explained.byte_strides);
            }
            if !explained.padded_dimensions.is_empty() {
                println!("padded dimensions: {:?}", explained.padded_dimensions);
            }
            if !explained.memory_order.is_empty() {
                println!("memory order: {:?}", explained.memory_order);
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Relayout {
            source,
            layout,
            addr,
        } => {
            let source: schema::Shape = source.parse()?;
            let layout: schema::Layout = layout.parse()?;
            let mut input = Vec::new();
            std::io::stdin().read_to_end(&mut input)?;
            let input = prost::bytes::Bytes::from(input);
            let mut requests: Vec<RelayoutRequest> = (0..input.len())
                .step_by(CHUNK_BYTES)
                .map(|start| RelayoutRequest {
                    data: input.slice(start..input.len().min(start + CHUNK_BYTES)),
                    ..Default::default()
                })
                .collect();
            if requests.is_empty() {
                requests.push(RelayoutRequest::default());
            }
            if let Some(first) = requests.first_mut() {
                first.source = Some(source);
                first.destination_layout = Some(layout);
            }
            let mut client = connect(&addr).await?;
            let mut responses = client
                .relayout(tokio_stream::iter(requests))
                .await?
                .into_inner();
            let mut stdout = std::io::stdout().lock();
            while let Some(response) = responses.next().await {
                let response = response?;
                if let Some(destination) = response.destination {
                    eprintln!("destination: {destination}");
                }
                stdout.write_all(&response.data)?;
            }
            stdout.flush()?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

async fn connect(
    addr: &str,
) -> Result<ShapeServiceClient<tonic::transport::Channel>, tonic::transport::Error> {
    ShapeServiceClient::connect(format!("http://{addr}")).await
}
