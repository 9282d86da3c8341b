"""The wire: the protocol's tables and codec, and the view encoder."""
