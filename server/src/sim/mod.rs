//! The sim backend: an in-memory Kubernetes-like cluster that a cluster agent drives.
//! Objects are keyed by kind/group/namespace/name. Controllers (Deployments,
//! StatefulSets, DaemonSets, Jobs) create Pods that become Ready after a configurable
//! delay; Job pods complete; Services, ConfigMaps and Secrets exist at once; Pods of a
//! controller deleted out of band are recreated under the same name. Faults: failing
//! applies of matching resources, deleting pods, failing actions. Pods run on nodes
//! (`spec.nodeName`); `actions` executes reboots and snapshots on them.

pub mod actions;
mod backend;
pub mod cluster;
pub mod embedded;

pub use cluster::SimCluster;

/// Matches `text` against a glob with `*` (any run of characters) and `?` (one).
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn globs() {
        assert!(glob_match("*", "anything"));
        assert!(glob_match("Config*", "ConfigMap"));
        assert!(glob_match("web-?", "web-1"));
        assert!(glob_match("*-db*", "orders-db-0"));
        assert!(!glob_match("Config*", "Secret"));
        assert!(!glob_match("web-?", "web-10"));
        assert!(glob_match("", ""));
        assert!(!glob_match("", "x"));
    }
}
