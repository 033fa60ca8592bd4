-- Gate: a shared-queue event group holds exactly one message per answering queue manager, all for
-- one queue and one event (IBM MQ 'Shared queues and queue depth events on z/OS':
-- each active member writes one event message per CorrelId).
-- Rows returned are violations.
select
    correl_id,
    qsg_name,
    queue_name,
    message_count,
    answering_qmgr_count,
    queue_name_count,
    event_count
from {{ ref('fct_shared_queue_event_groups') }}
where
    message_count != answering_qmgr_count
    or queue_name_count != 1
    or event_count != 1
