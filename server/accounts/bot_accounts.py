"""Bot accounts: a person's account turned, once and for good, into an account a program
plays (docs/bot-api.md, "Bot accounts").

The account hash gets ``bot = 1`` (as the service's own bots' rated accounts have) and
``bot_since`` (seconds). From then on the account is a bot everywhere: ``GET /api/me``,
its profile and the leaderboard (``"bot": true``), and every seat it takes
(``seats[i].bot_account`` in the table summary). It is rated on the one ladder with the
people and the service's bots.

Which calls need a bot account: **rated play by API token**. Creating a rated table,
joining one, accepting a rated rematch, a rated seek, joining a rated tournament, the
held-seat lookup of a rated table and opening a seat's websocket at a rated table with an
API token are refused for a person's account (403 ``bot_account_needed``), so nobody runs
an engine on a person's rating. Unrated tables take a play token of any
account; a bot account may also play in the browser (its session).
"""

from __future__ import annotations

import json
import time

from server.accounts.accounts import Account
from server.errors import LobbyError
from server.store.accounts import AccountStore


def require_bot(account: Account, rated: bool, by_token: bool) -> None:
    """Raise 403 ``bot_account_needed`` for rated play by API token of a person's
    account (see the module docstring); anything else passes."""
    if rated and by_token and not account.bot:
        raise LobbyError(403, "bot_account_needed",
                         "rated play with an API token needs a bot account "
                         "(POST /api/account/bot); a person plays rated games in person")


def refusal(account: Account, rated_games: int, rated_running: bool) -> LobbyError | None:
    """Why ``account`` cannot become a bot account, or ``None``: 409 ``already_bot``, 409
    ``has_roles`` (an administrator or moderator is a person), 409 ``rated_as_person``
    (it has played a rated game: ``rated_games`` settled, or one running now)."""
    if account.bot:
        return LobbyError(409, "already_bot", "this account is a bot account already")
    if account.roles:
        return LobbyError(409, "has_roles", "an account with a role cannot become a bot")
    if rated_games or rated_running:
        return LobbyError(409, "rated_as_person",
                          "this account has played a rated game as a person: create a new "
                          "account for your bot")
    return None


async def convert(store: AccountStore, account: Account) -> None:
    """Turn ``account`` into a bot account; raises ``refusal``'s error, and then nothing
    changes. A rated game it joins in the instant between the check and the write is
    settled for the bot account (the check cannot lock the account's tables)."""
    history = await store.rated_history(account.uid)
    ids = await store.game_ids(account.uid, 10_000)
    running = any(meta.get("rated") == "1" and meta.get("status") == "running"
                  and account.uid in json.loads(meta.get("accounts") or "[]")
                  for meta in await store.table_metas(ids))
    why = refusal(account, len(history), running)
    if why is not None:
        raise why
    await store.update_account(account.uid, {"bot": "1", "bot_since": repr(time.time())})
    account.bot = True
