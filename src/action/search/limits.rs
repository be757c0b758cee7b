//! Per-index limits a shard checks before it searches (OpenSearch's `SearchService.parseSource`
//! and `DefaultSearchContext.preProcess`): `index.max_docvalue_fields_search`,
//! `index.max_script_fields`, `index.max_rescore_window` and `index.max_regex_length`.

use crate::error::{OsError, OsResult};

/// The index-level search limits of one index, read from its settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexLimits {
    /// `index.max_docvalue_fields_search` (default 100).
    pub max_docvalue_fields: usize,
    /// `index.max_script_fields` (default 32).
    pub max_script_fields: usize,
    /// `index.max_rescore_window` (default: `index.max_result_window`).
    pub max_rescore_window: usize,
    /// `index.max_regex_length` (default 1000).
    pub max_regex_length: usize,
    /// `index.highlight.max_analyzed_offset` (default 1 000 000): the longest text a highlighter
    /// re-analyzes.
    pub max_analyzed_offset: usize,
    /// `index.max_inner_result_window` (default 100): an inner hits definition's `from + size`.
    pub max_inner_result_window: usize,
}

/// OpenSearch's default `index.max_regex_length`.
pub const DEFAULT_MAX_REGEX_LENGTH: usize = 1000;

impl Default for IndexLimits {
    fn default() -> Self {
        IndexLimits {
            max_docvalue_fields: 100,
            max_script_fields: 32,
            max_rescore_window: super::context::DEFAULT_MAX_RESULT_WINDOW,
            max_regex_length: DEFAULT_MAX_REGEX_LENGTH,
            max_analyzed_offset: 1_000_000,
            max_inner_result_window: 100,
        }
    }
}

impl IndexLimits {
    /// Reads the limits from an index's settings (`setting` returns a setting's value);
    /// `max_result_window` is the fallback of `index.max_rescore_window`.
    pub fn from_settings(setting: &dyn Fn(&str) -> Option<String>, max_result_window: usize) -> OsResult<IndexLimits> {
        let get = |key: &str, default: usize| -> OsResult<usize> {
            match setting(key) {
                Some(s) => s
                    .trim()
                    .parse::<usize>()
                    .map_err(|_| OsError::illegal(format!("Failed to parse value [{s}] for setting [{key}]"))),
                None => Ok(default),
            }
        };
        let d = IndexLimits::default();
        Ok(IndexLimits {
            max_docvalue_fields: get("index.max_docvalue_fields_search", d.max_docvalue_fields)?,
            max_script_fields: get("index.max_script_fields", d.max_script_fields)?,
            max_rescore_window: get("index.max_rescore_window", max_result_window)?,
            max_regex_length: get("index.max_regex_length", d.max_regex_length)?,
            max_analyzed_offset: get("index.highlight.max_analyzed_offset", d.max_analyzed_offset)?,
            max_inner_result_window: get("index.max_inner_result_window", d.max_inner_result_window)?,
        })
    }

    /// `docvalue_fields` asks for at most `max_docvalue_fields` fields.
    pub fn check_docvalue_fields(&self, n: usize) -> OsResult<()> {
        if n > self.max_docvalue_fields {
            return Err(OsError::illegal(format!(
                "Trying to retrieve too many docvalue_fields. Must be less than or equal to: [{}] but was [{n}]. This limit can be set by changing the [index.max_docvalue_fields_search] index level setting.",
                self.max_docvalue_fields
            )));
        }
        Ok(())
    }

    /// `script_fields` (checked only when the search returns hits, as OpenSearch does).
    pub fn check_script_fields(&self, n: usize, size: usize) -> OsResult<()> {
        if size != 0 && n > self.max_script_fields {
            return Err(OsError::illegal(format!(
                "Trying to retrieve too many script_fields. Must be less than or equal to: [{}] but was [{n}]. This limit can be set by changing the [index.max_script_fields] index level setting.",
                self.max_script_fields
            )));
        }
        Ok(())
    }

    /// A rescorer's `window_size`.
    pub fn check_rescore_window(&self, window: usize) -> OsResult<()> {
        if window > self.max_rescore_window {
            return Err(OsError::illegal(format!(
                "Rescore window [{window}] is too large. It must be less than [{}]. This prevents allocating massive heaps for storing the results to be rescored. This limit can be set by changing the [index.max_rescore_window] index level setting.",
                self.max_rescore_window
            )));
        }
        Ok(())
    }
}

/// Checks a search's `docvalue_fields`, `script_fields` and rescore windows against one index's
/// limits (the checks a shard makes before it searches).
pub fn check_request(limits: &IndexLimits, req: &super::request::SearchRequest) -> OsResult<()> {
    limits.check_docvalue_fields(req.docvalue_fields.len())?;
    if let Some(sf) = req.script_fields.as_ref().and_then(serde_json::Value::as_object) {
        limits.check_script_fields(sf.len(), req.size)?;
    }
    if let Some(r) = &req.rescore {
        let list = match r {
            serde_json::Value::Array(a) => a.iter().collect(),
            other => vec![other],
        };
        for re in list {
            // `window_size` defaults to 10 (RescorerBuilder.DEFAULT_WINDOW_SIZE).
            let w = re.get("window_size").and_then(serde_json::Value::as_u64).unwrap_or(10);
            limits.check_rescore_window(w as usize)?;
        }
    }
    Ok(())
}

/// A regular expression's length (in UTF-16 units, as Java counts) against `max`.
pub fn check_regex_length(pattern: &str, max: usize) -> OsResult<()> {
    let len = pattern.encode_utf16().count();
    if len > max {
        return Err(OsError::illegal(format!(
            "The length of regex [{len}] used in the Regexp Query request has exceeded the allowed maximum of [{max}]. This maximum can be set by changing the [index.max_regex_length] index level setting."
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_settings_with_defaults_and_rescore_fallback() {
        let l = IndexLimits::from_settings(&|k| (k == "index.max_script_fields").then(|| "2".to_string()), 50).unwrap();
        assert_eq!(
            l,
            IndexLimits {
                max_docvalue_fields: 100,
                max_script_fields: 2,
                max_rescore_window: 50,
                max_regex_length: 1000,
                max_analyzed_offset: 1_000_000,
                max_inner_result_window: 100,
            }
        );
        assert!(IndexLimits::from_settings(&|_| Some("x".into()), 50).is_err());
    }

    #[test]
    fn limits_are_inclusive() {
        let l = IndexLimits {
            max_docvalue_fields: 2,
            max_script_fields: 2,
            max_rescore_window: 10,
            max_regex_length: 3,
            max_analyzed_offset: 5,
            max_inner_result_window: 1,
        };
        assert!(l.check_docvalue_fields(2).is_ok());
        let e = l.check_docvalue_fields(3).unwrap_err();
        assert!(
            e.reason.starts_with(
                "Trying to retrieve too many docvalue_fields. Must be less than or equal to: [2] but was [3]."
            ),
            "{}",
            e.reason
        );
        assert!(l.check_script_fields(3, 0).is_ok());
        assert!(l.check_script_fields(3, 10).unwrap_err().reason.contains("[index.max_script_fields]"));
        assert!(l.check_rescore_window(10).is_ok());
        assert!(l
            .check_rescore_window(11)
            .unwrap_err()
            .reason
            .starts_with("Rescore window [11] is too large. It must be less than [10]."));
        assert!(check_regex_length("abc", 3).is_ok());
        assert!(check_regex_length("abcd", 3)
            .unwrap_err()
            .reason
            .starts_with("The length of regex [4] used in the Regexp Query request"));
    }
}
