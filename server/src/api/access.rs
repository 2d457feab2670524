//! AccessService handlers: validate, call `app::access`, encode. Who may call them is
//! the auth layer's business (admins, but GetCurrentToken).

use std::sync::Arc;
use std::time::Duration;

use flotilla_api::v1 as pb;
use pb::access_service_server::AccessService;
use tonic::Request;

use super::page::Paging;
use super::rpc;
use crate::app::access::{Access, NewToken};
use crate::domain::access::{Principal, Role};
use crate::error::{Error, Result, Violations};
use crate::ids::TokenId;
use crate::store::now_micros;
use crate::store::token::TokenRecord;
use crate::wire::convert::{check_id, opt_string, timestamp};

/// The default lifetime of a created token.
pub const DEFAULT_TOKEN_TTL: Duration = Duration::from_secs(90 * 24 * 3600);
/// The longest lifetime of a created token.
pub const MAX_TOKEN_TTL: Duration = Duration::from_secs(3650 * 24 * 3600);
/// The most projects a token may name.
pub const MAX_TOKEN_PROJECTS: usize = 100;
/// The longest description.
const MAX_DESCRIPTION_CHARS: usize = 4096;

pub struct AccessApi {
    access: Arc<Access>,
}

impl AccessApi {
    pub fn new(access: Arc<Access>) -> Self {
        Self { access }
    }
}

/// The caller, as the auth layer admitted it.
pub fn caller<T>(request: &Request<T>) -> Result<Principal> {
    request
        .extensions()
        .get::<Principal>()
        .cloned()
        .ok_or_else(|| Error::internal("the call reached its handler without a principal"))
}

fn role_to_proto(role: Role) -> pb::Role {
    match role {
        Role::Admin => pb::Role::Admin,
        Role::Editor => pb::Role::Editor,
        Role::Viewer => pb::Role::Viewer,
        Role::Agent => pb::Role::Agent,
    }
}

fn token_to_proto(record: &TokenRecord) -> pb::Token {
    let state = if record.revoke_time.is_some() {
        pb::TokenState::Revoked
    } else if record.active_at(now_micros()) {
        pb::TokenState::Active
    } else {
        pb::TokenState::Expired
    };
    pb::Token {
        name: format!("tokens/{}", record.id),
        description: record.description.clone(),
        role: role_to_proto(record.role) as i32,
        projects: record.projects.clone(),
        cluster: opt_string(record.cluster.as_ref()),
        state: state as i32,
        create_time: timestamp(record.create_time),
        expire_time: record.expire_time.and_then(timestamp),
        revoke_time: record.revoke_time.and_then(timestamp),
        creator: record
            .creator
            .map(|id| format!("tokens/{id}"))
            .unwrap_or_default(),
        secret: String::new(),
    }
}

/// Validates a CreateToken request.
fn new_token(request: &pb::CreateTokenRequest) -> Result<NewToken> {
    let mut violations = Violations::new();
    let token = request.token.clone().unwrap_or_default();
    let role = match pb::Role::try_from(token.role) {
        Ok(pb::Role::Admin) => Some(Role::Admin),
        Ok(pb::Role::Editor) => Some(Role::Editor),
        Ok(pb::Role::Viewer) => Some(Role::Viewer),
        Ok(pb::Role::Agent) => {
            violations.add(
                "token.role",
                "agent tokens are issued by CreateCluster and RotateClusterAgentToken",
            );
            None
        }
        Ok(pb::Role::Unspecified) | Err(_) => {
            violations.add(
                "token.role",
                "must be ROLE_ADMIN, ROLE_EDITOR or ROLE_VIEWER",
            );
            None
        }
    };
    if token.projects.len() > MAX_TOKEN_PROJECTS {
        violations.add(
            "token.projects",
            format!("at most {MAX_TOKEN_PROJECTS} projects"),
        );
    }
    for (index, project) in token.projects.iter().enumerate() {
        check_id(
            &mut violations,
            &format!("token.projects[{index}]"),
            project,
        );
    }
    match role {
        Some(Role::Admin) if !token.projects.is_empty() => violations.add(
            "token.projects",
            "admin tokens are not confined to projects",
        ),
        Some(Role::Editor) if token.projects.is_empty() => violations.add(
            "token.projects",
            "an editor token must name the projects it may change",
        ),
        _ => {}
    }
    if token.description.chars().count() > MAX_DESCRIPTION_CHARS {
        violations.add(
            "token.description",
            format!("at most {MAX_DESCRIPTION_CHARS} characters"),
        );
    }
    for (field, set) in [
        ("token.name", !token.name.is_empty()),
        ("token.cluster", !token.cluster.is_empty()),
        ("token.secret", !token.secret.is_empty()),
        ("token.state", token.state != 0),
    ] {
        if set {
            violations.add(field, "is output only");
        }
    }
    let ttl = match &request.ttl {
        None => DEFAULT_TOKEN_TTL,
        Some(ttl) => match Duration::try_from(*ttl) {
            Ok(ttl) if !ttl.is_zero() && ttl <= MAX_TOKEN_TTL => ttl,
            _ => {
                violations.add(
                    "ttl",
                    format!(
                        "must be positive and at most {} days",
                        MAX_TOKEN_TTL.as_secs() / 86_400
                    ),
                );
                DEFAULT_TOKEN_TTL
            }
        },
    };
    violations.into_result()?;
    let mut projects = token.projects;
    projects.sort();
    projects.dedup();
    Ok(NewToken {
        role: role.expect("validated"),
        projects,
        description: token.description,
        ttl: Some(ttl),
    })
}

fn token_id(field: &str, name: &str) -> Result<TokenId> {
    name.strip_prefix("tokens/")
        .and_then(|id| id.parse().ok())
        .ok_or_else(|| Error::invalid(field, "must be tokens/{id}, with the id a UUID"))
}

#[tonic::async_trait]
impl AccessService for AccessApi {
    rpc!(self, create_token(CreateTokenRequest) -> pb::Token, |req, creator| {
        let new = new_token(&req)?;
        let (record, secret) = self.access.create_token(Some(creator.token), new).await?;
        let mut token = token_to_proto(&record);
        token.secret = secret.expose().to_string();
        Ok(token)

    });

    rpc!(self, get_token(GetTokenRequest) -> pb::Token, |req| {
        let id = token_id("name", &req.name)?;
        Ok(token_to_proto(&self.access.get_token(id).await?))

    });

    rpc!(self, list_tokens(ListTokensRequest) -> pb::ListTokensResponse, |req| {
        let scope = format!("ListTokens:{}", req.show_inactive);
        let paging = Paging::<(i64, TokenId)>::new(scope, req.page_size, &req.page_token)?;
        let (tokens, more) = self
            .access
            .list_tokens(paging.after, req.show_inactive, paging.size)
            .await?;
        let next_page_token =
            paging.next_token(more, tokens.last().map(|l| (l.create_time, l.id)));
        Ok(pb::ListTokensResponse {
            tokens: tokens.iter().map(token_to_proto).collect(),
            next_page_token,
        })

    });

    rpc!(self, revoke_token(RevokeTokenRequest) -> pb::Token, |req| {
        let id = token_id("name", &req.name)?;
        Ok(token_to_proto(&self.access.revoke_token(id).await?))

    });

    rpc!(self, get_current_token(GetCurrentTokenRequest) -> pb::Token, |req, principal| {
        Ok(token_to_proto(
            &self.access.get_token(principal.token).await?,
        ))

    });
}
