"""The ``einauge`` command: one sub-command per module, wired up in ``cli.main``."""
