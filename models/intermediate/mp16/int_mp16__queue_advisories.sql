-- MP16 queue rules Q01-Q04, Q07-Q10, CF10 and CF13 on fct_queue_stats (QQST),
-- with buffer pool roles (dim_mp16_buffer_pool_role), buffer pool sizes (Q02), checkpoints (Q04),
-- the site configuration (Q01 dead-letter queue, Q07 EXPRYINT) and, for Q08, the re-driven waiting
-- gets (QQSTRDGW) that only staging carries. A queue's previous interval, its runs of rising depth
-- and of uncommitted changes and its last known message size come from int_queue_stats__carried_forward.
-- Q01 escalates to critical when the misplaced queue is deep (escalation threshold, messages) and
-- BP04 or BP06 fires on pool 0 in the same interval (int_mp16__buffer_pool_advisories).
-- Q02 needs each queue's message size: QQSTMSAV is 0 when nothing was put in the interval (exactly
-- the backlog case), so the queue's last known average is used, else its largest message in the
-- interval; a queue with messages and no known size counts one page per message and is named.
-- CF10 and CF13 judge shared queues; CF13 counts the QSG members that have the queue open for input
-- in the same (aligned) interval.
-- Q09 judges the queues the site declares IMS bridge queues (seed site_config_queues or var
-- mp16_queue_config; most specific row wins): SMF does not say which queues they are.
-- Incremental (insert_overwrite by interval_date, macro file mp16_incremental): a run judges the
-- dates from the first one the QQST loads changed; a changed threshold or site configuration judges
-- all history again.
-- Grain: one row per rule x queue manager x queue (Q02: x buffer pool) x interval that fires.
{%- set mp16 = mp16_rule_parameters() %}
{%- set scope = mp16_judgement_scope(mp16) %}

with

queue_stats as (
    select * from {{ ref('fct_queue_stats') }}
    where {{ mp16_judged_dates(scope) }}
),

carried_forward as (
    select * from {{ ref('int_queue_stats__carried_forward') }}
    where {{ mp16_judged_dates(scope) }}
),

roles as (
    select * from {{ ref('dim_mp16_buffer_pool_role') }}
),

site_config as (
    select * from {{ ref('dim_mp16_queue_manager_config') }}
),

queue_config as (
    {{ mp16_site_config(
        'site_config_queues', 'mp16_queue_config',
        dict(qmgr_name='string', queue_name='string', is_ims_bridge='boolean')
    ) }}
),

queue_keys as (
    select distinct
        qmgr_name,
        queue_name
    from queue_stats
),

-- Q09: whether each queue is declared an IMS bridge queue (named queue manager and queue first, a
-- var row before a seed row); queues no row declares are left out.
ims_bridge_queues as (
    select
        queue_keys.qmgr_name,
        queue_keys.queue_name,
        max_by(
            queue_config.is_ims_bridge,
            (case when queue_config.qmgr_name != '*' then 4 else 0 end)
            + (case when queue_config.queue_name != '*' then 2 else 0 end)
            + (case when queue_config.from_var then 1 else 0 end)
        ) as is_ims_bridge
    from queue_keys
    inner join queue_config
        on
            (queue_keys.qmgr_name = queue_config.qmgr_name or queue_config.qmgr_name = '*')
            and (queue_keys.queue_name = queue_config.queue_name or queue_config.queue_name = '*')
    where queue_config.is_ims_bridge is not null
    group by queue_keys.qmgr_name, queue_keys.queue_name
),

waiting_gets as (
    select
        qqst_key,
        cast(get_wait_redriven_count as double) as get_wait_redrives
    from {{ ref('stg_smf__qqst') }}
    where {{ mp16_judged_dates(scope) }}
),

pool0_pressure as (
    select
        qmgr_name,
        interval_start_at,
        concat_ws(', ', collect_set(rule_id)) as pool0_rules
    from {{ ref('int_mp16__buffer_pool_advisories') }}
    where
        object_name = '0' and rule_id in ('BP04', 'BP06')
        and {{ mp16_judged_dates(scope, 'cast(interval_start_at as date)') }}
    group by qmgr_name, interval_start_at
),

-- CF13: QSG members with the shared queue open for input, per aligned interval (members whose
-- intervals start on the day before, ending at the same aligned time, count too).
shared_input_qmgrs as (
    select
        qsg_name,
        queue_name,
        aligned_interval_end_at,
        count(distinct case when input_handles_open > 0 then qmgr_name end) as input_qmgrs
    from {{ ref('fct_queue_stats') }}
    where is_shared and {{ mp16_judged_dates(scope, days_before=1) }}
    group by qsg_name, queue_name, aligned_interval_end_at
),

