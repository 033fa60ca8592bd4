"""Registers the ``mqsmf`` Spark data source.

Spark looks for installed modules named ``pyspark_<something>`` that hold a ``DefaultSource``
(a ``pyspark.sql.datasource.DataSource``) and registers each under its ``name()``, so
``spark.read.format("mqsmf")`` and ``CREATE TEMPORARY VIEW ... USING mqsmf`` work in any session,
including a plain ``dbt run`` and the Thrift server, without a registration call.
"""

from mqsmf.spark.datasource import MqsmfDataSource as DefaultSource

__all__ = ["DefaultSource"]
