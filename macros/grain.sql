{#- Generic test: what identifies a model's rows, in one query. A row fails when another row has the
    same `columns` (the grain), when its surrogate `key` (if the model has one) is NULL or another
    row's, or when one of the `not_null` columns is NULL. One Spark job where unique and not_null
    on the key, a grain test and a not_null per required column were as many. -#}
{% test grain(model, columns, key=none, not_null=[]) %}
    {%- set grain_columns = columns | join(', ') -%}
    {%- set failing = ['rows_with_grain > 1'] -%}
    {%- if key -%}
        {%- do failing.extend([key ~ ' is null', 'rows_with_key > 1']) -%}
    {%- endif -%}
    {%- for column in not_null -%}
        {%- do failing.append(column ~ ' is null') -%}
    {%- endfor -%}
    select *
    from (
        select
            {{ (([key] if key else []) + columns + not_null) | unique | join(', ') }},
            count(*) over (partition by {{ key or grain_columns }}) as rows_with_key,
            count(*) over (partition by {{ grain_columns }}) as rows_with_grain
        from {{ model }}
    ) as grain_rows
    where {{ failing | join(' or ') }}
{% endtest %}
