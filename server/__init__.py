"""The live game service: Starlette on uvicorn, Redis as the only store, websockets for play.

Start it with ``cardtable serve`` (``cli/serve.py``); the wire contract is docs/protocol.md.
"""
