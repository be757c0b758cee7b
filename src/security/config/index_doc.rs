//! The source of a doc of the security index: `{"<type>": "<base64 of the type's JSON>"}`
//! (format/security-config.md), shared by the node and `fathom securityadmin`.

use serde_json::{json, Value};

use super::CType;

/// `{"<type>": "<base64 of json>"}`.
pub fn encode_source(ctype: CType, json: &Value) -> Value {
    use base64::Engine as _;
    let bytes = serde_json::to_vec(json).unwrap_or_default();
    json!({ ctype.name(): base64::engine::general_purpose::STANDARD.encode(bytes) })
}

/// The JSON of a doc's source; the plugin's older form (the JSON object itself, not base64) is
/// read too.
pub fn decode_source(ctype: CType, source: &Value) -> Result<Value, String> {
    use base64::Engine as _;
    match source.get(ctype.name()) {
        Some(Value::String(encoded)) => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(encoded)
                .map_err(|e| format!("security index doc [{}]: invalid base64: {e}", ctype.name()))?;
            serde_json::from_slice(&bytes)
                .map_err(|e| format!("security index doc [{}]: invalid JSON: {e}", ctype.name()))
        }
        Some(v @ Value::Object(_)) => Ok(v.clone()),
        _ => Err(format!("security index doc [{}] has no [{}] field", ctype.name(), ctype.name())),
    }
}
