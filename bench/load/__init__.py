"""The load generator for the live service (``python -m bench.load``), one module per concept.

- ``config``: ``LoadConfig``, the parameters of one run;
- ``tracking``: percentiles, ``SeqTracker``, ``DeliveryClock`` and ``Stats``;
- ``sockets``: the client sockets (``LightSocket``, ``TableSocket``, on ``protocol/``'s
  connections and frames) and ``on_message``;
- ``table``: ``TableRun``, one table's setup and driver;
- ``probe``: the server process's CPU, RSS and ``/metrics`` histograms over the window;
- ``redis_monitor``: Redis commands per action (``INFO commandstats``, ``MONITOR``);
- ``host``: this machine and this process (``machine``, limits, pinning, niceness);
- ``spawn``: ``SpawnedService``, a private Redis and server for one run;
- ``run``: ``run_load``, the table run, and ``format_report``;
- ``__main__``: the command line.

Other benchmarks import the module of the concept they use. This file imports nothing, so
importing one of them loads only what it needs.
"""
