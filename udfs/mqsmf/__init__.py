"""mqsmf: read IBM MQ for z/OS SMF 115/116 dumps into typed Arrow tables.

The core (framing, layouts, decode, reader, writer) imports no Spark; ``mqsmf.spark`` is the
Spark layer and ``pyspark_mqsmf`` registers the ``mqsmf`` data source.
"""

from .decode import RAW, TYPED, arrow_schema
from .layouts import layout, layouts
from .reader import FileReport, QuarantineEntry, iter_bytes, iter_file, quarantine_table, read_bytes, read_file

__all__ = [
    "RAW",
    "TYPED",
    "FileReport",
    "QuarantineEntry",
    "arrow_schema",
    "iter_bytes",
    "iter_file",
    "layout",
    "layouts",
    "quarantine_table",
    "read_bytes",
    "read_file",
]
__version__ = "0.1.0"
