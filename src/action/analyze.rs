//! `_analyze`: runs an analysis chain on text (engine's `analysis::analyze`) with the index's
//! analyzers, the field's analyzer or normalizer, and `index.analyze.max_token_count`.

use serde_json::Value;

use crate::cluster::ClusterService;
use crate::engine::analysis::{analyze as run, FieldAnalysis, IndexAnalysis};
use crate::engine::schema::FieldKind;
use crate::error::{ErrorKind, OsError, OsResult};

/// `GET/POST [/{index}]/_analyze`.
pub fn analyze(cs: &ClusterService, index: Option<&str>, body: &Value) -> OsResult<Value> {
    let svc = match index {
        Some(i) => Some(super::documents::read_target(cs, i)?),
        None => None,
    };
    if svc.is_none() && body.get("field").is_some() {
        return Err(OsError::illegal("no index provided"));
    }
    let (analysis, max_tokens): (Option<&IndexAnalysis>, usize) = match &svc {
        Some(s) => {
            let meta = s.metadata();
            let max = crate::cluster::settings::get_int(
                &meta.settings,
                "index.analyze.max_token_count",
                10_000,
                1,
                i32::MAX as i64,
            )? as usize;
            (Some(s.analysis().as_ref()), max)
        }
        None => (None, 10_000),
    };
    let mapping = svc.as_ref().map(|s| s.mapping());
    let field = |name: &str| -> Option<FieldAnalysis> {
        let ft = mapping.as_ref()?.field_type(name)?;
        Some(match &ft.kind {
            FieldKind::Text(p) => FieldAnalysis::Text {
                analyzer: p.analyzer.clone().unwrap_or_else(|| "default".into()),
                position_increment_gap: p.position_increment_gap,
            },
            FieldKind::Keyword(k) => FieldAnalysis::Keyword { normalizer: k.normalizer.clone() },
            _ => FieldAnalysis::NotTokenized,
        })
    };
    run(body, analysis, &field, max_tokens).map_err(|e| {
        let error = OsError::new(e.kind, e.reason);
        // Java's IllegalStateException (the token limit) is an internal server error.
        if e.kind == ErrorKind::IllegalState {
            error.status(500)
        } else {
            error
        }
    })
}