checkpoints as (
    select
        qmgr_name,
        aligned_interval_end_at,
        interval_seconds,
        checkpoints
    from {{ ref('fct_log_stats') }}
    where {{ mp16_judged_dates(scope) }}
),

-- A queue's interval with the state carried from its previous one. Q02 reads it without the joins
-- below, which serve the per-queue rules: Spark computes a CTE once per consumer.
queue_intervals as (
    select
        queue_stats.*,
        coalesce(carried_forward.known_msg_size_bytes, nullif(queue_stats.msg_size_max_bytes, 0))
            as known_msg_size_bytes,
        cast(carried_forward.previous_depth as double) as previous_depth,
        carried_forward.consecutive_rising_intervals,
        carried_forward.consecutive_uncommitted_intervals
    from queue_stats
    inner join carried_forward on queue_stats.queue_stats_key = carried_forward.queue_stats_key
),

stats as (
    select
        queue_stats.qmgr_name,
        queue_stats.qsg_name,
        queue_stats.queue_name,
        queue_stats.interval_start_at,
        queue_stats.interval_end_at,
        queue_stats.aligned_interval_end_at,
        queue_stats.is_shared,
        queue_stats.cf_structure_name,
        queue_stats.buffer_pool_id,
        queue_stats.page_set_id,
        coalesce(roles.pool_role, 'UNKNOWN') as pool_role,
        cast(queue_stats.depth_current as double) as depth_current,
        cast(queue_stats.depth_high as double) as depth_high,
        cast(queue_stats.depth_low as double) as depth_low,
        cast(queue_stats.msg_size_max_bytes as double) as msg_size_max_bytes,
        shared_input_qmgrs.input_qmgrs,
        cast(queue_stats.msgs_in as double) as msgs_in,
        cast(queue_stats.msgs_out as double) as msgs_out,
        cast(queue_stats.expired_msgs as double) as expired_msgs,
        queue_stats.msg_size_avg_bytes,
        queue_stats.known_msg_size_bytes,
        pool0_pressure.pool0_rules,
        queue_stats.oldest_msg_age_seconds,
        queue_stats.input_handles_open,
        coalesce(queue_stats.has_uncommitted_changes, false) as has_uncommitted_changes,
        waiting_gets.get_wait_redrives,
        coalesce(ims_bridge_queues.is_ims_bridge, false) as is_ims_bridge,
        site_config.expiry_interval_seconds,
        site_config.dead_letter_queue,
        checkpoints.checkpoints,
        checkpoints.interval_seconds as log_interval_seconds,
        queue_stats.previous_depth,
        queue_stats.consecutive_rising_intervals,
        queue_stats.consecutive_uncommitted_intervals,
        queue_stats.interval_date
    from queue_intervals as queue_stats
    left join roles on queue_stats.qmgr_name = roles.qmgr_name and queue_stats.buffer_pool_id = roles.buffer_pool_id
    left join site_config on queue_stats.qmgr_name = site_config.qmgr_name
    left join waiting_gets on queue_stats.queue_stats_key = waiting_gets.qqst_key
    left join ims_bridge_queues
        on queue_stats.qmgr_name = ims_bridge_queues.qmgr_name and queue_stats.queue_name = ims_bridge_queues.queue_name
    left join pool0_pressure
        on
            queue_stats.qmgr_name = pool0_pressure.qmgr_name
            and queue_stats.interval_start_at = pool0_pressure.interval_start_at
    left join shared_input_qmgrs
        on
            queue_stats.is_shared
            and queue_stats.qsg_name = shared_input_qmgrs.qsg_name
            and queue_stats.queue_name = shared_input_qmgrs.queue_name
            and queue_stats.aligned_interval_end_at = shared_input_qmgrs.aligned_interval_end_at
    left join checkpoints
        on
            queue_stats.qmgr_name = checkpoints.qmgr_name
            and queue_stats.aligned_interval_end_at = checkpoints.aligned_interval_end_at
),

measures as (
    select
        *,
        case
            when checkpoints > 0
                then {{ safe_divide('oldest_msg_age_seconds', 'log_interval_seconds / checkpoints') }}
        end as age_in_checkpoint_intervals,
        {{ safe_divide('get_wait_redrives', 'msgs_out') }} as get_wait_redrives_per_get
    from stats
),

