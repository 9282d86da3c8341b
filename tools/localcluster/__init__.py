"""The scaled-out deployment on one machine (``patience-server cluster``): a
Redis Cluster with replicas, several server processes and HAProxy."""
