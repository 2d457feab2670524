//! Messages the server writes already encoded.

use prost::bytes::{Buf, BufMut, Bytes, BytesMut};

/// One encoded message of a watch stream, written to the wire as it is. Cloning shares
/// the bytes, so a message every subscriber sends alike is encoded once.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Encoded(pub Bytes);

impl Encoded {
    /// `event` as one entry of a watch response's `events` (field 1 of every watch
    /// response): its key, length and bytes, so a response is entries end to end.
    pub fn entry(event: &impl prost::Message) -> Encoded {
        let mut buf = BytesMut::with_capacity(event.encoded_len() + 8);
        prost::encoding::message::encode(EVENTS_FIELD, event, &mut buf);
        Encoded(buf.freeze())
    }
}

/// The field number of `events` in every watch response message.
pub const EVENTS_FIELD: u32 = 1;

/// Encodes as the message it holds (the bytes already are its fields). Never decoded
/// by the server: decoding skips every field.
impl prost::Message for Encoded {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        buf.put_slice(&self.0);
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: prost::encoding::WireType,
        buf: &mut impl Buf,
        ctx: prost::encoding::DecodeContext,
    ) -> std::result::Result<(), prost::DecodeError> {
        prost::encoding::skip_field(wire_type, tag, buf, ctx)
    }

    fn encoded_len(&self) -> usize {
        self.0.len()
    }

    fn clear(&mut self) {
        self.0.clear();
    }
}
