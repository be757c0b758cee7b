//! The security REST API's replies: `{"status": "<RestStatus name>", "message": "..."}`
//! (the plugin's `Responses`), and the status names it prints.

use serde_json::{json, Value};

/// The plugin's reply: an HTTP status and its JSON body.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub status: u16,
    pub body: Value,
}

impl Reply {
    /// `{"status": NAME, "message": message}` with `status`.
    pub fn message(status: u16, message: impl Into<String>) -> Reply {
        Reply { status, body: json!({"status": status_name(status), "message": message.into()}) }
    }

    /// Any body with `status`.
    pub fn body(status: u16, body: Value) -> Reply {
        Reply { status, body }
    }

    pub fn ok(message: impl Into<String>) -> Reply {
        Reply::message(200, message)
    }
    pub fn created(message: impl Into<String>) -> Reply {
        Reply::message(201, message)
    }
    pub fn bad_request(message: impl Into<String>) -> Reply {
        Reply::message(400, message)
    }
    pub fn forbidden(message: impl Into<String>) -> Reply {
        Reply::message(403, message)
    }
    pub fn not_found(message: impl Into<String>) -> Reply {
        Reply::message(404, message)
    }
}

/// OpenSearch's `RestStatus` name of an HTTP status.
pub fn status_name(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "CREATED",
        400 => "BAD_REQUEST",
        401 => "UNAUTHORIZED",
        403 => "FORBIDDEN",
        404 => "NOT_FOUND",
        405 => "METHOD_NOT_ALLOWED",
        409 => "CONFLICT",
        500 => "INTERNAL_SERVER_ERROR",
        501 => "NOT_IMPLEMENTED",
        503 => "SERVICE_UNAVAILABLE",
        _ => "INTERNAL_SERVER_ERROR",
    }
}

/// The plugin's "Invalid configuration" body (`RequestContentValidator`): unknown keys, missing
/// mandatory keys, keys of the wrong type.
pub fn invalid_configuration(invalid: &[String], missing: &[String], wrong_types: &[(String, String)]) -> Reply {
    let mut body = json!({"status": "error", "reason": "Invalid configuration"});
    if !invalid.is_empty() {
        body["invalid_keys"] = json!({"keys": invalid.join(",")});
    }
    if !missing.is_empty() {
        body["missing_mandatory_keys"] = json!({"keys": missing.join(",")});
    }
    if !wrong_types.is_empty() {
        let m: serde_json::Map<String, Value> =
            wrong_types.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
        body["wrong_datatypes"] = Value::Object(m);
    }
    Reply::body(400, body)
}

/// `{"status": "error", "reason": reason}` (validation errors of the plugin's content validator).
pub fn error_reason(reason: impl Into<String>) -> Reply {
    Reply::body(400, json!({"status": "error", "reason": reason.into()}))
}
