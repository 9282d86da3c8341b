"""The public read API over HTTP (JSON), on the websocket's port (docs/reference/http-api.md)."""
