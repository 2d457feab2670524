//! `--rsync-in-flight`: the rendered resources sent to agents and not yet answered are
//! bounded over the whole fleet, not per cluster, and a fleet under a budget smaller
//! than one rollout still converges. With a real agent fleet process that is stopped
//! (SIGSTOP) while an instance rolls out, so nothing is answered and what is in flight
//! piles up to the bound, on SQLite and PostgreSQL.

use std::time::{Duration, Instant};

use flotilla_tests::metrics::{scrape, value};
use flotilla_tests::{Backend, TestServer, e2e_suite, eventually, free_port};

use crate::common::fleet::{WAIT, agent_fleet, deployment, instantiate, wait_counts};

e2e_suite!(backend => a_fleet_rolls_out_within_the_in_flight_budget);

const BUDGET: f64 = 3.0;

async fn a_fleet_rolls_out_within_the_in_flight_budget(backend: Backend) {
    let metrics = format!("127.0.0.1:{}", free_port());
    let server = TestServer::start_with(
        backend,
        &[
            "--sim",
            "false",
            "--rsync-in-flight",
            "3",
            // The agent is stopped for a few seconds: its session must outlive that.
            "--agent-heartbeat-millis",
            "20000",
            "--metrics-listen",
            &metrics,
        ],
    )
    .await;
    let mut client = server.client().await;
    let ids = ["b1", "b2", "b3", "b4"];
    let agent = agent_fleet(&server, &mut client, "b", &ids).await;
    // 2 apps x 3 ConfigMaps on 4 clusters: 24 resources, 6 per cluster; a budget of 3
    // is less than one cluster's batch.
    let dig = deployment(&mut client, 2, 3, false, &ids).await;
    let in_flight = || {
        value(
            &scrape(&metrics),
            "flotilla_rsync_in_flight_operations",
            &[],
        )
    };
    assert_eq!(in_flight(), 0.0);

    agent.signal(libc::SIGSTOP);
    instantiate(&mut client, &dig).await;
    // Nothing is answered: what was sent stays in flight, up to the budget and no more
    // (without it, every cluster's 6 would be).
    eventually(WAIT, "the budget to fill up", || async {
        (in_flight() == BUDGET).then_some(())
    })
    .await;
    let held = Instant::now();
    while held.elapsed() < Duration::from_secs(2) {
        let now = in_flight();
        assert!(
            now <= BUDGET,
            "{now} operations in flight for a budget of 3"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    agent.signal(libc::SIGCONT);
    wait_counts(&client, &dig, &[], 24, 24, "the whole fleet to converge").await;
    eventually(WAIT, "nothing left in flight", || async {
        (in_flight() == 0.0).then_some(())
    })
    .await;
}
