"""The application layer: rooms, races, seats and games, as handlers use them."""
