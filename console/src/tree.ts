// A group's live status, built from WatchStatus events: the resources keyed by app,
// cluster and resource, the counts, lifecycle and connectivity. Events are applied in
// batches (one per animation frame), so a burst of changes costs one render.

import { v1 } from "@flotilla/client/web";

export interface Resource {
  key: string;
  app: string;
  cluster: string;
  kind: string;
  namespace: string;
  name: string;
  rsync: v1.RsyncStatus;
  clusterStatus: v1.ClusterResourceStatus;
  readiness: v1.Readiness;
  entry: v1.ResourceStatusEntry;
}

/** A row of the tree as shown: an app, a cluster under it, or a resource. */
export type Row =
  | { level: 0; key: string; app: string; count: number }
  | { level: 1; key: string; app: string; cluster: string; count: number }
  | { level: 2; key: string; resource: Resource };

export class GroupStatus {
  resources = new Map<string, Resource>();
  rsync?: v1.RsyncStatusCounts;
  clusterCounts?: v1.ClusterStatusCounts;
  readiness?: v1.ReadinessCounts;
  state = "";
  instance = "";
  connectivity = new Map<string, v1.Connectivity>();
  synced = false;
  /** Events applied since the watch began (snapshot included). */
  applied = 0;
  private order: string[] | null = null;

  apply(event: v1.WatchEvent): void {
    this.applied += 1;
    switch (event.type) {
      case v1.WatchEventType.RESOURCE_CHANGED: {
        const entry = event.resource;
        if (!entry) return;
        const kind = entry.gvk?.kind ?? "";
        const key = `${event.appName}\u0000${event.cluster}\u0000${kind}\u0000${entry.namespace}\u0000${entry.name}`;
        if (!this.resources.has(key)) this.order = null;
        this.resources.set(key, {
          key,
          app: event.appName,
          cluster: event.cluster,
          kind,
          namespace: entry.namespace,
          name: entry.name,
          rsync: entry.rsyncStatus,
          clusterStatus: entry.clusterStatus,
          readiness: entry.readiness,
          entry,
        });
        return;
      }
      case v1.WatchEventType.COUNTS_CHANGED:
        this.rsync = event.rsyncStatus;
        this.clusterCounts = event.clusterStatus;
        this.readiness = event.readiness;
        return;
      case v1.WatchEventType.LIFECYCLE_CHANGED:
        // A new instance (rollout, rollback, instantiate again): the stream sends its
        // resources next; what the old one had is not the group's status any more.
        if (event.instance !== this.instance) {
          this.resources.clear();
          this.order = null;
        }
        this.state = event.state;
        this.instance = event.instance;
        return;
      case v1.WatchEventType.CONNECTIVITY_CHANGED:
        this.connectivity.set(event.cluster, event.connectivity);
        return;
      case v1.WatchEventType.SYNCED:
        this.synced = true;
        return;
      case v1.WatchEventType.RESYNC_REQUIRED:
        // A fresh snapshot follows: drop what was built.
        this.resources.clear();
        this.order = null;
        this.synced = false;
        return;
    }
  }

  /** The resources in tree order (app, cluster, kind, namespace, name). */
  sorted(): Resource[] {
    if (!this.order) this.order = [...this.resources.keys()].sort();
    return this.order.map((k) => this.resources.get(k)!);
  }

  /** The visible rows: apps and clusters as headers, collapsed ones without children. */
  rows(collapsed: ReadonlySet<string>): Row[] {
    const rows: Row[] = [];
    let app = "";
    let cluster = "";
    let appRow: Row & { level: 0 } = { level: 0, key: "", app: "", count: 0 };
    let clusterRow: Row & { level: 1 } = { level: 1, key: "", app: "", cluster: "", count: 0 };
    for (const resource of this.sorted()) {
      if (resource.app !== app || rows.length === 0) {
        app = resource.app;
        cluster = "";
        appRow = { level: 0, key: `a:${app}`, app, count: 0 };
        rows.push(appRow);
      }
      appRow.count += 1;
      if (collapsed.has(appRow.key)) continue;
      if (resource.cluster !== cluster) {
        cluster = resource.cluster;
        clusterRow = { level: 1, key: `c:${app}/${cluster}`, app, cluster, count: 0 };
        rows.push(clusterRow);
      }
      clusterRow.count += 1;
      if (collapsed.has(clusterRow.key)) continue;
      rows.push({ level: 2, key: resource.key, resource });
    }
    return rows;
  }
}
