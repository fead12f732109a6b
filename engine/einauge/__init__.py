"""Einauge sei wachsam! (Kramer & Kiesling, Amigo 2009): rules, events and views."""

from engine.einauge.game import EINAUGE, Einauge

__all__ = ["EINAUGE", "Einauge"]
