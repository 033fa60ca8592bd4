-- Row counts reconcile at each grain: every staged structure instance is exactly one fact row.
-- Returns the facts whose row count differs from their staging model's.

with

counts as (
    {%- for staging_model, fact_model in [
        ('stg_smf__qqst', 'fct_queue_stats'),
        ('stg_smf__qpst', 'fct_buffer_pool_stats'),
        ('stg_smf__qjst', 'fct_log_stats'),
        ('stg_smf__qest', 'fct_cf_structure_qmgr_stats'),
        ('stg_smf__qmst', 'fct_message_manager_stats'),
        ('stg_smf__qist', 'fct_data_manager_stats'),
    ] %}
        select
            '{{ fact_model }}' as fact_model,
            (select count(*) from {{ ref(staging_model) }}) as staging_rows,
            (select count(*) from {{ ref(fact_model) }}) as fact_rows
        {%- if not loop.last %}
            union all
        {%- endif %}
    {%- endfor %}
)

select * from counts
where staging_rows != fact_rows
