"""Quick pairing ("Play now", docs/protocol.md §7): seeks, their pure pairing decision
(``match``), their shell (``pool``: claim, table creation, recovery, expiry)."""
