"""The ``cardtable`` command (``einauge``, its former name, kept for one release): one
sub-command per module, wired up in ``cli.main``."""
