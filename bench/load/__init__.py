"""Load generation against a real server: the bench's phases, drivers and client."""
