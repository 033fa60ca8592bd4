"""The expectation (rule) kinds of the data-quality checks, each written once and rendered two ways.

A rule is data (the columns it involves and its parameters). From it come:

- ``expectation(...)``: the Great Expectations 1.x expectation that the checkpoint evaluates;
- ``violation_sql()``: the Spark SQL predicate that is true for a violating row, used to list the
  rows in ``dq_violations``;
- ``derived``: columns computed on the frame first, where no native expectation fits (a sum that
  must balance becomes a difference that must be 0; uniqueness becomes a count per key);
- ``text``: the readable form shown in Data Docs and in the gate's table.

NULL means absent (a field the structure's version does not have), so every rule ignores rows
where an involved value is NULL, exactly as the GX map expectations do. Applicability conditions
(``When``) become GX ``Column(...)`` row conditions and SQL ``AND`` terms.

Nothing here imports great_expectations at module import time: ``mqsmf check --help`` must be fast.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any

from ..warehouse import ident, literal

# SQL and GX spellings of the comparison operators a condition may use.
_OPERATORS = {
    "==": ("=", operator.eq),
    "!=": ("<>", operator.ne),
    "<": ("<", operator.lt),
    "<=": ("<=", operator.le),
    ">": (">", operator.gt),
    ">=": (">=", operator.ge),
}


def _shown(value: Any) -> str:
    return repr(value) if isinstance(value, str) else str(value)


@dataclass(frozen=True)
class When:
    """Applicability condition: the check looks only at rows where ``column op value``."""

    column: str
    op: str
    value: Any

    def __post_init__(self):
        if self.op not in _OPERATORS:
            raise ValueError(f"unknown operator {self.op!r}")

    @property
    def text(self) -> str:
        return f"{self.column} {self.op} {_shown(self.value)}"

    def sql(self) -> str:
        return f"{ident(self.column)} {_OPERATORS[self.op][0]} {literal(self.value)}"

    def holds(self, value: Any) -> bool:
        """The condition on one value of the column (outside any frame)."""
        return bool(_OPERATORS[self.op][1](value, self.value))

    def gx(self):
        from great_expectations.expectations.row_conditions import Column

        return _OPERATORS[self.op][1](Column(self.column), self.value)


def gx_row_condition(conditions: tuple[When, ...]):
    """The GX ``Column(...)`` condition for a conjunction (None when the check applies to all rows)."""
    if not conditions:
        return None
    cond = conditions[0].gx()
    for c in conditions[1:]:
        cond = cond & c.gx()
    return cond


class Rule:
    """Base of the rule kinds. ``columns`` are the values shown for a violating row."""

    derived: dict[str, str] = {}
    table_level = False  # judged on the table as a whole (GX reports no rows evaluated)

    @property
    def columns(self) -> tuple[str, ...]:
        raise NotImplementedError

    @property
    def text(self) -> str:
        raise NotImplementedError

    def violation_sql(self) -> str:
        raise NotImplementedError

    def expectation(self, **common):
        raise NotImplementedError

    # How many violations GX saw, from one expectation result (map expectations count rows).
    @staticmethod
    def gx_violations(result: dict) -> int | None:
        return result.get("unexpected_count")


def _present(*columns: str) -> str:
    return " AND ".join(f"{ident(c)} IS NOT NULL" for c in columns)


def _gx():
    import great_expectations.expectations as gxe

    return gxe


@dataclass(frozen=True)
class AtMost(Rule):
    """``low <= high`` (a subset count, a low watermark, a lowest value)."""

    low: str
    high: str

    @property
    def columns(self):
        return (self.low, self.high)

    @property
    def text(self):
        return f"{self.low} <= {self.high}"

    def violation_sql(self):
        return f"({_present(self.low, self.high)} AND NOT ({ident(self.low)} <= {ident(self.high)}))"

    def expectation(self, **common):
        return _gx().ExpectColumnPairValuesAToBeGreaterThanB(
            column_A=self.high, column_B=self.low, or_equal=True, ignore_row_if="either_value_is_missing", **common
        )


@dataclass(frozen=True)
class InSet(Rule):
    """The value is one of ``values`` (one value: must equal it)."""

    column: str
    values: tuple

    @property
    def columns(self):
        return (self.column,)

    @property
    def text(self):
        if len(self.values) == 1:
            return f"{self.column} = {_shown(self.values[0])}"
        return f"{self.column} in ({', '.join(map(_shown, self.values))})"

    def violation_sql(self):
        return f"({_present(self.column)} AND {ident(self.column)} NOT IN ({', '.join(map(literal, self.values))}))"

    def expectation(self, **common):
        return _gx().ExpectColumnValuesToBeInSet(column=self.column, value_set=list(self.values), **common)


@dataclass(frozen=True)
class NotInSet(Rule):
    """The value is none of ``values`` (``NotInSet(name, ('',))``: a name must not be blank)."""

    column: str
    values: tuple

    @property
    def columns(self):
        return (self.column,)

    @property
    def text(self):
        if self.values == ("",):
            return f"{self.column} not blank"
        return f"{self.column} not in ({', '.join(map(_shown, self.values))})"

    def violation_sql(self):
        return f"({_present(self.column)} AND {ident(self.column)} IN ({', '.join(map(literal, self.values))}))"

    def expectation(self, **common):
        return _gx().ExpectColumnValuesToNotBeInSet(column=self.column, value_set=list(self.values), **common)


@dataclass(frozen=True)
class Between(Rule):
    """``minimum <= value <= maximum`` (either bound optional; strict bounds exclude the bound)."""

    column: str
    minimum: float | None = None
    maximum: float | None = None
    strict_minimum: bool = False
    strict_maximum: bool = False
    # Columns shown with a violation besides the tested one (a derived column's inputs).
    context: tuple[str, ...] = ()
    label: str = ""  # readable form when the column is a derived one

    def __post_init__(self):
        if self.minimum is None and self.maximum is None:
            raise ValueError(f"Between({self.column}) needs a bound")

    @property
    def columns(self):
        return (*self.context, self.column)

    @property
    def text(self):
        if self.label:
            return self.label
        low = "" if self.minimum is None else f"{self.minimum} {'<' if self.strict_minimum else '<='} "
        high = "" if self.maximum is None else f" {'<' if self.strict_maximum else '<='} {self.maximum}"
        return f"{low}{self.column}{high}"

    def violation_sql(self):
        terms = []
        if self.minimum is not None:
            terms.append(f"{ident(self.column)} {'>' if self.strict_minimum else '>='} {literal(self.minimum)}")
        if self.maximum is not None:
            terms.append(f"{ident(self.column)} {'<' if self.strict_maximum else '<='} {literal(self.maximum)}")
        return f"({_present(self.column)} AND NOT ({' AND '.join(terms)}))"

    def expectation(self, **common):
        return _gx().ExpectColumnValuesToBeBetween(
            column=self.column,
            min_value=self.minimum,
            max_value=self.maximum,
            strict_min=self.strict_minimum,
            strict_max=self.strict_maximum,
            **common,
        )


@dataclass(frozen=True)
class SumOf(Rule):
    """``total = part + part + ...``: checked as the derived difference ``diff`` being 0."""

    total: str
    parts: tuple[str, ...]
    diff: str

    @property
    def derived(self):
        return {self.diff: f"{ident(self.total)} - ({' + '.join(map(ident, self.parts))})"}

    @property
    def columns(self):
        return (self.total, *self.parts, self.diff)

    @property
    def text(self):
        return f"{self.total} = {' + '.join(self.parts)}"

    def violation_sql(self):
        return f"({_present(self.diff)} AND {ident(self.diff)} <> 0)"

    def expectation(self, **common):
        return _gx().ExpectColumnValuesToBeBetween(column=self.diff, min_value=0, max_value=0, **common)


@dataclass(frozen=True)
class SumAtMost(Rule):
    """``part + part + ... <= total`` (disjoint subsets of a count): checked as the derived excess
    ``(sum of parts) - total`` being <= 0."""

    parts: tuple[str, ...]
    total: str
    excess: str

    @property
    def derived(self):
        return {self.excess: f"({' + '.join(map(ident, self.parts))}) - {ident(self.total)}"}

    @property
    def columns(self):
        return (*self.parts, self.total, self.excess)

    @property
    def text(self):
        return f"{' + '.join(self.parts)} <= {self.total}"

    def violation_sql(self):
        return f"({_present(self.excess)} AND {ident(self.excess)} > 0)"

    def expectation(self, **common):
        return _gx().ExpectColumnValuesToBeBetween(column=self.excess, max_value=0, **common)


@dataclass(frozen=True)
class EachAtMost(Rule):
    """``low <= high`` for several pairs at once (e.g. the four log-copy slots of QJSTIO): checked as
    the derived largest excess ``max(low - high)`` being <= 0."""

    pairs: tuple[tuple[str, str], ...]
    excess: str
    label: str  # readable form, e.g. "QJSTIO[*][*].QJSTIOMAXIO <= QJSTIOTOTIO"

    @property
    def derived(self):
        diffs = ", ".join(f"{ident(lo)} - {ident(hi)}" for lo, hi in self.pairs)
        return {self.excess: f"greatest({diffs})" if len(self.pairs) > 1 else diffs}

    @property
    def columns(self):
        return (*(c for pair in self.pairs for c in pair), self.excess)

    @property
    def text(self):
        return self.label

    def violation_sql(self):
        return f"({_present(self.excess)} AND {ident(self.excess)} > 0)"

    def expectation(self, **common):
        return _gx().ExpectColumnValuesToBeBetween(column=self.excess, max_value=0, **common)


@dataclass(frozen=True)
class NonNegative(Rule):
    """Every one of ``counters`` is >= 0: checked as their derived minimum ``smallest`` being >= 0.
    (A signed 32-bit SMF counter that went negative wrapped during the interval.)"""

    counters: tuple[str, ...]
    smallest: str

    @property
    def derived(self):
        return {self.smallest: f"least({', '.join(map(ident, self.counters))})"}

    @property
    def columns(self):
        return self.counters + (self.smallest,)

    @property
    def text(self):
        return f"{len(self.counters)} counters >= 0 ({', '.join(self.counters[:4])}, ...)"

    def violation_sql(self):
        return f"({_present(self.smallest)} AND {ident(self.smallest)} < 0)"

    def expectation(self, **common):
        return _gx().ExpectColumnValuesToBeBetween(column=self.smallest, min_value=0, **common)


@dataclass(frozen=True)
class EqualColumns(Rule):
    """Two columns hold the same value (e.g. an identifier and the one its structure must have)."""

    column: str
    expected: str

    @property
    def columns(self):
        return (self.column, self.expected)

    @property
    def text(self):
        return f"{self.column} = {self.expected}"

    def violation_sql(self):
        return f"({_present(self.column, self.expected)} AND {ident(self.column)} <> {ident(self.expected)})"

    def expectation(self, **common):
        return _gx().ExpectColumnPairValuesToBeEqual(
            column_A=self.column, column_B=self.expected, ignore_row_if="either_value_is_missing", **common
        )


@dataclass(frozen=True)
class Unique(Rule):
    """No two rows share ``keys``. Every row of a duplicated key is a violation (GX counts the same)."""

    keys: tuple[str, ...]
    count: str  # derived: rows with this row's key

    @property
    def derived(self):
        return {self.count: f"count(1) OVER (PARTITION BY {', '.join(map(ident, self.keys))})"}

    @property
    def columns(self):
        return (*self.keys, self.count)

    @property
    def text(self):
        return f"({', '.join(self.keys)}) unique"

    def violation_sql(self):
        return f"({ident(self.count)} > 1)"

    def expectation(self, **common):
        return _gx().ExpectCompoundColumnsToBeUnique(column_list=list(self.keys), **common)


@dataclass(frozen=True)
class NoRows(Rule):
    """The frame must be empty: every row is a violation (quarantined spans)."""

    shown: tuple[str, ...]
    label: str = "no rows"
    table_level = True

    @property
    def columns(self):
        return self.shown

    @property
    def text(self):
        return self.label

    def violation_sql(self):
        return "(true)"

    def expectation(self, **common):
        common.pop("row_condition", None)
        return _gx().ExpectTableRowCountToEqual(value=0, **common)

    @staticmethod
    def gx_violations(result: dict) -> int | None:
        return result.get("observed_value")
