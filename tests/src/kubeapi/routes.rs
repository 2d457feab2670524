//! The emulator's HTTP side: routing, discovery documents, the verbs, watches.

use std::convert::Infallible;
use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use serde_json::{Value, json};
use tokio::sync::{broadcast, mpsc};

use super::store::{self, ApiError, Key, RESOURCES, Resource, selects};
use super::{Body, KubeApi, controllers};

fn json_response(code: StatusCode, value: &Value) -> Response<Body> {
    Response::builder()
        .status(code)
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(value.to_string())).boxed())
        .expect("response")
}

fn error_response(error: &ApiError) -> Response<Body> {
    json_response(
        StatusCode::from_u16(error.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        &error.status(),
    )
}

/// A parsed request path.
struct Target {
    resource: &'static Resource,
    namespace: Option<String>,
    name: Option<String>,
}

fn query_param(query: &str, key: &str) -> Option<String> {
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == key).then(|| percent_decode(v))
    })
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                match u8::from_str_radix(hex, 16) {
                    Ok(b) => {
                        out.push(b);
                        i += 3;
                        continue;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn resource_list(group: &str, version: &str, kubevirt: bool) -> Option<Value> {
    let resources: Vec<Value> = RESOURCES
        .iter()
        .filter(|r| r.group == group && r.version == version && (kubevirt || !r.kubevirt))
        .map(|r| {
            json!({"name": r.plural, "singularName": r.kind.to_lowercase(), "namespaced": r.namespaced,
                   "kind": r.kind, "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]})
        })
        .collect();
    if resources.is_empty() {
        return None;
    }
    let group_version = if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    };
    Some(
        json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version, "resources": resources}),
    )
}

fn group_list(kubevirt: bool) -> Value {
    let mut groups: Vec<&str> = RESOURCES
        .iter()
        .filter(|r| kubevirt || !r.kubevirt)
        .map(|r| r.group)
        .filter(|g| !g.is_empty())
        .collect();
    groups.dedup();
    let groups: Vec<Value> = groups
        .iter()
        .map(|g| {
            let version = RESOURCES
                .iter()
                .find(|r| r.group == *g)
                .map(|r| r.version)
                .unwrap_or("v1");
            let gv = json!({"groupVersion": format!("{g}/{version}"), "version": version});
            json!({"name": g, "versions": [gv.clone()], "preferredVersion": gv})
        })
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// Parses `/api/v1/...` or `/apis/{g}/{v}/...` into a target.
fn parse_target(path: &str, kubevirt: bool) -> Option<Target> {
    let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
    let (group, version, rest) = match parts.as_slice() {
        ["api", version, rest @ ..] => ("", *version, rest),
        ["apis", group, version, rest @ ..] => (*group, *version, rest),
        _ => return None,
    };
    let find = |plural: &str| {
        RESOURCES.iter().find(|r| {
            r.group == group
                && r.version == version
                && r.plural == plural
                && (kubevirt || !r.kubevirt)
        })
    };
    let (namespace, plural, name) = match rest {
        ["namespaces", ns, plural] => (Some(ns.to_string()), *plural, None),
        ["namespaces", ns, plural, name] => (Some(ns.to_string()), *plural, Some(name.to_string())),
        [plural] => (None, *plural, None),
        [plural, name] => (None, *plural, Some(name.to_string())),
        _ => return None,
    };
    let resource = find(plural)?;
    // `/api/v1/namespaces/{name}` is the namespace itself.
    Some(Target {
        resource,
        namespace,
        name,
    })
}

impl KubeApi {
    pub(super) async fn serve(&self, request: Request<Incoming>) -> Response<Body> {
        let path = request.uri().path().to_string();
        let query = request.uri().query().unwrap_or_default().to_string();
        let method = request.method().clone();
        let content_type = request
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        let body = request
            .into_body()
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        match path.as_str() {
            "/version" => {
                return json_response(
                    StatusCode::OK,
                    &json!({"major": "1", "minor": "33", "gitVersion": "v1.33.0-flotilla-emulator",
                            "gitCommit": "", "gitTreeState": "clean", "buildDate": "2026-01-01T00:00:00Z",
                            "goVersion": "", "compiler": "", "platform": "linux/amd64"}),
                );
            }
            "/api" => {
                return json_response(
                    StatusCode::OK,
                    &json!({"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []}),
                );
            }
            "/apis" => {
                return json_response(StatusCode::OK, &group_list(self.inner.options.kubevirt));
            }
            _ => {}
        }
        let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
        let discovery = match parts.as_slice() {
            ["api", version] => Some(resource_list("", version, self.inner.options.kubevirt)),
            ["apis", group, version] => {
                Some(resource_list(group, version, self.inner.options.kubevirt))
            }
            _ => None,
        };
        if let Some(list) = discovery {
            return match list {
                Some(list) => json_response(StatusCode::OK, &list),
                None => error_response(&ApiError::new(
                    404,
                    "NotFound",
                    "the server could not find the requested resource",
                )),
            };
        }
        if let [
            "apis",
            "subresources.kubevirt.io",
            "v1",
            "namespaces",
            namespace,
            "virtualmachines",
            name,
            "restart",
        ] = parts.as_slice()
            && self.inner.options.kubevirt
        {
            return match (method == Method::PUT).then(|| self.restart(namespace, name)) {
                Some(Ok(value)) => json_response(StatusCode::ACCEPTED, &value),
                Some(Err(error)) => error_response(&error),
                None => {
                    error_response(&ApiError::new(405, "MethodNotAllowed", "restart takes PUT"))
                }
            };
        }
        let Some(target) = parse_target(&path, self.inner.options.kubevirt) else {
            return error_response(&ApiError::new(
                404,
                "NotFound",
                "the server could not find the requested resource",
            ));
        };
        let result = match (method, target.name.clone()) {
            (Method::GET, _) if query_param(&query, "watch").as_deref() == Some("true") => {
                return self.watch(&target, &query);
            }
            (Method::GET, Some(name)) => self.get_object(&target, &name),
            (Method::GET, None) => Ok(self.list_objects(&target, &query)),
            (Method::POST, None) => parse_body(&body).and_then(|object| {
                let name = object
                    .pointer("/metadata/name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                let manager =
                    query_param(&query, "fieldManager").unwrap_or_else(|| "unknown".into());
                let mut guard = self.inner.store.lock().expect("store");
                let ns = target.namespace.clone().unwrap_or_default();
                if guard
                    .0
                    .objects
                    .contains_key(&(target.resource.plural, ns.clone(), name.clone()))
                {
                    return Err(ApiError::new(
                        409,
                        "AlreadyExists",
                        format!("{} \"{name}\" already exists", target.resource.plural),
                    ));
                }
                let stored = guard
                    .0
                    .update(target.resource, &ns, &name, object, &manager);
                self.settle(&mut guard);
                stored
            }),
            (Method::PUT, Some(name)) => parse_body(&body).and_then(|object| {
                let manager =
                    query_param(&query, "fieldManager").unwrap_or_else(|| "unknown".into());
                let mut guard = self.inner.store.lock().expect("store");
                let ns = target.namespace.clone().unwrap_or_default();
                let stored = guard
                    .0
                    .update(target.resource, &ns, &name, object, &manager);
                self.settle(&mut guard);
                stored
            }),
            (Method::PATCH, Some(name)) => self.patch(&target, &name, &query, &content_type, &body),
            (Method::DELETE, Some(name)) => self.delete(&target, &name, &body),
            _ => Err(ApiError::new(
                405,
                "MethodNotAllowed",
                "the server does not allow this method on the requested resource",
            )),
        };
        match result {
            Ok(value) => json_response(StatusCode::OK, &value),
            Err(error) => error_response(&error),
        }
    }

    fn key(target: &Target, name: &str) -> Key {
        (
            target.resource.plural,
            if target.resource.namespaced {
                target.namespace.clone().unwrap_or_default()
            } else {
                String::new()
            },
            name.to_string(),
        )
    }

    fn get_object(&self, target: &Target, name: &str) -> Result<Value, ApiError> {
        let guard = self.inner.store.lock().expect("store");
        guard
            .0
            .objects
            .get(&Self::key(target, name))
            .cloned()
            .ok_or_else(|| {
                ApiError::new(
                    404,
                    "NotFound",
                    format!("{} \"{name}\" not found", target.resource.plural),
                )
            })
    }

    fn matches(target: &Target, selector: &str, key: &Key, object: &Value) -> bool {
        key.0 == target.resource.plural
            && target.namespace.as_ref().is_none_or(|ns| *ns == key.1)
            && selects(
                selector,
                object
                    .pointer("/metadata/labels")
                    .and_then(Value::as_object)
                    .unwrap_or(&Default::default()),
            )
    }

    fn list_objects(&self, target: &Target, query: &str) -> Value {
        let selector = query_param(query, "labelSelector").unwrap_or_default();
        let guard = self.inner.store.lock().expect("store");
        let items: Vec<Value> = guard
            .0
            .objects
            .iter()
            .filter(|(k, o)| Self::matches(target, &selector, k, o))
            .map(|(_, o)| o.clone())
            .collect();
        json!({"kind": format!("{}List", target.resource.kind), "apiVersion": target.resource.api_version(),
               "metadata": {"resourceVersion": guard.0.rv.to_string()}, "items": items})
    }

    fn patch(
        &self,
        target: &Target,
        name: &str,
        query: &str,
        content_type: &str,
        body: &[u8],
    ) -> Result<Value, ApiError> {
        let patch = parse_body(body)?;
        let manager = query_param(query, "fieldManager");
        let mut guard = self.inner.store.lock().expect("store");
        let namespace = target.namespace.clone().unwrap_or_default();
        let stored = if content_type.starts_with("application/apply-patch") {
            let Some(manager) = manager else {
                return Err(ApiError::new(
                    400,
                    "BadRequest",
                    "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch",
                ));
            };
            let kind = patch
                .get("kind")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if kind != target.resource.kind {
                return Err(ApiError::new(
                    400,
                    "BadRequest",
                    format!(
                        "the kind of the applied object ({kind}) is not {}",
                        target.resource.kind
                    ),
                ));
            }
            let force = query_param(query, "force").as_deref() == Some("true");
            guard
                .0
                .apply(target.resource, &namespace, name, patch, &manager, force)?
        } else if content_type.starts_with("application/merge-patch") {
            let key = Self::key(target, name);
            let mut object = guard.0.objects.get(&key).cloned().ok_or_else(|| {
                ApiError::new(
                    404,
                    "NotFound",
                    format!("{} \"{name}\" not found", target.resource.plural),
                )
            })?;
            merge(&mut object, &patch);
            guard.0.update(
                target.resource,
                &namespace,
                name,
                object,
                &manager.unwrap_or_else(|| "unknown".into()),
            )?
        } else {
            return Err(ApiError::new(
                415,
                "UnsupportedMediaType",
                format!(
                    "the body of the request was in an unknown format - accepted media types include: application/merge-patch+json, application/apply-patch+yaml ({content_type})"
                ),
            ));
        };
        self.settle(&mut guard);
        Ok(stored)
    }

    fn delete(&self, target: &Target, name: &str, body: &[u8]) -> Result<Value, ApiError> {
        let options: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        let foreground =
            options.get("propagationPolicy").and_then(Value::as_str) == Some("Foreground");
        let key = Self::key(target, name);
        let mut guard = self.inner.store.lock().expect("store");
        let Some(mut object) = guard.0.objects.get(&key).cloned() else {
            return Err(ApiError::new(
                404,
                "NotFound",
                format!("{} \"{name}\" not found", target.resource.plural),
            ));
        };
        if !foreground {
            controllers::remove_tree(&mut guard.0, &key);
            self.settle(&mut guard);
            return Ok(json!({"kind": "Status", "apiVersion": "v1", "status": "Success"}));
        }
        // Foreground: the object stays, marked, until its dependents are gone.
        if object.pointer("/metadata/deletionTimestamp").is_none() {
            object["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:00:00Z");
            object["metadata"]["finalizers"] = json!(["foregroundDeletion"]);
            let stored = guard.0.put(target.resource, object);
            let api = self.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(100)).await;
                let mut guard = api.inner.store.lock().expect("store");
                controllers::remove_tree(&mut guard.0, &key);
                api.settle(&mut guard);
            });
            return Ok(stored);
        }
        Ok(object)
    }

    fn watch(&self, target: &Target, query: &str) -> Response<Body> {
        let selector = query_param(query, "labelSelector").unwrap_or_default();
        let from: u64 = query_param(query, "resourceVersion")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let timeout = query_param(query, "timeoutSeconds")
            .and_then(|v| v.parse().ok())
            .unwrap_or(290u64)
            .min(290);
        let (sender, receiver) = mpsc::channel::<Result<Frame<Bytes>, Infallible>>(1024);
        let line = |event: &str, object: &Value| {
            Ok(Frame::data(Bytes::from(format!(
                "{}\n",
                json!({"type": event, "object": object})
            ))))
        };
        let (backlog, mut live, expired) = {
            let guard = self.inner.store.lock().expect("store");
            let store = &guard.0;
            if from != 0 && from < store.compacted {
                (
                    Vec::new(),
                    None,
                    Some(ApiError::new(
                        410,
                        "Expired",
                        format!("too old resource version: {from} ({})", store.compacted),
                    )),
                )
            } else {
                let backlog: Vec<store::Event> = if from == 0 {
                    // No version: the current objects, as ADDED.
                    store
                        .objects
                        .iter()
                        .filter(|(k, o)| Self::matches(target, &selector, k, o))
                        .map(|(k, o)| store::Event {
                            rv: store.rv,
                            plural: k.0,
                            kind: "ADDED",
                            object: o.clone(),
                        })
                        .collect()
                } else {
                    store
                        .history
                        .iter()
                        .filter(|e| e.rv > from)
                        .cloned()
                        .collect()
                };
                (backlog, Some(store.events.subscribe()), None)
            }
        };
        let cancelled = self.inner.watches.lock().expect("watches").clone();
        let plural = target.resource.plural;
        let namespace = target.namespace.clone();
        tokio::spawn(async move {
            if let Some(error) = expired {
                let _ = sender.send(line("ERROR", &error.status())).await;
                return;
            }
            let wanted = |event: &store::Event| {
                let key: Key = (
                    event.plural,
                    event
                        .object
                        .pointer("/metadata/namespace")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string(),
                    String::new(),
                );
                event.plural == plural
                    && namespace.as_ref().is_none_or(|ns| *ns == key.1)
                    && selects(
                        &selector,
                        event
                            .object
                            .pointer("/metadata/labels")
                            .and_then(Value::as_object)
                            .unwrap_or(&Default::default()),
                    )
            };
            let mut last = from;
            for event in backlog.iter().filter(|e| wanted(e)) {
                last = last.max(event.rv);
                if sender.send(line(event.kind, &event.object)).await.is_err() {
                    return;
                }
            }
            let Some(live) = live.as_mut() else { return };
            let deadline = tokio::time::sleep(Duration::from_secs(timeout));
            tokio::pin!(deadline);
            loop {
                let event = tokio::select! {
                    () = cancelled.cancelled() => return,
                    () = &mut deadline => return,
                    event = live.recv() => event,
                };
                match event {
                    Ok(event) if event.rv > last && wanted(&event) => {
                        last = event.rv;
                        if sender.send(line(event.kind, &event.object)).await.is_err() {
                            return;
                        }
                    }
                    Ok(_) => {}
                    // Too slow a reader: the watch ends, as the API server ends it.
                    Err(broadcast::error::RecvError::Lagged(_))
                    | Err(broadcast::error::RecvError::Closed) => return,
                }
            }
        });
        let stream = tokio_stream::wrappers::ReceiverStream::new(receiver);
        Response::builder()
            .status(StatusCode::OK)
            .header("content-type", "application/json")
            .body(BodyExt::boxed(StreamBody::new(stream)))
            .expect("response")
    }
}

fn parse_body(body: &[u8]) -> Result<Value, ApiError> {
    // JSON is YAML; kube-rs sends apply patches as JSON.
    serde_json::from_slice(body).map_err(|e| {
        ApiError::new(
            400,
            "BadRequest",
            format!("the request body is not JSON: {e}"),
        )
    })
}

/// RFC 7386 JSON merge patch.
fn merge(target: &mut Value, patch: &Value) {
    match patch {
        Value::Object(map) => {
            if !target.is_object() {
                *target = json!({});
            }
            let object = target.as_object_mut().expect("object");
            for (k, v) in map {
                if v.is_null() {
                    object.remove(k);
                } else {
                    merge(object.entry(k.clone()).or_insert(Value::Null), v);
                }
            }
        }
        other => *target = other.clone(),
    }
}
