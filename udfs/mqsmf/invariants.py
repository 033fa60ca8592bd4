"""The data invariants of IBM MQ's statistics that the generator can break (``mqsmf generate
--violate``), each with the data-quality gate's checks that catch it: one declaration that the
generator's choices and its manifest's wording, the gate's catalogue (``Check.planted_by`` in
``mqsmf.quality.checks``) and the tests all read. It imports nothing: both the parser core's
generator and the gate above it use it.

``breaks`` names every check of the gate that must report the violated rows; no other check may
report them (``tests/udfs/test_quality_generated.py`` plants every violation in one day and holds
the gate to exactly this). ``writes`` is what the manifest says was written (``relation``); where
the manifest states values of its own, the text here is its general form.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Violation:
    breaks: tuple[str, ...]  # the gate's checks that must name the rows, and no other
    writes: str  # what the records carry, as the manifest says it
    since: str | None = None  # only on queue managers from this MQ version (the fields exist from it)
    before: str | None = None  # only on queue managers before this MQ version
    shared_queue: bool = False  # on a shared queue (else a busy private or shared one)
    pitfall: bool = False  # valid MQ data that the gate names with a warning (seeds/data_pitfalls.csv)


VIOLATIONS: dict[str, Violation] = {
    # Either subset above FLGT puts their sum above it too.
    "nmag_gt_flgt": Violation(
        ("qqst_nmag_within_flgt", "qqst_get_failures_within_flgt"),
        "QQSTNMAG > QQSTFLGT (NMAG is a subset of FLGT)",
        since="9.3.3",
    ),
    "tmfg_gt_flgt": Violation(
        ("qqst_tmfg_within_flgt", "qqst_get_failures_within_flgt"),
        "QQSTTMFG > QQSTFLGT (TMFG is a subset of FLGT)",
        since="9.3.3",
    ),
    "partial_nonzero_depth": Violation(
        ("qqst_partial_shared_depth_zero",),
        "shared queue partial record (QQSTPART) with QQSTDPTH <> 0",
        shared_queue=True,
    ),
    "partial_nonzero_age": Violation(
        ("qqst_partial_shared_age_zero",),
        "shared queue partial record (QQSTPART) with QQSTMAGE <> 0",
        since="9.3.1",
        shared_queue=True,
    ),
    "puts_split": Violation(("qqst_puts_split",), "QQSTPUTS <> QQSTNPPT + QQSTPPT", since="9.3.3"),
    "put1_split": Violation(("qqst_put1_split",), "QQSTPUT1 <> QQSTNPP1 + QQSTPP1", since="9.3.3"),
    "gets_split": Violation(("qqst_gets_split",), "QQSTGETS <> QQSTNPDG + QQSTPDG", since="9.3.3"),
    # A part grows, not the total: the bytes put stay within the message sizes.
    "put_bytes_split": Violation(("qqst_put_bytes_split",), "QQSTPUTB <> QQSTNPPB + QQSTPPB", since="9.3.3"),
    # DPLO above DPHI also puts DPLO above the current depth.
    "dplo_gt_dphi": Violation(
        ("qqst_depth_watermarks", "qqst_depth_above_low_watermark"), "QQSTDPLO > QQSTDPHI", since="9.3.3"
    ),
    "depth_outside_watermarks": Violation(
        ("qqst_depth_below_high_watermark",), "QQSTDPTH > QQSTDPHI on a complete record", since="9.3.3"
    ),
    # MSMI raised above MSMA and MSMA lowered below MSMI: both sides of the average break, and the
    # bytes put fall below messages x minimum size.
    "msg_size_order": Violation(
        ("qqst_message_size_min_avg", "qqst_message_size_avg_max", "qqst_put_bytes_within_message_sizes"),
        "QQSTMSMI > QQSTMSMA",
        since="9.3.3",
    ),
    "get_failures_gt_flgt": Violation(
        ("qqst_get_failures_within_flgt",), "QQSTNMAG + QQSTTMFG > QQSTFLGT (each alone within it)", since="9.3.3"
    ),
    "browse_failures_gt_flbr": Violation(
        ("qqst_browse_failures_within_flbr",), "QQSTNMAB + QQSTTMFB > QQSTFLBR", since="9.3.3"
    ),
    "handles_outside_watermarks": Violation(("qqst_input_handle_watermarks",), "QQSTIPCT > QQSTIPHI", since="9.3.3"),
    "put_bytes_above_max_size": Violation(
        ("qqst_put_bytes_within_message_sizes",),
        "QQSTPUTB + QQSTPT1B > QQSTMSMA x (QQSTPUTS + QQSTPUT1)",
        since="9.3.3",
    ),
    "put_bytes_without_puts": Violation(("qqst_put_bytes_need_puts",), "QQSTPUTB > 0 with QQSTPUTS = 0", since="9.3.3"),
    "get_bytes_without_gets": Violation(("qqst_get_bytes_need_gets",), "QQSTGETB > 0 with QQSTGETS = 0", since="9.3.3"),
    "browse_bytes_without_browses": Violation(
        ("qqst_browse_bytes_need_browses",), "QQSTBRWB > 0 with QQSTBRWS = 0", since="9.3.3"
    ),
    "last_put_after_record": Violation(
        ("qqst_last_put_get_not_after_record",), "QQSTLPUT two days after the record time", since="9.3.1"
    ),
    # Before 9.3.3 the records have no depth watermarks: a negative depth breaks nothing else.
    "negative_depth": Violation(
        ("qqst_depth_not_negative",), "QQSTDPTH < 0 (a record without depth watermarks)", before="9.3.3"
    ),
    "cf_structure_mismatch": Violation(
        ("qqst_shared_queue_one_cf_structure",),
        "QQSTCFST names another CF structure than the queue's other rows in its QSG",
        shared_queue=True,
    ),
    # A private queue's partial record zeroes only the age: its depth is still checked.
    "partial_private_depth_above_high": Violation(
        ("qqst_depth_below_high_watermark",),
        "private queue partial record (QQSTPART, age zeroed) with QQSTDPTH > QQSTDPHI",
        since="9.3.3",
    ),
    # QPSTCBSL raised above QPSTNBUF, so above the current stealable count QPSTCBS <= QPSTNBUF.
    "pool_free_gt_buffers": Violation(("qpst_lowest_stealable_within_current",), "QPSTCBSL > QPSTNBUF"),
    "pageset_unused_gt_total": Violation(("qis1_unused_within_total",), "QIS1UNPG > QIS1TOPG"),
    "interval_gap": Violation(
        ("interval_gap",),
        "the queue manager's records for this interval are missing: a gap between the previous interval's end "
        "and the next interval's start",
    ),
    "interval_overlap": Violation(("interval_overlap",), "interval starts N s before the previous interval ends"),
    "duplicate_record": Violation(
        ("duplicate_record_in_input",), "the same record (115/215) is written twice in a row"
    ),
    # Known data pitfalls: valid data, named by a warning.
    "qpst_stealable_never_set": Violation(
        ("pitfall_qpst_lowest_stealable_never_set",), "QPSTCBSL X'7FFFFFFF' with QPSTCBS 0 (never set)", pitfall=True
    ),
    "dns_longest_request_carried_over": Violation(
        ("pitfall_qct_dns_longest_request_carried_over",),
        "no DNS request in the interval, the longest request dated in the interval before (APAR PH69352: carried over)",
        pitfall=True,
    ),
}
