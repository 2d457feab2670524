//! Who may call what (DESIGN §15): roles, the principal a token stands for, what each
//! RPC needs, and the one decision function. Pure: the transport layer
//! (`api::auth`) feeds it the facts it asks for (a name from the request, the projects
//! placed on a cluster) and enforces its answer.
//!
//! Roles:
//! - `admin`: everything but acting as an agent.
//! - `editor` of named projects: read and write within those projects; read-only on
//!   infrastructure (cluster providers, clusters, container clusters); actions on the
//!   clusters its projects' groups are placed on.
//! - `viewer` of named projects, or of every project: read-only; infrastructure reads.
//! - `agent` of one cluster: its agent session, and the actions of its cluster.

use std::fmt;

use super::names::{ClusterName, Namespace, PodName};
use crate::ids::{ActionId, TokenId};

/// The role of a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    Admin,
    Editor,
    Viewer,
    Agent,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Editor => "editor",
            Role::Viewer => "viewer",
            Role::Agent => "agent",
        }
    }

    pub fn parse(text: &str) -> Option<Role> {
        Some(match text {
            "admin" => Role::Admin,
            "editor" => Role::Editor,
            "viewer" => Role::Viewer,
            "agent" => Role::Agent,
            _ => return None,
        })
    }

    /// Whether the role is a person's or a program's acting for one (not an agent).
    pub fn is_human(self) -> bool {
        self != Role::Agent
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who a valid token stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    pub token: TokenId,
    pub role: Role,
    /// Editor and viewer: the projects the token is confined to; empty for a viewer of
    /// every project (and for admins and agents).
    pub projects: Vec<String>,
    /// Agent: the cluster it acts for.
    pub cluster: Option<ClusterName>,
    /// When the token stops working (microseconds since the epoch); None = never.
    pub expire_time: Option<i64>,
}

impl Principal {
    /// Whether the principal may read the project's resources.
    pub fn reads_project(&self, project: &str) -> bool {
        match self.role {
            Role::Admin => true,
            Role::Viewer => self.projects.is_empty() || self.covers(project),
            Role::Editor => self.covers(project),
            Role::Agent => false,
        }
    }

    /// Whether the principal may write the project's resources.
    pub fn writes_project(&self, project: &str) -> bool {
        match self.role {
            Role::Admin => true,
            Role::Editor => self.covers(project),
            Role::Viewer | Role::Agent => false,
        }
    }

    /// The projects a list shows: None = every project.
    pub fn visible_projects(&self) -> Option<&[String]> {
        match self.role {
            Role::Admin => None,
            Role::Viewer if self.projects.is_empty() => None,
            _ => Some(&self.projects),
        }
    }

    fn covers(&self, project: &str) -> bool {
        self.projects.iter().any(|p| p == project)
    }

    /// "editor of projects [a, b]", "viewer of every project", "agent of clusters/…".
    fn describe(&self) -> String {
        match self.role {
            Role::Admin => "admin".to_string(),
            Role::Viewer if self.projects.is_empty() => "viewer of every project".to_string(),
            Role::Editor | Role::Viewer => {
                format!("{} of projects [{}]", self.role, self.projects.join(", "))
            }
            Role::Agent => format!(
                "agent of {}",
                self.cluster.as_deref().unwrap_or("no cluster")
            ),
        }
    }
}

/// A request field holding a resource name, as a dotted path (`"project.name"`).
pub type Field = &'static str;

