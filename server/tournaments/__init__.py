"""Tournaments of accounts (Swiss and arena): the pure core (``pairing``, ``standings``,
``model``) and its shell (``store``, ``runner``, ``boards``, ``live``). Not the bot-against-
bot ``cardtable tournament`` command (cli/tournament.py)."""
