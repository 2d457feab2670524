//! Health that tells the truth and errors that do not say too much (issue 21, point 6):
//! grpc.health.v1 goes NOT_SERVING (overall and per service) while the database does
//! not answer and SERVING when it is back; UNAVAILABLE and INTERNAL answers carry a
//! plain message and an error id, and the server log holds the cause under that id.

use std::time::Duration;

use flotilla_client::v1::*;
use flotilla_tests::proxy::TcpProxy;
use flotilla_tests::{
    Backend, TestServer, e2e_suite, error_view, eventually, sql_count, sql_execute,
};
use tonic::Code;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_health::pb::{HealthCheckRequest, HealthCheckResponse};

e2e_suite!(internal_errors_name_an_id_not_their_cause);

/// Every service the server reports on, and the server as a whole ("").
const SERVICES: [&str; 8] = [
    "",
    "flotilla.v1.LifecycleService",
    "flotilla.v1.StatusService",
    "flotilla.v1.AccessService",
    "flotilla.v1.ActionService",
    "flotilla.v1.ContainerClusterService",
    "flotilla.v1.AgentService",
    "flotilla.v1.SimulatorService",
];

async fn statuses(server: &TestServer) -> Vec<(&'static str, Option<ServingStatus>)> {
    let channel = server.channel().await;
    let mut health = HealthClient::new(channel);
    let mut out = Vec::new();
    for service in SERVICES {
        let answer = health
            .check(HealthCheckRequest {
                service: service.into(),
            })
            .await
            .map(|r| r.into_inner());
        let status = answer
            .ok()
            .map(|r: HealthCheckResponse| ServingStatus::try_from(r.status).unwrap());
        out.push((service, status));
    }
    out
}

async fn all_are(server: &TestServer, wanted: ServingStatus) {
    eventually(
        Duration::from_secs(20),
        &format!("every service {wanted:?}"),
        || async {
            let now = statuses(server).await;
            now.iter()
                .all(|(_, status)| *status == Some(wanted))
                .then_some(())
        },
    )
    .await;
}

/// PostgreSQL only: a server's database can be made unreachable (a proxy between
/// them is cut) while the PostgreSQL server the other tests share keeps running.
/// SQLite is a file inside the server's process; it has no outage of this kind.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_follows_the_database() {
    let mut server =
        TestServer::prepare(Backend::Postgres, &["--health-check-millis", "200"], None).await;
    let direct = server.database_url.clone();
    let (head, rest) = direct.split_once('@').expect("url with a host");
    let (host, database) = rest.split_once('/').expect("url with a database");
    let proxy = TcpProxy::start(host.to_string()).await;
    server.database_url = format!("{head}@127.0.0.1:{}/{database}", proxy.port());
    server.spawn().await;
    all_are(&server, ServingStatus::Serving).await;

    let mut client = server.client().await;
    client
        .lifecycle
        .create_project(CreateProjectRequest {
            project_id: "kept".into(),
            ..Default::default()
        })
        .await
        .unwrap();

    proxy.cut();
    all_are(&server, ServingStatus::NotServing).await;
    let refused = error_view(
        client
            .lifecycle
            .create_project(CreateProjectRequest {
                project_id: "during".into(),
                ..Default::default()
            })
            .await,
    );
    assert_eq!(refused.code, Code::Unavailable, "{refused:?}");
    assert_eq!(refused.reason, "DATABASE_UNAVAILABLE", "{refused:?}");
    let id = refused
        .metadata
        .get("error_id")
        .expect("an error id")
        .clone();
    assert!(
        refused.message.contains(&format!("error id {id}"))
            && refused.message.contains("the database cannot be reached"),
        "{refused:?}"
    );
    for raw in [
        "os error",
        "Connection",
        "connection",
        "pool",
        "refused",
        "sqlx",
        "5432",
    ] {
        assert!(
            !refused.message.contains(raw),
            "raw cause {raw:?} in {refused:?}"
        );
    }
    let log = server.log();
    assert!(
        log.lines()
            .any(|l| l.contains(&id) && l.contains("database unavailable")),
        "the log has no line for error id {id}:\n{log}"
    );
    assert!(log.contains("database unreachable: NOT_SERVING"), "{log}");

    proxy.heal();
    all_are(&server, ServingStatus::Serving).await;
    let projects = client
        .lifecycle
        .list_projects(ListProjectsRequest::default())
        .await
        .unwrap()
        .into_inner()
        .projects;
    let ids: Vec<&str> = projects.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        ids,
        ["projects/kept"],
        "the acknowledged write is kept, the refused one absent"
    );
    let kept = sql_count(&direct, "SELECT COUNT(*) FROM projects").await;
    assert_eq!(kept, 1);
}

/// A stored body that no longer decodes (an INTERNAL error): the answer says where to
/// look, not what the store said.
async fn internal_errors_name_an_id_not_their_cause(server: &TestServer) {
    let mut client = server.client().await;
    client
        .lifecycle
        .create_project(CreateProjectRequest {
            project_id: "broken".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let changed = sql_execute(
        &server.database_url,
        "UPDATE projects SET body = 'no json here' WHERE name = 'projects/broken'",
    )
    .await;
    assert_eq!(changed, 1);
    let error = error_view(
        client
            .lifecycle
            .get_project(GetProjectRequest {
                name: "projects/broken".into(),
            })
            .await,
    );
    assert_eq!(
        (error.code, error.reason.as_str()),
        (Code::Internal, "INTERNAL"),
        "{error:?}"
    );
    let id = error.metadata.get("error_id").expect("an error id").clone();
    assert!(error.message.contains(&id), "{error:?}");
    assert!(
        !error.message.contains("stored body") && !error.message.contains("expected"),
        "the cause leaked: {error:?}"
    );
    let log = server.log();
    assert!(
        log.lines()
            .any(|l| l.contains(&id) && l.contains("stored body of projects/broken")),
        "the log has no cause under {id}:\n{log}"
    );
}
