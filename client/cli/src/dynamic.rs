//! Calls any unary RPC of the API with dynamic messages: the request built from JSON
//! (the proto's canonical JSON mapping), the response decoded by its descriptor. One
//! generic path serves every resource kind.

use flotilla_api::dynamic::DynamicCodec;
use prost::Message;
use prost_reflect::{DynamicMessage, MessageDescriptor, MethodDescriptor};
use tonic::Status;

pub use flotilla_api::dynamic::POOL;

/// The descriptor of `flotilla.v1.{name}`.
pub fn message(name: &str) -> MessageDescriptor {
    POOL.get_message_by_name(&format!("flotilla.v1.{name}"))
        .unwrap_or_else(|| panic!("flotilla.v1.{name} is in the API"))
}

/// The method `service/method` of `flotilla.v1`.
pub fn method(service: &str, method: &str) -> MethodDescriptor {
    POOL.get_service_by_name(&format!("flotilla.v1.{service}"))
        .and_then(|s| s.methods().find(|m| m.name() == method))
        .unwrap_or_else(|| panic!("flotilla.v1.{service}/{method} is in the API"))
}

/// A typed message as a dynamic one (for printing as canonical JSON).
pub fn from_typed<T: Message>(message: &T, name: &str) -> DynamicMessage {
    DynamicMessage::decode(self::message(name), message.encode_to_vec().as_slice())
        .expect("a message decodes as its own type")
}

/// The canonical JSON of a dynamic message.
pub fn to_json(message: &DynamicMessage) -> serde_json::Value {
    let options = prost_reflect::SerializeOptions::new()
        .skip_default_fields(true)
        .stringify_64_bit_integers(false);
    message
        .serialize_with_options(serde_json::value::Serializer, &options)
        .expect("a message serializes to JSON")
}

/// A message of type `descriptor` from canonical JSON; unknown fields are errors, which
/// name the path of the field within the message (`placement.clusterNames[0]`; "" for
/// the message itself).
pub fn from_json(
    descriptor: MessageDescriptor,
    json: &serde_json::Value,
) -> Result<DynamicMessage, (String, String)> {
    let text = json.to_string();
    let mut deserializer = serde_json::Deserializer::from_str(&text);
    let mut track = serde_path_to_error::Track::new();
    let tracked = serde_path_to_error::Deserializer::new(&mut deserializer, &mut track);
    DynamicMessage::deserialize(descriptor, tracked).map_err(|e| {
        // serde's position is in the re-serialized JSON, not the user's YAML.
        let message = e.to_string();
        let message = message.split(" at line ").next().unwrap_or(&message);
        (field_path(&track.path()), message.to_string())
    })
}

/// serde's path (`a.b[0]`, `.` for the top) as a field path ("" for the top).
fn field_path(path: &serde_path_to_error::Path) -> String {
    let text = path.to_string();
    if text == "." { String::new() } else { text }
}

/// Calls `method` with `request` over `channel`.
pub async fn call<T>(
    grpc: &mut tonic::client::Grpc<T>,
    method: &MethodDescriptor,
    request: DynamicMessage,
) -> Result<DynamicMessage, Status>
where
    T: tonic::client::GrpcService<tonic::body::Body>,
    T::ResponseBody: tonic::transport::Body<Data = bytes::Bytes> + Send + 'static,
    <T::ResponseBody as tonic::transport::Body>::Error:
        Into<Box<dyn std::error::Error + Send + Sync>> + Send,
{
    grpc.ready()
        .await
        .map_err(|e| Status::unavailable(format!("the server is not reachable: {}", e.into())))?;
    let path = format!("/{}/{}", method.parent_service().full_name(), method.name())
        .parse()
        .expect("a valid path");
    let codec = DynamicCodec(method.output());
    Ok(grpc
        .unary(tonic::Request::new(request), path, codec)
        .await?
        .into_inner())
}
