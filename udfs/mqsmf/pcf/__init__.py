"""Queue depth performance events (PCF messages from SYSTEM.ADMIN.PERFM.EVENT) saved with IBM's
``dmpmqmsg``: layouts as data (``mqsmf/layouts/pcf``), a reader and a writer. See README.md."""

from .reader import FRAMING, STRUCTURE, DumpReport, arrow_schema, is_dump_file, read_dump, read_dump_bytes

__all__ = ["FRAMING", "STRUCTURE", "DumpReport", "arrow_schema", "is_dump_file", "read_dump", "read_dump_bytes"]
