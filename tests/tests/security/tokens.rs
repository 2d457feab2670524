//! Token management: issued by admins only, shown once, revoked, expired, validated.

use super::*;

pub(super) async fn tokens_are_managed_by_admins(server: &TestServer) {
    let mut admin = server.client().await;
    let created = token(&mut admin, Role::Viewer, &["demo", "demo"], None).await;
    assert!(created.secret.starts_with("flt_"), "{created:?}");
    assert_eq!(created.projects, vec!["demo".to_string()], "deduplicated");
    assert_eq!(created.state(), TokenState::Active);
    assert_eq!(created.role(), Role::Viewer);
    let expires = created.expire_time.unwrap().seconds - created.create_time.unwrap().seconds;
    assert_eq!(expires, 90 * 24 * 3600, "default lifetime");
    // Shown once: Get and List never show a secret.
    let got = admin
        .access
        .get_token(GetTokenRequest {
            name: created.name.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(got.secret, "");
    assert_eq!(got.creator, {
        let me = admin
            .access
            .get_current_token(GetCurrentTokenRequest {})
            .await
            .unwrap()
            .into_inner();
        assert_eq!(me.role(), Role::Admin);
        me.name
    });
    let listed = admin
        .access
        .list_tokens(ListTokensRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert!(listed.tokens.iter().any(|t| t.name == created.name));
    assert!(listed.tokens.iter().all(|t| t.secret.is_empty()));
    // The token works, and knows who it is.
    let mut viewer = server.client_as(&created.secret).await;
    let me = viewer
        .access
        .get_current_token(GetCurrentTokenRequest {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        (me.role(), me.name.as_str()),
        (Role::Viewer, created.name.as_str())
    );
    // Only admins manage tokens.
    assert_denied(
        viewer
            .access
            .list_tokens(ListTokensRequest::default())
            .await,
        "tokens.manage",
    );
    let editor = token(&mut admin, Role::Editor, &["demo"], None).await;
    assert_denied(
        server
            .client_as(&editor.secret)
            .await
            .access
            .create_token(CreateTokenRequest {
                token: Some(Token {
                    role: Role::Admin as i32,
                    ..Default::default()
                }),
                ttl: None,
            })
            .await,
        "tokens.manage",
    );

    // Bad requests, each field named.
    for (request, field) in [
        (
            CreateTokenRequest {
                token: Some(Token {
                    role: Role::Editor as i32,
                    ..Default::default()
                }),
                ttl: None,
            },
            "token.projects",
        ),
        (
            CreateTokenRequest {
                token: Some(Token {
                    role: Role::Agent as i32,
                    ..Default::default()
                }),
                ttl: None,
            },
            "token.role",
        ),
        (CreateTokenRequest::default(), "token.role"),
        (
            CreateTokenRequest {
                token: Some(Token {
                    role: Role::Admin as i32,
                    projects: vec!["demo".into()],
                    ..Default::default()
                }),
                ttl: None,
            },
            "token.projects",
        ),
        (
            CreateTokenRequest {
                token: Some(Token {
                    role: Role::Viewer as i32,
                    projects: vec!["Bad_Name".into()],
                    ..Default::default()
                }),
                ttl: None,
            },
            "token.projects[0]",
        ),
        (
            CreateTokenRequest {
                token: Some(Token {
                    role: Role::Viewer as i32,
                    ..Default::default()
                }),
                ttl: Some(prost_types::Duration {
                    seconds: 4000 * 86_400,
                    nanos: 0,
                }),
            },
            "ttl",
        ),
    ] {
        let error = error_view(admin.access.create_token(request).await);
        assert_eq!(error.code, Code::InvalidArgument, "{error:?}");
        assert!(error.fields().contains(&field), "{field}: {error:?}");
    }

    // Revoked: refused on the next call, listed as revoked only when asked.
    let revoked = admin
        .access
        .revoke_token(RevokeTokenRequest {
            name: created.name.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(revoked.state(), TokenState::Revoked);
    assert!(revoked.revoke_time.is_some());
    let error = error_view(
        viewer
            .lifecycle
            .list_projects(ListProjectsRequest::default())
            .await,
    );
    assert_eq!(
        (error.code, error.reason.as_str()),
        (Code::Unauthenticated, "TOKEN_REVOKED")
    );
    let active = admin
        .access
        .list_tokens(ListTokensRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert!(!active.tokens.iter().any(|t| t.name == created.name));
    let all = admin
        .access
        .list_tokens(ListTokensRequest {
            show_inactive: true,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(
        all.tokens
            .iter()
            .any(|t| t.name == created.name && t.state() == TokenState::Revoked)
    );
    let error = error_view(
        admin
            .access
            .get_token(GetTokenRequest {
                name: format!("tokens/{}", uuid::Uuid::now_v7()),
            })
            .await,
    );
    assert_eq!(error.code, Code::NotFound);

    // Expired: refused once its time is up.
    let short = token(&mut admin, Role::Viewer, &[], Some(Duration::from_secs(1))).await;
    let mut short_lived = server.client_as(&short.secret).await;
    short_lived
        .lifecycle
        .list_projects(ListProjectsRequest::default())
        .await
        .expect("valid for a second");
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let error = error_view(
        short_lived
            .lifecycle
            .list_projects(ListProjectsRequest::default())
            .await,
    );
    assert_eq!(
        (error.code, error.reason.as_str()),
        (Code::Unauthenticated, "TOKEN_EXPIRED")
    );
}
