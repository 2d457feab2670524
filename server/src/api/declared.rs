//! The kinds declared in the proto and nothing else: their five RPCs (AIP-131..135)
//! served by one generic handler over dynamic messages, so that a plain kind (a name,
//! a parent, fields; no behaviour of its own) is its proto message, its resource
//! declaration and its table. Kinds with behaviour keep typed handlers
//! ([`super::lifecycle`], listed in [`TYPED`]); the route sends their methods to the
//! generated service.
//!
//! The resource is stored as the proto's JSON (field names as declared) without the
//! output fields (`name`, `uid`, `etag`, `create_time`, `update_time`), which the
//! server fills from the stored object, as for every other kind.

use std::collections::HashMap;
use std::sync::Arc;

use flotilla_api::dynamic::{DynamicCodec, POOL};
use flotilla_api::v1::lifecycle_service_server::LifecycleServiceServer;
use prost::Message;
use prost_reflect::{DynamicMessage, Kind as FieldKind, MessageDescriptor, Value};
use serde_json::Value as Json;
use tonic::body::Body;
use tonic::codegen::{BoxFuture, Service, http};
use tonic::server::{Grpc, NamedService, UnaryService};
use tonic::{Request, Response, Status};

use super::lifecycle::{LifecycleApi, object_page};
use super::{MAX_MESSAGE_BYTES, check_size, request_key_of};
use crate::app::lifecycle::Lifecycle;
use crate::domain::names::{
    APP, APP_PROFILE, CLUSTER, CLUSTER_PROVIDER, COMPOSITE_APP, COMPOSITE_PROFILE,
    DEPLOYMENT_INTENT_GROUP, KINDS, Kind, NETWORK_INTENT, PLACEMENT_INTENT, PROJECT, ResourceName,
};
use crate::error::{Error, Result, Violations};
use crate::store::object::Object;
use crate::wire::convert::{check_description, etag, id, mask_paths, name, parse_etag, timestamp};

/// The kinds served by typed handlers in [`super::lifecycle`].
pub const TYPED: [&Kind; 10] = [
    &PROJECT,
    &COMPOSITE_APP,
    &APP,
    &COMPOSITE_PROFILE,
    &APP_PROFILE,
    &DEPLOYMENT_INTENT_GROUP,
    &PLACEMENT_INTENT,
    &CLUSTER_PROVIDER,
    &CLUSTER,
    &NETWORK_INTENT,
];

/// The fields the server fills; a request's values for them are ignored.
const OUTPUT_FIELDS: [&str; 5] = ["name", "uid", "etag", "create_time", "update_time"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verb {
    Create,
    Get,
    List,
    Update,
    Delete,
}

/// One RPC of a declared kind.
struct Method {
    verb: Verb,
    kind: &'static Kind,
    input: MessageDescriptor,
    output: MessageDescriptor,
    /// The kind's message.
    resource: MessageDescriptor,
    /// The fields an update may name.
    updatable: Vec<&'static str>,
}

/// LifecycleService as served: the generated service, and the RPCs of the kinds that
/// only the proto declares.
#[derive(Clone)]
pub struct LifecycleRoutes {
    generated: LifecycleServiceServer<LifecycleApi>,
    declared: Arc<Declared>,
}

struct Declared {
    app: Lifecycle,
    methods: HashMap<String, Arc<Method>>,
}

impl LifecycleRoutes {
    pub fn new(app: Lifecycle) -> Self {
        let mut methods = HashMap::new();
        for kind in KINDS.iter().copied() {
            if kind.service != "LifecycleService" || TYPED.contains(&kind) {
                continue;
            }
            let resource = POOL
                .get_message_by_name(kind.type_name)
                .expect("a declared kind is a message of the API");
            let updatable = resource
                .fields()
                .map(|f| f.name().to_string())
                .filter(|f| !OUTPUT_FIELDS.contains(&f.as_str()))
                .map(|f| &*Box::leak(f.into_boxed_str()))
                .collect::<Vec<&'static str>>();
            let service = POOL
                .get_service_by_name(&format!("flotilla.v1.{}", kind.service))
                .expect("the kind's service is in the API");
            for verb in [
                Verb::Create,
                Verb::Get,
                Verb::List,
                Verb::Update,
                Verb::Delete,
            ] {
                let method_name = kind.method(&format!("{verb:?}"));
                let method = service
                    .methods()
                    .find(|m| m.name() == method_name)
                    .unwrap_or_else(|| panic!("{method_name} is declared for {}", kind.message));
                methods.insert(
                    format!("/flotilla.v1.{}/{method_name}", kind.service),
                    Arc::new(Method {
                        verb,
                        kind,
                        input: method.input(),
                        output: method.output(),
                        resource: resource.clone(),
                        updatable: updatable.clone(),
                    }),
                );
            }
        }
        Self {
            generated: LifecycleServiceServer::new(LifecycleApi::new(app.clone()))
                .max_decoding_message_size(MAX_MESSAGE_BYTES),
            declared: Arc::new(Declared { app, methods }),
        }
    }
}

impl NamedService for LifecycleRoutes {
    const NAME: &'static str = <LifecycleServiceServer<LifecycleApi> as NamedService>::NAME;
}

impl Service<http::Request<Body>> for LifecycleRoutes {
    crate::wire::routes::routing_service!();

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        let Some(method) = self.declared.methods.get(request.uri().path()).cloned() else {
            return Box::pin(self.generated.call(request));
        };
        let codec = DynamicCodec(method.input.clone());
        let handler = Handler {
            declared: self.declared.clone(),
            method,
        };
        Box::pin(async move {
            Ok(Grpc::new(codec)
                .apply_max_message_size_config(Some(MAX_MESSAGE_BYTES), None)
                .unary(handler, request)
                .await)
        })
    }
}

