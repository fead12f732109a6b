"""Adversarial tests (the breaker's findings), each a strict xfail until fixed, worst first:

1. a stale ``hello`` (``last_seq`` 0) replays the game on the event loop, unbounded;
2. the host hands a present rival's seat to a bot mid-turn;
3. handover + return restarts the mover's clock (unlimited time);
4. the claimant picks the bot (``random``, ``mcts`` 4) for a rival's seat;
5. half-sent HTTP requests are never timed out (slowloris);
6. a record's ``resigned`` list is not verified;
7. ``bad_message`` for an action frame names no ``id``;
8. a private table's 404 is measurably slower than an unknown id's;
9. deceptive player and table names (control characters, bidi overrides, bot names).
"""
