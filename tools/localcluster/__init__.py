"""The scaled-out deployment on one machine (``python -m tools.localcluster``): a
Redis Cluster with replicas, several server processes and HAProxy."""
