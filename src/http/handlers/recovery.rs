//! `_recovery` and `_cat/recovery` (OpenSearch's `RestRecoveryAction`, `RestCatRecoveryAction`).

use super::cat::iso_millis;
use super::{index_expr, indices_options};
use crate::action::recovery::{self, ShardRecovery};
use crate::error::OsResult;
use crate::http::cat::{Cell, Table};
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;
use crate::shard::recovery::RecoverySource;

fn shard_recoveries(node: &Node, req: &RestRequest) -> OsResult<Vec<ShardRecovery>> {
    let opts = indices_options(req, recovery::default_options())?;
    let active_only = req.bool_param("active_only", false)?;
    recovery::recoveries(&node.cluster, &index_expr(req), opts, active_only)
}

fn get_recovery(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let detailed = req.bool_param("detailed", false)?;
    let human = req.bool_param("human", false)?;
    let recs = shard_recoveries(node, req)?;
    Ok(RestResponse::ok(recovery::response_json(&recs, detailed, human)))
}

/// The columns of `_cat/recovery`, as `RestCatRecoveryAction.getTableWithHeader` declares them.
const COLUMNS: &[(&str, &str)] = &[
    ("index", "alias:i,idx;desc:index name"),
    ("shard", "alias:s,sh;desc:shard name"),
    ("start_time", "default:false;alias:start;desc:recovery start time"),
    ("start_time_millis", "default:false;alias:start_millis;desc:recovery start time in epoch milliseconds"),
    ("stop_time", "default:false;alias:stop;desc:recovery stop time"),
    ("stop_time_millis", "default:false;alias:stop_millis;desc:recovery stop time in epoch milliseconds"),
    ("time", "alias:t,ti;desc:recovery time"),
    ("type", "alias:ty;desc:recovery type"),
    ("stage", "alias:st;desc:recovery stage"),
    ("source_host", "alias:shost;desc:source host"),
    ("source_node", "alias:snode;desc:source node name"),
    ("target_host", "alias:thost;desc:target host"),
    ("target_node", "alias:tnode;desc:target node name"),
    ("repository", "alias:rep;desc:repository"),
    ("snapshot", "alias:snap;desc:snapshot"),
    ("files", "alias:f;desc:number of files to recover"),
    ("files_recovered", "alias:fr;desc:files recovered"),
    ("files_percent", "alias:fp;desc:percent of files recovered"),
    ("files_total", "alias:tf;desc:total number of files"),
    ("bytes", "alias:b;desc:number of bytes to recover"),
    ("bytes_recovered", "alias:br;desc:bytes recovered"),
    ("bytes_percent", "alias:bp;desc:percent of bytes recovered"),
    ("bytes_total", "alias:tb;desc:total number of bytes"),
    ("translog_ops", "alias:to;desc:number of translog ops to recover"),
    ("translog_ops_recovered", "alias:tor;desc:translog ops recovered"),
    ("translog_ops_percent", "alias:top;desc:percent of translog ops recovered"),
];

