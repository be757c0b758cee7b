//! Tests of the Painless subset: constructs, Java arithmetic, errors and their positions,
//! property tests against a Rust model, and random input that must never panic.

mod arithmetic;
mod constructs;
mod errors;
mod properties;
mod request;
mod search;

use serde_json::{json, Map, Value as Json};

use super::{Script, ScriptError, UpdateContext};

fn obj(v: Json) -> Map<String, Json> {
    v.as_object().cloned().unwrap_or_default()
}

/// Runs `src` as an update script on `source` with `params`; returns the context afterwards.
fn update_with(src: &str, source: Json, params: Json) -> Result<UpdateContext, ScriptError> {
    let script = Script::compile(src, None)?;
    let mut ctx = UpdateContext::new("test", "1", 3, obj(source));
    ctx.now_millis = 1_700_000_000_000;
    script.execute_update(&mut ctx, &obj(params))?;
    Ok(ctx)
}

/// The source after running `src` as an update script.
fn update(src: &str, source: Json) -> Json {
    match update_with(src, source, json!({})) {
        Ok(ctx) => Json::Object(ctx.source),
        Err(e) => panic!("script {src:?} failed: {}", e.to_json()),
    }
}

/// The value a script returns (`return ...;`).
fn eval(src: &str) -> Json {
    eval_with(src, json!({})).unwrap_or_else(|e| panic!("script {src:?} failed: {}", e.to_json()))
}

fn eval_with(src: &str, params: Json) -> Result<Json, ScriptError> {
    let script = Script::compile(src, None)?;
    let mut ctx = Map::new();
    script.execute_ctx(&mut ctx, &obj(params))
}

/// The error a script fails with (at compile or run time).
fn error(src: &str) -> ScriptError {
    match update_with(src, json!({"a": 1, "list": [1, 2], "s": "x"}), json!({})) {
        Ok(_) => panic!("script {src:?} should fail"),
        Err(e) => e,
    }
}

fn cause(e: &ScriptError) -> (String, String) {
    e.caused_by.clone().unwrap_or_default()
}