/// What an RPC needs of its caller: one entry per RPC in `api::auth::rules`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Any valid token.
    Authenticated,
    /// A human role; the handler shows only the projects the caller may read.
    ListProjects,
    /// Read the resource the field names: a project's (a role covering the project) or
    /// infrastructure (any human role).
    Read(Field),
    /// Write the resource the field names: a project's (admin, or an editor of the
    /// project) or infrastructure (admin).
    Write(Field),
    /// Read infrastructure as a whole (lists of providers, zones, container clusters):
    /// any human role.
    ReadInfrastructure,
    /// Admin only; the permission names what for.
    Admin(&'static str),
    /// An agent session: agent tokens only (the handler binds the session to the
    /// token's cluster).
    AgentSession,
    /// Read the actions of the cluster the field names (empty: of every cluster):
    /// admin, a viewer of every project, an editor or viewer of a project whose group
    /// is placed on the cluster, or the cluster's agent.
    ReadActions(Field),
    /// Act on a node of the cluster the field names, or cancel or delete the action
    /// the field names: admin, or an editor of a project whose group is placed on the
    /// cluster. A node action (which every pod on the node feels) needs an editor of
    /// every project placed there; an action on a pod follows the pod's project.
    WriteActions(Field),
    /// Act on the pod the request names (the field its cluster, `namespace` and `pod`
    /// beside it): admin, or an editor of the project whose group deployed the pod.
    /// A pod no project deployed is the cluster operator's: admin only.
    WritePodActions(Field),
    /// Post the progress of an action on the cluster the field names: admin, or the
    /// cluster's agent.
    ReportActions(Field),
}

impl Need {
    /// The request field the decision may need, if any.
    pub fn field(self) -> Option<Field> {
        match self {
            Need::Read(f)
            | Need::Write(f)
            | Need::ReadActions(f)
            | Need::WriteActions(f)
            | Need::WritePodActions(f)
            | Need::ReportActions(f) => Some(f),
            Need::Authenticated
            | Need::ListProjects
            | Need::ReadInfrastructure
            | Need::Admin(_)
            | Need::AgentSession => None,
        }
    }

    /// Whether calls change state (they are audited).
    pub fn mutates(self) -> bool {
        matches!(
            self,
            Need::Write(_)
                | Need::WriteActions(_)
                | Need::WritePodActions(_)
                | Need::ReportActions(_)
                | Need::Admin(_)
        )
    }
}

/// What a resource name points into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// `projects/{p}/…`
    Project(String),
    /// `clusterProviders/…`, `containerClusters/…`: shared infrastructure.
    Infrastructure,
    /// `actions/{id}`: decided by the action's cluster.
    Action(ActionId),
    /// A cluster, `clusterProviders/{cp}/clusters/{c}` (action decisions).
    Cluster(ClusterName),
    /// Nothing Flotilla names: no resource can be reached with it.
    Unrecognised,
}

impl Target {
    /// The target of a resource name. Only the leading collection matters: the
    /// handlers validate the rest, and a name that passes here but not there reaches
    /// nothing.
    pub fn of_name(name: &str) -> Target {
        let mut segments = name.split('/');
        match (segments.next(), segments.next()) {
            (Some("projects"), Some(project)) if valid_segment(project) => {
                Target::Project(project.to_string())
            }
            (Some("clusterProviders" | "containerClusters"), Some(id)) if valid_segment(id) => {
                Target::Infrastructure
            }
            (Some("actions"), Some(id)) => match id.parse() {
                Ok(id) => Target::Action(id),
                // No action has it: no resource can be reached with it.
                Err(_) => Target::Unrecognised,
            },
            _ => Target::Unrecognised,
        }
    }

    /// The cluster a cluster field names (`clusterProviders/{cp}/clusters/{c}`).
    pub fn of_cluster(name: &str) -> Target {
        let segments: Vec<&str> = name.split('/').collect();
        match segments.as_slice() {
            ["clusterProviders", cp, "clusters", c] if valid_segment(cp) && valid_segment(c) => {
                Target::Cluster(name.into())
            }
            _ => Target::Unrecognised,
        }
    }
}

fn valid_segment(segment: &str) -> bool {
    !segment.is_empty() && segment != "." && segment != ".."
}

/// A fact the decision needs from outside the request's metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fact {
    /// The value of a request field.
    Field(Field),
    /// The pod the request names: its `namespace` and `pod` fields.
    Pod,
    /// The projects whose instantiated groups are placed on a cluster.
    ClusterProjects(ClusterName),
    /// The projects whose groups deployed a pod on a cluster.
    PodProjects(ClusterName, PodRef),
    /// The cluster (and pod) of an action, by action id.
    ActionTarget(ActionId),
}

