"""The Redis code the sessions, the rate limit and the notifier share.

| module | job |
|---|---|
| ``client`` | clients made from ``REDIS_URL`` (one server, Sentinel, a cluster), failing fast; ``StoreUnavailable``; the router that sends a slot's calls to its node |
| ``outbox_keys`` | where the notifier's data lives: each session's outbox and the indexes that find the sessions with work due |

Nothing here imports the sessions, the notifier or Flask: they import it.
"""
