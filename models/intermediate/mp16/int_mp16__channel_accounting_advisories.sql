-- MP16 channel rules on channel accounting (QCST, SMF 116 subtype 10), per channel (name,
-- connection, remote queue manager) and accounting interval of fct_channel_accounting; CHIN16 per
-- channel name on the instances (stg_smf__qcst), as it judges the median instance.
-- CHIN11: sender-type channel batching below 2 messages a batch at a real message rate (warning with
--   persistent messages while LOG02 fires at warning or above on the queue manager; threshold_level
--   'escalation' then). Not judged on BATCHSZ(1) BATCHINT(0) with persistent messages: MP16's own
--   setting for persistent request/reply.
-- CHIN12: batch size above MP16's 100. CHIN13: large messages in big batches. CHIN14: a batch
--   interval of 5 minutes or more. CHIN15: a non-persistent-only sender with BATCHINT 0 that
--   batches below 2. CHIN17: persistent work on a SVRCONN with shared conversations.
-- CHIN16: many instances of a channel started in the interval, each moving few messages.
-- CHIN18: a channel compressing messages (QCSTCPRA above 0) while CHIN04 finds its channel
--   initiator's busiest dispatcher busy: compression runs on the dispatchers.
-- Grain: one row per rule x queue manager x channel (CHIN16: channel name) x interval that fires.
{%- set mp16 = mp16_rule_parameters() %}

with

channels as (
    select * from {{ ref('fct_channel_accounting') }}
),

log_bound as (
    -- LOG02 at warning or above: the queue manager's log is near its capacity in that interval.
    select distinct
        qmgr_name,
        interval_start_at,
        interval_end_at
    from {{ ref('int_mp16__log_advisories') }}
    where rule_id = 'LOG02' and severity in ('warning', 'critical')
),

dispatcher_bound as (
    -- CHIN04 fires: the channel initiator's busiest dispatcher is busy in that interval.
    select
        qmgr_name,
        interval_start_at,
        interval_end_at,
        observed_value as dispatcher_busy_pct
    from {{ ref('int_mp16__chin_advisories') }}
    where rule_id = 'CHIN04'
),

measures as (
    select
        channels.*,
        dispatcher_bound.dispatcher_busy_pct,
        concat_ws('/', channels.channel_name, channels.conn_name, channels.remote_qmgr_name) as channel_object_name,
        log_bound.qmgr_name is not null as is_log_bound,
        channels.is_sender_type
        and channels.msgs_per_second >= {{ mp16_threshold(mp16, 'CHIN11', 'min_msgs_per_second') }}
        -- BATCHSZ(1) BATCHINT(0) on a channel carrying persistent messages is MP16's own advice for
        -- synchronous request/reply ("Setting BATCHSZ and BATCHINT", ch. 3, p. 125): not judged.
        and not (
            channels.batch_size = 1 and channels.batch_interval_ms = 0
            and channels.persistent_msgs > {{ mp16_threshold(mp16, 'CHIN11', 'escalation') }}
        )
            as is_chin11_candidate,
        channels.is_sender_type
        and channels.persistent_msgs = 0
        and channels.batch_interval_ms = 0
        and channels.msgs_per_second >= {{ mp16_threshold(mp16, 'CHIN15', 'min_msgs_per_second') }}
            as is_chin15_candidate
    from channels
    left join log_bound
        on
            channels.qmgr_name = log_bound.qmgr_name
            and channels.interval_end_at > log_bound.interval_start_at
            and channels.interval_end_at <= log_bound.interval_end_at
    left join dispatcher_bound
        on
            channels.qmgr_name = dispatcher_bound.qmgr_name
            and channels.interval_end_at > dispatcher_bound.interval_start_at
            and channels.interval_end_at <= dispatcher_bound.interval_end_at
),

levels as (
    select
        *,
        case
            when is_chin11_candidate and {{ mp16_crosses(mp16, 'CHIN11', 'info', 'msgs_per_batch') }}
                then case
                    when is_log_bound and {{ mp16_crosses(mp16, 'CHIN11', 'escalation', 'persistent_msgs') }}
                        then 'escalation'
                    else {{ mp16_severity(mp16, 'CHIN11', 'msgs_per_batch') }}
                end
        end as chin11_threshold_level,
        case
            when
                {{ mp16_crosses(mp16, 'CHIN13', 'escalation', 'avg_msg_bytes') }}
                and batch_size > {{ mp16_threshold(mp16, 'CHIN13', 'escalation_batch_size') }}
                then 'escalation'
            when
                {{ mp16_crosses(mp16, 'CHIN13', 'info', 'avg_msg_bytes') }}
                and batch_size > {{ mp16_threshold(mp16, 'CHIN13', 'info_batch_size') }}
                then 'info'
        end as chin13_threshold_level,
        {{ mp16_severity(mp16, 'CHIN12', 'batch_size') }} as chin12_level,
        {{ mp16_severity(mp16, 'CHIN14', 'batch_interval_ms') }} as chin14_level,
        case when is_chin15_candidate then {{ mp16_severity(mp16, 'CHIN15', 'msgs_per_batch') }} end as chin15_level,
        case
            when
                channel_type_code = 7
                and shared_conversations_max > {{ mp16_threshold(mp16, 'CHIN17', 'min_shared_conversations') }}
                then {{ mp16_severity(mp16, 'CHIN17', 'persistent_share') }}
        end as chin17_level,
        case
            when dispatcher_busy_pct is not null then {{ mp16_severity(mp16, 'CHIN18', 'compression_rate_max') }}
        end as chin18_level
    from measures
),

