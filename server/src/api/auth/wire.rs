//! The permission table resolved against the API's descriptor set (field paths become
//! field numbers, and each method learns whether it streams), and the reading of one
//! string field out of an encoded request without decoding the rest.
//!
//! The reader follows protobuf's merge semantics, as prost's decoder does: of repeated
//! occurrences of a field the last wins, and occurrences of an embedded message merge.
//! A field of the wrong wire type or invalid UTF-8 is an error (prost would refuse the
//! request too), never a silently different answer.

use std::collections::HashMap;

use prost::Message;
use prost_types::field_descriptor_proto::Type;
use prost_types::{DescriptorProto, FileDescriptorSet};

use super::rules::RULES;
use crate::domain::access::Need;

/// One RPC's entry of the permission table, ready for the layer.
#[derive(Debug, Clone)]
pub struct Rule {
    pub need: Need,
    /// The field numbers of the need's field, outermost first.
    pub field: Option<Vec<u32>>,
    /// The field numbers of the pod a pod action names (`namespace`, `pod`), for
    /// [`Need::WritePodActions`].
    pub pod: Option<[Vec<u32>; 2]>,
    /// Whether responses stream (the stream is cut when the token is revoked).
    pub streaming: bool,
}

/// The package whose services the table covers.
const PACKAGE: &str = "flotilla.v1";

/// Resolves the table against the descriptor set; every method of every service of
/// the package must have exactly one entry, and every entry a method.
pub fn resolve(descriptor_set: &[u8]) -> Result<HashMap<String, Rule>, String> {
    let set = FileDescriptorSet::decode(descriptor_set).map_err(|e| e.to_string())?;
    let mut messages: HashMap<String, &DescriptorProto> = HashMap::new();
    for file in &set.file {
        let package = file.package();
        for message in &file.message_type {
            collect(&format!(".{package}"), message, &mut messages);
        }
    }
    let mut rules = HashMap::new();
    let mut problems = Vec::new();
    for file in set.file.iter().filter(|f| f.package() == PACKAGE) {
        for service in &file.service {
            for method in &service.method {
                let path = format!("/{PACKAGE}.{}/{}", service.name(), method.name());
                let entries: Vec<&Need> = RULES
                    .iter()
                    .filter(|(s, m, _)| *s == service.name() && *m == method.name())
                    .map(|(_, _, need)| need)
                    .collect();
                let need = match entries.as_slice() {
                    [need] => **need,
                    [] => {
                        problems.push(format!("{path} has no entry in the permission table"));
                        continue;
                    }
                    _ => {
                        problems.push(format!("{path} has several entries"));
                        continue;
                    }
                };
                let field = match need.field() {
                    None => None,
                    Some(field) => {
                        if method.client_streaming() {
                            problems.push(format!(
                                "{path} streams requests: its field {field} cannot be read first"
                            ));
                            continue;
                        }
                        match field_numbers(&messages, method.input_type(), field) {
                            Ok(numbers) => Some(numbers),
                            Err(problem) => {
                                problems.push(format!("{path}: {problem}"));
                                continue;
                            }
                        }
                    }
                };
                let pod = if matches!(need, Need::WritePodActions(_)) {
                    let numbers = |f| field_numbers(&messages, method.input_type(), f);
                    match (numbers("namespace"), numbers("pod")) {
                        (Ok(namespace), Ok(pod)) => Some([namespace, pod]),
                        (Err(problem), _) | (_, Err(problem)) => {
                            problems.push(format!("{path}: {problem}"));
                            continue;
                        }
                    }
                } else {
                    None
                };
                rules.insert(
                    path,
                    Rule {
                        need,
                        field,
                        pod,
                        streaming: method.server_streaming(),
                    },
                );
            }
        }
    }
    for (service, method, _) in RULES.iter() {
        let path = format!("/{PACKAGE}.{service}/{method}");
        if !rules.contains_key(&path) && !problems.iter().any(|p| p.starts_with(&path)) {
            problems.push(format!(
                "{path} is in the permission table but not in the API"
            ));
        }
    }
    if problems.is_empty() {
        Ok(rules)
    } else {
        Err(problems.join("; "))
    }
}

