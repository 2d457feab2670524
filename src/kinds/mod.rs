//! The resource kinds, declared once: each is a message of `proto/flotilla/v1` with a
//! `google.api.resource` option (its type, name pattern, singular and plural). The
//! build derives everything else from it (`derive.rs`): the statics below, which the
//! server's names, object tables, parents and permission rows and the CLI's kind table
//! read, and the name builders of the Rust, Python and TypeScript clients.

/// A kind of resource: how it is named, where it lives and what its RPCs and fields
/// are called.
#[derive(Debug)]
pub struct Kind {
    /// The proto message's full name, used in errors and ResourceInfo.
    pub type_name: &'static str,
    /// The message's name, e.g. `CompositeApp`.
    pub message: &'static str,
    /// A lower-case, human form for messages, e.g. "deployment intent group".
    pub human: &'static str,
    /// The name pattern as the proto declares it, e.g.
    /// `projects/{project}/compositeApps/{composite_app}/versions/{version}`.
    pub pattern: &'static str,
    /// The collections of the name, outermost first.
    pub collections: &'static [&'static str],
    /// How many leading (collection, id) pairs name the parent; 0 for top-level kinds.
    pub parent_pairs: usize,
    /// The parent kind; None for top-level kinds.
    pub parent: Option<&'static Kind>,
    /// The create request's id fields, one per own collection (`composite_app_id`).
    pub id_fields: &'static [&'static str],
    /// The resource field of create and update requests (`composite_app`).
    pub field: &'static str,
    /// The repeated field of the list response (`composite_apps`).
    pub list_field: &'static str,
    /// The plural in method names (`ListCompositeApps`).
    pub plural: &'static str,
    /// The SQL table holding the kind's resources.
    pub table: &'static str,
    /// The service serving the kind's RPCs.
    pub service: &'static str,
    /// The list request's field naming the parent (None: lists need no scope).
    pub list_scope: Option<&'static str>,
}

/// Kinds are one per message: equal when their messages are.
impl PartialEq for Kind {
    fn eq(&self, other: &Self) -> bool {
        self.type_name == other.type_name
    }
}

impl Eq for Kind {}

impl std::hash::Hash for Kind {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.type_name.hash(state);
    }
}

impl Kind {
    /// The kind's own collections (after its parent's).
    pub fn own_collections(&self) -> &'static [&'static str] {
        &self.collections[self.parent_pairs..]
    }

    /// The RPC `{verb}{Kind}` (`Create`, `Get`, `Update`, `Delete`) or `List{Plural}`.
    pub fn method(&self, verb: &str) -> String {
        if verb == "List" {
            format!("List{}", self.plural)
        } else {
            format!("{verb}{}", self.message)
        }
    }
}

include!(concat!(env!("OUT_DIR"), "/kinds.rs"));
