"""Which mails a table has sent: each turn and end mail at most once, and turn mails to one
seat at most once per period (server/accounts/notify.py). Keys in the table's slot."""

from __future__ import annotations

from redis import asyncio as aioredis


def notified_key(table_id: str) -> str:
    """Hash of the notifications a table has sent (``turn:<seq>:<seat>``,
    ``end:<seat>``), so each is sent at most once."""
    return f"t:{{{table_id}}}:notified"


class NoticeStore:
    """The two marks a mail is sent after. Raises ``RedisError``."""

    def __init__(self, client: aioredis.Redis) -> None:
        self.redis = client

    async def mail_pause(self, table_id: str, seat: int, period: int) -> bool:
        """True (then send) unless a turn mail went to ``seat`` of the table in the last
        ``period`` s; starts that period (``SET NX EX`` in the table's slot)."""
        key = f"t:{{{table_id}}}:turnmail:{seat}"
        return bool(await self.redis.set(key, "1", nx=True, ex=period))

    async def first_notice(self, table_id: str, what: str) -> bool:
        """True the first time ``what`` is noted for the table (then send it)."""
        return bool(await self.redis.hsetnx(notified_key(table_id), what, "1"))
