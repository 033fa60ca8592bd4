"""Where things sit in the headers of an SMF 115/116 record, derived once (at import) from the
header layouts: SMFHDR (offsets include the 4-byte RDW), the self-defining sections (TRIPLET),
QWHS, QWHC and QWHX. The decoder, the framing, the encoder and the generator's damage take every
header position from here, so the layout tables stay the single source of every offset."""

from __future__ import annotations

import numpy as np

from .layouts import header_layout

MQ_TYPES = (115, 116)  # SMF record types of IBM MQ: statistics, accounting

_SMF = header_layout("SMFHDR")
_TRIPLET = header_layout("TRIPLET")
_QWHS = header_layout("QWHS")
_BLOCK = header_layout("BLOCK")

SMF_FLAG = _SMF.field("SM11xFLG").offset
SMF_TYPE = _SMF.field("SM11xRTY").offset
SMF_DATE = _SMF.field("SM11xDTE").offset
SMF_DATE_END = _SMF.field("SM11xDTE").end
# A record without subtypes (IFASMFDP dump header and trailer) ends after the system id.
SMF_HEADER_NO_SUBTYPE = _SMF.field("SM11xSID").end
SUBTYPE_VALID = 0x40  # SM11xFLG bit: SM11xSTF holds the subtype

# Triplet i (self-defining section) sits at TRIPLET_AREA + TRIPLET_SIZE * i, right after the header.
TRIPLET_AREA = _SMF.size
TRIPLET_DTYPE = _TRIPLET.numpy_dtype()
TRIPLET_SIZE = TRIPLET_DTYPE.itemsize
TRIPLET_OFFSET = _TRIPLET.field("offset")
TRIPLET_LENGTH = _TRIPLET.field("length")
TRIPLET_COUNT = _TRIPLET.field("count")

QWHS_NSDA = _QWHS.field("QWHSNSDA").offset
QWHS_SHORT = _QWHS.field("QWHSTIME").offset  # the short form (116 subtypes 0/1/2) ends before QWHSTIME
QWHS_LONG = _QWHS.size
QWHC_SIZE = header_layout("QWHC").size
QWHX_SIZE = header_layout("QWHX").size
QWHX_FOLLOWS = 0x40  # QWHSFLAG1 bit: a QWHX extension header follows the QWHS (MQ 10)
# QWHSDURN counts microseconds, except in the channel initiator's records, 115/231 and 116/10, where
# it counts TOD-clock units (4096 a microsecond): TESTCHL's intervals end at their records' local
# times only when read so.
QWHSDURN_IN_TOD_UNITS = ((115, 231), (116, 10))


def qwhsdurn_in_tod_units(smf_type: np.ndarray, subtype: np.ndarray) -> np.ndarray:
    """Which records' QWHSDURN is in TOD units (see QWHSDURN_IN_TOD_UNITS)."""
    smf_type, subtype = np.asarray(smf_type), np.asarray(subtype)
    mask = np.zeros(smf_type.shape, dtype=bool)
    for record_type, record_subtype in QWHSDURN_IN_TOD_UNITS:
        mask |= (smf_type == record_type) & (subtype == record_subtype)
    return mask


# Every statistics and accounting structure with an eyecatcher opens with the same block header:
# identifier, length, eyecatcher (QEST's header-plus-entries block too).
BLOCK_ID = _BLOCK.field("id")
BLOCK_LENGTH = _BLOCK.field("length")
BLOCK_EYECATCHER = _BLOCK.field("eyecatcher")
BLOCK_HEADER_SIZE = _BLOCK.size