struct Handler {
    declared: Arc<Declared>,
    method: Arc<Method>,
}

impl UnaryService<DynamicMessage> for Handler {
    type Response = DynamicMessage;
    type Future = BoxFuture<Response<DynamicMessage>, Status>;

    fn call(&mut self, request: Request<DynamicMessage>) -> Self::Future {
        let (declared, method) = (self.declared.clone(), self.method.clone());
        Box::pin(async move {
            let method = &*method;
            let request = check_size(request)?;
            let answer = match method.verb {
                Verb::Create => declared.create(method, &request).await,
                Verb::Get => declared.get(method, &request).await,
                Verb::List => declared.list(method, &request).await,
                Verb::Update => declared.update(method, &request).await,
                Verb::Delete => declared.delete(method, &request).await,
            };
            answer.map(Response::new).map_err(Status::from)
        })
    }
}

impl Declared {
    async fn create(&self, method: &Method, req: &DynamicMessage) -> Result<DynamicMessage> {
        let kind = method.kind;
        let parent = parent_of(kind, req)?;
        let ids: Vec<String> = kind.id_fields.iter().map(|f| text(req, f)).collect();
        for (field, value) in kind.id_fields.iter().zip(&ids) {
            id(field, value)?;
        }
        let body = message(req, kind.field, &method.resource);
        let spec = to_spec(&body, kind.field)?;
        let scope = parent.as_ref().map(ToString::to_string).unwrap_or_default();
        let key = request_key_of(
            &kind.method("Create"),
            &scope,
            &text(req, "request_id"),
            &canonical(req)?,
        )?;
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        let name = ResourceName::child(kind, parent.as_ref(), &ids);
        let object = self.app.create(name, spec, key.as_ref()).await?;
        to_message(&method.resource, &object)
    }

    async fn get(&self, method: &Method, req: &DynamicMessage) -> Result<DynamicMessage> {
        let name = name(method.kind, "name", &text(req, "name"))?;
        let object: Object<Json> = self.app.get(&name).await?;
        to_message(&method.resource, &object)
    }

    async fn list(&self, method: &Method, req: &DynamicMessage) -> Result<DynamicMessage> {
        let kind = method.kind;
        let parent = parent_of(kind, req)?;
        let size = match req.get_field_by_name("page_size").as_deref() {
            Some(Value::I32(size)) => *size,
            _ => 0,
        };
        let token = text(req, "page_token");
        let (objects, next) =
            object_page::<Json>(&self.app, kind, parent.as_ref(), size, &token).await?;
        let items = objects
            .iter()
            .map(|o| to_message(&method.resource, o).map(Value::Message))
            .collect::<Result<Vec<_>>>()?;
        let mut response = DynamicMessage::new(method.output.clone());
        response.set_field_by_name(kind.list_field, Value::List(items));
        response.set_field_by_name("next_page_token", Value::String(next));
        Ok(response)
    }

