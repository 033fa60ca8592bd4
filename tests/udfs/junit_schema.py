"""A structural check of JUnit XML as CI test reporters read it.

The rules follow the JUnit schema Jenkins publishes (``junit-10.xsd``, also what GitLab's and
GitHub's JUnit report actions accept): elements, where they may appear, their required attributes
and the types of the numeric ones; and the totals a suite declares must match its test cases
(reporters trust the totals). No schema library is among the project's dependencies, so the rules
are written out here.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

SUITE_ATTRS = {
    "name", "tests", "failures", "errors", "skipped", "disabled", "time", "timestamp", "hostname", "id", "package",
    "file", "log", "url", "version", "group",
}  # fmt: skip
CASE_ATTRS = {"name", "classname", "time", "assertions", "status", "file", "line", "group"}
CASE_CHILDREN = {"skipped", "error", "failure", "system-out", "system-err"}
SUITE_CHILDREN = {"properties", "testcase", "testsuite", "system-out", "system-err"}
# xs:dateTime as the schema restricts it: no time zone.
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$")
DECIMAL = re.compile(r"^-?\d+(\.\d+)?$")


class JUnitError(AssertionError):
    pass


def _require(cond: bool, message: str) -> None:
    if not cond:
        raise JUnitError(message)


def _ints(el, names) -> None:
    for n in names:
        if n in el.attrib:
            _require(el.get(n).isdigit(), f"<{el.tag} {n}={el.get(n)!r}>: not a non-negative integer")


def _suite(el) -> dict:
    _require(el.tag == "testsuite", f"<{el.tag}> where a <testsuite> belongs")
    _require({"name", "tests"} <= set(el.attrib), f"<testsuite> needs name and tests: {el.attrib}")
    _require(set(el.attrib) <= SUITE_ATTRS, f"<testsuite> unknown attributes {set(el.attrib) - SUITE_ATTRS}")
    _ints(el, ("tests", "failures", "errors", "skipped", "disabled"))
    if "time" in el.attrib:
        _require(bool(DECIMAL.match(el.get("time"))), f"<testsuite time={el.get('time')!r}>: not a decimal")
    if "timestamp" in el.attrib:
        _require(bool(TIMESTAMP.match(el.get("timestamp"))), f"timestamp {el.get('timestamp')!r}: not xs:dateTime")
    totals = dict(tests=0, failures=0, errors=0, skipped=0)
    for child in el:
        _require(child.tag in SUITE_CHILDREN, f"<{child.tag}> inside <testsuite>")
        if child.tag == "properties":
            for prop in child:
                _require(prop.tag == "property", f"<{prop.tag}> inside <properties>")
                _require({"name", "value"} <= set(prop.attrib), f"<property> needs name and value: {prop.attrib}")
        elif child.tag == "testcase":
            _case(child, totals)
        elif child.tag == "testsuite":
            for k, v in _suite(child).items():
                totals[k] += v
    for k, v in totals.items():
        declared = int(el.get(k, "0"))
        _require(declared == v, f"testsuite {el.get('name')!r} declares {k}={declared}, has {v}")
    return totals


def _case(el, totals) -> None:
    _require("name" in el.attrib, f"<testcase> without a name: {el.attrib}")
    _require(set(el.attrib) <= CASE_ATTRS, f"<testcase> unknown attributes {set(el.attrib) - CASE_ATTRS}")
    if "time" in el.attrib:
        _require(bool(DECIMAL.match(el.get("time"))), f"<testcase time={el.get('time')!r}>: not a decimal")
    kinds = [c.tag for c in el]
    _require(set(kinds) <= CASE_CHILDREN, f"<{set(kinds) - CASE_CHILDREN}> inside <testcase>")
    _require(kinds.count("skipped") <= 1, "two <skipped> in one <testcase>")
    _require(not ("skipped" in kinds and ("failure" in kinds or "error" in kinds)), "skipped and failed at once")
    for c in el:
        if c.tag in ("failure", "error"):
            _require(set(c.attrib) <= {"message", "type"}, f"<{c.tag}> unknown attributes {c.attrib}")
    totals["tests"] += 1
    totals["failures"] += "failure" in kinds
    totals["errors"] += "error" in kinds
    totals["skipped"] += "skipped" in kinds


def validate_junit(text: str):
    """Parse and check JUnit XML; returns the root element. Raises JUnitError naming what is wrong."""
    root = ET.fromstring(text)
    if root.tag == "testsuite":
        _suite(root)
        return root
    _require(root.tag == "testsuites", f"root <{root.tag}>: must be <testsuites> or <testsuite>")
    totals = dict(tests=0, failures=0, errors=0, skipped=0)
    for suite in root:
        for k, v in _suite(suite).items():
            totals[k] += v
    for k in ("tests", "failures", "errors"):
        if k in root.attrib:
            _require(int(root.get(k)) == totals[k], f"testsuites declares {k}={root.get(k)}, has {totals[k]}")
    return root
