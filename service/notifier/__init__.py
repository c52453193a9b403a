"""The notifier: turn notifications to the app's backend (signed webhooks) and the clock
sweeper, in a worker process of its own (``python -m service.notifier``).

| module | job |
|---|---|
| ``settings`` | its settings, checked at start; which addresses a webhook may not reach |
| ``queue`` | its Redis side: the slots with work, the outbox handed to the stream, the consumer group, dead letters, the deadline index |
| ``delivery`` | one signed POST (Standard Webhooks) to the configured URL |
| ``sweeper`` | the deadlines passed, settled with the service's timekeeper |
| ``worker`` | the poller and the deliverers |
| ``metrics`` | Prometheus metrics |

What a commit writes for it is the sessions' (``service.sessions.outbox``); where it
lives in Redis, ``service.redis.outbox_keys``. docs/notifications.md is the guide.
"""