row_firings as (
    {% call mp16_fired_rows('levels', 'channel', 'levels.channel_object_name') %}
            {{ mp16_firing(
                'CHIN11',
                "case chin11_threshold_level when 'escalation' then "
                ~ mp16_rule_text(mp16, 'CHIN11', 'escalation_severity') ~ " else chin11_threshold_level end",
                'chin11_threshold_level', 'msgs_per_batch', mp16_threshold(mp16, 'CHIN11', 'info'),
                "format_string('%.2f messages per batch (QCSTNMSG %d / QCSTBATC %d, BATCHSZ %d, BATCHINT %d ms) at"
                ~ " %.1f messages a second', msgs_per_batch, msgs, batches, batch_size, batch_interval_ms,"
                ~ " msgs_per_second) || case when chin11_threshold_level = 'escalation' then"
                ~ " format_string(', %d persistent while LOG02 fires', persistent_msgs) else '' end"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'CHIN12', 'batch_size',
                "format_string('batch size (QCSTCBSZ) %d', batch_size)"
            ) }},
            {{ mp16_firing(
                'CHIN13',
                "case chin13_threshold_level when 'escalation' then "
                ~ mp16_rule_text(mp16, 'CHIN13', 'escalation_severity') ~ " when 'info' then 'info' end",
                'chin13_threshold_level', 'avg_msg_bytes',
                "case chin13_threshold_level when 'escalation' then " ~ mp16_threshold(mp16, 'CHIN13', 'escalation')
                ~ " else " ~ mp16_threshold(mp16, 'CHIN13', 'info') ~ " end",
                "format_string('%.0f bytes per message (QCSTNBYT / QCSTNMSG) in batches of up to %d (QCSTCBSZ)',"
                ~ " avg_msg_bytes, batch_size)"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'CHIN14', 'batch_interval_ms',
                "format_string('batch interval (QCSTCBIT) %d ms', batch_interval_ms)"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'CHIN15', 'msgs_per_batch',
                "format_string('non-persistent only, BATCHINT 0: %.2f messages per batch (QCSTNMSG %d / QCSTBATC %d)',"
                ~ " msgs_per_batch, msgs, batches)"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'CHIN17', 'persistent_share',
                "format_string('%.0f %% of %d messages persistent (QCSTNPMG / QCSTNMSG) on a SVRCONN with %d shared"
                ~ " conversations (QCSTCSCV)', 100 * persistent_share, msgs, shared_conversations_max)"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'CHIN18', 'compression_rate_max',
                "format_string('compression in use (QCSTCPRA %d) while the busiest dispatcher of the channel"
                ~ " initiator is busy %.1f %% of the interval (CHIN04)', compression_rate_max, dispatcher_busy_pct)"
            ) }}
    {% endcall %}
),

instances as (
    select
        qmgr_name,
        qsg_name,
        channel_name,
        interval_start_at,
        interval_end_at,
        interval_seconds,
        msg_count,
        channel_started_at >= interval_start_at as is_started_in_interval
    from {{ ref('stg_smf__qcst') }}
),

starts as (
    select
        instances.qmgr_name,
        max(qmgr_qsg.qsg_name) as qsg_name,
        instances.channel_name,
        min(instances.interval_start_at) as interval_start_at,
        instances.interval_end_at,
        count(case when instances.is_started_in_interval then 1 end) as started_instances,
        percentile(case when instances.is_started_in_interval then instances.msg_count end, 0.5)
            as median_started_instance_msgs,
        {{ safe_divide(
            'count(case when instances.is_started_in_interval then 1 end)', 'max(instances.interval_seconds)'
        ) }} as starts_per_second
    from instances
    left join {{ ref('int_smf__qmgr_qsg') }} as qmgr_qsg on instances.qmgr_name = qmgr_qsg.qmgr_name
    group by instances.qmgr_name, instances.channel_name, instances.interval_end_at
),

churn as (
    select
        *,
        case
            when median_started_instance_msgs <= {{ mp16_threshold(mp16, 'CHIN16', 'max_median_msgs') }}
                then {{ mp16_severity(mp16, 'CHIN16', 'starts_per_second') }}
        end as chin16_level
    from starts
),

churn_firings as (
    select
        'CHIN16' as rule_id,
        chin16_level as severity,
        chin16_level as threshold_level,
        qmgr_name,
        qsg_name,
        'channel' as object_type,
        channel_name as object_name,
        interval_start_at,
        interval_end_at,
        'interval' as evaluation_window,
        starts_per_second as observed_value,
        cast({{ mp16_severity_threshold(mp16, 'CHIN16', 'chin16_level') }} as double) as threshold_value,
        format_string(
            '%d instances started in the interval (%.2f a second), the median moving %.0f messages',
            started_instances, starts_per_second, median_started_instance_msgs
        ) as observation,
        cast(null as string) as applied_comparison
    from churn
),

final as (
    select * from row_firings
    union all
    select * from churn_firings
)

select * from final
where severity is not null