/// A pod of a cluster, by namespace (as the caller spelled it) and name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PodRef {
    pub namespace: Namespace,
    pub name: PodName,
}

/// What an action acts on: its cluster, and its pod (None for a node action).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionTarget {
    pub cluster: ClusterName,
    pub pod: Option<PodRef>,
}

/// The facts gathered so far for one call.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// The value of the need's field ("" if the request leaves it empty).
    pub field: Option<String>,
    /// The pod the request names.
    pub pod: Option<PodRef>,
    /// The target of the action the field names (None: no such action).
    pub action_target: Option<Option<ActionTarget>>,
    /// The projects placed on the cluster in question.
    pub cluster_projects: Option<Vec<String>>,
    /// The projects whose groups deployed the pod in question.
    pub pod_projects: Option<Vec<String>>,
}

/// A refusal: PERMISSION_DENIED naming the permission.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    /// The permission, e.g. `projects.write`.
    pub permission: &'static str,
    pub message: String,
}

/// The answer for one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Allow,
    Deny(Denial),
    /// Ask again with this fact gathered.
    Needs(Fact),
}

fn deny(principal: &Principal, permission: &'static str, on: &str) -> Decision {
    let on = if on.is_empty() {
        String::new()
    } else {
        format!(" on {on:?}")
    };
    Decision::Deny(Denial {
        permission,
        message: format!(
            "permission {permission}{on} denied: the token is {}",
            principal.describe()
        ),
    })
}

/// Decides whether `principal` may make a call that needs `need`, given the facts
/// gathered so far; asks for the next fact it needs.
pub fn decide(principal: &Principal, need: Need, facts: &Facts) -> Decision {
    let admin = principal.role == Role::Admin;
    let human = principal.role.is_human();
    match need {
        Need::Authenticated => Decision::Allow,
        Need::ListProjects => allow_if(human, principal, "projects.read", ""),
        Need::ReadInfrastructure => allow_if(human, principal, "infrastructure.read", ""),
        Need::Admin(permission) => allow_if(admin, principal, permission, ""),
        Need::AgentSession => allow_if(
            principal.role == Role::Agent,
            principal,
            "agent.connect",
            "",
        ),
        Need::Read(field) | Need::Write(field) => {
            let write = matches!(need, Need::Write(_));
            // Admins may do anything, viewers of everything read anything: no need to
            // look into the request.
            if admin || (!write && principal.role == Role::Viewer && principal.projects.is_empty())
            {
                return Decision::Allow;
            }
            let Some(name) = &facts.field else {
                return Decision::Needs(Fact::Field(field));
            };
            match Target::of_name(name) {
                Target::Project(project) if write => allow_if(
                    principal.writes_project(&project),
                    principal,
                    "projects.write",
                    name,
                ),
                Target::Project(project) => allow_if(
                    principal.reads_project(&project),
                    principal,
                    "projects.read",
                    name,
                ),
                Target::Infrastructure if write => deny(principal, "infrastructure.write", name),
                Target::Infrastructure => allow_if(human, principal, "infrastructure.read", name),
                Target::Action(_) | Target::Cluster(_) | Target::Unrecognised => deny(
                    principal,
                    if write {
                        "projects.write"
                    } else {
                        "projects.read"
                    },
                    name,
                ),
            }
        }
        Need::ReadActions(field)
        | Need::WriteActions(field)
        | Need::WritePodActions(field)
        | Need::ReportActions(field) => decide_actions(principal, need, field, facts),
    }
}

fn allow_if(allowed: bool, principal: &Principal, permission: &'static str, on: &str) -> Decision {
    if allowed {
        Decision::Allow
    } else {
        deny(principal, permission, on)
    }
}

