"""Claims in Redis (``SessionStore.claim``): a sorted set a name of members held until
a time, for the quotas (sessions and streams a client holds) and the bots' lease."""

from __future__ import annotations

from typing import Any

# KEYS: the claims (a sorted set: member -> until, epoch ms). ARGV: now ms, until ms,
# member, limit. Drops the expired members, then holds ARGV[3] until ARGV[2] unless
# ``limit`` others are held (0). The set lives as long as its latest member.
CLAIM = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if not redis.call('ZSCORE', KEYS[1], ARGV[3])
   and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then
  return 0
end
redis.call('ZADD', KEYS[1], 'GT', ARGV[2], ARGV[3])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], last[2])
return 1
"""


class RedisClaims:
    """``claim``, ``release`` and ``claimed`` of ``RedisStore`` (its ``router`` and
    ``prefix``)."""

    router: Any
    prefix: str

    def _claims_key(self, key: str) -> str:
        """The sorted set of the claims named ``key`` (a slot of its own on a cluster)."""
        return f"{self.prefix}{{{key}}}:claims"

    def claim(self, key: str, member: str, limit: int, until_ms: int, now_ms: int) -> bool:
        args = [now_ms, until_ms, member, limit]
        return bool(self.router.run("claim", CLAIM, [self._claims_key(key)], args))

    def release(self, key: str, member: str) -> None:
        name = self._claims_key(key)
        self.router.on_slot(name, lambda client: client.zrem(name, member))

    def claimed(self, key: str, now_ms: int) -> list[str]:
        name = self._claims_key(key)
        rows = self.router.on_slot(
            name, lambda client: client.zrangebyscore(name, f"({now_ms}", "+inf")
        )
        return [m.decode() for m in rows]
