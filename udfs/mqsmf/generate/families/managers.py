"""Message, data, lock, storage, topic and Db2 managers: QMST, QIST, QLST, QSST, QTST, Q5ST."""

from __future__ import annotations

import numpy as np


def manager_statistics(
    queue_columns: dict, pool_pages_read: np.ndarray, dynamic_queues: list[dict], rng: np.random.Generator, seconds: int
) -> dict:
    """The managers' counters of one interval: MQ calls are the queues' totals (QQST, dynamic
    queues included) plus calls on other objects; data manager gets from disk are the pool pages read."""
    totals = {
        key: int(np.asarray(queue_columns[key]).sum())
        for key in (
            "QQSTPUTS",
            "QQSTPUT1",
            "QQSTGETS",
            "QQSTBRWS",
            "QQSTFLGT",
            "QQSTFLBR",
            "QQSTFLPT",
            "QQSTFLP1",
            "QQSTOPEN",
            "QQSTCLOS",
            "QQSTINQR",
            "QQSTSET",
            "QQSTPPT",
            "QQSTPP1",
            "QQSTNPPT",
            "QQSTNPP1",
            "QQSTPPB",
            "QQSTP1B",
            "QQSTNPPB",
            "QQSTNP1B",
        )
    }
    private = ~np.asarray(queue_columns["QQSTDISP"], dtype=bool)
    private_gets = int(np.asarray(queue_columns["QQSTGETS"])[private].sum())
    disk_gets = int(pool_pages_read.sum() // 1)
    other_opens = int(rng.integers(50, 400))
    one = lambda v: np.array([v], dtype=np.int64)  # noqa: E731 - single-instance columns
    qmst = {
        "QMSTOPEN": one(totals["QQSTOPEN"] + other_opens),
        "QMSTCLOS": one(totals["QQSTCLOS"] + other_opens),
        "QMSTGET": one(totals["QQSTGETS"] + totals["QQSTBRWS"] + totals["QQSTFLGT"] + totals["QQSTFLBR"]),
        "QMSTPUT": one(totals["QQSTPUTS"] + totals["QQSTFLPT"]),
        "QMSTPUT1": one(totals["QQSTPUT1"] + totals["QQSTFLP1"]),
        "QMSTINQ": one(totals["QQSTINQR"] + int(rng.integers(10, 100))),
        "QMSTINQL": one(int(rng.integers(0, 50))),
        "QMSTSET": one(totals["QQSTSET"]),
        "QMSTENDW": one(int(rng.integers(0, 30))),
        "QMSTCALH": one(int(rng.integers(0, 60))),
        "QMSTSUB": one(int(rng.integers(0, 20))),
        "QMSTSUBR": one(0),
        "QMSTCB": one(int(rng.integers(0, 10))),
        "QMSTCTL": one(int(rng.integers(0, 10))),
        "QMSTSTUS": one(int(rng.integers(0, 5))),
        "QMSTPUBS": one(int(rng.integers(0, 200))),
        "QMSTSPP": one(totals["QQSTPPT"] + totals["QQSTPP1"]),
        "QMSTSNP": one(totals["QQSTNPPT"] + totals["QQSTNPP1"]),
        "QMSTPBP": one(totals["QQSTPPB"] + totals["QQSTP1B"]),
        "QMSTNBP": one(totals["QQSTNPPB"] + totals["QQSTNP1B"]),
    }
    puts = totals["QQSTPUTS"] + totals["QQSTPUT1"]
    gets = totals["QQSTGETS"]
    qist = {
        "QISTMGET": one(gets),
        "QISTMPUT": one(puts),
        "QISTMBLR": one(totals["QQSTBRWS"] // 10),
        "QISTDCRE": one(len(dynamic_queues)),
        "QISTDPUT": one(int(rng.integers(0, 20))),
        "QISTDDEL": one(len(dynamic_queues)),
        "QISTDGET": one(totals["QQSTOPEN"] + other_opens),
        "QISTDLOC": one(totals["QQSTOPEN"] + other_opens),
        "QISTMCNT": one(totals["QQSTINQR"]),
        "QISTALST": one(0),
        "QISTLOMM": one(totals["QQSTBRWS"] // 20),
        "QISTDLMM": one(totals["QQSTBRWS"] // 20),
        "QISTENUM": one(int(rng.integers(0, 10))),
        "QISTRAIO": one(0),
        "QISTRABP": one(0),
        "QISTGETD": one(disk_gets),
        "QISTGETB": one(max(0, private_gets - disk_gets)),
    }
    locks = 2 * (puts + gets) + totals["QQSTOPEN"]
    qlst = {"QLSTGETL": one(locks), "QLSTHLDL": one(locks // 1000), "QLSTRELL": one(locks)}
    calls = puts + gets + totals["QQSTOPEN"] + totals["QQSTCLOS"]
    qsst = {
        "QSSTGPLF": one(calls * 3),
        "QSSTFPLF": one(calls * 3),
        "QSSTFREF": one(calls // 50),
        "QSSTEXPF": one(int(rng.integers(0, 3))),
        "QSSTCONF": one(0),
        "QSSTGPLV": one(calls),
        "QSSTFPLV": one(calls),
        "QSSTFREV": one(calls // 80),
        "QSSTEXPV": one(int(rng.integers(0, 2))),
        "QSSTCONV": one(0),
        "QSSTGETM": one(int(rng.integers(100, 2000))),
        "QSSTFREM": one(int(rng.integers(100, 2000))),
        "QSSTRCNZ": one(0),
        "QSSTCONT": one(0),
        "QSSTCRIT": one(0),
        "QSSTABND": one(0),
    }
    pubs = int(qmst["QMSTPUBS"][0])
    qtst = {
        "QTSTSTOT": one(int(qmst["QMSTSUB"][0])),
        "QTSTSDUR": one(int(qmst["QMSTSUB"][0]) // 2),
        "QTSTSHIG_0": one(40),
        "QTSTSHIG_1": one(12),
        "QTSTSHIG_2": one(3),
        "QTSTSLOW_0": one(35),
        "QTSTSLOW_1": one(12),
        "QTSTSLOW_2": one(3),
        "QTSTSEXP": one(0),
        "QTSTTMSG": one(pubs * 2),
        "QTSTSPHW": one(4),
        "QTSTPTOT_0": one(pubs),
        "QTSTPTOT_1": one(0),
        "QTSTPTOT_2": one(0),
        "QTSTPHIG": one(6),
        "QTSTPLOW": one(0),
        "QTSTPNOS": one(pubs // 20),
        "QTSTETHW": one(int(rng.integers(200, 900))),
        "QTSTETTO": one(pubs * 150),
    }
    reads = int(seconds * rng.uniform(0.02, 0.1))
    q5st = {
        "NUMTASK": one(8),
        "ACTTASK": one(8),
        "CONNCNT": one(0),
        "DISCCNT": one(0),
        "DHIGMAX": one(2),
        "ABNDCNT": one(0),
        "REQUCNT": one(0),
        "DEADCNT": one(0),
        "DELECNT": one(0),
        "LISTCNT": one(reads // 4),
        "READCNT": one(reads),
        "UPDTCNT": one(int(rng.integers(0, 10))),
        "WRITCNT": one(0),
        # Shared channel status reads and changes at a steady hourly rate (DB03 judges changes per hour).
        "SCSSEL": one(int(rng.integers(10, 100) * seconds / 1800)),
        "SCSINS": one(0),
        "SCSUPD": one(int(rng.integers(0, 40) * seconds / 1800)),
        "SCSDEL": one(0),
        "SSKSEL": one(0),
        "SSKINS": one(0),
        "SSKDEL": one(0),
        "SCSBFTS": one(0),
        "SCSMAXR": one(0),
        "READTCUW": one(reads * 310),
        "READTMXW": one(2_400),
        "READSCUW": one(reads * 260),
        "READSMXW": one(2_000),
        "LISTTCUW": one((reads // 4) * 400),
        "LISTTMXW": one(3_000),
        "LISTSCUW": one((reads // 4) * 330),
        "LISTSMXW": one(2_500),
        # Shared-queue messages above 63 KB held as Db2 BLOBs (CF09): none in a clean interval.
        **{f"LMS{op}": one(0) for op in ("SEL", "INS", "UPD", "DEL", "LIS")},
    }
    return {"QMST": qmst, "QIST": qist, "QLST": qlst, "QSST": qsst, "QTST": qtst, "Q5ST": q5st}
