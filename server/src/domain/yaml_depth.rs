//! How deep a YAML text nests, read from the parser's events before anything is built,
//! so that a text nested past [`MAX_NESTING`] is refused at the cost of reading up to
//! its first level too deep.
//!
//! libyaml (under `serde_yaml_ng`) keeps one possible simple key per open flow
//! collection and walks all of them at every token, so a text of nested `[` costs time
//! quadratic in its depth; and `serde_yaml_ng` reads a whole document's events before it
//! checks its own recursion limit. Here the same parser hands out its events one at a
//! time and the walk stops at the first collection past the limit, where libyaml holds
//! at most `MAX_NESTING + 1` open collections: what it does before that is linear in
//! the text. The same parser is used as the one that then reads the text, so the two
//! cannot disagree about what the text is.

use std::mem::MaybeUninit;

use super::nesting::MAX_NESTING;

/// The first collection of `text` nested past [`MAX_NESTING`]: the index of its
/// document (counting the documents that are not empty, as the manifests' parser
/// does), the path to it within the document (`.spec.k[0]`) and its line (from 1).
/// None when no collection is too deep, or when the text stops being YAML before one
/// is (the reader that follows reports the syntax error).
pub fn first_too_deep(text: &str) -> Option<TooDeep> {
    let mut parser = Parser::new(text.as_bytes());
    let mut frames: Vec<Frame> = Vec::new();
    let mut document = 0usize;
    let mut root_is_null = true;
    loop {
        // A scalar's text is copied only where it is read: a key, or a document's root.
        let want_text = frames.last().is_none_or(Frame::expects_key);
        match parser.next(want_text)? {
            Event::StreamEnd => return None,
            Event::DocumentStart => root_is_null = true,
            Event::DocumentEnd => {
                if !root_is_null {
                    document += 1;
                }
            }
            Event::Scalar { text, plain } => {
                match frames.last_mut() {
                    None => {
                        root_is_null = plain
                            && matches!(text.as_deref(), Some("" | "~" | "null" | "Null" | "NULL"));
                    }
                    Some(frame) if frame.expects_key() => frame.key = text,
                    Some(_) => {}
                }
                advance(&mut frames);
            }
            Event::Alias => {
                root_is_null &= !frames.is_empty();
                if let Some(frame) = frames.last_mut().filter(|f| f.expects_key()) {
                    frame.key = None;
                }
                advance(&mut frames);
            }
            Event::CollectionStart { mapping, line } => {
                root_is_null = false;
                let segment = frames.last().map(Frame::segment).unwrap_or_default();
                if frames.len() + 1 > MAX_NESTING {
                    let path = frames
                        .iter()
                        .map(|f| f.entered.as_str())
                        .collect::<String>();
                    return Some(TooDeep {
                        document,
                        path: format!("{path}{segment}"),
                        line,
                    });
                }
                if let Some(frame) = frames.last_mut().filter(|f| f.expects_key()) {
                    frame.key = None;
                }
                frames.push(Frame {
                    entered: segment,
                    mapping,
                    index: 0,
                    key: None,
                });
            }
            Event::CollectionEnd => {
                frames.pop();
                advance(&mut frames);
            }
        }
    }
}

/// Where a collection too deep lies.
#[derive(Debug, PartialEq, Eq)]
pub struct TooDeep {
    pub document: usize,
    pub path: String,
    pub line: u64,
}

/// An open collection: the path segment it was entered by, and where in it the next
/// node goes (a mapping alternates key and value: `index` counts nodes).
struct Frame {
    entered: String,
    mapping: bool,
    index: usize,
    key: Option<String>,
}

impl Frame {
    /// The path segment of the next node in this collection.
    fn segment(&self) -> String {
        if !self.mapping {
            return format!("[{}]", self.index);
        }
        match (&self.key, self.index % 2) {
            (Some(key), 1) => format!(".{key}"),
            _ => ".?".to_string(),
        }
    }

