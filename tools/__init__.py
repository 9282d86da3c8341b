"""Offline tools for developers: win rates, dead regions, golden deals, the local cluster."""
