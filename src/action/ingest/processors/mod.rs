//! The processor types, one file per group:
//!
//! | file | processors |
//! |---|---|
//! | `fields.rs` | set, remove, rename, copy, append, remove_by_pattern, dot_expander, fail, drop |
//! | `strings.rs` | lowercase, uppercase, trim, urldecode, html_strip, gsub, split, join, sort |
//! | `values.rs` | convert, bytes, json |
//! | `parse.rs` | kv, dissect, csv |
//! | `flow.rs` | pipeline, foreach, script |
//! | `hashing.rs` | fingerprint, community_id |
//! | `date.rs` | date, date_index_name |
//! | `grok.rs` | grok (its pattern bank in `grok_bank.rs`) |

pub mod date;
mod fields;
mod flow;
pub mod grok;
mod grok_bank;
mod hashing;
mod parse;
mod strings;
mod values;

use super::config::Config;
use super::pipeline::{Op, PipelineSource};
use crate::error::OsResult;

/// Every processor type Fathom runs (what `_nodes` lists under `ingest.processors`).
pub const TYPES: &[&str] = &[
    "append",
    "bytes",
    "community_id",
    "convert",
    "copy",
    "csv",
    "date",
    "date_index_name",
    "dissect",
    "dot_expander",
    "drop",
    "fail",
    "fingerprint",
    "foreach",
    "grok",
    "gsub",
    "html_strip",
    "join",
    "json",
    "kv",
    "lowercase",
    "pipeline",
    "remove",
    "remove_by_pattern",
    "rename",
    "script",
    "set",
    "sort",
    "split",
    "trim",
    "uppercase",
    "urldecode",
];

/// Builds the processor `c.ty` from its options.
pub fn build(c: &mut Config, src: &dyn PipelineSource) -> OsResult<Box<dyn Op>> {
    Ok(match c.ty.as_str() {
        "set" => Box::new(fields::Set::new(c)?),
        "remove" => Box::new(fields::Remove::new(c)?),
        "rename" => Box::new(fields::Rename::new(c)?),
        "copy" => Box::new(fields::Copy::new(c)?),
        "append" => Box::new(fields::Append::new(c)?),
        "remove_by_pattern" => Box::new(fields::RemoveByPattern::new(c)?),
        "dot_expander" => Box::new(fields::DotExpander::new(c)?),
        "fail" => Box::new(fields::Fail::new(c)?),
        "drop" => Box::new(fields::Drop),
        "lowercase" | "uppercase" | "trim" | "urldecode" | "html_strip" => Box::new(strings::StringOp::new(c)?),
        "gsub" => Box::new(strings::Gsub::new(c)?),
        "split" => Box::new(strings::Split::new(c)?),
        "join" => Box::new(strings::Join::new(c)?),
        "sort" => Box::new(strings::Sort::new(c)?),
        "convert" => Box::new(values::Convert::new(c)?),
        "bytes" => Box::new(values::Bytes::new(c)?),
        "json" => Box::new(values::Json::new(c)?),
        "kv" => Box::new(parse::Kv::new(c)?),
        "dissect" => Box::new(parse::Dissect::new(c)?),
        "csv" => Box::new(parse::Csv::new(c)?),
        "pipeline" => Box::new(flow::PipelineCall::new(c)?),
        "foreach" => Box::new(flow::Foreach::new(c, src)?),
        "script" => Box::new(flow::ScriptOp::new(c)?),
        "fingerprint" => Box::new(hashing::Fingerprint::new(c)?),
        "community_id" => Box::new(hashing::CommunityId::new(c)?),
        "date" => Box::new(date::DateOp::new(c)?),
        "date_index_name" => Box::new(date::DateIndexName::new(c)?),
        "grok" => Box::new(grok::GrokOp::new(c)?),
        other => {
            return Err(super::config::config_error(
                other,
                c.tag.as_deref(),
                None,
                &format!("No processor type exists with name [{other}]"),
            ))
        }
    })
}
