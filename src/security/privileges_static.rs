//! The security plugin's static action groups (`static_config/static_action_groups.yml`),
//! as a table: every configuration sees them besides its own `action_groups.yml`.

/// (name, allowed_actions).
pub const STATIC_ACTION_GROUPS: &[(&str, &[&str])] = &[
    ("kibana_all_write", &["kibana:saved_objects/*/write"]),
    ("kibana_all_read", &["kibana:saved_objects/*/read"]),
    ("cluster_all", &["cluster:*"]),
    ("crud", &["read", "write"]),
    ("search", &["indices:data/read/search*", "indices:data/read/msearch*", "indices:admin/resolve/index", "suggest"]),
    ("data_access", &["indices:data/*", "crud"]),
    ("create_index", &["indices:admin/create", "indices:admin/mapping/put"]),
    ("write", &["indices:data/write*", "indices:admin/mapping/put"]),
    ("manage_aliases", &["indices:admin/aliases*"]),
    ("read", &["indices:data/read*", "indices:admin/mappings/fields/get*", "indices:admin/resolve/index"]),
    ("indices_all", &["indices:*"]),
    ("delete", &["indices:data/write/delete*"]),
    (
        "cluster_composite_ops",
        &[
            "indices:data/write/bulk",
            "indices:admin/aliases*",
            "indices:data/write/reindex",
            "cluster_composite_ops_ro",
        ],
    ),
    (
        "cluster_composite_ops_ro",
        &[
            "indices:data/read/mget",
            "indices:data/read/msearch",
            "indices:data/read/mtv",
            "indices:admin/aliases/exists*",
            "indices:admin/aliases/get*",
            "indices:data/read/scroll",
            "indices:admin/resolve/index",
        ],
    ),
    ("get", &["indices:data/read/get*", "indices:data/read/mget*"]),
    ("manage", &["indices:monitor/*", "indices:admin/*"]),
    ("cluster_monitor", &["cluster:monitor/*"]),
    ("manage_snapshots", &["cluster:admin/snapshot/*", "cluster:admin/repository/*"]),
    (
        "index",
        &[
            "indices:data/write/index*",
            "indices:data/write/update*",
            "indices:admin/mapping/put",
            "indices:data/write/bulk*",
        ],
    ),
    ("unlimited", &["*"]),
    ("indices_monitor", &["indices:monitor/*"]),
    ("suggest", &["indices:data/read/suggest*"]),
    ("cluster_manage_index_templates", &["indices:admin/template/*", "indices:admin/index_template/*"]),
    ("cluster_manage_pipelines", &["cluster:admin/ingest/pipeline/*"]),
    ("manage_data_streams", &["indices:admin/data_stream/*", "indices:monitor/data_stream/stats"]),
    (
        "manage_point_in_time",
        &[
            "indices:data/read/point_in_time/create",
            "indices:data/read/point_in_time/delete",
            "indices:data/read/point_in_time/readall",
            "indices:data/read/search",
            "indices:monitor/point_in_time/segments",
        ],
    ),
];
