//! The gRPC codec: prost's, except that a message that does not decode (a
//! broken varint, a length past the end, shapes nested deeper than
//! protobuf's limit of 100) is bad input and answers `INVALID_ARGUMENT`,
//! where tonic's codec answers `INTERNAL`.

use prost::Message;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder};
use tonic::{Code, Status};
use tonic_prost::{ProstCodec, ProstDecoder, ProstEncoder};

/// prost's codec with decoding errors as `INVALID_ARGUMENT`.
#[derive(Debug)]
pub struct XlaCodec<T, U>(ProstCodec<T, U>);

impl<T, U> Default for XlaCodec<T, U> {
    fn default() -> Self {
        Self(ProstCodec::default())
    }
}

impl<T, U> Codec for XlaCodec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = XlaDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        self.0.encoder()
    }

    fn decoder(&mut self) -> Self::Decoder {
        XlaDecoder(self.0.decoder())
    }
}

/// prost's decoder with decoding errors as `INVALID_ARGUMENT`.
#[derive(Debug)]
pub struct XlaDecoder<U>(ProstDecoder<U>);

impl<U: Message + Default> Decoder for XlaDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        self.0.decode(buf).map_err(|status| match status.code() {
            Code::Internal => {
                Status::invalid_argument(format!("invalid message: {}", status.message()))
            }
            _ => status,
        })
    }

    fn buffer_settings(&self) -> BufferSettings {
        self.0.buffer_settings()
    }
}
