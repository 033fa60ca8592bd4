{#- Generic test: a model's grain and its surrogate key in one query. A row fails when its `key` is
    NULL, when another row has the same `key`, or when another row has the same `columns` (the
    grain). One Spark job instead of three tests (unique and not_null on the key, uniqueness of the
    grain's columns), which checked what one pass sees. -#}
{% test grain(model, key, columns) %}
    select *
    from (
        select
            {{ key }},
            {{ columns | join(', ') }},
            count(*) over (partition by {{ key }}) as rows_with_key,
            count(*) over (partition by {{ columns | join(', ') }}) as rows_with_grain
        from {{ model }}
    ) as grain_rows
    where {{ key }} is null or rows_with_key > 1 or rows_with_grain > 1
{% endtest %}
