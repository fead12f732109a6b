"""Loot Island (Aaron Haag, What's Your Game? / Pegasus 2017): rules, events and views."""

from engine.loot_island.game import LOOT_ISLAND, LootIsland

__all__ = ["LOOT_ISLAND", "LootIsland"]