    async fn update(&self, method: &Method, req: &DynamicMessage) -> Result<DynamicMessage> {
        let kind = method.kind;
        if !req.has_field_by_name(kind.field) {
            return Err(Error::invalid(kind.field, "is required"));
        }
        let incoming = message(req, kind.field, &method.resource);
        let name = name(
            kind,
            &format!("{}.name", kind.field),
            &text(&incoming, "name"),
        )?;
        let etag = parse_etag(&text(&incoming, "etag"));
        let mask = match req.get_field_by_name("update_mask").as_deref() {
            Some(Value::Message(mask)) => Some(
                mask.transcode_to::<prost_types::FieldMask>()
                    .map_err(Error::internal)?,
            ),
            _ => None,
        };
        let paths = mask_paths(mask.as_ref(), &method.updatable)?;
        let object = self
            .app
            .update(
                &name,
                etag,
                incoming.encoded_len(),
                |current: &Object<Json>| {
                    let mut merged = to_message(&method.resource, current)?;
                    for path in &paths {
                        match incoming.get_field_by_name(path) {
                            Some(value) if incoming.has_field_by_name(path) => {
                                merged.set_field_by_name(path, value.into_owned())
                            }
                            _ => merged.clear_field_by_name(path),
                        }
                    }
                    to_spec(&merged, kind.field)
                },
            )
            .await?;
        to_message(&method.resource, &object)
    }

    async fn delete(&self, method: &Method, req: &DynamicMessage) -> Result<DynamicMessage> {
        let name = name(method.kind, "name", &text(req, "name"))?;
        self.app
            .delete(&name, parse_etag(&text(req, "etag")))
            .await?;
        Ok(DynamicMessage::new(method.output.clone()))
    }
}

/// The canonical bytes of a request, for its idempotency key: its JSON with every
/// object's keys in order. A dynamic message holds its maps in hash maps, so its
/// protobuf encoding lists a map's entries in a different order from one decode to the
/// next, and the same request retried would not be recognised.
fn canonical(message: &DynamicMessage) -> Result<Vec<u8>> {
    let json = message
        .serialize_with_options(
            serde_json::value::Serializer,
            &prost_reflect::SerializeOptions::new(),
        )
        .map_err(Error::internal)?;
    // serde_json's objects are ordered maps (no `preserve_order`): keys come out sorted.
    serde_json::to_vec(&json).map_err(Error::internal)
}

/// The request's `parent`, of `kind`'s parent kind (None for a top-level kind).
fn parent_of(kind: &'static Kind, req: &DynamicMessage) -> Result<Option<ResourceName>> {
    kind.parent
        .map(|parent| name(parent, "parent", &text(req, "parent")))
        .transpose()
}

/// A string field of `message` ("" when unset or absent).
fn text(message: &DynamicMessage, field: &str) -> String {
    match message.get_field_by_name(field).as_deref() {
        Some(Value::String(text)) => text.clone(),
        _ => String::new(),
    }
}

/// A message field of `message` (the default message when unset).
fn message(message: &DynamicMessage, field: &str, of: &MessageDescriptor) -> DynamicMessage {
    match message.get_field_by_name(field).as_deref() {
        Some(Value::Message(inner)) => inner.clone(),
        _ => DynamicMessage::new(of.clone()),
    }
}

/// The stored form of a resource: its JSON without the output fields, after the checks
/// every resource gets (descriptions bounded, map keys not empty). `field` is the
/// request field holding it, for violations.
fn to_spec(resource: &DynamicMessage, field: &str) -> Result<Json> {
    let mut violations = Violations::new();
    for (descriptor, value) in resource.fields() {
        let path = format!("{field}.{}", descriptor.name());
        match value {
            Value::String(text) if descriptor.name() == "description" => {
                check_description(&mut violations, &path, text)
            }
            Value::Map(map) => {
                for key in map.keys() {
                    if key.as_str() == Some("") {
                        violations.add(&path, "keys must not be empty");
                    }
                }
            }
            _ => {}
        }
    }
    violations.into_result()?;
    let mut spec = resource.clone();
    for output in OUTPUT_FIELDS {
        spec.clear_field_by_name(output);
    }
    let options = prost_reflect::SerializeOptions::new()
        .use_proto_field_name(true)
        .skip_default_fields(true);
    spec.serialize_with_options(serde_json::value::Serializer, &options)
        .map_err(Error::internal)
}