fn decide_actions(principal: &Principal, need: Need, field: Field, facts: &Facts) -> Decision {
    let writes = matches!(need, Need::WriteActions(_) | Need::WritePodActions(_));
    let permission = match need {
        Need::ReadActions(_) => "actions.read",
        Need::ReportActions(_) => "actions.report",
        _ => "actions.write",
    };
    if principal.role == Role::Admin
        || (matches!(need, Need::ReadActions(_))
            && principal.role == Role::Viewer
            && principal.projects.is_empty())
    {
        return Decision::Allow;
    }
    if matches!(need, Need::ReportActions(_)) && principal.role != Role::Agent {
        return deny(principal, permission, "");
    }
    if writes && principal.role != Role::Editor {
        return deny(principal, permission, "");
    }
    let Some(name) = &facts.field else {
        return Decision::Needs(Fact::Field(field));
    };
    // The cluster in question, named by the field or the cluster of the named action;
    // and the pod, named by the request or the action.
    let (cluster, pod) = match Target::of_name(name) {
        Target::Action(id) => match &facts.action_target {
            None => return Decision::Needs(Fact::ActionTarget(id)),
            Some(None) => return deny(principal, permission, name),
            Some(Some(target)) => (target.cluster.clone(), target.pod.clone()),
        },
        _ => match Target::of_cluster(name) {
            Target::Cluster(cluster) if matches!(need, Need::WritePodActions(_)) => {
                match &facts.pod {
                    None => return Decision::Needs(Fact::Pod),
                    Some(pod) => (cluster, Some(pod.clone())),
                }
            }
            Target::Cluster(cluster) => (cluster, None),
            // Every cluster (an empty filter) or no cluster at all.
            _ => return deny(principal, permission, name),
        },
    };
    if principal.role == Role::Agent {
        return allow_if(
            principal.cluster.as_ref() == Some(&cluster),
            principal,
            permission,
            &cluster,
        );
    }
    let allowed = match (writes, pod) {
        (true, Some(pod)) => {
            let Some(projects) = &facts.pod_projects else {
                return Decision::Needs(Fact::PodProjects(cluster, pod));
            };
            let on = format!("{cluster} pod {}/{}", pod.namespace, pod.name);
            return allow_if(
                projects.iter().any(|p| principal.writes_project(p)),
                principal,
                permission,
                &on,
            );
        }
        (writes, _) => {
            let Some(projects) = &facts.cluster_projects else {
                return Decision::Needs(Fact::ClusterProjects(cluster));
            };
            if writes {
                !projects.is_empty() && projects.iter().all(|p| principal.writes_project(p))
            } else {
                projects.iter().any(|p| principal.reads_project(p))
            }
        }
    };
    allow_if(allowed, principal, permission, &cluster)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An action name (the facts say which cluster and pod it has).
    const ACTION: &str = "actions/01938c6e-7d2a-7000-8000-000000000001";

    fn principal(role: Role, projects: &[&str], cluster: Option<&str>) -> Principal {
        Principal {
            token: TokenId::new(),
            role,
            projects: projects.iter().map(|p| p.to_string()).collect(),
            cluster: cluster.map(ClusterName::from),
            expire_time: None,
        }
    }

    /// Decides with every fact answered from the given values.
    fn full(p: &Principal, need: Need, name: &str, placed: &[&str], action: Option<&str>) -> bool {
        let action = action.map(|cluster| ActionTarget {
            cluster: cluster.into(),
            pod: None,
        });
        full_with(p, need, name, placed, &[], action)
    }

    /// As `full`, with the projects that deployed the pod in question and the action's
    /// whole target.
    fn full_with(
        p: &Principal,
        need: Need,
        name: &str,
        placed: &[&str],
        owners: &[&str],
        action: Option<ActionTarget>,
    ) -> bool {
        let strings = |s: &[&str]| s.iter().map(|s| s.to_string()).collect();
        let mut facts = Facts::default();
        loop {
            match decide(p, need, &facts) {
                Decision::Allow => return true,
                Decision::Deny(denial) => {
                    assert!(denial.message.contains(denial.permission));
                    return false;
                }
                Decision::Needs(Fact::Field(_)) => facts.field = Some(name.to_string()),
                Decision::Needs(Fact::Pod) => {
                    facts.pod = Some(PodRef {
                        namespace: Namespace::default(),
                        name: "vm".into(),
                    })
                }
                Decision::Needs(Fact::ActionTarget(_)) => {
                    facts.action_target = Some(action.clone())
                }
                Decision::Needs(Fact::ClusterProjects(_)) => {
                    facts.cluster_projects = Some(strings(placed))
                }
                Decision::Needs(Fact::PodProjects(..)) => {
                    facts.pod_projects = Some(strings(owners))
                }
            }
        }
    }

    const DIG_A: &str = "projects/a/compositeApps/ca/versions/v1/deploymentIntentGroups/d";
    const CLUSTER: &str = "clusterProviders/p/clusters/c1";

    #[test]
    fn project_resources_follow_the_projects_of_the_token() {
        let admin = principal(Role::Admin, &[], None);
        let editor_a = principal(Role::Editor, &["a"], None);
        let editor_b = principal(Role::Editor, &["b"], None);
        let viewer_a = principal(Role::Viewer, &["a"], None);
        let viewer_all = principal(Role::Viewer, &[], None);
        let agent = principal(Role::Agent, &[], Some(CLUSTER));
        for (p, read, write) in [
            (&admin, true, true),
            (&editor_a, true, true),
            (&editor_b, false, false),
            (&viewer_a, true, false),
            (&viewer_all, true, false),
            (&agent, false, false),
        ] {
            assert_eq!(full(p, Need::Read("name"), DIG_A, &[], None), read, "{p:?}");
            assert_eq!(
                full(p, Need::Write("name"), DIG_A, &[], None),
                write,
                "{p:?}"
            );
        }
    }

    #[test]
    fn infrastructure_is_read_by_people_and_written_by_admins() {
        for role in [Role::Admin, Role::Editor, Role::Viewer, Role::Agent] {
            let p = principal(role, &["a"], None);
            let human = role != Role::Agent;
            assert_eq!(full(&p, Need::Read("name"), CLUSTER, &[], None), human);
            assert_eq!(full(&p, Need::ReadInfrastructure, "", &[], None), human);
            assert_eq!(
                full(&p, Need::Write("name"), CLUSTER, &[], None),
                role == Role::Admin
            );
            assert_eq!(
                full(&p, Need::Admin("tokens.manage"), "", &[], None),
                role == Role::Admin
            );
            assert_eq!(
                full(&p, Need::AgentSession, "", &[], None),
                role == Role::Agent
            );
        }
    }

    #[test]
    fn names_that_reach_nothing_are_refused_to_all_but_admins() {
        let editor = principal(Role::Editor, &["a"], None);
        for name in [
            "",
            "projects",
            "projects/",
            "projects/../a",
            "foo/a",
            "actions/x",
        ] {
            assert!(
                !full(&editor, Need::Read("name"), name, &[], None),
                "{name}"
            );
            assert!(
                !full(&editor, Need::Write("name"), name, &[], None),
                "{name}"
            );
        }
        let admin = principal(Role::Admin, &[], None);
        assert!(full(&admin, Need::Write("name"), "foo", &[], None));
    }

    #[test]
    fn actions_follow_the_projects_placed_on_the_cluster() {
        let editor_a = principal(Role::Editor, &["a"], None);
        let viewer_a = principal(Role::Viewer, &["a"], None);
        let editor_b = principal(Role::Editor, &["b"], None);
        let agent = principal(Role::Agent, &[], Some(CLUSTER));
        let other_agent = principal(Role::Agent, &[], Some("clusterProviders/p/clusters/c2"));
        let placed: &[&str] = &["a"];
        let none: &[&str] = &[];
        // (who, need, target field, projects placed on the cluster, the action's
        // cluster, allowed)
        #[rustfmt::skip]
        let cases = [
            (&editor_a, Need::WriteActions("cluster"), CLUSTER, placed, None, true),
            (&editor_b, Need::WriteActions("cluster"), CLUSTER, placed, None, false),
            (&viewer_a, Need::WriteActions("cluster"), CLUSTER, placed, None, false),
            (&viewer_a, Need::ReadActions("cluster"), CLUSTER, placed, None, true),
            (&viewer_a, Need::ReadActions("cluster"), "", placed, None, false),
            (&agent, Need::ReadActions("cluster"), CLUSTER, none, None, true),
            (&other_agent, Need::ReadActions("cluster"), CLUSTER, none, None, false),
            (&agent, Need::WriteActions("cluster"), CLUSTER, none, None, false),
            // By action name: the action's cluster decides; an unknown action is
            // refused exactly like a foreign one.
            (&agent, Need::ReportActions("name"), ACTION, none, Some(CLUSTER), true),
            (&other_agent, Need::ReportActions("name"), ACTION, none, Some(CLUSTER), false),
            (&agent, Need::ReportActions("name"), ACTION, none, None, false),
            (&editor_a, Need::ReportActions("name"), ACTION, placed, Some(CLUSTER), false),
            (&editor_a, Need::WriteActions("name"), ACTION, placed, Some(CLUSTER), true),
        ];
        for (index, (who, need, field, projects, action_cluster, allowed)) in
            cases.into_iter().enumerate()
        {
            assert_eq!(
                full(who, need, field, projects, action_cluster),
                allowed,
                "case {index}: {:?} {need:?} {field:?}",
                who.role
            );
        }
    }

    /// A pod belongs to the project whose group deployed it; a node, and so a node
    /// action, to every project placed on its cluster.
    #[test]
    fn actions_on_a_shared_cluster_follow_the_tenant_of_their_target() {
        let editor_a = principal(Role::Editor, &["a"], None);
        let editor_ab = principal(Role::Editor, &["a", "b"], None);
        let admin = principal(Role::Admin, &[], None);
        let both: &[&str] = &["a", "b"];
        let pod = |owners: &[&'static str]| owners.to_vec();
        let pod_action = Some(ActionTarget {
            cluster: CLUSTER.into(),
            pod: Some(PodRef {
                namespace: Namespace::default(),
                name: "vm".into(),
            }),
        });
        let node_action = Some(ActionTarget {
            cluster: CLUSTER.into(),
            pod: None,
        });
        #[rustfmt::skip]
        let cases = [
            // A's pod, B's pod, a pod no project deployed, on a cluster A and B share.
            (&editor_a, Need::WritePodActions("cluster"), CLUSTER, pod(&["a"]), None.clone(), true),
            (&editor_a, Need::WritePodActions("cluster"), CLUSTER, pod(&["b"]), None, false),
            (&editor_a, Need::WritePodActions("cluster"), CLUSTER, pod(&[]), None, false),
            (&admin, Need::WritePodActions("cluster"), CLUSTER, pod(&[]), None, true),
            // A node of the shared cluster: an editor of both, not of one.
            (&editor_a, Need::WriteActions("cluster"), CLUSTER, pod(&[]), None, false),
            (&editor_ab, Need::WriteActions("cluster"), CLUSTER, pod(&[]), None, true),
            // Cancel or delete by action name: the action's target decides.
            (&editor_a, Need::WriteActions("name"), ACTION, pod(&["a"]), pod_action.clone(), true),
            (&editor_a, Need::WriteActions("name"), ACTION, pod(&["b"]), pod_action.clone(), false),
            (&editor_a, Need::WriteActions("name"), ACTION, pod(&[]), node_action.clone(), false),
            (&editor_ab, Need::WriteActions("name"), ACTION, pod(&[]), node_action, true),
            // Reading stays with the cluster: every project placed there reads its
            // actions.
            (&editor_a, Need::ReadActions("name"), ACTION, pod(&["b"]), pod_action, true),
        ];
        for (index, (who, need, field, owners, action, allowed)) in cases.into_iter().enumerate() {
            assert_eq!(
                full_with(who, need, field, both, &owners, action),
                allowed,
                "case {index}: {:?} {need:?} {field:?}",
                who.role
            );
        }
    }

    #[test]
    fn lists_show_what_the_token_may_read() {
        assert_eq!(principal(Role::Admin, &[], None).visible_projects(), None);
        assert_eq!(principal(Role::Viewer, &[], None).visible_projects(), None);
        let editor = principal(Role::Editor, &["a"], None);
        assert_eq!(editor.visible_projects(), Some(&["a".to_string()][..]));
        assert!(!full(
            &principal(Role::Agent, &[], Some(CLUSTER)),
            Need::ListProjects,
            "",
            &[],
            None
        ));
    }
}