levels as (
    select
        *,
        case
            when
                not is_shared
                and (buffer_pool_id = 0 or page_set_id = 0)
                and not (upper(queue_name) = 'SYSTEM.CHANNEL.SYNCQ' or upper(queue_name) like 'SYSTEM.CLUSTER.%')
                and (
                    upper(queue_name) not like 'SYSTEM.%'
                    or upper(queue_name) like 'SYSTEM.COMMAND.%'
                    or upper(queue_name) like 'SYSTEM.ADMIN.%'
                    or upper(queue_name) like '%DEAD.LETTER%'
                    or queue_name = dead_letter_queue
                )
                then
                    case
                        when pool0_rules is not null and {{ mp16_crosses(mp16, 'Q01', 'escalation', 'depth_current') }}
                            then 'escalation'
                        else {{ mp16_rule_text(mp16, 'Q01', 'base_severity') }}
                    end
        end as q01_level,
        {{ mp16_severity(mp16, 'Q03', 'consecutive_rising_intervals') }} as q03_level,
        case when pool_role = 'SHORT' then {{ mp16_severity(mp16, 'Q04', 'age_in_checkpoint_intervals') }} end
            as q04_level,
        case when expiry_interval_seconds = 0 then {{ mp16_severity(mp16, 'Q07', 'expired_msgs') }} end as q07_level,
        case
            when input_handles_open >= {{ mp16_threshold(mp16, 'Q08', 'min_input_handles') }}
                then {{ mp16_severity(mp16, 'Q08', 'get_wait_redrives_per_get') }}
        end as q08_level,
        case when is_ims_bridge then {{ mp16_severity(mp16, 'Q09', 'depth_high') }} end as q09_level,
        {{ mp16_severity(mp16, 'Q10', 'consecutive_uncommitted_intervals') }} as q10_level,
        case when is_shared then {{ mp16_severity(mp16, 'CF10', 'msg_size_max_bytes') }} end as cf10_level,
        case
            when
                is_shared
                and depth_low = 0
                and least(msgs_in, msgs_out) >= {{ mp16_threshold(mp16, 'CF13', 'min_volume') }}
                and input_qmgrs >= {{ mp16_threshold(mp16, 'CF13', 'min_input_qmgrs') }}
                then {{ mp16_severity(mp16, 'CF13', 'depth_high') }}
        end as cf13_level
    from measures
),

per_queue as (
    {% call mp16_fired_rows('levels', 'queue', 'levels.queue_name', date_column='interval_date') %}
            {{ mp16_firing(
                'Q01',
                "case when q01_level = 'escalation' then " ~ mp16_rule_text(mp16, 'Q01', 'escalation_severity')
                ~ " else q01_level end",
                'q01_level', 'coalesce(depth_current, 0)',
                "case when q01_level = 'escalation' then " ~ mp16_threshold(mp16, 'Q01', 'escalation') ~ " end",
                "format_string('queue on buffer pool %d / page set %d (depth %d), where only system objects belong%s',"
                ~ " buffer_pool_id, page_set_id, cast(coalesce(depth_current, 0) as bigint),"
                ~ " case when q01_level = 'escalation' then concat('; pool 0 under pressure: ', pool0_rules) else '' end)"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'Q03', 'consecutive_rising_intervals',
                "format_string('depth %d after %d, %d in vs %d out; rising for %d consecutive intervals',"
                ~ " cast(depth_current as bigint), cast(previous_depth as bigint), cast(msgs_in as bigint),"
                ~ " cast(msgs_out as bigint), consecutive_rising_intervals)",
                "'consecutive intervals'"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'Q04', 'age_in_checkpoint_intervals',
                "format_string('oldest message %d s old = %.1f checkpoint intervals (%d checkpoints in %.0f s),"
                ~ " SHORT pool %d', oldest_msg_age_seconds, age_in_checkpoint_intervals, cast(checkpoints as bigint),"
                ~ " log_interval_seconds, buffer_pool_id)"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'Q07', 'expired_msgs',
                "format_string('QQSTEXPR %d expired messages found while EXPRYINT is 0', cast(expired_msgs as bigint))"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'Q08', 'get_wait_redrives_per_get',
                "format_string('QQSTRDGW %d re-driven waiting gets for %d gets with %d input handles',"
                ~ " cast(get_wait_redrives as bigint), cast(msgs_out as bigint), input_handles_open)"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'Q09', 'depth_high',
                "format_string('IMS bridge queue (site configuration) reached depth %d (QQSTDPHI): its TPIPE task"
                ~ " is not keeping up unless the IMS regions are saturated (not in SMF: check the IMS monitor)',"
                ~ " cast(depth_high as bigint))"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'Q10', 'consecutive_uncommitted_intervals',
                "format_string('uncommitted changes in %d consecutive intervals', consecutive_uncommitted_intervals)",
                "'consecutive intervals'"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'CF10', 'msg_size_max_bytes',
                "format_string('shared queue in structure %s with messages of up to %d bytes (QQSTMSMA)',"
                ~ " cf_structure_name, cast(msg_size_max_bytes as bigint))"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'CF13', 'depth_high',
                "format_string('shared queue went empty (QQSTDPLO 0, QQSTDPHI %d) over %d puts and %d MQGETs while %d"
                ~ " queue managers had it open for input', cast(depth_high as bigint), cast(msgs_in as bigint),"
                ~ " cast(msgs_out as bigint), input_qmgrs)"
            ) }}
    {% endcall %}
),