/// The resource message of a stored object: its spec and the fields the server fills.
/// A stored field the message no longer has (removed from the proto since) is skipped,
/// as protobuf skips unknown fields.
fn to_message(resource: &MessageDescriptor, object: &Object<Json>) -> Result<DynamicMessage> {
    let options = prost_reflect::DeserializeOptions::new().deny_unknown_fields(false);
    let mut message =
        DynamicMessage::deserialize_with_options(resource.clone(), &object.spec, &options)
            .map_err(|e| Error::internal(format!("stored body of {}: {e}", object.name)))?;
    let mut set = |field: &str, value: Value| {
        if resource.get_field_by_name(field).is_some() {
            message.set_field_by_name(field, value);
        }
    };
    set("name", Value::String(object.name.to_string()));
    set("uid", Value::String(object.uid.to_string()));
    set("etag", Value::String(etag(object.generation)));
    for (field, micros) in [
        ("create_time", object.create_time),
        ("update_time", object.update_time),
    ] {
        if let Some(FieldKind::Message(descriptor)) =
            resource.get_field_by_name(field).map(|f| f.kind())
        {
            let mut time = DynamicMessage::new(descriptor);
            time.transcode_from(&timestamp(micros).unwrap_or_default())
                .map_err(Error::internal)?;
            set(field, Value::Message(time));
        }
    }
    Ok(message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::names::CLUSTER_KV_PAIR;
    use crate::ids::ResourceUid;

    fn object(spec: Json) -> Object<Json> {
        Object {
            name: ResourceName::parse(
                &CLUSTER_KV_PAIR,
                "name",
                "clusterProviders/p/clusters/c/kvPairs/k",
            )
            .unwrap(),
            uid: ResourceUid::new(),
            spec,
            generation: 3,
            create_time: 1_000_000,
            update_time: 2_500_000,
        }
    }

    /// What is stored is the message less its output fields; what is read back is the
    /// message with them filled from the object.
    #[test]
    fn a_resource_is_stored_without_output_fields_and_read_back_with_them() {
        let descriptor = POOL.get_message_by_name(CLUSTER_KV_PAIR.type_name).unwrap();
        let mut message = DynamicMessage::new(descriptor.clone());
        message.set_field_by_name("name", Value::String("ignored".into()));
        message.set_field_by_name("etag", Value::String("7".into()));
        message.set_field_by_name("description", Value::String("d".into()));
        let spec = to_spec(&message, "cluster_kv_pair").unwrap();
        assert_eq!(spec, serde_json::json!({"description": "d"}));
        let read = to_message(&descriptor, &object(spec)).unwrap();
        let field = |name: &str| read.get_field_by_name(name).unwrap().into_owned();
        assert_eq!(
            field("name"),
            Value::String("clusterProviders/p/clusters/c/kvPairs/k".into())
        );
        assert_eq!(field("etag"), Value::String("3".into()));
        assert_eq!(field("description"), Value::String("d".into()));
        let Value::Message(update_time) = field("update_time") else {
            panic!("a timestamp")
        };
        assert_eq!(
            update_time.get_field_by_name("seconds").unwrap().as_i64(),
            Some(2)
        );
        assert_eq!(
            update_time.get_field_by_name("nanos").unwrap().as_i32(),
            Some(500_000_000)
        );
    }

    /// Equal requests give equal keys however their maps' entries were inserted.
    #[test]
    fn a_request_with_a_map_has_one_canonical_form() {
        let descriptor = POOL
            .get_message_by_name("flotilla.v1.CreateClusterKvPairRequest")
            .unwrap();
        let resource = POOL.get_message_by_name(CLUSTER_KV_PAIR.type_name).unwrap();
        let request = |keys: &[&str]| {
            let mut pairs = DynamicMessage::new(resource.clone());
            let map = keys
                .iter()
                .map(|k| {
                    (
                        prost_reflect::MapKey::String(k.to_string()),
                        Value::String(format!("v-{k}")),
                    )
                })
                .collect();
            pairs.set_field_by_name("pairs", Value::Map(map));
            let mut request = DynamicMessage::new(descriptor.clone());
            request.set_field_by_name("cluster_kv_pair", Value::Message(pairs));
            request
        };
        let keys: Vec<String> = (0..16).map(|i| format!("k{i:02}")).collect();
        let forward: Vec<&str> = keys.iter().map(String::as_str).collect();
        let backward: Vec<&str> = forward.iter().rev().copied().collect();
        let first = canonical(&request(&forward)).unwrap();
        for attempt in 0..20 {
            let keys = if attempt % 2 == 0 {
                &forward
            } else {
                &backward
            };
            assert_eq!(canonical(&request(keys)).unwrap(), first);
        }
        assert_ne!(canonical(&request(&forward[..15])).unwrap(), first);
    }

    /// A field stored before it left the proto does not make the resource unreadable.
    #[test]
    fn a_stored_field_the_message_no_longer_has_is_skipped() {
        let descriptor = POOL.get_message_by_name(CLUSTER_KV_PAIR.type_name).unwrap();
        let read = to_message(
            &descriptor,
            &object(serde_json::json!({"description": "d", "retired_field": [1, 2]})),
        )
        .unwrap();
        assert_eq!(
            read.get_field_by_name("description").unwrap().as_str(),
            Some("d")
        );
    }
}