    fn expects_key(&self) -> bool {
        self.mapping && self.index.is_multiple_of(2)
    }
}

/// One node of the innermost collection is complete.
fn advance(frames: &mut [Frame]) {
    if let Some(frame) = frames.last_mut() {
        frame.index += 1;
    }
}

/// What the walk needs of libyaml's events.
enum Event {
    StreamEnd,
    DocumentStart,
    DocumentEnd,
    /// A scalar: its text when asked for, and whether it is plain and untagged (so
    /// `null` reads as null).
    Scalar {
        text: Option<String>,
        plain: bool,
    },
    Alias,
    CollectionStart {
        mapping: bool,
        line: u64,
    },
    CollectionEnd,
}

/// libyaml's event parser over a borrowed text.
struct Parser<'t> {
    sys: Box<MaybeUninit<unsafe_libyaml::yaml_parser_t>>,
    _text: std::marker::PhantomData<&'t [u8]>,
    failed: bool,
}

impl<'t> Parser<'t> {
    fn new(text: &'t [u8]) -> Self {
        let mut sys = Box::new(MaybeUninit::<unsafe_libyaml::yaml_parser_t>::uninit());
        // SAFETY: `yaml_parser_initialize` initialises the parser it is given (boxed, so
        // it never moves); the text outlives the parser (the borrow `'t`), which only
        // reads it.
        unsafe {
            let parser = sys.as_mut_ptr();
            if unsafe_libyaml::yaml_parser_initialize(parser).fail {
                panic!("libyaml could not allocate a parser");
            }
            unsafe_libyaml::yaml_parser_set_encoding(parser, unsafe_libyaml::YAML_UTF8_ENCODING);
            unsafe_libyaml::yaml_parser_set_input_string(parser, text.as_ptr(), text.len() as u64);
        }
        Parser {
            sys,
            _text: std::marker::PhantomData,
            failed: false,
        }
    }

    /// The next event (a scalar's text only if `want_text`); None once the text is not
    /// YAML.
    fn next(&mut self, want_text: bool) -> Option<Event> {
        if self.failed {
            return None;
        }
        let mut event = MaybeUninit::<unsafe_libyaml::yaml_event_t>::uninit();
        // SAFETY: the parser was initialised in `new`; an event `yaml_parser_parse`
        // filled is read, then freed with `yaml_event_delete`, and not used after.
        unsafe {
            let event = event.as_mut_ptr();
            if unsafe_libyaml::yaml_parser_parse(self.sys.as_mut_ptr(), event).fail {
                self.failed = true;
                return None;
            }
            let converted = match (*event).type_ {
                unsafe_libyaml::YAML_STREAM_END_EVENT => Event::StreamEnd,
                unsafe_libyaml::YAML_DOCUMENT_START_EVENT => Event::DocumentStart,
                unsafe_libyaml::YAML_DOCUMENT_END_EVENT => Event::DocumentEnd,
                unsafe_libyaml::YAML_ALIAS_EVENT => Event::Alias,
                unsafe_libyaml::YAML_SCALAR_EVENT => {
                    let scalar = &(*event).data.scalar;
                    let text = want_text.then(|| {
                        let bytes =
                            std::slice::from_raw_parts(scalar.value, scalar.length as usize);
                        String::from_utf8_lossy(bytes).into_owned()
                    });
                    Event::Scalar {
                        text,
                        plain: scalar.style == unsafe_libyaml::YAML_PLAIN_SCALAR_STYLE
                            && scalar.tag.is_null(),
                    }
                }
                unsafe_libyaml::YAML_SEQUENCE_START_EVENT
                | unsafe_libyaml::YAML_MAPPING_START_EVENT => Event::CollectionStart {
                    mapping: (*event).type_ == unsafe_libyaml::YAML_MAPPING_START_EVENT,
                    line: (*event).start_mark.line + 1,
                },
                unsafe_libyaml::YAML_SEQUENCE_END_EVENT
                | unsafe_libyaml::YAML_MAPPING_END_EVENT => Event::CollectionEnd,
                // STREAM_START (the first event) carries nothing the walk reads.
                _ => Event::DocumentStart,
            };
            unsafe_libyaml::yaml_event_delete(event);
            Some(converted)
        }
    }
}