-- Q02: message pages of a pool's private queues at their peak against the pool's buffers. Pages per
-- message follow MP16's table ("Size of page sets for a given number of messages", ch. 1, p. 11): one
-- 4 KB page up to 3,635 bytes, then one per 4,048 more.
pool_queue_pages as (
    select
        qmgr_name,
        buffer_pool_id,
        aligned_interval_end_at,
        sum(
            greatest(coalesce(depth_current, 0), coalesce(depth_high, depth_current, 0))
            * case
                when coalesce(known_msg_size_bytes, 0) <= 3635 then 1
                else 1 + ceil((known_msg_size_bytes - 3635) / 4048)
            end
        ) as message_pages,
        count(
            case
                when known_msg_size_bytes is null and greatest(coalesce(depth_current, 0), coalesce(depth_high, 0)) > 0
                    then 1
            end
        ) as queues_of_unknown_size
    from queue_intervals
    where not is_shared and buffer_pool_id is not null
    group by qmgr_name, buffer_pool_id, aligned_interval_end_at
),

pool_fill as (
    select
        pools.qmgr_name,
        pools.qsg_name,
        pools.buffer_pool_id,
        pools.interval_start_at,
        pools.interval_end_at,
        pools.buffers,
        pools.interval_date,
        coalesce(roles.pool_role, 'UNKNOWN') as pool_role,
        pool_queue_pages.message_pages,
        pool_queue_pages.queues_of_unknown_size,
        {{ safe_divide('pool_queue_pages.message_pages', 'pools.buffers') }} as message_page_share
    from {{ ref('fct_buffer_pool_stats') }} as pools
    inner join pool_queue_pages
        on
            pools.qmgr_name = pool_queue_pages.qmgr_name
            and pools.buffer_pool_id = pool_queue_pages.buffer_pool_id
            and pools.aligned_interval_end_at = pool_queue_pages.aligned_interval_end_at
    left join roles on pools.qmgr_name = roles.qmgr_name and pools.buffer_pool_id = roles.buffer_pool_id
    where {{ mp16_judged_dates(scope, 'pools.interval_date') }}
),

q02 as (
    select
        'Q02' as rule_id,
        {{ mp16_short_lived_severity('pool_role', mp16_severity(mp16, 'Q02', 'message_page_share')) }} as severity,
        {{ mp16_severity(mp16, 'Q02', 'message_page_share') }} as threshold_level,
        qmgr_name,
        qsg_name,
        'buffer_pool' as object_type,
        cast(buffer_pool_id as string) as object_name,
        interval_start_at,
        interval_end_at,
        'interval' as evaluation_window,
        message_page_share as observed_value,
        cast({{ mp16_threshold(mp16, 'Q02', 'warning') }} as double) as threshold_value,
        format_string(
            'queues peak at %d message pages = %.0f %% of the %d buffers of a %s pool%s',
            cast(message_pages as bigint), 100 * message_page_share, cast(buffers as bigint), pool_role,
            case
                when queues_of_unknown_size > 0
                    then format_string(
                        ' (at least: %d queue(s) with messages of unknown size counted one page per message)',
                        queues_of_unknown_size
                    )
                else ''
            end
        ) as observation,
        cast(null as string) as applied_comparison,
        interval_date
    from pool_fill
),

final as (
    select * from per_queue
    union all
    select * from q02
)

select * from final
where severity is not null
