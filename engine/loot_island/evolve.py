"""``evolve``: apply one event to a state, in place (the fold that replays a game).

Events say what happened; this module only moves cards, discs and cubes as they say and
keeps the turn pointers (``phase``, ``step``, ``current_seat``). It checks nothing: the
events come from ``rules``, which decided them on the state they are applied to.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.game import Message
from engine.loot_island import events as ev
from engine.loot_island.data import COASTS, HAND_SIZE, ISLETS, LANDING_INDEX, VALUE
from engine.loot_island.state import Landing, Player, State


def _next_active(s: State, seat: int) -> int | None:
    n = len(s.players)
    for k in range(1, n + 1):
        i = (seat + k) % n
        if not s.players[i].passed:
            return i
    return None


def _after_turn(s: State, seat: int) -> None:
    nxt = _next_active(s, seat)
    if nxt is None:
        s.phase, s.step, s.current_seat = "loot", "begin", None
        for p in s.players:
            p.passed = False
    else:
        s.current_seat = nxt


def _game_started(s: State, e: ev.GameStarted) -> None:
    o = e.orders
    s.players = [Player(name) for name in e.players]
    s.options = e.options
    s.seed = e.seed
    s.orders = o
    s.reshuffle_orders = e.map_reshuffles
    n = len(e.players)
    for i, p in enumerate(s.players):
        p.hand = o["map"][i * HAND_SIZE:(i + 1) * HAND_SIZE]
    s.map_deck = o["map"][n * HAND_SIZE:][::-1]
    s.loot_deck = (o["loot_1"] + o["loot_2"] + o["loot_3"] + o["loot_4"])[::-1]
    s.aside = o["healers"][:n]
    if e.options["events"]:
        s.events = [o["events_a"][0], *o["events_b"][:4]]
        s.event = s.events[0]
        s.events_seen = [s.event]
    s.round, s.phase, s.step = 1, "actions", "begin"


def _round_started(s: State, e: ev.RoundStarted) -> None:
    s.round = e.round
    s.ship = COASTS.index(e.ship)
    s.islets_open = [True] * 7
    s.phase, s.step, s.current_seat = "preparation", "discard", s.start_seat
    s.prep_done = 0


def _event_revealed(s: State, e: ev.EventRevealed) -> None:
    s.event = e.event
    s.events_seen.append(e.event)


def _after_discard(s: State, seat: int) -> None:
    s.prep_done += 1
    if s.prep_done == len(s.players):
        s.phase, s.step, s.current_seat = "actions", "begin", None
    else:
        s.current_seat = (seat + 1) % len(s.players)


def _map_cards_discarded(s: State, e: ev.MapCardsDiscarded) -> None:
    hand = s.players[e.seat].hand
    for c in e.cards:
        hand.remove(c)
    s.map_discard.extend(e.cards)
    _after_discard(s, e.seat)


def _discard_skipped(s: State, e: ev.DiscardSkipped) -> None:
    _after_discard(s, e.seat)


def _map_card_drawn(s: State, e: ev.MapCardDrawn) -> None:
    s.players[e.seat].hand.append(s.map_deck.pop())


def _map_deck_reshuffled(s: State, e: ev.MapDeckReshuffled) -> None:
    s.reshuffles = e.reshuffle
    s.map_deck = e.cards[::-1]
    s.map_discard = []


def _actions_started(s: State, e: ev.ActionsStarted) -> None:
    s.phase, s.step, s.current_seat = "actions", "act", e.seat
    s.first_passed = False
    for p in s.players:
        p.passed = False


def _cubes_shed(s: State, e: ev.CubesShed) -> None:
    s.players[e.seat].cubes -= e.cubes


def _cubes_taken(s: State, e: ev.CubesTaken) -> None:
    s.players[e.seat].cubes += e.cubes


def _map_cards_played(s: State, e: ev.MapCardsPlayed) -> None:
    hand = s.players[e.seat].hand
    x = s.landings[LANDING_INDEX[e.landing]]
    if e.disc_placed:
        x.discs.append(e.seat)
    values = e.values
    if e.under:
        card = e.cards[0]
        hand.remove(card)
        x.cards.insert(0, card)
        x.values.insert(0, 1)
    else:
        for c in e.cards:
            hand.remove(c)
            x.cards.append(c)
            x.values.append(values[c] if c in values else VALUE[c])
    _after_turn(s, e.seat)


def _islet_used(s: State, e: ev.IsletUsed) -> None:
    hand = s.players[e.seat].hand
    for c in e.cards:
        hand.remove(c)
    s.map_discard.extend(e.cards)
    s.islets_open[ISLETS.index(e.islet)] = False
    if not e.skip:
        if e.islet == "islet-shortcut":
            discs = s.landings[LANDING_INDEX[e.landing]].discs  # type: ignore[index]
            discs.remove(e.seat)
            discs.insert(0, e.seat)
        elif e.islet == "islet-camp":
            s.landings[LANDING_INDEX[e.landing]].discs.append(e.seat)  # type: ignore[index]
        elif e.islet == "islet-portage":
            s.landings[LANDING_INDEX[e.from_landing]].discs.remove(e.seat)  # type: ignore[index]
            s.landings[LANDING_INDEX[e.to_landing]].discs.append(e.seat)  # type: ignore[index]
    _after_turn(s, e.seat)


def _ship_moved(s: State, e: ev.ShipMoved) -> None:
    s.ship = COASTS.index(e.ship)


def _passed(s: State, e: ev.Passed) -> None:
    s.players[e.seat].passed = True
    if e.start_marker:
        s.start_seat = e.seat
    s.first_passed = True
    _after_turn(s, e.seat)


def _coast_explored(s: State, e: ev.CoastExplored) -> None:
    s.phase, s.step, s.current_seat = "loot", "pick", None
    s.pending = [(o["landing"], o["size"], o["number"]) for o in e.offers]


def _final_exploration_started(s: State, e: ev.FinalExplorationStarted) -> None:
    s.phase, s.step, s.current_seat = "final_exploration", "pick", None
    s.event = None
    s.pending = [(o["landing"], o["size"], o["number"]) for o in e.offers]


def _loot_offered(s: State, e: ev.LootOffered) -> None:
    del s.pending[0]
    deck = s.loot_deck
    for _ in e.cards:
        deck.pop()
    if e.cards:
        s.offer = list(e.cards)
        s.offer_landing, s.offer_size, s.offer_order = e.landing, e.size, list(e.order)
        s.pick = 0
        s.current_seat = e.order[0]
    else:
        s.offer = None


def _after_pick(s: State) -> None:
    s.pick += 1
    if s.offer:
        s.current_seat = s.offer_order[s.pick % len(s.offer_order)]
    else:
        s.offer, s.offer_landing, s.offer_size, s.offer_order = None, None, None, []
        s.current_seat = None


def _loot_taken(s: State, e: ev.LootTaken) -> None:
    p = s.players[e.seat]
    p.loot.append(e.card)
    p.cubes += e.cubes
    if e.wreck:
        s.loot_deck.pop()
    else:
        s.offer.remove(e.card)  # type: ignore[union-attr]
        _after_pick(s)


def _loot_discarded(s: State, e: ev.LootDiscarded) -> None:
    s.players[e.seat].cubes -= e.cubes
    s.loot_discard.append(e.card)
    s.offer.remove(e.card)  # type: ignore[union-attr]
    _after_pick(s)


def _coast_cleared(s: State, e: ev.CoastCleared) -> None:
    k = COASTS.index(e.coast)
    for i in (2 * k, 2 * k + 1):
        s.landings[i] = Landing()
    s.map_discard.extend(e.cards)
    s.event = None
    s.step = "cleaned"


def _player_eliminated(s: State, e: ev.PlayerEliminated) -> None:
    s.players[e.seat].eliminated = e.reason


def _healers_revealed(s: State, e: ev.HealersRevealed) -> None:
    s.phase, s.step = "healers", "choose"
    s.chooser_order = list(e.order)
    s.current_seat = e.order[0] if e.order else None


def _healer_chosen(s: State, e: ev.HealerChosen) -> None:
    s.players[e.seat].healer = e.healer
    order = s.chooser_order or []
    i = order.index(e.seat) + 1
    s.current_seat = order[i] if i < len(order) else None


def _game_ended(s: State, e: ev.GameEnded) -> None:
    s.phase, s.step, s.current_seat = "ended", None, None
    s.result = e.result


_HANDLERS: dict[type, Callable[[State, Message], None]] = {  # type: ignore[dict-item]
    ev.GameStarted: _game_started, ev.RoundStarted: _round_started,
    ev.EventRevealed: _event_revealed, ev.MapCardsDiscarded: _map_cards_discarded,
    ev.DiscardSkipped: _discard_skipped, ev.MapCardDrawn: _map_card_drawn,
    ev.MapDeckReshuffled: _map_deck_reshuffled, ev.ActionsStarted: _actions_started,
    ev.CubesShed: _cubes_shed, ev.CubesTaken: _cubes_taken,
    ev.MapCardsPlayed: _map_cards_played, ev.IsletUsed: _islet_used,
    ev.ShipMoved: _ship_moved, ev.Passed: _passed, ev.CoastExplored: _coast_explored,
    ev.FinalExplorationStarted: _final_exploration_started, ev.LootOffered: _loot_offered,
    ev.LootTaken: _loot_taken, ev.LootDiscarded: _loot_discarded,
    ev.CoastCleared: _coast_cleared, ev.PlayerEliminated: _player_eliminated,
    ev.HealersRevealed: _healers_revealed, ev.HealerChosen: _healer_chosen,
    ev.GameEnded: _game_ended,
}

def evolve(s: State, e: Message) -> State:
    """Apply ``e`` to ``s`` in place and return ``s``; raises ``KeyError`` for an event
    type of another game."""
    _HANDLERS[type(e)](s, e)
    s.seq += 1
    return s
