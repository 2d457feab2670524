//! How domain enums, names and ids are stored: enums as their names (`as_str`), read back
//! with `FromStr` (a stored name no variant has is a decode error, never a default); names
//! as text; ids as their UUID text.

use std::borrow::Cow;

use sqlx::encode::IsNull;
use sqlx::error::BoxDynError;
use sqlx::{Any, Database, Decode, Encode, Type};

use crate::domain::container_cluster::ClusterState;
use crate::domain::names::{ClusterName, Namespace, NodeName, PodName};
use crate::domain::readiness::{ClusterStatus, Connectivity, Readiness};
use crate::domain::status::RsyncStatus;
use crate::ids::{ActionId, ContainerClusterId, InstanceId, ResourceUid, TokenId};

/// What a stored value is as text, and back.
trait StoredText: Sized {
    fn stored(&self) -> Cow<'static, str>;
    fn restore(text: String) -> Result<Self, BoxDynError>;
}

/// Values stored as `stored` makes them and parsed back with `FromStr`.
macro_rules! parsed_back {
    ($stored:expr; $($ty:ty),+ $(,)?) => {$(
        impl StoredText for $ty {
            fn stored(&self) -> Cow<'static, str> {
                let stored: fn(&Self) -> Cow<'static, str> = $stored;
                stored(self)
            }

            fn restore(text: String) -> Result<Self, BoxDynError> {
                Ok(text.parse::<$ty>()?)
            }
        }
    )+};
}

// Enums: their names, no allocation on the way in.
parsed_back!(|v| Cow::Borrowed(v.as_str());
    Connectivity, ClusterStatus, Readiness, RsyncStatus, ClusterState);
// Ids: their UUID text.
parsed_back!(|v| Cow::Owned(v.to_string());
    ActionId, ContainerClusterId, InstanceId, ResourceUid, TokenId);

/// Names: their text, read back as it is (the API boundary validated them before they
/// were first stored).
macro_rules! names_as_text {
    ($($ty:ty),+ $(,)?) => {$(
        impl StoredText for $ty {
            fn stored(&self) -> Cow<'static, str> {
                Cow::Owned(self.to_string())
            }

            fn restore(text: String) -> Result<Self, BoxDynError> {
                Ok(text.into())
            }
        }
    )+};
}

names_as_text!(ClusterName, NodeName, Namespace, PodName);

macro_rules! stored_as_text {
    ($($ty:ty),+ $(,)?) => {$(
        impl Type<Any> for $ty {
            fn type_info() -> <Any as Database>::TypeInfo {
                <str as Type<Any>>::type_info()
            }
        }

        impl<'q> Encode<'q, Any> for $ty {
            fn encode_by_ref(
                &self,
                buf: &mut <Any as Database>::ArgumentBuffer<'q>,
            ) -> Result<IsNull, BoxDynError> {
                match self.stored() {
                    Cow::Borrowed(text) => <&'q str as Encode<'q, Any>>::encode(text, buf),
                    Cow::Owned(text) => <String as Encode<'q, Any>>::encode(text, buf),
                }
            }
        }

        impl<'r> Decode<'r, Any> for $ty {
            fn decode(value: <Any as Database>::ValueRef<'r>) -> Result<Self, BoxDynError> {
                <$ty as StoredText>::restore(<String as Decode<'r, Any>>::decode(value)?)
            }
        }
    )+};
}

stored_as_text!(
    ClusterState,
    Connectivity,
    ClusterStatus,
    Readiness,
    RsyncStatus,
    ClusterName,
    NodeName,
    Namespace,
    PodName,
    ActionId,
    ContainerClusterId,
    InstanceId,
    ResourceUid,
    TokenId,
);
