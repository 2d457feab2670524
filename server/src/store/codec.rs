//! How domain enums are stored: as their names (`as_str`), read back with `FromStr`;
//! a stored name no variant has is a decode error, never a default.

use sqlx::encode::IsNull;
use sqlx::error::BoxDynError;
use sqlx::{Any, Database, Decode, Encode, Type};

use crate::domain::readiness::{ClusterStatus, Connectivity, Readiness};
use crate::domain::status::RsyncStatus;

macro_rules! stored_by_name {
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
                <&'q str as Encode<'q, Any>>::encode(self.as_str(), buf)
            }
        }

        impl<'r> Decode<'r, Any> for $ty {
            fn decode(value: <Any as Database>::ValueRef<'r>) -> Result<Self, BoxDynError> {
                let text = <String as Decode<'r, Any>>::decode(value)?;
                Ok(text.parse::<$ty>()?)
            }
        }
    )+};
}

stored_by_name!(Connectivity, ClusterStatus, Readiness, RsyncStatus);
