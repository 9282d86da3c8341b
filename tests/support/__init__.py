"""What the tests share: Redis servers, clusters, bots and fuzzing."""
