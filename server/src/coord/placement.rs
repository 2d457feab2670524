//! Where each cluster should run: rendezvous hashing with bounded loads over the live
//! members. Pure and deterministic, so every replica that sees the same members and
//! clusters computes the same answer without talking to the others; etcd's owner keys
//! (not this function) keep two replicas from running one cluster at once while their
//! views differ.
//!
//! Each cluster ranks the members by a hash of (cluster, member) and goes to the
//! best-ranked member that still has room; a member's room is `ceil(factor × clusters /
//! members)`. Clusters are placed in the order of their own hash, so which cluster
//! is bumped to its second choice does not depend on how clusters are named. When a
//! member joins, it takes the clusters that rank it first (up to its room) and few
//! others move; when one leaves, its clusters spread over the rest by their rankings.
//! The hash is FNV-1a with a 64-bit finaliser, written out here: replicas of different
//! builds (a rolling upgrade) must agree, which `std`'s hasher does not promise.

use std::collections::BTreeMap;

use super::MemberId;

/// How far above the mean a member's load may go: 1.25 is the bound Argo CD's
/// consistent-hashing sharding and the original paper's experiments use.
pub const LOAD_FACTOR: f64 = 1.25;

/// The member each cluster should run on. Empty when there are no members.
pub fn assign<'a>(
    clusters: impl IntoIterator<Item = &'a str>,
    members: &[MemberId],
    factor: f64,
) -> BTreeMap<&'a str, MemberId> {
    let mut members: Vec<&MemberId> = members.iter().collect();
    members.sort();
    members.dedup();
    let mut clusters: Vec<(u64, &str)> = clusters
        .into_iter()
        .map(|cluster| (hash(cluster.as_bytes()), cluster))
        .collect();
    clusters.sort_unstable();
    clusters.dedup();
    let mut placed = BTreeMap::new();
    if members.is_empty() {
        return placed;
    }
    let room = room(clusters.len(), members.len(), factor);
    let member_hashes: Vec<u64> = members.iter().map(|m| hash(m.as_bytes())).collect();
    let mut loads = vec![0usize; members.len()];
    let mut ranking: Vec<usize> = (0..members.len()).collect();
    for (cluster_hash, cluster) in clusters {
        ranking.sort_by_key(|&i| (std::cmp::Reverse(mix(cluster_hash ^ member_hashes[i])), i));
        // The rooms add up to at least the number of clusters, so one has room.
        let chosen = ranking
            .iter()
            .copied()
            .find(|&i| loads[i] < room)
            .unwrap_or(ranking[0]);
        loads[chosen] += 1;
        placed.insert(cluster, members[chosen].clone());
    }
    placed
}

/// How many clusters one member may hold: `ceil(factor × clusters / members)`, at
/// least 1.
fn room(clusters: usize, members: usize, factor: f64) -> usize {
    let mean = clusters as f64 / members as f64;
    ((mean * factor.max(1.0)).ceil() as usize).max(1)
}

/// FNV-1a, then the finaliser of SplitMix64 (FNV alone spreads similar names poorly).
fn hash(bytes: &[u8]) -> u64 {
    let mut state: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        state ^= u64::from(*byte);
        state = state.wrapping_mul(0x0000_0100_0000_01b3);
    }
    mix(state)
}

fn mix(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members(n: usize) -> Vec<MemberId> {
        (0..n)
            .map(|i| MemberId::from(format!("replica-{i}")))
            .collect()
    }

    fn clusters(n: usize) -> Vec<String> {
        (0..n)
            .map(|i| format!("clusterProviders/edge/clusters/c{i}"))
            .collect()
    }

    fn loads(placed: &BTreeMap<&str, MemberId>) -> BTreeMap<MemberId, usize> {
        let mut loads = BTreeMap::new();
        for member in placed.values() {
            *loads.entry(member.clone()).or_default() += 1;
        }
        loads
    }

    fn moved(before: &BTreeMap<&str, MemberId>, after: &BTreeMap<&str, MemberId>) -> usize {
        before
            .iter()
            .filter(|(c, m)| after.get(*c) != Some(m))
            .count()
    }

    #[test]
    fn every_cluster_is_placed_once_within_the_load_bound() {
        for (n_clusters, n_members) in [(20, 3), (1000, 3), (1000, 7), (5, 8), (1, 1)] {
            let names = clusters(n_clusters);
            let placed = assign(
                names.iter().map(String::as_str),
                &members(n_members),
                LOAD_FACTOR,
            );
            assert_eq!(placed.len(), n_clusters);
            let bound = room(n_clusters, n_members, LOAD_FACTOR);
            for (member, load) in loads(&placed) {
                assert!(
                    load <= bound,
                    "{member} holds {load} of {n_clusters} (room {bound})"
                );
            }
        }
        assert!(assign(["a"], &[], LOAD_FACTOR).is_empty());
    }

    #[test]
    fn the_answer_depends_on_the_sets_not_their_order() {
        let names = clusters(200);
        let mut shuffled = names.clone();
        shuffled.reverse();
        let mut ms = members(4);
        let a = assign(names.iter().map(String::as_str), &ms, LOAD_FACTOR);
        ms.reverse();
        ms.push(ms[0].clone());
        let b = assign(shuffled.iter().map(String::as_str), &ms, LOAD_FACTOR);
        assert_eq!(a, b);
    }

    #[test]
    fn membership_changes_move_few_clusters() {
        let names = clusters(1000);
        let three = assign(names.iter().map(String::as_str), &members(3), LOAD_FACTOR);
        let four = assign(names.iter().map(String::as_str), &members(4), LOAD_FACTOR);
        // A joining member should take about a quarter; a naive `hash % members` moves
        // three quarters.
        let joined = moved(&three, &four);
        assert!(joined <= 400, "a fourth member moved {joined} of 1000");
        // A leaving member's clusters must move; few others should.
        let victim = MemberId::from("replica-1");
        let rest: Vec<MemberId> = members(3).into_iter().filter(|m| *m != victim).collect();
        let two = assign(names.iter().map(String::as_str), &rest, LOAD_FACTOR);
        let orphaned = three.values().filter(|m| **m == victim).count();
        let left = moved(&three, &two);
        assert!(
            left <= orphaned + orphaned / 2,
            "losing a member that held {orphaned} moved {left}"
        );
    }

    #[test]
    fn the_hash_is_stable_across_builds() {
        // Replicas of different versions must agree: these values are fixed.
        assert_eq!(hash(b""), mix(0xcbf2_9ce4_8422_2325));
        assert_eq!(hash(b"a"), mix(0xaf63_dc4c_8601_ec8c));
    }
}