impl Drop for Parser<'_> {
    fn drop(&mut self) {
        // SAFETY: the parser was initialised in `new` and is deleted once.
        unsafe { unsafe_libyaml::yaml_parser_delete(self.sys.as_mut_ptr()) }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{Value, json};

    use super::*;
    use crate::domain::nesting::check_nesting;

    /// A value nested `depth` deep along key `k`.
    fn nested(depth: usize) -> Value {
        (1..depth).fold(json!({}), |inner, _| json!({ "k": inner }))
    }

    #[test]
    fn names_the_first_collection_past_the_limit() {
        let text = "[".repeat(1 << 20);
        let deep = first_too_deep(&text).expect("too deep");
        assert_eq!(deep.document, 0);
        assert_eq!(deep.path, "[0]".repeat(MAX_NESTING));
        assert_eq!(deep.line, 1);

        let at_limit = serde_yaml_ng::to_string(&nested(MAX_NESTING)).unwrap();
        assert_eq!(first_too_deep(&at_limit), None);
        let past = serde_yaml_ng::to_string(&json!({"a": 1, "spec": nested(MAX_NESTING)})).unwrap();
        let text = format!("---\n---\nnull\n---\nkind: A\n---\n{past}");
        let deep = first_too_deep(&text).expect("too deep");
        assert_eq!(deep.document, 1, "empty and null documents are not counted");
        assert_eq!(deep.path, format!(".spec{}", ".k".repeat(MAX_NESTING - 1)));
    }

    #[test]
    fn keys_that_are_not_scalars_have_no_name_and_syntax_errors_are_left_to_the_reader() {
        let inner = "[".repeat(MAX_NESTING) + &"]".repeat(MAX_NESTING);
        let text = format!("? {inner}\n: v\n");
        assert_eq!(
            first_too_deep(&text).unwrap().path,
            ".?".to_string() + &"[0]".repeat(MAX_NESTING - 1)
        );
        assert_eq!(first_too_deep("kind: [unclosed\n"), None);
        assert_eq!(first_too_deep("a: *nowhere\n"), None);
    }

    fn values() -> impl Strategy<Value = Value> {
        crate::domain::json_documents(40, 400, 3)
    }

    proptest! {
        /// The walk agrees with the check on built documents (`check_nesting`), in
        /// block and in flow style, so the early refusal names what the late one would.
        #[test]
        fn agrees_with_the_check_on_built_documents(
            docs in proptest::collection::vec(
                (values(), 0..40usize, any::<bool>()).prop_map(|(v, wraps, array)| {
                    // Wrapped to a depth around the limit, in arrays or objects.
                    (0..wraps).fold(v, |inner, _| if array { json!([1, inner]) } else { json!({"x": 1, "y": inner}) })
                }),
                1..4,
            ),
            flow in any::<bool>(),
        ) {
            let text: String = docs
                .iter()
                .map(|d| {
                    let body = if flow { serde_json::to_string(d).unwrap() } else { serde_yaml_ng::to_string(d).unwrap() };
                    format!("---\n{body}\n")
                })
                .collect();
            let expected = docs
                .iter()
                .filter(|d| !d.is_null())
                .enumerate()
                .find_map(|(i, d)| check_nesting(&format!("m[{i}]"), d).err())
                .map(|v| v.field);
            let found = first_too_deep(&text).map(|d| format!("m[{}]{}", d.document, d.path));
            prop_assert_eq!(found, expected);
        }
    }
}
