"""The pure rules of moderation (server/admin/moderation.py): a report's input, the chat
lines a report keeps, a sanction's duration, and what a suspended account may still
change. No sockets, Redis or clock: the time is passed in."""

from __future__ import annotations

from typing import Any

import pytest

from server.accounts.accounts import Account
from server.admin.moderation import (
    CONTEXT_LINES,
    MAX_MINUTES,
    ReportRequest,
    change_refused,
    chat_context,
    check_minutes,
    check_report,
    muted,
    suspended,
)
from server.errors import LobbyError


def code_of(call: Any, *args: Any) -> tuple[int, str]:
    with pytest.raises(LobbyError) as e:
        call(*args)
    return e.value.status, e.value.code


def test_a_report_body_is_checked() -> None:
    ok = {"target": "Tom", "reason": "abuse"}
    assert check_report({**ok, "text": "  rude  ", "table": "t1", "message": "m1"}) == \
        ReportRequest("Tom", "abuse", "rude", "t1", None, "m1")
    assert check_report({**ok, "text": None}).text == ""
    for bad in ([], "x", {**ok, "target": ""}, {**ok, "target": "x" * 65},
                {**ok, "text": 5}, {**ok, "text": "x" * 501}, {**ok, "table": 3},
                {**ok, "table": "t", "seat": True}, {**ok, "table": "t", "seat": -1},
                {**ok, "table": "t", "seat": 64}, {**ok, "table": "t", "message": ""},
                {**ok, "seat": 0}, {**ok, "message": "m"}):
        assert code_of(check_report, bad) == (400, "bad_message"), bad
    for reason in (None, "", "Abuse", "rude"):
        assert code_of(check_report, {**ok, "reason": reason}) == (400, "bad_reason")


def test_the_chat_around_a_message_is_its_channels_lines() -> None:
    lines = [{"id": f"m{i}", "text": str(i)} for i in range(20)]
    other = [{"id": "s0", "text": "spectator"}]
    found = chat_context({"players": lines, "spectators": other}, "m10")
    assert found is not None
    line, around = found
    assert line["id"] == "m10"
    assert [x["id"] for x in around] == [f"m{i}" for i in range(10 - CONTEXT_LINES,
                                                               11 + CONTEXT_LINES)]
    assert [x["id"] for x in chat_context({"players": lines}, "m1")[1]] == \
        [f"m{i}" for i in range(0, 2 + CONTEXT_LINES)]  # type: ignore[index]
    assert chat_context({"players": lines, "spectators": other}, "s0")[1] == other  # type: ignore[index]
    assert chat_context({"players": lines}, "nope") is None


def test_a_sanction_lasts_one_minute_to_thirty_days() -> None:
    assert check_minutes(1) == 1 and check_minutes(MAX_MINUTES) == MAX_MINUTES
    for bad in (0, -5, MAX_MINUTES + 1, 1.5, "10", True, None):
        assert code_of(check_minutes, bad) == (400, "bad_message"), bad


def test_a_suspension_and_a_mute_end_by_themselves() -> None:
    account = Account(uid="u", username="Tom", created_at=0, muted_until=100.0,
                      suspended_until=50.0)
    assert muted(account, 40) and suspended(account, 40)
    assert muted(account, 60) and not suspended(account, 60)  # the mute lasts longer
    assert not muted(account, 100) and not suspended(account, 100)
    refused = change_refused(account, 40, "POST", "/api/tables")
    assert refused is not None and (refused.status, refused.code) == (403, "suspended")
    for method, path in (("POST", "/api/account/logout"), ("PATCH", "/api/me/settings"),
                         ("DELETE", "/api/me")):
        assert change_refused(account, 40, method, path) is None
    assert change_refused(account, 40, "POST", "/api/me/claim") is not None
    assert change_refused(account, 50, "POST", "/api/tables") is None
