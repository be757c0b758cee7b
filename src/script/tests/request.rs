//! The request's `script` object.

use serde_json::json;

use crate::script::parse_script_request;
use crate::script::request::ScriptRequest;

#[test]
fn string_form_is_inline_painless() {
    let r = parse_script_request(&json!("ctx._source.a = 1")).unwrap();
    assert_eq!(
        r,
        ScriptRequest { source: "ctx._source.a = 1".into(), lang: "painless".into(), params: Default::default() }
    );
    assert!(r.compile().is_ok());
}

#[test]
fn object_form() {
    let r =
        parse_script_request(&json!({"source": "ctx._source.a += params.n", "lang": "painless", "params": {"n": 2}}))
            .unwrap();
    assert_eq!(r.source, "ctx._source.a += params.n");
    assert_eq!(r.params["n"], json!(2));
    let r = parse_script_request(&json!({"source": "x", "lang": "mustache"})).unwrap();
    assert_eq!(r.compile().unwrap_err().reason, "script_lang not supported [mustache]");
}

#[test]
fn stored_scripts_are_not_found() {
    let e = parse_script_request(&json!({"id": "my-script"})).unwrap_err();
    assert_eq!(e.kind, crate::error::ErrorKind::ResourceNotFound);
    assert_eq!(e.reason, "unable to find script [my-script] in cluster state");
    assert_eq!(e.status(), 404);
}

#[test]
fn malformed_script_objects() {
    let cases = [
        (
            json!({"source": "a", "id": "b"}),
            "illegal_argument_exception",
            "must only use one of [source, id] when specifying a script",
        ),
        (
            json!({"lang": "painless"}),
            "illegal_argument_exception",
            "must specify either [source] for an inline script or [id] for a stored script",
        ),
        (
            json!({"id": "x", "lang": "painless"}),
            "illegal_argument_exception",
            "illegally specified <lang> for a stored script",
        ),
        (json!({"source": "a", "foo": 1}), "x_content_parse_exception", "[script] unknown field [foo]"),
        (
            json!({"source": "a", "params": 1}),
            "x_content_parse_exception",
            "[script] params doesn't support values of type: VALUE_NUMBER",
        ),
        (
            json!({"source": "a", "options": {"x": "y"}}),
            "illegal_argument_exception",
            "illegal compiler options [{x=y}] specified",
        ),
        (json!(12), "x_content_parse_exception", "[script] unknown token [VALUE_NUMBER]"),
    ];
    for (body, kind, reason) in cases {
        let e = parse_script_request(&body).unwrap_err();
        assert_eq!((e.kind.name(), e.reason.as_str()), (kind, reason), "{body}");
        assert_eq!(e.status(), 400);
    }
}
