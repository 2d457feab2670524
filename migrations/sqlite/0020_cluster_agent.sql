-- What a cluster's last agent said of it in its hello: its backend (`sim`, `kube`) and
-- the cluster's version (a Kubernetes API server's gitVersion). `nodes` (0009) is the
-- third such fact. Output only on Cluster.
ALTER TABLE clusters ADD COLUMN agent_backend TEXT NOT NULL DEFAULT '';
ALTER TABLE clusters ADD COLUMN cluster_version TEXT NOT NULL DEFAULT '';
