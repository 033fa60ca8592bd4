-- A queue manager that reports a shared queue or a CF structure in an interval wrote statistics in
-- that interval, so it is one of the QSG's active queue managers. Returns rows that break this.

select
    'fct_shared_queue_qsg_stats' as fact_model,
    qsg_name,
    queue_name as item_name,
    interval_end_at
from {{ ref('fct_shared_queue_qsg_stats') }}
where qmgrs_reporting > qmgrs_active

union all

select
    'fct_cf_structure_stats' as fact_model,
    qsg_name,
    structure_name as item_name,
    interval_end_at
from {{ ref('fct_cf_structure_stats') }}
where qmgrs_reporting > qmgrs_active