fn collect<'a>(
    scope: &str,
    message: &'a DescriptorProto,
    messages: &mut HashMap<String, &'a DescriptorProto>,
) {
    let name = format!("{scope}.{}", message.name());
    for nested in &message.nested_type {
        collect(&name, nested, messages);
    }
    messages.insert(name, message);
}

/// The numbers of a dotted field path in `message`; the last field must be a
/// singular string.
fn field_numbers(
    messages: &HashMap<String, &DescriptorProto>,
    message: &str,
    path: &str,
) -> Result<Vec<u32>, String> {
    let mut numbers = Vec::new();
    let mut current = message.to_string();
    let segments: Vec<&str> = path.split('.').collect();
    for (index, segment) in segments.iter().enumerate() {
        let descriptor = messages
            .get(&current)
            .ok_or_else(|| format!("message {current} is not in the descriptor set"))?;
        let field = descriptor
            .field
            .iter()
            .find(|f| f.name() == *segment)
            .ok_or_else(|| format!("{current} has no field {segment:?} (of {path})"))?;
        if field.label() == prost_types::field_descriptor_proto::Label::Repeated {
            return Err(format!("{path}: {segment} is repeated"));
        }
        numbers.push(field.number() as u32);
        let last = index + 1 == segments.len();
        match (last, field.r#type()) {
            (true, Type::String) => {}
            (false, Type::Message) => current = field.type_name().to_string(),
            _ => return Err(format!("{path}: {segment} is not a string or a message")),
        }
    }
    Ok(numbers)
}

/// A malformed request: it cannot be read, so nothing can be decided from it.
#[derive(Debug, PartialEq, Eq)]
pub struct Malformed;

/// Reads the string at `path` (field numbers) from an encoded message; `""` when
/// absent, as proto3 defaults it.
pub fn read_string(message: &[u8], path: &[u32]) -> Result<String, Malformed> {
    let Some((&number, rest)) = path.split_first() else {
        return Err(Malformed);
    };
    let mut value: Option<String> = None;
    let mut buf = message;
    while !buf.is_empty() {
        let key = varint(&mut buf)?;
        let (field, wire) = ((key >> 3) as u32, key & 7);
        if field == 0 {
            return Err(Malformed);
        }
        if field != number {
            skip(&mut buf, wire)?;
            continue;
        }
        if wire != 2 {
            return Err(Malformed);
        }
        let bytes = length_delimited(&mut buf)?;
        if rest.is_empty() {
            let text = std::str::from_utf8(bytes).map_err(|_| Malformed)?;
            value = Some(text.to_string());
        } else {
            // Occurrences of an embedded message merge: a later one sets the inner
            // field only if it carries it.
            let inner = read_optional(bytes, rest)?;
            if inner.is_some() {
                value = inner;
            }
        }
    }
    Ok(value.unwrap_or_default())
}

fn read_optional(message: &[u8], path: &[u32]) -> Result<Option<String>, Malformed> {
    // Distinguishes "absent" from "set to empty" inside one occurrence.
    let mut found = false;
    let mut buf = message;
    let number = path[0];
    while !buf.is_empty() {
        let key = varint(&mut buf)?;
        let (field, wire) = ((key >> 3) as u32, key & 7);
        if field == number {
            found = true;
        }
        skip(&mut buf, wire)?;
    }
    if found {
        read_string(message, path).map(Some)
    } else {
        Ok(None)
    }
}

fn varint(buf: &mut &[u8]) -> Result<u64, Malformed> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = buf.split_first().ok_or(Malformed)?;
        *buf = rest;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(Malformed)
}

fn length_delimited<'a>(buf: &mut &'a [u8]) -> Result<&'a [u8], Malformed> {
    let len = usize::try_from(varint(buf)?).map_err(|_| Malformed)?;
    if len > buf.len() {
        return Err(Malformed);
    }
    let (bytes, rest) = buf.split_at(len);
    *buf = rest;
    Ok(bytes)
}

fn skip(buf: &mut &[u8], wire: u64) -> Result<(), Malformed> {
    let advance = |buf: &mut &[u8], n: usize| {
        if n > buf.len() {
            return Err(Malformed);
        }
        *buf = &buf[n..];
        Ok(())
    };
    match wire {
        0 => varint(buf).map(|_| ()),
        1 => advance(buf, 8),
        2 => length_delimited(buf).map(|_| ()),
        5 => advance(buf, 4),
        // Groups (3, 4) are not used by proto3; anything else is not protobuf.
        _ => Err(Malformed),
    }
}

