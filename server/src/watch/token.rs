//! Resume tokens: opaque to clients, bound to their target. A token names a position
//! in the target's event log: after event `revision`, and after the `sub`-th event the
//! server derived from it (counts after a transaction, the resources of a new
//! instance); `sub` = [`DONE`] is after all of those. Tokens of snapshot events name the snapshot's revision but cannot be
//! resumed from (the snapshot cannot be re-read as of that revision): they lead to
//! RESYNC_REQUIRED.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// A position in a target's event stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    pub revision: i64,
    pub sub: i64,
    /// Inside a snapshot.
    pub snapshot: bool,
}

/// `sub` of a position after event `revision` and everything derived from it.
pub const DONE: i64 = 1 << 40;

impl Position {
    pub fn after(revision: i64) -> Self {
        Self {
            revision,
            sub: 0,
            snapshot: false,
        }
    }
}

fn target_tag(target: &str) -> String {
    hex::encode(&Sha256::digest(target.as_bytes())[..6])
}

/// The token of `position` in `target`'s stream.
pub fn encode(target: &str, position: Position) -> String {
    TargetTokens::new(target).encode(position)
}

/// Encodes the tokens of one target's stream, with the target's tag (a hash of its
/// name) computed once rather than for every event of the stream.
#[derive(Debug, Clone)]
pub struct TargetTokens {
    tag: String,
}

impl TargetTokens {
    pub fn new(target: &str) -> Self {
        Self {
            tag: target_tag(target),
        }
    }

    /// The token of `position` in the target's stream.
    pub fn encode(&self, position: Position) -> String {
        let flag = if position.snapshot { "s" } else { "l" };
        URL_SAFE_NO_PAD.encode(format!(
            "w1.{}.{}.{flag}.{}",
            position.revision, position.sub, self.tag
        ))
    }
}

/// Decodes a token of `target`'s stream; INVALID_ARGUMENT for a malformed token or one
/// of another target.
pub fn decode(target: &str, token: &str) -> Result<Position> {
    let invalid = |why: &str| Error::invalid("resume_token", why.to_string());
    // A token holds two numbers, a flag and a short tag: far below this.
    if token.len() > 256 {
        return Err(invalid("is not a resume token"));
    }
    let bytes = URL_SAFE_NO_PAD
        .decode(token)
        .map_err(|_| invalid("is not a resume token"))?;
    let text = String::from_utf8(bytes).map_err(|_| invalid("is not a resume token"))?;
    let parts: Vec<&str> = text.split('.').collect();
    let [version, revision, sub, flag, tag] = parts[..] else {
        return Err(invalid("is not a resume token"));
    };
    if version != "w1" {
        return Err(invalid("is not a resume token"));
    }
    if tag != target_tag(target) {
        return Err(invalid("belongs to the watch of another target"));
    }
    let revision: i64 = revision
        .parse()
        .map_err(|_| invalid("is not a resume token"))?;
    let sub: i64 = sub.parse().map_err(|_| invalid("is not a resume token"))?;
    if revision < 0 || sub < 0 || !matches!(flag, "s" | "l") {
        return Err(invalid("is not a resume token"));
    }
    Ok(Position {
        revision,
        sub,
        snapshot: flag == "s",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_and_are_bound_to_their_target() {
        let p = Position {
            revision: 42,
            sub: 3,
            snapshot: false,
        };
        let token = encode("a/b", p);
        assert_eq!(decode("a/b", &token).unwrap(), p);
        assert!(decode("a/c", &token).is_err());
        let huge = URL_SAFE_NO_PAD.encode(format!("w1.1.0.l.{}", "0".repeat(1 << 20)));
        for bad in [
            "",
            "!!",
            "dzEuMS4x",
            &URL_SAFE_NO_PAD.encode("w1.-1.0.l.x"),
            &huge,
        ] {
            assert!(decode("a/b", bad).is_err(), "{bad}");
        }
        let s = Position {
            snapshot: true,
            ..Position::after(7)
        };
        assert_eq!(decode("t", &encode("t", s)).unwrap(), s);
        assert_eq!(TargetTokens::new("a/b").encode(p), token);
    }

    #[test]
    fn positions_order_by_revision_then_sub() {
        assert!(
            Position::after(5)
                < Position {
                    sub: 1,
                    ..Position::after(5)
                }
        );
        assert!(
            Position {
                sub: 9,
                ..Position::after(5)
            } < Position::after(6)
        );
    }
}
