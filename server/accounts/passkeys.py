"""Passkeys (WebAuthn) as the second way into an account, through py_webauthn
(docs/protocol.md §1, "Passkeys").

The relying party is the service's ``CARDTABLE_PUBLIC_URL``: its host is the RP ID and the
URL (scheme, host, port) the only accepted origin. A logged-in account registers a passkey
(a discoverable credential, so login needs no username); anyone logs in with one. Each
ceremony has a one-time ``ticket`` naming its challenge in Redis (5 minutes). Refusals
(``LobbyError``): 400 ``bad_passkey`` (the browser's answer does not verify: wrong
challenge, origin, RP ID, signature or counter), 400 ``bad_ticket`` (unknown, expired or
used ticket), 409 ``passkey_known`` (that credential is registered already).
"""

from __future__ import annotations

import secrets
import time
from typing import Any
from urllib.parse import urlsplit

from server.accounts.accounts import Account
from server.errors import LobbyError
from server.store.accounts import AccountStore

# py_webauthn (and cryptography under it) is imported by the ceremonies, not at start-up:
# it costs a few tenths of a second, which every process start (a restart after a crash
# too) would pay whether anyone uses a passkey or not.

TICKET_TTL = 300
RP_NAME = "Cardtable"
"""The relying party's display name (what a passkey manager shows). Only a label: the RP
ID, the host of ``public_url``, is what registered passkeys are bound to, and it is not
derived from the service's name."""


class Passkeys:
    """Registration and login ceremonies for the relying party ``public_url``."""

    def __init__(self, store: AccountStore, public_url: str) -> None:
        parts = urlsplit(public_url)
        self.store = store
        self.rp_id = parts.hostname or "localhost"
        self.origin = f"{parts.scheme}://{parts.netloc}"

    async def _ticket(self, challenge: bytes, uid: str | None) -> str:
        from webauthn.helpers import bytes_to_base64url

        ticket = secrets.token_urlsafe(24)
        await self.store.begin_ceremony(ticket, {"challenge": bytes_to_base64url(challenge),
                                                 "uid": uid}, TICKET_TTL)
        return ticket

    async def _state(self, ticket: Any) -> dict[str, Any]:
        state = await self.store.end_ceremony(ticket) if isinstance(ticket, str) and \
            len(ticket) < 64 else None
        if state is None:
            raise LobbyError(400, "bad_ticket", "unknown, expired or used passkey ticket")
        return state

    async def begin_registration(self, account: Account) -> dict[str, Any]:
        """``{options, ticket}``: the browser's ``PublicKeyCredentialCreationOptions``
        (JSON form) for a new passkey of ``account``."""
        from webauthn import generate_registration_options
        from webauthn.helpers import base64url_to_bytes, options_to_json_dict
        from webauthn.helpers.structs import (
            AuthenticatorSelectionCriteria,
            PublicKeyCredentialDescriptor,
            ResidentKeyRequirement,
            UserVerificationRequirement,
        )

        known = await self.store.passkeys(account.uid)
        options = generate_registration_options(
            rp_id=self.rp_id, rp_name=RP_NAME, user_name=account.username,
            user_id=account.uid.encode(), timeout=TICKET_TTL * 1000,
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED,
                user_verification=UserVerificationRequirement.PREFERRED),
            exclude_credentials=[PublicKeyCredentialDescriptor(id=base64url_to_bytes(c))
                                 for c in known])
        ticket = await self._ticket(options.challenge, account.uid)
        return {"options": options_to_json_dict(options), "ticket": ticket}

    async def finish_registration(self, account: Account, ticket: Any,
                                  credential: Any) -> int:
        """Verify and store the new passkey; returns the account's passkey count."""
        from webauthn import verify_registration_response
        from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
        from webauthn.helpers.exceptions import WebAuthnException

        state = await self._state(ticket)
        if state.get("uid") != account.uid:
            raise LobbyError(400, "bad_ticket", "that ticket is not this account's")
        try:
            verified = verify_registration_response(
                credential=credential, expected_challenge=base64url_to_bytes(state["challenge"]),
                expected_rp_id=self.rp_id, expected_origin=self.origin)
        except (WebAuthnException, ValueError, TypeError, KeyError) as e:
            raise LobbyError(400, "bad_passkey", f"the passkey did not verify: {e}") from None
        cid = bytes_to_base64url(verified.credential_id)
        row = {"key": bytes_to_base64url(verified.credential_public_key),
               "count": verified.sign_count, "created_at": time.time()}
        if not await self.store.add_passkey(account.uid, cid, row):
            raise LobbyError(409, "passkey_known", "that passkey is registered already")
        return len(await self.store.passkeys(account.uid))

    async def begin_login(self) -> dict[str, Any]:
        """``{options, ticket}`` for a login with any passkey of this service."""
        from webauthn import generate_authentication_options
        from webauthn.helpers import options_to_json_dict
        from webauthn.helpers.structs import UserVerificationRequirement

        options = generate_authentication_options(
            rp_id=self.rp_id, timeout=TICKET_TTL * 1000,
            user_verification=UserVerificationRequirement.PREFERRED)
        return {"options": options_to_json_dict(options),
                "ticket": await self._ticket(options.challenge, None)}

    async def finish_login(self, ticket: Any, credential: Any) -> str:
        """The uid whose passkey signed the challenge; raises ``bad_ticket``/``bad_passkey``."""
        from webauthn import verify_authentication_response
        from webauthn.helpers import base64url_to_bytes
        from webauthn.helpers.exceptions import WebAuthnException

        state = await self._state(ticket)
        cid = credential.get("id") if isinstance(credential, dict) else None
        uid = await self.store.passkey_owner(cid) if isinstance(cid, str) and \
            len(cid) < 1400 else None
        row = (await self.store.passkeys(uid)).get(cid) if uid else None  # type: ignore[arg-type]
        if uid is None or row is None:
            raise LobbyError(400, "bad_passkey", "this passkey belongs to no account here")
        try:
            verified = verify_authentication_response(
                credential=credential, expected_challenge=base64url_to_bytes(state["challenge"]),
                expected_rp_id=self.rp_id, expected_origin=self.origin,
                credential_public_key=base64url_to_bytes(row["key"]),
                credential_current_sign_count=int(row["count"]))
        except (WebAuthnException, ValueError, TypeError, KeyError) as e:
            raise LobbyError(400, "bad_passkey", f"the passkey did not verify: {e}") from None
        await self.store.set_passkey_count(uid, cid, verified.new_sign_count)  # type: ignore[arg-type]
        return uid
