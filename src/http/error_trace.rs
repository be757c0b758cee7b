//! `error_trace=true`: every rendered exception of the response (the top-level error, its
//! `root_cause` and `caused_by` entries, bulk item errors, multi-search item errors, shard
//! failures) gets a `stack_trace` field, as OpenSearch adds one when the request turns
//! `rest.exception.stacktrace.skip` off.
//!
//! Fathom has no Java frames to print: the trace is the part of `ExceptionsHelper.stackTrace`
//! that describes the exceptions themselves: the first line is the exception's `toString()`
//! (`[index/uuid][[index][shard]] SimpleName[reason]; nested: ...` for OpenSearch exceptions,
//! `java.lang.IllegalArgumentException: reason` for the JDK's), and each cause follows on a
//! `Caused by: ` line.

use serde_json::{Map, Value};

use crate::error::{java_simple_name as simple_name, ErrorKind};

fn kind_reason(e: &Map<String, Value>) -> Option<(&str, &str)> {
    Some((e.get("type")?.as_str()?, e.get("reason").and_then(Value::as_str).unwrap_or("")))
}

/// `ExceptionsHelper.detailedMessage`: the chain as `Name[reason]; nested: Name[reason]; `.
fn detailed_message(e: &Map<String, Value>) -> String {
    let Some((kind, reason)) = kind_reason(e) else { return "Unknown".into() };
    let Some(Value::Object(cause)) = e.get("caused_by") else {
        return format!("{}[{reason}]", simple_name(kind));
    };
    let mut out = format!("{}[{reason}]; ", simple_name(kind));
    let mut next = Some(cause);
    while let Some(c) = next {
        let Some((k, r)) = kind_reason(c) else { break };
        out.push_str(&format!("nested: {}[{r}]; ", simple_name(k)));
        next = match c.get("caused_by") {
            Some(Value::Object(n)) => Some(n),
            _ => None,
        };
    }
    out
}

/// The exception's `toString()`.
fn to_string(e: &Map<String, Value>) -> String {
    let Some((kind, reason)) = kind_reason(e) else { return String::new() };
    if let Some(class) = ErrorKind::from_name(kind).and_then(ErrorKind::java_class) {
        return format!("{class}: {reason}");
    }
    let mut out = String::new();
    if let Some(index) = e.get("index").and_then(Value::as_str) {
        // `Index.toString`: `[name/uuid]`, or `[name]` when the uuid is unknown.
        match e.get("index_uuid").and_then(Value::as_str) {
            Some(uuid) if uuid != "_na_" => out.push_str(&format!("[{index}/{uuid}]")),
            _ => out.push_str(&format!("[{index}]")),
        }
        if let Some(shard) = e.get("shard").map(|s| s.as_str().map(str::to_string).unwrap_or_else(|| s.to_string())) {
            out.push_str(&format!("[[{index}][{shard}]]"));
        }
        out.push(' ');
    }
    out.push_str(detailed_message(e).trim());
    out
}

/// The `stack_trace` text of an exception object.
pub fn stack_trace(e: &Map<String, Value>) -> String {
    let mut out = to_string(e);
    let mut next = e.get("caused_by");
    while let Some(Value::Object(c)) = next {
        out.push_str("\nCaused by: ");
        out.push_str(&to_string(c));
        next = c.get("caused_by");
    }
    out
}

fn is_exception(v: &Value) -> bool {
    v.as_object()
        .is_some_and(|m| m.get("type").is_some_and(Value::is_string) && m.get("reason").is_some_and(Value::is_string))
}

fn add_to_exception(v: &mut Value) {
    if let Value::Object(m) = v {
        let trace = stack_trace(m);
        for (k, child) in m.iter_mut() {
            visit(k, child);
        }
        m.insert("stack_trace".into(), Value::String(trace));
    }
}

fn visit(key: &str, v: &mut Value) {
    // Documents are data, not exceptions.
    if matches!(key, "_source" | "fields" | "highlight" | "docvalue_fields" | "_explanation") {
        return;
    }
    match v {
        _ if matches!(key, "error" | "caused_by" | "reason" | "cause") && is_exception(v) => add_to_exception(v),
        Value::Array(items) if key == "root_cause" => {
            items.iter_mut().filter(|i| is_exception(i)).for_each(add_to_exception)
        }
        Value::Array(items) => items.iter_mut().for_each(|i| visit("", i)),
        Value::Object(m) => m.iter_mut().for_each(|(k, c)| visit(k, c)),
        _ => {}
    }
}

/// Adds `stack_trace` to every exception in a response body.
pub fn add_stack_traces(body: &mut Value) {
    visit("", body);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn opensearch_exceptions_print_index_shard_and_name() {
        let e = json!({"type": "document_missing_exception", "reason": "[123]: document missing", "index": "idx", "shard": "0", "index_uuid": "u1"});
        assert_eq!(
            stack_trace(e.as_object().unwrap()),
            "[idx/u1][[idx][0]] DocumentMissingException[[123]: document missing]"
        );
        let e = json!({"type": "index_not_found_exception", "reason": "no such index [x]", "index": "x", "index_uuid": "_na_"});
        assert_eq!(stack_trace(e.as_object().unwrap()), "[x] IndexNotFoundException[no such index [x]]");
    }

    #[test]
    fn causes_nest_and_jdk_exceptions_keep_their_class() {
        let e = json!({"type": "mapper_parsing_exception", "reason": "failed to parse",
            "caused_by": {"type": "illegal_argument_exception", "reason": "bad"}});
        assert_eq!(
            stack_trace(e.as_object().unwrap()),
            "MapperParsingException[failed to parse]; nested: IllegalArgumentException[bad];\nCaused by: java.lang.IllegalArgumentException: bad"
        );
    }

    #[test]
    fn every_error_of_a_body_gets_one_and_sources_are_left_alone() {
        let mut body = json!({
            "error": {"type": "a_exception", "reason": "r", "root_cause": [{"type": "a_exception", "reason": "r"}]},
            "items": [{"update": {"error": {"type": "b_exception", "reason": "s"}}}],
            "docs": [{"_source": {"error": {"type": "t", "reason": "user data"}}}]
        });
        add_stack_traces(&mut body);
        assert_eq!(body["error"]["stack_trace"], "AException[r]");
        assert_eq!(body["error"]["root_cause"][0]["stack_trace"], "AException[r]");
        assert_eq!(body["items"][0]["update"]["error"]["stack_trace"], "BException[s]");
        assert_eq!(body["docs"][0]["_source"]["error"].get("stack_trace"), None);
    }
}
