{#- Generic test: every non-NULL value lies within [min_value, max_value]. A missing bound compares
    the column with itself, which is never a violation. -#}
{% test accepted_range(model, column_name, min_value=none, max_value=none) %}
    select {{ column_name }}
    from {{ model }}
    where
        {{ column_name }} is not null
        and (
            {{ column_name }} < {{ min_value if min_value is not none else column_name }}
            or {{ column_name }} > {{ max_value if max_value is not none else column_name }}
        )
{% endtest %}
