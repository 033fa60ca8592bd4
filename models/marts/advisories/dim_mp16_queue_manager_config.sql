-- Site configuration the MP16 rules need per queue manager (seed site_config_queue_managers plus
-- the var mp16_queue_manager_config): log DASD model and its MP16 reference log rates (seed
-- site_config_log_dasd_rates), active log size, archive copies, EXPRYINT, dead-letter queue,
-- production or not (BP12), the channel initiator's EPVT size (CHIN09) and user id (CHIN10), the
-- page set deferred write rate (BP14), log striping (LOG15), the active log count, log read rate,
-- restart target and page set backup interval (LOG13); and the settings of its z/OS system (seed
-- site_config_systems plus the var mp16_system_config): the processors of the LPAR (CHIN02, CHIN07),
-- MAXPROCSYS and MAXPROCUSER (CHIN10). Each setting comes from the most specific row that sets it
-- (queue manager or system named before '*'; a var row before a seed row).
-- Grain: one row per queue manager.
{%- set settings = {
    'log_dasd_model': 'string', 'active_log_mb': 'double', 'archive_copies': 'int',
    'expiry_interval_seconds': 'int', 'dead_letter_queue': 'string', 'is_production': 'boolean',
    'chin_epvt_mb': 'double', 'page_set_write_mb_per_sec': 'double', 'is_log_striped': 'boolean',
    'active_log_count': 'int', 'log_read_mb_per_sec': 'double', 'restart_target_minutes': 'double',
    'page_set_backup_hours': 'double', 'chin_user_id': 'string',
} %}
{%- set system_settings = {'processors': 'int', 'max_proc_sys': 'int', 'max_proc_user': 'int'} %}

with

queue_managers as (
    select
        qmgr_name,
        system_id
    from {{ ref('dim_queue_manager') }}
),

site_config as (
    {{ mp16_site_config(
        'site_config_queue_managers', 'mp16_queue_manager_config', dict(qmgr_name='string', **settings)
    ) }}
),

chosen as (
    {{ mp16_resolved_settings(
        'queue_managers', ['qmgr_name'], 'site_config', [('qmgr_name', 'qmgr_name')], settings, 'configuration_rows'
    ) }}
),

system_config as (
    {{ mp16_site_config('site_config_systems', 'mp16_system_config', dict(system_id='string', **system_settings)) }}
),

system_chosen as (
    {{ mp16_resolved_settings(
        'queue_managers', ['qmgr_name'], 'system_config', [('system_id', 'system_id')], system_settings,
        'system_configuration_rows'
    ) }}
),

dasd_rates as (
    select * from {{ ref('site_config_log_dasd_rates') }}
),

final as (
    select
        chosen.qmgr_name,
        chosen.log_dasd_model,
        dasd_rates.mb_per_sec_1kb as log_reference_mb_per_sec_1kb,
        dasd_rates.mb_per_sec_5kb as log_reference_mb_per_sec_5kb,
        -- MP16 has no 1 MB figure for the oldest DASD: its 5 KB rate is the best bound known.
        coalesce(dasd_rates.mb_per_sec_1mb, dasd_rates.mb_per_sec_5kb) as log_reference_mb_per_sec_1mb,
        dasd_rates.mp16_reference as log_reference_source,
        chosen.active_log_mb,
        chosen.archive_copies,
        chosen.expiry_interval_seconds,
        chosen.dead_letter_queue,
        chosen.is_production,
        chosen.chin_epvt_mb,
        chosen.page_set_write_mb_per_sec,
        chosen.is_log_striped,
        chosen.active_log_count,
        chosen.log_read_mb_per_sec,
        chosen.restart_target_minutes,
        chosen.page_set_backup_hours,
        chosen.chin_user_id,
        queue_managers.system_id,
        system_chosen.processors,
        system_chosen.max_proc_sys,
        system_chosen.max_proc_user,
        chosen.configuration_rows
    from chosen
    inner join queue_managers on chosen.qmgr_name = queue_managers.qmgr_name
    left join system_chosen on chosen.qmgr_name = system_chosen.qmgr_name
    left join dasd_rates on upper(trim(chosen.log_dasd_model)) = upper(dasd_rates.dasd_model)
)

select * from final
