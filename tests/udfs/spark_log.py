"""What Spark's log looks like on a terminal, for tests that it stays off it."""

from __future__ import annotations

import re

# A log4j line of Spark's console appender (``26/11/26 22:45:34 WARN Utils: ...``).
SPARK_LOG_LINE = re.compile(r"^\d\d/\d\d/\d\d \d\d:\d\d:\d\d (WARN|INFO) ", re.M)
# What Spark prints when it runs on its default log configuration.
BANNERS = ("Setting default log level", "Using Spark's default log4j profile")


def spark_noise(output: str) -> list[str]:
    """Spark's log lines and banners in ``output``."""
    lines = [m.group(0) + output[m.end() :].split("\n", 1)[0] for m in SPARK_LOG_LINE.finditer(output)]
    return lines + [b for b in BANNERS if b in output]
