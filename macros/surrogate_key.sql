{#- A deterministic key for a combination of columns or expressions: SHA-256 (hex) of their string
    forms joined by '|', with NULL spelled out so (NULL, 'a') and ('', 'a') differ. Timestamps should
    be passed through unix_micros() so the key does not depend on the session time zone. -#}
{% macro surrogate_key(columns) -%}
    sha2(concat_ws('|'
    {%- for column in columns -%}
        , coalesce(cast({{ column }} as string), '<null>')
    {%- endfor -%}
    ), 256)
{%- endmacro %}
