"""The race's rules without I/O: rooms' rows, phases, ranking, the daily deal and arenas."""
