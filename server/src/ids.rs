//! Typed identifiers. Every kind of id is a newtype so that an instance id cannot be
//! passed where a resource uid is expected. UUIDs are v7: time-ordered, so ids sort
//! by creation and index well.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

macro_rules! uuid_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(Uuid);

        impl $name {
            /// A new, time-ordered (v7) id.
            pub fn new() -> Self {
                Self(Uuid::now_v7())
            }

            pub fn as_uuid(&self) -> Uuid {
                self.0
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }

        impl FromStr for $name {
            type Err = uuid::Error;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Uuid::parse_str(s).map(Self)
            }
        }
    };
}

uuid_id!(
    /// The server-assigned, immutable uid of a resource.
    ResourceUid
);
uuid_id!(
    /// The id of an instance: one rendering of a deployment intent group or of a
    /// cluster's network intents.
    InstanceId
);
uuid_id!(
    /// The id of a bearer token (`tokens/{id}`): public, shown in lists and audit logs.
    TokenId
);
uuid_id!(
    /// The uid of an action (`actions/{id}`).
    ActionId
);
uuid_id!(
    /// The id of a container cluster (`containerClusters/{id}`).
    ContainerClusterId
);
