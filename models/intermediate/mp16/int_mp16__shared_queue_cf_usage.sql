-- The shared queues' use of each CF structure, per queue manager and statistics interval: what MP16's
-- CF rules (int_mp16__cf_advisories) compare with the structure's statistics. CF04: the MQGETs;
-- CF15: the peak depths in CF storage, each message sized from its queue's average size as the
-- 256-byte elements it takes with the entry overhead, at least a minimum entry, plus the entry's
-- control, and above the largest message an entry holds the offloaded message's footprint (MP16
-- "Application structures", ch. 2, p. 74; parameters in the seed); CF16: the largest such message
-- the queue manager got from the structure's shared queues.
-- Incremental (insert_overwrite by interval_date, macro file mp16_incremental): a run sizes the dates
-- from the first one the loads of queue statistics changed, and a change of the CF15 parameters (the
-- configuration) sizes all history again; the CF rules, a table rebuilt on every run, read these
-- rows instead of every shared queue's statistics of all history.
-- Grain: one row per queue manager x CF structure x aligned statistics interval x interval_date.
{%- set mp16 = mp16_rule_parameters() %}
{%- set scope = mp16_judgement_scope(mp16) %}

with

shared_queue_messages as (
    select
        qmgr_name,
        cf_structure_name as structure_name,
        aligned_interval_end_at,
        msgs_out,
        depth_high,
        case
            when coalesce(msg_size_avg_bytes, 0) > {{ mp16_threshold(mp16, 'CF15', 'max_entry_message_bytes') }}
                then {{ mp16_threshold(mp16, 'CF15', 'large_message_bytes') }}
            else
                greatest(
                    ceil(
                        (coalesce(msg_size_avg_bytes, 0) + {{ mp16_threshold(mp16, 'CF15', 'entry_overhead_bytes') }})
                        / {{ mp16_threshold(mp16, 'CF15', 'element_bytes') }}
                    ) * {{ mp16_threshold(mp16, 'CF15', 'element_bytes') }},
                    {{ mp16_threshold(mp16, 'CF15', 'min_entry_bytes') }}
                ) + {{ mp16_threshold(mp16, 'CF15', 'entry_control_bytes') }}
        end as message_cf_bytes,
        loaded_at,
        interval_date
    from {{ ref('fct_queue_stats') }}
    where is_shared and cf_structure_name is not null and {{ mp16_judged_dates(scope) }}
),

final as (
    select
        qmgr_name,
        structure_name,
        aligned_interval_end_at,
        cast(sum(msgs_out) as decimal(38, 0)) as gets,
        -- Whole bytes, far below 2^53: exact as doubles.
        cast(sum(coalesce(depth_high, 0) * message_cf_bytes) as double) as peak_message_bytes,
        -- CF16: the largest message its gets leave for the batch delete.
        cast(max(case when msgs_out > 0 then message_cf_bytes end) as bigint) as largest_got_message_bytes,
        max(loaded_at) as loaded_at,
        interval_date
    from shared_queue_messages
    group by qmgr_name, structure_name, aligned_interval_end_at, interval_date
)

select * from final