/// The `_cat/recovery` table of these recoveries.
pub fn recovery_table(recs: &[ShardRecovery]) -> Table {
    let mut t = Table::with_columns(COLUMNS);
    let int = |v: u64| Cell::Int(i64::try_from(v).unwrap_or(i64::MAX));
    for r in recs {
        let rs = &r.state;
        let i = &rs.index;
        let (start, stop) = (rs.timer.start_millis(), rs.timer.stop_millis());
        let date = |ms: u64| Cell::Str(iso_millis(i64::try_from(ms).unwrap_or(i64::MAX)));
        let target = &r.target;
        // Recoveries from this node's own store have no source node.
        let (source_host, source_node) = match (&rs.source, &rs.source_node) {
            (RecoverySource::Peer, Some(p)) => {
                let host = p.transport_address.rsplit_once(':').map_or(p.transport_address.as_str(), |(h, _)| h);
                (host.to_string(), p.name.clone())
            }
            _ => ("n/a".to_string(), "n/a".to_string()),
        };
        t.rows.push(vec![
            r.index.clone().into(),
            Cell::Int(i64::from(r.shard)),
            date(start),
            int(start),
            date(stop),
            int(stop),
            Cell::Millis(rs.timer.total_millis()),
            rs.source.name().to_ascii_lowercase().into(),
            rs.stage().name().to_ascii_lowercase().into(),
            source_host.into(),
            source_node.into(),
            target.host.clone().into(),
            target.name.clone().into(),
            "n/a".into(),
            "n/a".into(),
            int(i.total_files.saturating_sub(i.reused_files)),
            int(i.recovered_files),
            recovery::percent_string(recovery::files_percent(rs)).into(),
            int(i.total_files),
            Cell::Bytes(i.total_bytes.saturating_sub(i.reused_bytes)),
            Cell::Bytes(i.recovered_bytes),
            recovery::percent_string(recovery::bytes_percent(rs)).into(),
            Cell::Bytes(i.total_bytes),
            Cell::Int(rs.translog.total),
            int(rs.translog.recovered),
            recovery::percent_string(recovery::translog_percent(rs)).into(),
        ]);
    }
    t
}

fn cat_recovery(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    // `detailed` only adds file details, which the table does not show.
    req.bool_param("detailed", false)?;
    let recs = shard_recoveries(node, req)?;
    recovery_table(&recs).respond(req)
}

const RECOVERY_P: &[&str] = &["detailed", "active_only", "ignore_unavailable", "allow_no_indices", "expand_wildcards"];
const CAT_RECOVERY_P: &[&str] = &[
    "format",
    "h",
    "help",
    "s",
    "v",
    "local",
    "master_timeout",
    "cluster_manager_timeout",
    "bytes",
    "time",
    "active_only",
    "detailed",
    "ignore_unavailable",
    "allow_no_indices",
    "expand_wildcards",
];

/// Registers the routes.
pub fn register(r: &mut Router) {
    use Method::*;
    for p in ["/_recovery", "/{index}/_recovery"] {
        r.add(&[Get], p, "indices:monitor/recovery", Pool::Management, RECOVERY_P, get_recovery);
    }
    for p in ["/_cat/recovery", "/_cat/recovery/{index}"] {
        r.add(&[Get], p, "cat:recovery", Pool::Management, CAT_RECOVERY_P, cat_recovery);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shard::recovery::{RecoveryState, Stage};

    #[test]
    fn table_row_for_a_store_recovery() {
        let mut rs = RecoveryState::new(RecoverySource::ExistingStore, true);
        rs.advance(Stage::Index);
        rs.index.add_file("a".into(), 10, true);
        rs.advance(Stage::Translog);
        rs.translog.total = 4;
        rs.translog.recovered = 4;
        rs.advance(Stage::Done);
        let target = recovery::TargetNode {
            id: "a".into(),
            name: "n1".into(),
            host: "127.0.0.1".into(),
            transport_address: "127.0.0.1:9300".into(),
        };
        let t = recovery_table(&[ShardRecovery { index: "i".into(), shard: 0, state: rs, target }]);
        assert_eq!(t.columns.len(), t.rows[0].len());
        let cell = |name: &str| t.rows[0][t.columns.iter().position(|c| c.name == name).unwrap()].clone();
        assert_eq!(cell("type"), Cell::Str("existing_store".into()));
        assert_eq!(cell("stage"), Cell::Str("done".into()));
        assert_eq!(cell("source_host"), Cell::Str("n/a".into()));
        assert_eq!(cell("files"), Cell::Int(0));
        assert_eq!(cell("files_total"), Cell::Int(1));
        assert_eq!(cell("files_percent"), Cell::Str("100.0%".into()));
        assert_eq!(cell("bytes_total"), Cell::Bytes(10));
        assert_eq!(cell("translog_ops"), Cell::Int(4));
        assert_eq!(cell("translog_ops_percent"), Cell::Str("100.0%".into()));
    }
}
