//! End-to-end: a kind only the proto declares (ClusterKvPair: a message with a
//! `google.api.resource` option, its five RPCs and its table; no handler, spec or
//! conversion of its own) served through the generated Rust client against the real
//! `flotilla-server` binary, on SQLite and PostgreSQL.

use std::collections::BTreeMap;

use flotilla_client::v1::*;
use flotilla_client::{Client, names};
use flotilla_tests::{TestServer, e2e_suite, error_view, sim_cluster};
use prost_types::FieldMask;
use tonic::Code;

e2e_suite!(
    a_declared_kind_lives_its_whole_life,
    a_declared_kind_refuses_bad_input_by_field,
    a_declared_kind_pages_and_replays,
);

fn pairs(items: &[(&str, &str)]) -> BTreeMap<String, String> {
    items
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

async fn create(
    client: &mut Client,
    parent: &str,
    id: &str,
    description: &str,
    items: &[(&str, &str)],
) -> Result<ClusterKvPair, tonic::Status> {
    client
        .lifecycle
        .create_cluster_kv_pair(CreateClusterKvPairRequest {
            parent: parent.into(),
            kv_pair_id: id.into(),
            cluster_kv_pair: Some(ClusterKvPair {
                description: description.into(),
                pairs: pairs(items),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .map(|r| r.into_inner())
}

async fn a_declared_kind_lives_its_whole_life(server: &TestServer) {
    let mut client = server.client().await;
    let c1 = sim_cluster(&client, "cp", "c1").await;
    let created = create(
        &mut client,
        &c1,
        "net",
        "network settings",
        &[("mtu", "1450")],
    )
    .await
    .unwrap();
    assert_eq!(created.name, names::cluster_kv_pair(&c1, "net"));
    assert_eq!(created.description, "network settings");
    assert_eq!(created.pairs, pairs(&[("mtu", "1450")]));
    assert!(!created.uid.is_empty() && !created.etag.is_empty());
    assert!(created.create_time.is_some() && created.create_time == created.update_time);

    let lc = &mut client.lifecycle;
    let fetched = lc
        .get_cluster_kv_pair(GetClusterKvPairRequest {
            name: created.name.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(fetched, created);

    // Only the masked field changes; the etag moves on.
    let updated = lc
        .update_cluster_kv_pair(UpdateClusterKvPairRequest {
            cluster_kv_pair: Some(ClusterKvPair {
                name: created.name.clone(),
                etag: created.etag.clone(),
                description: "ignored: not in the mask".into(),
                pairs: pairs(&[("mtu", "9000"), ("vlan", "12")]),
                ..Default::default()
            }),
            update_mask: Some(FieldMask {
                paths: vec!["pairs".into()],
            }),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(updated.description, "network settings");
    assert_eq!(updated.pairs, pairs(&[("mtu", "9000"), ("vlan", "12")]));
    assert_ne!(updated.etag, created.etag);
    assert_eq!(updated.uid, created.uid);
    assert_eq!(updated.create_time, created.create_time);

    // The old etag is stale, for updates and deletes alike.
    let err = error_view(
        lc.update_cluster_kv_pair(UpdateClusterKvPairRequest {
            cluster_kv_pair: Some(ClusterKvPair {
                name: created.name.clone(),
                etag: created.etag.clone(),
                ..Default::default()
            }),
            update_mask: None,
        })
        .await,
    );
    assert_eq!(
        (err.code, err.reason.as_str()),
        (Code::Aborted, "ETAG_MISMATCH")
    );
    let err = error_view(
        lc.delete_cluster_kv_pair(DeleteClusterKvPairRequest {
            name: created.name.clone(),
            etag: created.etag.clone(),
        })
        .await,
    );
    assert_eq!(
        (err.code, err.reason.as_str()),
        (Code::Aborted, "ETAG_MISMATCH")
    );

    // An empty mask replaces every field the caller may set.
    let replaced = lc
        .update_cluster_kv_pair(UpdateClusterKvPairRequest {
            cluster_kv_pair: Some(ClusterKvPair {
                name: created.name.clone(),
                description: "replaced".into(),
                ..Default::default()
            }),
            update_mask: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(replaced.description, "replaced");
    assert!(replaced.pairs.is_empty(), "{:?}", replaced.pairs);

    // The cluster keeps its children: its delete is refused while the pair set is there.
    let err = error_view(
        lc.delete_cluster(DeleteClusterRequest {
            name: c1.clone(),
            ..Default::default()
        })
        .await,
    );
    assert_eq!(
        (err.code, err.reason.as_str()),
        (Code::FailedPrecondition, "HAS_CHILDREN")
    );
    assert!(err.message.contains("cluster kv pair"), "{}", err.message);

    lc.delete_cluster_kv_pair(DeleteClusterKvPairRequest {
        name: created.name.clone(),
        etag: replaced.etag.clone(),
    })
    .await
    .unwrap();
    let err = error_view(
        lc.get_cluster_kv_pair(GetClusterKvPairRequest {
            name: created.name.clone(),
        })
        .await,
    );
    assert_eq!(err.code, Code::NotFound);
    assert_eq!(err.resource_name.as_deref(), Some(created.name.as_str()));
    lc.delete_cluster(DeleteClusterRequest {
        name: c1.clone(),
        ..Default::default()
    })
    .await
    .unwrap();
}

type Refusal<'a> = (
    &'a str,
    &'a str,
    &'a str,
    &'a [(&'a str, &'a str)],
    Code,
    &'a str,
);

async fn a_declared_kind_refuses_bad_input_by_field(server: &TestServer) {
    let mut client = server.client().await;
    let c1 = sim_cluster(&client, "cp", "c1").await;
    // (parent, id, description, pairs, code, the violated field)
    let refusals: [Refusal; 5] = [
        (&c1, "Bad_Id", "", &[], Code::InvalidArgument, "kv_pair_id"),
        (
            "clusters/c1",
            "ok",
            "",
            &[],
            Code::InvalidArgument,
            "parent",
        ),
        (
            &c1,
            "ok",
            "",
            &[("", "v")],
            Code::InvalidArgument,
            "cluster_kv_pair.pairs",
        ),
        (
            &c1,
            "ok",
            &"d".repeat(5000),
            &[],
            Code::InvalidArgument,
            "cluster_kv_pair.description",
        ),
        (
            "clusterProviders/cp/clusters/nowhere",
            "ok",
            "",
            &[],
            Code::NotFound,
            "",
        ),
    ];
    for (parent, id, description, items, code, field) in refusals {
        let err = error_view(create(&mut client, parent, id, description, items).await);
        assert_eq!(err.code, code, "{parent} {id}: {}", err.message);
        if !field.is_empty() {
            assert_eq!(err.fields(), vec![field], "{parent} {id}: {}", err.message);
        }
    }
    // Nothing of those was stored.
    let listed = client
        .lifecycle
        .list_cluster_kv_pairs(ListClusterKvPairsRequest {
            parent: c1.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(listed.cluster_kv_pairs.is_empty(), "{listed:?}");

    let created = create(&mut client, &c1, "net", "", &[("a", "b")])
        .await
        .unwrap();
    let err = error_view(create(&mut client, &c1, "net", "", &[]).await);
    assert_eq!(err.code, Code::AlreadyExists);
    let lc = &mut client.lifecycle;
    let err = error_view(
        lc.update_cluster_kv_pair(UpdateClusterKvPairRequest {
            cluster_kv_pair: None,
            update_mask: None,
        })
        .await,
    );
    assert_eq!(
        (err.code, err.fields()),
        (Code::InvalidArgument, vec!["cluster_kv_pair"])
    );
    for path in ["name", "uid", "etag", "nope"] {
        let err = error_view(
            lc.update_cluster_kv_pair(UpdateClusterKvPairRequest {
                cluster_kv_pair: Some(created.clone()),
                update_mask: Some(FieldMask {
                    paths: vec![path.into()],
                }),
            })
            .await,
        );
        assert_eq!(err.code, Code::InvalidArgument, "mask path {path}");
    }
    let err = error_view(
        lc.get_cluster_kv_pair(GetClusterKvPairRequest {
            name: format!("{c1}/networkIntents/net"),
        })
        .await,
    );
    assert_eq!(
        (err.code, err.fields()),
        (Code::InvalidArgument, vec!["name"])
    );
    // The stored pair set is as created.
    let fetched = lc
        .get_cluster_kv_pair(GetClusterKvPairRequest {
            name: created.name.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(fetched, created);
}

async fn a_declared_kind_pages_and_replays(server: &TestServer) {
    let mut client = server.client().await;
    let c1 = sim_cluster(&client, "cp", "c1").await;
    for id in ["k3", "k1", "k2"] {
        create(&mut client, &c1, id, "", &[("id", id)])
            .await
            .unwrap();
    }
    let lc = &mut client.lifecycle;
    let mut seen = Vec::new();
    let mut token = String::new();
    loop {
        let page = lc
            .list_cluster_kv_pairs(ListClusterKvPairsRequest {
                parent: c1.clone(),
                page_size: 2,
                page_token: token.clone(),
            })
            .await
            .unwrap()
            .into_inner();
        assert!(page.cluster_kv_pairs.len() <= 2);
        seen.extend(
            page.cluster_kv_pairs
                .into_iter()
                .map(|p| p.pairs["id"].clone()),
        );
        if page.next_page_token.is_empty() {
            break;
        }
        token = page.next_page_token;
    }
    assert_eq!(seen, ["k1", "k2", "k3"], "ordered by name, each once");
    // A page token belongs to its listing.
    let first = lc
        .list_cluster_kv_pairs(ListClusterKvPairsRequest {
            parent: c1.clone(),
            page_size: 1,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let err = error_view(
        lc.list_cluster_kv_pairs(ListClusterKvPairsRequest {
            parent: names::cluster("cp", "other"),
            page_size: 2,
            page_token: first.next_page_token,
        })
        .await,
    );
    assert_eq!(err.code, Code::InvalidArgument);

    // A create retried with its request id returns the first answer (its map of many
    // pairs encoded alike each time).
    let many: Vec<(String, String)> = (0..32).map(|i| (format!("k{i}"), format!("{i}"))).collect();
    let request = CreateClusterKvPairRequest {
        parent: c1.clone(),
        kv_pair_id: "once".into(),
        cluster_kv_pair: Some(ClusterKvPair {
            pairs: many.into_iter().collect(),
            ..Default::default()
        }),
        request_id: "0b7c6f1e-3a52-4c8e-9d11-5f2a8e4b7c90".into(),
    };
    let first = lc
        .create_cluster_kv_pair(request.clone())
        .await
        .unwrap()
        .into_inner();
    let again = lc
        .create_cluster_kv_pair(request.clone())
        .await
        .unwrap()
        .into_inner();
    assert_eq!(first, again);
    // The same id with another request is refused.
    let mut other = request;
    other.cluster_kv_pair = Some(ClusterKvPair {
        pairs: pairs(&[("x", "2")]),
        ..Default::default()
    });
    let err = error_view(lc.create_cluster_kv_pair(other).await);
    assert_eq!(
        (err.code, err.reason.as_str()),
        (Code::FailedPrecondition, "REQUEST_ID_REUSED"),
        "{}",
        err.message
    );
}
