//! Messages by descriptor: the API's descriptor pool and a gRPC codec of dynamic
//! messages, for the paths that serve or call any kind generically (the server's
//! declared kinds, the CLI).

use std::sync::LazyLock;

use bytes::Buf;
use prost::Message;
use prost_reflect::{DescriptorPool, DynamicMessage, MessageDescriptor};
use tonic::Status;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};

/// Every message and service of the API, with the resource declarations.
pub static POOL: LazyLock<DescriptorPool> = LazyLock::new(|| {
    DescriptorPool::decode(crate::FILE_DESCRIPTOR_SET).expect("the API's descriptor set")
});

/// Encodes dynamic messages; decodes the other side's as the descriptor it holds (the
/// response's for a caller, the request's for a server). Errors are the ones tonic's
/// own codec gives (INTERNAL, prost's message), so callers and the server's refusal
/// layer see the same statuses as for generated services.
#[derive(Clone)]
pub struct DynamicCodec(pub MessageDescriptor);

impl Codec for DynamicCodec {
    type Encode = DynamicMessage;
    type Decode = DynamicMessage;
    type Encoder = DynamicCodec;
    type Decoder = DynamicCodec;

    fn encoder(&mut self) -> Self::Encoder {
        self.clone()
    }

    fn decoder(&mut self) -> Self::Decoder {
        self.clone()
    }
}

impl Encoder for DynamicCodec {
    type Item = DynamicMessage;
    type Error = Status;

    fn encode(&mut self, item: DynamicMessage, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        item.encode(dst)
            .map_err(|e| Status::internal(e.to_string()))
    }
}

impl Decoder for DynamicCodec {
    type Item = DynamicMessage;
    type Error = Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<DynamicMessage>, Status> {
        let message = DynamicMessage::decode(self.0.clone(), src.copy_to_bytes(src.remaining()))
            .map_err(|e| Status::internal(e.to_string()))?;
        Ok(Some(message))
    }
}
