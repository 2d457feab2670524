pub mod container_clusters;
