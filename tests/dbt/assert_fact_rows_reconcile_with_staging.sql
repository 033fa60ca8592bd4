-- Row counts reconcile at each grain: every staged structure instance is exactly one fact row (the
-- channel initiator task fact: one row per entry of its four task arrays).
-- Counted on the interval dates of the newest load (macro recently_loaded_dates_condition; var
-- test_scope 'all' counts every date), per date: a day's check costs a day's rows.
-- Returns the facts and dates whose row count differs from their staging models'.
{%- set tested = recently_loaded_dates_condition() %}

with

counts as (
    {%- for staging_model, fact_model in [
        ('stg_smf__qqst', 'fct_queue_stats'),
        ('stg_smf__qpst', 'fct_buffer_pool_stats'),
        ('stg_smf__qjst', 'fct_log_stats'),
        ('stg_smf__qest', 'fct_cf_structure_qmgr_stats'),
        ('stg_smf__qmst', 'fct_message_manager_stats'),
        ('stg_smf__qist', 'fct_data_manager_stats'),
        ('stg_smf__qcct', 'fct_channel_initiator_stats'),
        (['stg_smf__qctdsp', 'stg_smf__qctadp', 'stg_smf__qctssl', 'stg_smf__qctdns'], 'fct_channel_initiator_task_stats'),
    ] %}
        select
            '{{ fact_model }}' as fact_model,
            interval_date,
            sum(staging_rows) as staging_rows,
            sum(fact_rows) as fact_rows
        from (
            {%- for model in ([staging_model] if staging_model is string else staging_model) %}
                select
                    interval_date,
                    count(*) as staging_rows,
                    0 as fact_rows
                from {{ ref(model) }}
                where {{ tested }}
                group by interval_date
                union all
            {%- endfor %}
            select
                interval_date,
                0 as staging_rows,
                count(*) as fact_rows
            from {{ ref(fact_model) }}
            where {{ tested }}
            group by interval_date
        )
        group by interval_date
        {%- if not loop.last %}
            union all
        {%- endif %}
    {%- endfor %}
)

select * from counts
where staging_rows != fact_rows
