"""Outgoing e-mail through SMTP (aiosmtplib), configured by the ``CARDTABLE_SMTP_*``
settings; with no ``CARDTABLE_SMTP_HOST`` nothing is ever sent (``Mailer.enabled`` False).
"""

from __future__ import annotations

import unicodedata
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import formatdate, make_msgid

import aiosmtplib

from server import metrics
from server.config import Settings
from server.logging import get_logger

log = get_logger("mail")


def header_text(value: str) -> str:
    """``value`` fit for one header line: every control, format or line/paragraph
    separator character (a line break in a table name, say) becomes a space, runs of
    spaces one; so no header is smuggled in and ``EmailMessage`` never refuses it."""
    out = "".join(" " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch
                  for ch in value)
    return " ".join(out.split())


class Mailer:
    """Sends plain-text mails from ``settings.smtp_from``."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    @property
    def enabled(self) -> bool:
        """True when an SMTP server is configured."""
        return bool(self.settings.smtp_host)

    async def send(self, to: str, subject: str, text: str) -> bool:
        """Send one mail; True when the SMTP server accepted it. Header values pass
        through ``header_text``; ``Date`` is now (UTC) and ``Message-ID`` a new one at the
        sender's domain. Failures are logged, not raised (a notification is best effort:
        the game goes on without it); each mail counts in ``cardtable_mails_total``."""
        if not self.enabled:
            return False
        s = self.settings
        msg = EmailMessage()
        try:
            msg["From"], msg["To"] = header_text(s.smtp_from), header_text(to)
            msg["Subject"] = header_text(subject)
            msg["Date"] = formatdate(usegmt=True)
            msg["Message-ID"] = make_msgid(domain=_domain(msg))
            msg.set_content(text)
        except ValueError as e:  # a header the library still refuses: logged, not raised
            log.warning("mail not built", error=repr(e))
            metrics.MAILS_FAILED.inc()
            return False
        try:
            await aiosmtplib.send(
                msg, hostname=s.smtp_host, port=s.smtp_port,
                username=s.smtp_username or None, password=s.smtp_password or None,
                use_tls=s.smtp_security == "tls", start_tls=s.smtp_security == "starttls",
                timeout=s.smtp_timeout)
        except (aiosmtplib.SMTPException, OSError) as e:
            log.warning("mail not sent", error=repr(e))
            metrics.MAILS_FAILED.inc()
            return False
        metrics.MAILS_SENT.inc()
        return True


def _domain(msg: EmailMessage) -> str:
    """The domain of the mail's ``From`` (``localhost`` when it has none): a Message-ID's
    right side names the sender, not this machine's host name."""
    addresses: tuple[Address, ...] = getattr(msg["From"], "addresses", ())
    domain = addresses[0].domain if addresses else ""
    return domain or "localhost"
