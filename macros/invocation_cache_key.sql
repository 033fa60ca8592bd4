{#- The key under which a value worked out once per dbt invocation is kept in `graph`, the one
    manifest mapping every node of the invocation shares: 'mqsmf_<what>_<invocation id>', then
    '_<model>' for a value of the running model (per_model). Keyed by the invocation because a
    process may run dbt again (the tests, orchestration): a value must never outlive its run. -#}
{% macro invocation_cache_key(what, per_model=true) -%}
    {{ return('mqsmf_' ~ what ~ '_' ~ invocation_id ~ ('_' ~ this if per_model else '')) }}
{%- endmacro %}
