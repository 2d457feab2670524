//! Pure domain logic: names, resource specs, manifest parsing, rendering and the
//! lifecycle state machines. Nothing here does I/O.

/// An enum stored and shown by its names: the enum, `ALL` (every variant, in order),
/// `as_str`, `Display`, and `FromStr` ("unknown {what} \"x\"" for any other text).
macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident ($what:literal) {
            $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            pub const ALL: [$name; [$($text),+].len()] = [$($name::$variant),+];

            /// The stored and displayed name.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
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
                $name::ALL
                    .into_iter()
                    .find(|v| v.as_str() == text)
                    .ok_or_else(|| format!(concat!("unknown ", $what, " {:?}"), text))
            }
        }
    };
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
