"""``patience-server``: the server and its offline tools."""
