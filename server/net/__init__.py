"""The transport: websocket connections, their outboxes and their limits.
Knows frames and the codec, never games or the store."""
