"""Coupling facility statistics: QEST per CF structure, QESD per shared message data set."""

from __future__ import annotations

import numpy as np

from ..topology import QueueManager, elements_per_message


def coupling_facility_statistics(
    k: int,
    qm: QueueManager,
    queue_columns: dict,
    rng: np.random.Generator,
    structures: tuple[tuple[str, int, int, bool], ...],
    qmgr_count: int,
    effects,
) -> dict:
    """QEST and QESD of one interval: CF requests follow this queue manager's operations on the
    shared queues of each structure (CSQ_ADMIN: a share of the persistent shared traffic), entries
    in use the queues' high depth; ``effects`` adds redrives (CF03) and injected counters."""
    queues = qm.queues
    queue_count = len(queues)
    shared = queues.is_shared
    structure_count = len(structures)
    single_entry_ops = np.zeros(structure_count, np.int64)
    multi_entry_ops = np.zeros(structure_count, np.int64)
    entries = np.zeros(structure_count, np.int64)
    elements = np.zeros(structure_count, np.int64)
    for s in range(structure_count):
        on_structure = shared & (queues.structure == s)

        def on(name: str, on_structure=on_structure) -> np.ndarray:
            return queue_columns[name][:queue_count][on_structure]

        single_entry_ops[s] = int((on("QQSTPUTS") + on("QQSTPUT1") + on("QQSTGETS")).sum())
        single_entry_ops[s] += int((on("QQSTOPEN") + on("QQSTCLOS")).sum()) * 2
        multi_entry_ops[s] = int((on("QQSTGETS") * 0.3 + on("QQSTBRWS")).sum())
        depth = on("QQSTDPHI")
        entries[s] = int(depth.sum())
        elements[s] = int((depth * elements_per_message(queues.size_mean[on_structure])).sum())
    admin = [i for i, structure in enumerate(structures) if structure[0] == "CSQ_ADMIN"]
    persistent_shared = int(
        (queue_columns["QQSTPPT"][:queue_count][shared] + queue_columns["QQSTPP1"][:queue_count][shared]).sum()
    )
    for s in admin:
        single_entry_ops[s] = persistent_shared // 2 + 300 * qmgr_count
        multi_entry_ops[s] = 40
        entries[s] = 150 + 60 * qmgr_count
    single_entry_requests = single_entry_ops + 200
    multi_entry_requests = multi_entry_ops + 20
    single_entry_us = rng.uniform(5.0, 9.0, structure_count)
    multi_entry_us = rng.uniform(18.0, 35.0, structure_count)
    entries_in_use = entries + 100
    elements_per_entry = np.clip(np.where(entries > 0, elements / np.maximum(entries, 1), 6.0), 5.0, 8.0)
    qest = {
        "QESTSTR": np.array([structure[0] for structure in structures], dtype=object),
        "QESTSTRN": np.arange(1, structure_count + 1, dtype=np.int64),
        "QESTCSEC": single_entry_requests,
        "QESTCMEC": multi_entry_requests,
        "QESTSSTC": np.round(single_entry_requests * single_entry_us).astype(np.int64),
        "QESTMSTC": np.round(multi_entry_requests * multi_entry_us).astype(np.int64),
        "QESTRSEC": np.round(single_entry_requests * 0.001).astype(np.int64),
        "QESTRMEC": np.round(multi_entry_requests * 0.002).astype(np.int64),
        "QESTSFUL": np.zeros(structure_count, np.int64),
        "QESTMNUS": entries_in_use,
        "QESTMLUS": np.round(entries_in_use * elements_per_entry).astype(np.int64),
    }
    for s in range(structure_count):
        redrive = effects.redrive.get((k, qm.index, s))
        if redrive is not None:  # varying message sizes: gets re-driven with a bigger buffer
            share, least_requests = redrive
            qest["QESTCSEC"][s] = max(int(qest["QESTCSEC"][s]), least_requests)
            qest["QESTRSEC"][s] = int(np.ceil(share * qest["QESTCSEC"][s]))
            qest["QESTRMEC"][s] = int(np.ceil(share * qest["QESTCMEC"][s]))
            qest["QESTSSTC"][s] = int(qest["QESTCSEC"][s] * 11)
        for name, value in effects.cf.get((k, qm.index, s), {}).items():
            qest[name][s] = value
    with_smds = [i for i, structure in enumerate(structures) if structure[3]]
    smds_count = len(with_smds)
    total_blocks = np.full(smds_count, 200_000, np.int64)
    blocks_used = rng.integers(10, 200, smds_count)
    qesd = {
        "QESDSTR": np.array([structures[i][0] for i in with_smds], dtype=object),
        "QESDSTRN": np.array([i + 1 for i in with_smds], dtype=np.int64),
        "QESDSMBT": total_blocks,
        "QESDSMBS": np.full(smds_count, 100, np.int64),
        "QESDSMBD": total_blocks - 100,
        "QESDSMBU": blocks_used,
        "QESDSMBF": total_blocks - 100 - blocks_used,
        "QESDSMMC": blocks_used // 2,
        "QESDSMAR": rng.integers(0, 50, smds_count),
        "QESDSMFR": rng.integers(0, 50, smds_count),
        "QESDSMRR": np.zeros(smds_count, np.int64),
        "QESDSMCR": np.zeros(smds_count, np.int64),
        "QESDSMAP": blocks_used * 4,
        "QESDSMFP": blocks_used * 4,
        "QESDSMRP": np.zeros(smds_count, np.int64),
        "QESDSMCP": np.zeros(smds_count, np.int64),
        "QESDSMFL": np.zeros(smds_count, np.int64),
        "QESDSMMM": blocks_used,
        "QESDSMMU": blocks_used + 5,
        "QESDSMMF": total_blocks - 100 - blocks_used - 5,
        "QESDBFSZ": np.full(smds_count, 262_144, np.int64),
        "QESDBFTO": np.full(smds_count, 100, np.int64),
        "QESDBFUS": rng.integers(0, 5, smds_count),
        "QESDBFUP": rng.integers(0, 5, smds_count),
        "QESDBFFS": rng.integers(10, 40, smds_count),
        "QESDBFFE": rng.integers(40, 80, smds_count),
        "QESDBFPW": np.zeros(smds_count, np.int64),
        "QESDBFBW": np.zeros(smds_count, np.int64),
        "QESDBFGB": blocks_used * 3,
        "QESDBFGV": blocks_used,
        "QESDBFGM": blocks_used,
        "QESDBFGF": blocks_used,
        "QESDBFGL": np.zeros(smds_count, np.int64),
        "QESDBFGN": np.zeros(smds_count, np.int64),
        "QESDBFRR": blocks_used,
        "QESDBFRS": blocks_used // 2,
        "QESDBFRP": np.zeros(smds_count, np.int64),
        "QESDBFWR": blocks_used,
        "QESDBFFB": blocks_used // 2,
        "QESDBFDB": np.zeros(smds_count, np.int64),
        "QESDBFWP": np.zeros(smds_count, np.int64),
        "QESDBFWB": np.zeros(smds_count, np.int64),
        "QESDBFPT": np.zeros(smds_count, np.int64),
        "QESDBFBT": np.zeros(smds_count, np.int64),
        "QESDBFMU": np.full(smds_count, 20, np.int64),
        "QESDBFMF": np.full(smds_count, 60, np.int64),
        "QESDBFMP": np.zeros(smds_count, np.int64),
        "QESDBFMB": np.zeros(smds_count, np.int64),
        "QESDIOHA": np.full(smds_count, 180_000, np.int64),
        "QESDIOHU": blocks_used + 1_000,
        "QESDIOCI": np.full(smds_count, 4096, np.int64),
        "QESDIOCA": np.full(smds_count, 737_280, np.int64),
        "QESDIOFR": np.zeros(smds_count, np.int64),
        "QESDIOFP": np.zeros(smds_count, np.int64),
        "QESDIOFT": np.zeros(smds_count, np.int64),
        "QESDIOFW": np.zeros(smds_count, np.int64),
        "QESDIOWR": blocks_used,
        "QESDIOWP": blocks_used * 4,
        "QESDIOWT": blocks_used * 310,
        "QESDIOWW": blocks_used * 40,
        "QESDIORR": blocks_used // 2,
        "QESDIORP": blocks_used * 2,
        "QESDIORT": blocks_used * 140,
        "QESDIORW": blocks_used * 20,
        "QESDIOOR": np.zeros(smds_count, np.int64),
        "QESDIOOP": np.zeros(smds_count, np.int64),
        "QESDIOOT": np.zeros(smds_count, np.int64),
        "QESDIOOW": np.zeros(smds_count, np.int64),
        "QESDENCF": np.array([structures[i][0].endswith("2") for i in with_smds]),
    }
    return {"QEST": qest, "QESD": qesd}
