//! The agent's end of `AgentService.Connect`, with a decoder that survives a message it
//! cannot decode.
//!
//! With the generated client, one server message that does not decode (a manifest
//! nested past protobuf's recursion limit, stored before the API bounded nesting) ends
//! the stream; the agent reconnects, the server sends it again, and the cluster's
//! session restarts several times a second for every tenant on it. Here such a message
//! becomes [`Incoming::Undecodable`]: the session carries on, and an apply the agent
//! could not read is answered as failed for that one resource.

use bytes::{Buf, Bytes};
use flotilla_api::v1 as pb;
use prost::Message;
use tonic::Status;
use tonic::codec::{Codec, DecodeBuf, Decoder, Streaming};
use tonic::codegen::http;
use tonic::transport::Channel;
use tonic_prost::ProstCodec;

/// A message from the server. (Nearly every one is a `Message`: boxing it would
/// allocate once more per message to shrink the rare other.)
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub enum Incoming {
    Message(pb::ConnectResponse),
    /// A message that does not decode; `operation_id` is that of the apply or delete
    /// it was, when that much of it decodes.
    Undecodable {
        operation_id: Option<i64>,
        error: String,
    },
}

/// What of a `ConnectResponse` carrying an apply or a delete decodes whatever the rest
/// holds: the operation id (fields of other numbers, the manifest among them, are
/// skipped unread).
#[derive(Clone, PartialEq, Message)]
struct OperationOnly {
    #[prost(message, optional, tag = "2")]
    apply: Option<OperationId>,
    #[prost(message, optional, tag = "3")]
    delete: Option<OperationId>,
}

#[derive(Clone, PartialEq, Message)]
struct OperationId {
    #[prost(int64, tag = "1")]
    operation_id: i64,
}

/// Decodes `bytes` as a server message, or says what of it could be read.
pub fn decode(bytes: Bytes) -> Incoming {
    match pb::ConnectResponse::decode(bytes.clone()) {
        Ok(message) => Incoming::Message(message),
        Err(error) => {
            let operation = OperationOnly::decode(bytes).ok();
            Incoming::Undecodable {
                operation_id: operation
                    .and_then(|o| o.apply.or(o.delete))
                    .map(|o| o.operation_id),
                error: error.to_string(),
            }
        }
    }
}

#[derive(Debug, Default, Clone)]
struct AgentDecoder;

impl Decoder for AgentDecoder {
    type Item = Incoming;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<Incoming>, Status> {
        let bytes = buf.copy_to_bytes(buf.remaining());
        Ok(Some(decode(bytes)))
    }
}

/// The agent's codec: prost's encoder for what it sends, [`decode`] for what it hears.
#[derive(Debug, Default, Clone)]
struct AgentCodec;

impl Codec for AgentCodec {
    type Encode = pb::ConnectRequest;
    type Decode = Incoming;
    type Encoder = <ProstCodec<pb::ConnectRequest, pb::ConnectResponse> as Codec>::Encoder;
    type Decoder = AgentDecoder;

    fn encoder(&mut self) -> Self::Encoder {
        ProstCodec::<pb::ConnectRequest, pb::ConnectResponse>::default().encoder()
    }

    fn decoder(&mut self) -> Self::Decoder {
        AgentDecoder
    }
}

/// Opens a session: `AgentService.Connect` over `channel`.
pub async fn connect(
    channel: Channel,
    request: tonic::Request<impl tokio_stream::Stream<Item = pb::ConnectRequest> + Send + 'static>,
) -> Result<Streaming<Incoming>, Status> {
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready()
        .await
        .map_err(|e| Status::unavailable(format!("the server is not ready: {e}")))?;
    let path = http::uri::PathAndQuery::from_static("/flotilla.v1.AgentService/Connect");
    let mut request = request;
    request.extensions_mut().insert(tonic::GrpcMethod::new(
        "flotilla.v1.AgentService",
        "Connect",
    ));
    Ok(grpc
        .streaming(request, path, AgentCodec)
        .await?
        .into_inner())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::wire::convert::json_to_struct;

    fn nested(depth: usize) -> serde_json::Value {
        let mut value = json!("leaf");
        for _ in 0..depth {
            value = json!({ "k": value });
        }
        value
    }

    fn apply(operation_id: i64, manifest: serde_json::Value) -> Bytes {
        pb::ConnectResponse {
            message: Some(pb::connect_response::Message::Apply(pb::ApplyResource {
                operation_id,
                deployment_id: "d".into(),
                manifest: Some(json_to_struct(&manifest)),
                generation: 3,
            })),
        }
        .encode_to_vec()
        .into()
    }

    #[test]
    fn a_message_past_the_recursion_limit_keeps_its_operation_id() {
        match decode(apply(7, nested(20))) {
            Incoming::Message(m) => assert!(matches!(
                m.message,
                Some(pb::connect_response::Message::Apply(a)) if a.operation_id == 7
            )),
            other => panic!("{other:?}"),
        }
        match decode(apply(8, nested(60))) {
            Incoming::Undecodable {
                operation_id,
                error,
            } => {
                assert_eq!(operation_id, Some(8));
                assert!(error.contains("recursion limit"), "{error}");
            }
            other => panic!("{other:?}"),
        }
        match decode(Bytes::from_static(b"\xff\xff\xff")) {
            Incoming::Undecodable { operation_id, .. } => assert_eq!(operation_id, None),
            other => panic!("{other:?}"),
        }
    }
}
