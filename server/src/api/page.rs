//! Pagination (AIP-158): `page_size` defaults to 50 and is capped at 1000; page tokens
//! are opaque (base64url JSON) and bound to the listing they came from, so a token of
//! another listing is rejected instead of silently returning the wrong page.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{Error, Result};

pub const DEFAULT_PAGE_SIZE: usize = 50;
pub const MAX_PAGE_SIZE: usize = 1000;

/// Validates `page_size`: negative is INVALID_ARGUMENT, 0 means the default, larger
/// than the maximum is capped.
pub fn page_size(size: i32) -> Result<usize> {
    match size {
        s if s < 0 => Err(Error::invalid("page_size", "must not be negative")),
        0 => Ok(DEFAULT_PAGE_SIZE),
        s => Ok((s as usize).min(MAX_PAGE_SIZE)),
    }
}

#[derive(Serialize, serde::Deserialize)]
struct Token<T> {
    /// What listing the token belongs to (method and parent).
    s: String,
    /// The position after which the next page starts.
    a: T,
}

/// Encodes the position `after` of the listing `scope`.
pub fn encode_token<T: Serialize>(scope: &str, after: &T) -> String {
    let token = Token {
        s: scope.to_string(),
        a: after,
    };
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(&token).expect("tokens serialize"))
}

/// The longest page token read; a longer one is refused before it is decoded.
pub const MAX_TOKEN_BYTES: usize = 8 * 1024;

/// Decodes a page token of the listing `scope`; None for an empty token.
pub fn decode_token<T: DeserializeOwned>(scope: &str, token: &str) -> Result<Option<T>> {
    if token.is_empty() {
        return Ok(None);
    }
    let invalid = || Error::invalid("page_token", "is not a page token of this listing");
    // Tokens this server issues hold a listing's name and a position: far below this.
    if token.len() > MAX_TOKEN_BYTES {
        return Err(invalid());
    }
    let bytes = URL_SAFE_NO_PAD.decode(token).map_err(|_| invalid())?;
    let token: Token<T> = serde_json::from_slice(&bytes).map_err(|_| invalid())?;
    if token.s != scope {
        return Err(invalid());
    }
    Ok(Some(token.a))
}

/// A page of a listing as asked for: the listing (`scope`), where the page starts
/// (`after`, decoded from the page token) and how many items it holds.
pub struct Paging<A> {
    scope: String,
    pub after: Option<A>,
    pub size: usize,
}

impl<A: Serialize + DeserializeOwned> Paging<A> {
    /// Validates `page_size`, then decodes `page_token` against `scope`.
    pub fn new(scope: String, page_size: i32, page_token: &str) -> Result<Self> {
        let size = self::page_size(page_size)?;
        let after = decode_token(&scope, page_token)?;
        Ok(Paging { scope, after, size })
    }

    /// The token of the next page, given whether there is more and the position of
    /// this page's last item; empty after the last page.
    pub fn next_token(&self, more: bool, last: Option<A>) -> String {
        match (more, last) {
            (true, Some(last)) => encode_token(&self.scope, &last),
            _ => String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_and_are_bound_to_their_listing() {
        let token = encode_token("ListApps:projects/a", &"projects/a/x".to_string());
        let back: Option<String> = decode_token("ListApps:projects/a", &token).unwrap();
        assert_eq!(back.as_deref(), Some("projects/a/x"));
        assert!(decode_token::<String>("ListApps:projects/b", &token).is_err());
        assert!(decode_token::<String>("ListApps:projects/a", "garbage!").is_err());
        let huge = encode_token("ListApps:projects/a", &"x".repeat(MAX_TOKEN_BYTES));
        assert!(decode_token::<String>("ListApps:projects/a", &huge).is_err());
    }

    #[test]
    fn page_sizes() {
        assert_eq!(page_size(0).unwrap(), 50);
        assert_eq!(page_size(7).unwrap(), 7);
        assert_eq!(page_size(5000).unwrap(), 1000);
        assert!(page_size(-1).is_err());
    }
}
