//! Builders of resource names (AIP-122 paths), one per declared kind (generated from
//! the proto's resource declarations). The plain builders format what they are given;
//! [`checked`] validates each id first, as the server will, so a bad name fails before
//! any call is made.

use std::fmt;

/// The largest length of an id (an RFC 1123 label).
pub const MAX_ID_LEN: usize = 63;

/// An id that is not an RFC 1123 label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidId {
    pub id: String,
}

impl fmt::Display for InvalidId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not a valid id: an RFC 1123 label, 1-{MAX_ID_LEN} characters of [a-z0-9-], \
             starting and ending with a letter or digit",
            self.id
        )
    }
}

impl std::error::Error for InvalidId {}

/// Checks that `id` is an RFC 1123 label, as the server requires of every id.
pub fn check_id(id: &str) -> Result<&str, InvalidId> {
    let bytes = id.as_bytes();
    let valid = !bytes.is_empty()
        && bytes.len() <= MAX_ID_LEN
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
        && bytes[0] != b'-'
        && bytes[bytes.len() - 1] != b'-';
    if valid {
        Ok(id)
    } else {
        Err(InvalidId { id: id.to_string() })
    }
}

include!(concat!(env!("OUT_DIR"), "/names.rs"));
