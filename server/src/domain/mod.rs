//! Pure domain logic: names, resource specs, manifest parsing, rendering and the
//! lifecycle state machines. Nothing here does I/O.

/// An enum stored and shown by its names: the enum (Debug, Clone, Copy, PartialEq, Eq
/// and Hash derived; add others with `#[derive]`), `ALL` (every variant, in order),
/// `as_str`, `parse`, `Display`, and `FromStr` ("unknown {what} \"x\"" for any other
/// text). A variant's name is its identifier, or with `("what", SCREAMING_SNAKE_CASE)`
/// its identifier in that case (`RolledBack`: "ROLLED_BACK"), unless written
/// `Variant = "name"`.
macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident ($what:literal $(, $case:ident)?) {
            $($(#[$vmeta:meta])* $variant:ident $(= $text:literal)?),+ $(,)?
        }
    ) => {
        $crate::domain::named_enum! {
            @enum [$($case)?] $(#[$meta])* $vis enum $name ($what) {
                $($(#[$vmeta])* $variant $(= $text)?),+
            }
        }
    };
    (
        @enum $case:tt $(#[$meta:meta])* $vis:vis enum $name:ident ($what:literal) {
            $($(#[$vmeta:meta])* $variant:ident $(= $text:literal)?),+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        $vis enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            pub const ALL: [$name; [$(stringify!($variant)),+].len()] = [$($name::$variant),+];

            /// The stored and displayed name.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => {
                        $crate::domain::named_enum!(@name $case $variant $($text)?)
                    }),+
                }
            }

            /// The variant named `text`, if any.
            pub fn parse(text: &str) -> Option<Self> {
                $name::ALL.into_iter().find(|v| v.as_str() == text)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;

            fn from_str(text: &str) -> Result<Self, String> {
                $name::parse(text)
                    .ok_or_else(|| format!(concat!("unknown ", $what, " {:?}"), text))
            }
        }
    };
    (@name [$($case:ident)?] $variant:ident $text:literal) => { $text };
    (@name [] $variant:ident) => { stringify!($variant) };
    (@name [SCREAMING_SNAKE_CASE] $variant:ident) => {{
        const BYTES: [u8; $crate::domain::screaming_snake_len(stringify!($variant))] =
            $crate::domain::screaming_snake(stringify!($variant));
        const NAME: &str = match std::str::from_utf8(&BYTES) {
            Ok(name) => name,
            Err(_) => panic!("an identifier is ASCII"),
        };
        NAME
    }};
}

/// The length of `name` (PascalCase ASCII) in SCREAMING_SNAKE_CASE.
pub(crate) const fn screaming_snake_len(name: &str) -> usize {
    let bytes = name.as_bytes();
    let mut len = bytes.len();
    let mut i = 1;
    while i < bytes.len() {
        if bytes[i].is_ascii_uppercase() {
            len += 1;
        }
        i += 1;
    }
    len
}

/// `name` (PascalCase ASCII) in SCREAMING_SNAKE_CASE, evaluated at compile time by
/// `named_enum!`; `N` is [`screaming_snake_len`] of it.
pub(crate) const fn screaming_snake<const N: usize>(name: &str) -> [u8; N] {
    let bytes = name.as_bytes();
    let mut out = [0u8; N];
    let (mut i, mut o) = (0, 0);
    while i < bytes.len() {
        if i > 0 && bytes[i].is_ascii_uppercase() {
            out[o] = b'_';
            o += 1;
        }
        out[o] = bytes[i].to_ascii_uppercase();
        o += 1;
        i += 1;
    }
    out
}
pub(crate) use named_enum;

/// Serde for an enum with `as_str` and `FromStr`: as its stored name, so what the event
/// log and the caches hold reads as the database columns do.
macro_rules! serde_by_name {
    ($name:ty) => {
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}
pub(crate) use serde_by_name;

pub mod access;
pub mod action;
pub mod cluster_workflow;
pub mod conditions;
pub mod container_cluster;
pub mod iaas;
pub mod lifecycle;
pub mod manifest;
pub mod names;
pub mod nesting;
pub mod readiness;
pub mod render;
pub mod resources;
pub mod status;
pub mod yaml_depth;

/// Arbitrary JSON documents for property tests: at most `depth` levels, about `nodes`
/// values in all, fewer than `branch` items or members in an array or object; leaves
/// are null, booleans, integers and short strings, keys short enough to collide.
#[cfg(test)]
pub(crate) fn json_documents(
    depth: u32,
    nodes: u32,
    branch: usize,
) -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
    use proptest::prelude::*;
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        "[a-z]{0,4}".prop_map(Value::String),
    ];
    leaf.prop_recursive(depth, nodes, branch as u32, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..branch).prop_map(Value::Array),
            proptest::collection::btree_map("[a-z]{1,3}", inner, 0..branch)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

#[cfg(test)]
mod tests {
    use super::action::ActionState;
    use super::container_cluster::ClusterState;
    use super::lifecycle::{DigEvent, DigState, NetworkState};
    use super::readiness::{ClusterStatus, Readiness};

    /// The names are stored and sent: spelled as the seeds and the stored rows spell
    /// them, whether written out or derived from the identifiers.
    #[test]
    fn stored_names_keep_their_spelling() {
        assert_eq!(
            DigEvent::ALL.map(DigEvent::as_str),
            [
                "CREATED",
                "APPROVED",
                "INSTANTIATED",
                "TERMINATED",
                "REVISION_APPROVED",
                "UPDATED",
                "ROLLED_BACK",
                "MIGRATED_IN",
                "MIGRATED_OUT"
            ]
        );
        assert_eq!(
            DigState::ALL.map(DigState::as_str),
            ["CREATED", "APPROVED", "INSTANTIATED", "TERMINATED"]
        );
        assert_eq!(
            NetworkState::ALL.map(NetworkState::as_str),
            ["CREATED", "APPLIED", "TERMINATED"]
        );
        assert_eq!(
            ActionState::ALL.map(ActionState::as_str),
            ["PENDING", "RUNNING", "SUCCEEDED", "FAILED", "CANCELLED"]
        );
        assert_eq!(ClusterState::Expunging.as_str(), "EXPUNGING");
        assert_eq!(
            ClusterStatus::ALL.map(ClusterStatus::as_str),
            ["Unknown", "NotPresent", "Present"]
        );
        assert_eq!(
            Readiness::ALL.map(Readiness::as_str),
            ["", "Ready", "NotReady"]
        );
        assert_eq!("ROLLED_BACK".parse(), Ok(DigEvent::RolledBack));
        assert_eq!(
            "RolledBack".parse::<DigEvent>(),
            Err("unknown group event \"RolledBack\"".to_string())
        );
    }
}