#[cfg(test)]
mod tests {
    use flotilla_api::v1 as pb;
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn every_rpc_has_one_entry_and_every_field_exists() {
        let rules = resolve(flotilla_api::FILE_DESCRIPTOR_SET).unwrap();
        assert_eq!(rules.len(), RULES.len());
        let watch = &rules["/flotilla.v1.StatusService/WatchStatus"];
        assert!(watch.streaming);
        assert_eq!(watch.field, Some(vec![1]));
        let update = &rules["/flotilla.v1.LifecycleService/UpdateProject"];
        assert!(!update.streaming);
        assert_eq!(update.field, Some(vec![1, 1]));
    }

    #[test]
    fn reads_the_field_prost_decodes() {
        let request = pb::UpdateAppRequest {
            app: Some(pb::App {
                name: "projects/a/compositeApps/c/versions/v1/apps/x".into(),
                manifests: "kind: ConfigMap".into(),
                ..Default::default()
            }),
            ..Default::default()
        };
        let bytes = request.encode_to_vec();
        let path = [1, 1];
        assert_eq!(
            read_string(&bytes, &path).unwrap(),
            "projects/a/compositeApps/c/versions/v1/apps/x"
        );
        // A later occurrence of the embedded message merges over the first: prost
        // takes its name, so must we.
        let later = pb::UpdateAppRequest {
            app: Some(pb::App {
                name: "projects/b/compositeApps/c/versions/v1/apps/x".into(),
                ..Default::default()
            }),
            ..Default::default()
        };
        let mut both = bytes.clone();
        both.extend(later.encode_to_vec());
        let decoded = pb::UpdateAppRequest::decode(both.as_slice()).unwrap();
        assert_eq!(
            read_string(&both, &path).unwrap(),
            decoded.app.unwrap().name
        );
        // A later occurrence without a name keeps the earlier name.
        let mut keep = bytes.clone();
        keep.extend(
            pb::UpdateAppRequest {
                app: Some(pb::App {
                    description: "d".into(),
                    ..Default::default()
                }),
                ..Default::default()
            }
            .encode_to_vec(),
        );
        let decoded = pb::UpdateAppRequest::decode(keep.as_slice()).unwrap();
        assert_eq!(
            read_string(&keep, &path).unwrap(),
            decoded.app.unwrap().name
        );
        assert_eq!(read_string(&[], &path).unwrap(), "");
        // The wrong wire type for the field is refused, as prost refuses it.
        assert_eq!(read_string(&[0x08, 0x01], &[1]), Err(Malformed));
        assert!(pb::GetProjectRequest::decode(&[0x08u8, 0x01][..]).is_err());
    }

    proptest! {
        /// Whatever bytes arrive, the reader never panics, and never finds a name other
        /// than the one prost decodes. (Either may refuse what the other reads: the
        /// reader refuses groups in unknown fields, and prost refuses a malformed field
        /// the reader skips; a refusal by either ends the call.)
        #[test]
        fn agrees_with_prost_on_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            if let (Ok(ours), Ok(decoded)) = (
                read_string(&bytes, &[1, 1]),
                pb::UpdateProjectRequest::decode(bytes.as_slice()),
            ) {
                prop_assert_eq!(ours, decoded.project.map(|p| p.name).unwrap_or_default());
            }
            if let (Ok(ours), Ok(decoded)) = (
                read_string(&bytes, &[1]),
                pb::GetProjectRequest::decode(bytes.as_slice()),
            ) {
                prop_assert_eq!(ours, decoded.name);
            }
        }

        /// Valid requests with junk fields around the name.
        #[test]
        fn finds_the_name_among_other_fields(name in "[a-z/]{0,30}", description in ".{0,20}", labels in proptest::collection::btree_map("[a-z]{1,5}", "[a-z]{0,5}", 0..3)) {
            let request = pb::UpdateProjectRequest {
                project: Some(pb::Project { name: name.clone(), description, labels, ..Default::default() }),
                update_mask: Some(prost_types::FieldMask { paths: vec!["description".into()] }),
            };
            prop_assert_eq!(read_string(&request.encode_to_vec(), &[1, 1]), Ok(name));
        }
    }
}
