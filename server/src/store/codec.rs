//! How domain enums and names are stored: enums as their names (`as_str`), read back with
//! `FromStr` (a stored name no variant has is a decode error, never a default); names as text.

use std::borrow::Cow;

use sqlx::encode::IsNull;
use sqlx::error::BoxDynError;
use sqlx::{Any, Database, Decode, Encode, Type};

use crate::domain::names::ClusterName;
use crate::domain::readiness::{ClusterStatus, Connectivity, Readiness};
use crate::domain::status::RsyncStatus;

/// What a stored value is as text, and back.
trait StoredText: Sized {
    fn stored(&self) -> Cow<'static, str>;
    fn restore(text: String) -> Result<Self, BoxDynError>;
}

/// Enums: their names, no allocation on the way in.
macro_rules! by_name {
    ($($ty:ty),+ $(,)?) => {$(
        impl StoredText for $ty {
            fn stored(&self) -> Cow<'static, str> {
                Cow::Borrowed(self.as_str())
            }

            fn restore(text: String) -> Result<Self, BoxDynError> {
                Ok(text.parse::<$ty>()?)
            }
        }
    )+};
}

by_name!(Connectivity, ClusterStatus, Readiness, RsyncStatus);

/// Names: their text, read back as it is (the API boundary validated them before they
/// were first stored).
impl StoredText for ClusterName {
    fn stored(&self) -> Cow<'static, str> {
        Cow::Owned(self.to_string())
    }

    fn restore(text: String) -> Result<Self, BoxDynError> {
        Ok(text.into())
    }
}

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
    Connectivity,
    ClusterStatus,
    Readiness,
    RsyncStatus,
    ClusterName
);
