"""The simulation's structure families, one module each: the field values a queue manager writes
for one interval, computed from the queue traffic and the simulation's state (``workload``
holds that state and steps the intervals).

``queues`` (QQST: puts, gets, depth, shared queues), ``buffer_pools`` (QPST, and QIS1 page
sets), ``log`` (QJST), ``managers`` (QMST, QIST, QLST, QSST, QTST, Q5ST), ``coupling_facility``
(QEST, QESD) and ``channel_initiator`` (QCCT and its task structures, 115/231).
"""
