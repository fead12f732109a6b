"""Keltis: Das Kartenspiel (Knizia, Kosmos 2009): rules, events and per-seat views."""

from engine.keltis.game import KELTIS, Keltis

__all__ = ["KELTIS", "Keltis"]
