"""The data-quality gate: Great Expectations suites written as code, run on the Spark tables.

- ``checks``: the catalogue (frames and checks as data, severities, sources);
- ``expectations``: the expectation (rule) kinds, each rendered as a GX expectation and as SQL listing violating rows;
- ``gate``: runs a stage (``raw`` after loading, ``marts`` after ``dbt build``), writes
  ``dq_violations`` / ``dq_check_results`` and the Data Docs, and decides pass or fail;
- ``cli``: ``mqsmf check``.

Importing this package imports neither pyspark nor great_expectations.
"""
