//! `_cat/aliases[/{alias}]` (`RestAliasAction`): one row per alias of every index the
//! expression selects. As `GET _alias` does for this action, wildcards expand to open, closed
//! and hidden indices unless `expand_wildcards` says otherwise; a named alias that matches
//! nothing is no error, only no row.

use super::{Cell, Table};
use crate::action::aliases::alias_selected;
use crate::cluster::metadata::Metadata;
use crate::cluster::resolve::{resolve, ExpandWildcards, IndicesOptions};
use crate::error::OsResult;
use crate::http::handlers::indices_options;
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

fn columns() -> Table {
    Table::with_columns(&[
        ("alias", "alias:a;desc:alias name"),
        ("index", "alias:i,idx;desc:index alias points to"),
        ("filter", "alias:f,fi;desc:filter"),
        ("routing.index", "alias:ri,routingIndex;desc:index routing"),
        ("routing.search", "alias:rs,routingSearch;desc:search routing"),
        ("is_write_index", "alias:w,isWriteIndex;desc:write index"),
    ])
}

/// The rows for the alias patterns `names` (every alias without) over `opts`' indices.
pub fn table(md: &Metadata, names: Option<&str>, opts: IndicesOptions) -> OsResult<Table> {
    let mut t = columns();
    let patterns: Option<Vec<&str>> = names.map(|n| n.split(',').map(str::trim).filter(|p| !p.is_empty()).collect());
    for index in resolve(md, "_all", opts)? {
        let Some(m) = md.indices.get(&index) else { continue };
        for (alias, def) in &m.aliases {
            if !patterns.as_deref().is_none_or(|ps| alias_selected(ps, alias)) {
                continue;
            }
            let or_dash = |v: &Option<String>| -> Cell { v.as_deref().filter(|s| !s.is_empty()).unwrap_or("-").into() };
            t.rows.push(vec![
                alias.clone().into(),
                index.clone().into(),
                if def.filter.is_some() { "*" } else { "-" }.into(),
                or_dash(&def.index_routing),
                or_dash(&def.search_routing),
                def.is_write_index.map_or("-".to_string(), |w| w.to_string()).into(),
            ]);
        }
    }
    Ok(t)
}

fn cat_aliases(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let default = IndicesOptions {
        ignore_unavailable: false,
        allow_no_indices: true,
        expand: ExpandWildcards { open: true, closed: true, hidden: true },
        forbid_closed: false,
    };
    let opts = indices_options(req, default)?;
    req.bool_param("local", false)?;
    table(&node.cluster.metadata(), req.path_param("alias"), opts)?.respond(req)
}

const P: &[&str] = &["format", "h", "help", "s", "v", "local", "expand_wildcards"];

/// Registers the routes.
pub fn register(r: &mut Router) {
    for p in ["/_cat/aliases", "/_cat/aliases/{alias}"] {
        r.add(&[Method::Get], p, "cat:aliases", Pool::Management, P, cat_aliases);
    }
}
