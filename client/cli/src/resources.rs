//! Get, list, create, update and delete of any lifecycle kind, through the dynamic
//! call path: requests and responses are the API's messages, built and read by name.

use prost_reflect::{DynamicMessage, Value as PValue};
use serde_json::{Value, json};
use tonic::Status;

use crate::dynamic::{call, from_json, message, method, to_json};
use crate::kinds::Kind;

/// The lifecycle service, called with dynamic messages.
#[derive(Clone)]
pub struct Resources {
    grpc: tonic::client::Grpc<flotilla_client::Transport>,
}

impl Resources {
    pub fn new(channel: flotilla_client::Transport) -> Resources {
        Resources {
            grpc: tonic::client::Grpc::new(channel),
        }
    }

    async fn invoke(&self, rpc: &str, request: Value) -> Result<DynamicMessage, Status> {
        self.call("LifecycleService", rpc, request).await
    }

    /// Calls `service`/`rpc` with `request` (canonical JSON); the answer as JSON.
    pub async fn call_json(
        &self,
        service: &str,
        rpc: &str,
        request: Value,
    ) -> Result<Value, Status> {
        Ok(to_json(&self.call(service, rpc, request).await?))
    }

    async fn call(
        &self,
        service: &str,
        rpc: &str,
        request: Value,
    ) -> Result<DynamicMessage, Status> {
        let method = method(service, rpc);
        let request = from_json(method.input(), &request).map_err(|(path, e)| {
            Status::invalid_argument(format!("{rpc}: {}{e}", at_field(&path)))
        })?;
        let mut grpc = self.grpc.clone();
        call(&mut grpc, &method, request).await
    }

    /// The resource `name` of `kind`.
    pub async fn get(&self, kind: &Kind, name: &str) -> Result<Value, Status> {
        let found = self
            .call(
                kind.service,
                &format!("Get{}", kind.name),
                json!({ "name": name }),
            )
            .await?;
        Ok(to_json(&found))
    }

    /// The resource, or None when it does not exist.
    pub async fn find(&self, kind: &Kind, name: &str) -> Result<Option<Value>, Status> {
        match self.get(kind, name).await {
            Ok(found) => Ok(Some(found)),
            Err(status) if status.code() == tonic::Code::NotFound => Ok(None),
            Err(status) => Err(status),
        }
    }

    /// Every resource of `kind` under `parent`, page after page.
    pub async fn list(&self, kind: &Kind, parent: &str) -> Result<Vec<Value>, Status> {
        let mut items = Vec::new();
        let mut token = String::new();
        loop {
            let mut request = json!({ "pageSize": 1000, "pageToken": token });
            if let Some(scope) = kind.list_scope {
                request[scope] = json!(parent);
            }
            let page = self
                .call(kind.service, &format!("List{}", kind.plural), request)
                .await?;
            if let Some(PValue::List(list)) = page
                .get_field_by_name(kind.list_field)
                .map(|v| v.into_owned())
            {
                for item in list {
                    if let PValue::Message(m) = item {
                        items.push(to_json(&m));
                    }
                }
            }
            token = match page
                .get_field_by_name("next_page_token")
                .map(|v| v.into_owned())
            {
                Some(PValue::String(next)) if !next.is_empty() => next,
                _ => return Ok(items),
            };
        }
    }

    /// Creates `name` of `kind` with `spec` (the resource's fields, canonical JSON).
    pub async fn create(&self, kind: &Kind, name: &str, spec: &Value) -> Result<Value, Status> {
        let (parent, ids) = kind.split(name).map_err(Status::invalid_argument)?;
        let mut request = json!({});
        if kind.parent.is_some() {
            request["parent"] = json!(parent);
        }
        let resource_json = json_name(&format!("Create{}Request", kind.name), kind.field);
        for (field, id) in kind.id_fields.iter().zip(ids) {
            request[json_name(&format!("Create{}Request", kind.name), field)] = json!(id);
        }
        request[resource_json] = spec.clone();
        Ok(to_json(
            &self
                .invoke(&format!("Create{}", kind.name), request)
                .await?,
        ))
    }

    /// Updates the fields of `spec` (only those) on `name`, if its etag is still `etag`.
    pub async fn update(
        &self,
        kind: &Kind,
        name: &str,
        etag: &str,
        spec: &Value,
    ) -> Result<Value, Status> {
        let mut resource = spec.clone();
        resource["name"] = json!(name);
        resource["etag"] = json!(etag);
        let paths: Vec<String> = spec
            .as_object()
            .map(|o| o.keys().map(|k| proto_name(kind.name, k)).collect())
            .unwrap_or_default();
        let request_type = format!("Update{}Request", kind.name);
        let mut request = json!({});
        request[json_name(&request_type, kind.field)] = resource;
        // FieldMask's canonical JSON: the paths, comma-separated, in lowerCamelCase.
        request["updateMask"] = json!(
            paths
                .iter()
                .map(|p| flotilla_api::case::lower_camel(p))
                .collect::<Vec<_>>()
                .join(",")
        );
        Ok(to_json(
            &self
                .invoke(&format!("Update{}", kind.name), request)
                .await?,
        ))
    }

    /// Deletes `name` (at `etag` when given).
    pub async fn delete(&self, kind: &Kind, name: &str, etag: &str) -> Result<(), Status> {
        self.invoke(
            &format!("Delete{}", kind.name),
            json!({ "name": name, "etag": etag }),
        )
        .await?;
        Ok(())
    }

    /// A verb on a deployment intent group (`Approve`, `Instantiate`, `Rollback`, ...)
    /// or a cluster's network intents (`ApplyClusterNetworkIntents`, ...): the method
    /// name and its request (`{"name": ...}` and the verb's own fields); returns the
    /// resource after the verb.
    pub async fn verb(&self, rpc: &str, request: Value) -> Result<Value, Status> {
        Ok(to_json(&self.invoke(rpc, request).await?))
    }
}

/// The JSON name of `field` in message `message`.
fn json_name(message_name: &str, field: &str) -> String {
    message(message_name)
        .get_field_by_name(field)
        .map(|f| f.json_name().to_string())
        .unwrap_or_else(|| panic!("{message_name}.{field} is in the API"))
}

/// The proto field name of a JSON key of `kind` (`clusterNames` → `cluster_names`).
pub fn proto_name(kind: &str, key: &str) -> String {
    let descriptor = message(kind);
    descriptor
        .get_field_by_json_name(key)
        .or_else(|| descriptor.get_field_by_name(key))
        .map(|f| f.name().to_string())
        .unwrap_or_else(|| key.to_string())
}

/// "field PATH: " for a field path, "" for the message itself.
pub fn at_field(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!("field {path}: ")
    }
}

/// Checks `spec` against `kind`'s message: unknown fields and wrong types are errors
/// naming the field's path (`clusterNames[0]`, "" for the spec itself) and what is
/// wrong. Returns the spec in canonical form (what the server would echo).
pub fn validate(kind: &Kind, spec: &Value) -> Result<Value, (String, String)> {
    let parsed = from_json(message(kind.name), spec)?;
    Ok(to_json(&parsed))
}
