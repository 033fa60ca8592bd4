"""The Spark layer: the ``mqsmf`` data source, the loader into the raw warehouse tables, the local
session that matches the dbt ``local`` target, and the ``mqsmf load`` command.

This package is the only place that imports pyspark, and it does so inside its modules, never here:
``mqsmf.cli`` imports ``mqsmf.spark.cli`` on every start and must stay fast.

- ``options``: the data source's read options, typed (``ReadOptions``), and its statement
  pseudo-structures.
- ``partitions``: which files a path option means, how they split into partitions, how one
  partition decodes (directly, or once per load through the spool).
- ``spool``: where a load keeps each partition decoded once for all its statements.
- ``datasource``: ``spark.read.format("mqsmf")`` / ``CREATE TEMPORARY VIEW ... USING mqsmf``.
- ``plan``: the SQL of a load, which ``load`` runs for ``mqsmf load`` and the dbt on-run-start
  macro ``load_smf_files`` through dbt; ``load``: running it from Python, crash-safe and
  incremental.
- ``staging``: a load's file work (stage, commit, publish, finish), which the data source's acting
  reads do; ``local``: those reads in the loader's own worker processes, with a local master.
- ``profile``: the project root and the ``local`` target's Spark parameters and warehouse folder,
  rendered from ``profiles/profiles.yml`` as dbt renders them (no Spark).
- ``session``: ``local_session()``, configured from that profile.
"""
