-- Row counts reconcile at each grain: every staged structure instance is exactly one fact row (the
-- channel initiator task fact: one row per entry of its four task arrays).
-- Returns the facts whose row count differs from their staging models'.

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
            {%- for model in ([staging_model] if staging_model is string else staging_model) %}
                (select count(*) from {{ ref(model) }}){{ ' +' if not loop.last }}
            {%- endfor %} as staging_rows,
            (select count(*) from {{ ref(fact_model) }}) as fact_rows
        {%- if not loop.last %}
            union all
        {%- endif %}
    {%- endfor %}
)

select * from counts
where staging_rows != fact_rows
