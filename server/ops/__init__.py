"""Operations: settings, the clock, logs, metrics, limits, asyncio helpers and build info."""
