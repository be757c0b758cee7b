//! Compile and runtime errors: types, reasons, positions and the rendered body.

use serde_json::json;

use super::{cause, error, eval_with};
use crate::script::Script;

#[test]
fn compile_error_body_matches_opensearch_shape() {
    let e = Script::compile("ctx._source.x = ", None).unwrap_err();
    assert_eq!(
        e.to_json(),
        json!({
            "type": "script_exception",
            "reason": "compile error",
            "script_stack": ["ctx._source.x = ", "                ^---- HERE"],
            "script": "ctx._source.x = ",
            "lang": "painless",
            "position": {"offset": 16, "start": 0, "end": 16},
            "caused_by": {"type": "illegal_argument_exception", "reason": "unexpected end of script."}
        })
    );
    assert_eq!(e.status(), 400);
    let wrapped = e.to_update_failure_json();
    assert_eq!(wrapped["type"], json!("illegal_argument_exception"));
    assert_eq!(wrapped["reason"], json!("failed to execute script"));
    assert_eq!(wrapped["caused_by"]["type"], json!("script_exception"));
}

#[test]
fn compile_error_window_is_cut_with_ellipses() {
    let src = "ctx._source.aaaaaaaaaaaaaaaaaaaa = 1; ctx._source.b = @; ctx._source.cccccccccccccccccccc = 3";
    let e = Script::compile(src, None).unwrap_err();
    let at = src.find('@').unwrap();
    assert_eq!(e.position, Some((at, at - 25, at + 25)));
    assert_eq!(e.script_stack[0], format!("... {} ...", &src[at - 25..at + 25]));
    assert_eq!(e.script_stack[1], format!("{}^---- HERE", " ".repeat(4 + 25)));
    assert_eq!(cause(&e), ("illegal_argument_exception".into(), "unexpected character [@].".into()));
}

#[test]
fn compile_error_positions_point_at_the_problem() {
    let cases: &[(&str, usize, &str)] = &[
        ("ctx._source.a = foo + 1", 16, "cannot resolve symbol [foo]"),
        ("int x = 1; int x = 2", 15, "variable [x] is already defined"),
        ("ctx._source.a = 1 +;", 19, "invalid sequence of tokens near [';']."),
        ("if (true { }", 9, "unexpected token ['{'] was expecting one of [')']."),
        ("break;", 0, "Break statement outside of a loop."),
        ("continue", 0, "Continue statement outside of a loop."),
        ("ctx._source.a = 'unterminated", 16, "unexpected character [']."),
        ("ctx._source.a = 2147483648", 16, "Invalid int constant [2147483648]."),
        ("1 = 2", 2, "invalid assignment: cannot assign a value to this expression"),
        ("params = 1", 7, "invalid assignment: cannot assign a value to a read-only variable"),
        ("ctx._source.a = 'a\\n'", 16, "unexpected character [']."),
    ];
    for (src, offset, reason) in cases {
        let e = Script::compile(src, None).unwrap_err();
        assert_eq!(e.kind, crate::error::ErrorKind::Script, "{src}");
        assert_eq!(e.reason, "compile error", "{src}");
        assert_eq!(e.position.map(|p| p.0), Some(*offset), "{src}");
        assert_eq!(cause(&e).1, *reason, "{src}");
    }
}

#[test]
fn regexes_are_disabled() {
    let e = Script::compile("return 'a' =~ /a/", None).unwrap_err();
    assert!(cause(&e).1.starts_with("Regexes are disabled."), "{e}");
}

#[test]
fn empty_script_is_a_compile_error() {
    let e = Script::compile("", None).unwrap_err();
    assert_eq!(cause(&e).1, "Cannot generate an empty script.");
    assert!(Script::compile("  ;  ", None).is_err());
}

#[test]
fn other_languages_are_refused() {
    let e = Script::compile("1", Some("expression")).unwrap_err();
    assert_eq!(e.kind, crate::error::ErrorKind::IllegalArgument);
    assert_eq!(e.reason, "script_lang not supported [expression]");
    assert_eq!(
        e.to_json(),
        json!({"type": "illegal_argument_exception", "reason": "script_lang not supported [expression]"})
    );
}

#[test]
fn null_pointer_shows_the_statement() {
    let src = "int x = 1; ctx._source.missing.x = 1; ctx._source.b = 2";
    let e = error(src);
    assert_eq!(e.reason, "runtime error");
    assert_eq!(
        cause(&e),
        ("null_pointer_exception".into(), "cannot access method/field [x] from a null def reference".into())
    );
    let dot = src.find(".x").unwrap();
    assert_eq!(e.position, Some((dot, 11, 38)));
    assert_eq!(
        e.script_stack,
        vec!["ctx._source.missing.x = 1; ".to_string(), format!("{}^---- HERE", " ".repeat(dot - 11))]
    );
    let body = e.to_json();
    assert_eq!(body["script"], json!(src));
    assert_eq!(body["lang"], json!("painless"));
    assert_eq!(body["caused_by"]["type"], json!("null_pointer_exception"));
}

#[test]
fn runtime_error_kinds() {
    let cases: &[(&str, &str)] = &[
        ("ctx._source.list[5] = 1", "index_out_of_bounds_exception"),
        ("def l = ctx._source.list; l.get(2)", "index_out_of_bounds_exception"),
        ("ctx._source.list.remove(9)", "index_out_of_bounds_exception"),
        ("ctx._source.list.remove('x')", "class_cast_exception"),
        ("int x = ctx._source.s", "class_cast_exception"),
        ("int x = 1L", "class_cast_exception"),
        ("if (ctx._source.a) { }", "class_cast_exception"),
        ("ctx._source.a = ctx._source.nope + 1", "null_pointer_exception"),
        ("ctx._source.a = ctx._source.s - 1", "class_cast_exception"),
        ("ctx._source.s.nothing()", "illegal_argument_exception"),
        ("ctx._source.a = 1 / 0", "arithmetic_exception"),
        ("ctx._source.a = 'abc'.substring(5)", "string_index_out_of_bounds_exception"),
        ("ctx._source.a = Integer.parseInt('x')", "number_format_exception"),
        ("ctx._source = 5", "class_cast_exception"),
        ("for (def x : ctx._source.a) {}", "illegal_argument_exception"),
    ];
    for (src, kind) in cases {
        let e = error(src);
        assert_eq!(e.reason, "runtime error", "{src}");
        assert_eq!(cause(&e).0, *kind, "{src}: {e}");
    }
}

#[test]
fn loop_counter_limit() {
    for src in [
        "while (true) {}",
        "for (;;) { int y = 5; }",
        "int i = 0; do { i++ } while (true)",
        "def l = [1]; while (true) { l.size() }",
    ] {
        let e = eval_with(src, json!({})).unwrap_err();
        assert_eq!(e.reason, "runtime error", "{src}");
        assert_eq!(
            cause(&e),
            (
                "painless_error".into(),
                "The maximum number of statements that can be executed in a loop has been reached.".into()
            ),
            "{src}"
        );
    }
    // Just under the limit is fine: 999,999 iterations of a one-statement body.
    assert_eq!(eval_with("int i = 0; while (i < 999999) { i++ } return i", json!({})).unwrap(), json!(999_999));
}

#[test]
fn deep_nesting_is_a_compile_error_not_a_crash() {
    let deep = format!("return {}1{}", "(".repeat(10_000), ")".repeat(10_000));
    let e = Script::compile(&deep, None).unwrap_err();
    assert!(cause(&e).1.contains("nested too deeply"), "{e}");
    let chain = format!("return 1{}", " + 1".repeat(10_000));
    assert!(Script::compile(&chain, None).is_err());
    let blocks = format!("{}{}", "if (true) {".repeat(5_000), "}".repeat(5_000));
    assert!(Script::compile(&blocks, None).is_err());
    let unary = format!("return {}1", "-".repeat(10_000));
    assert!(Script::compile(&unary, None).is_err());
    // Moderate nesting still works.
    let fine = format!("return {}1{}", "(".repeat(20), ")".repeat(20));
    assert_eq!(eval_with(&fine, json!({})).unwrap(), json!(1));
}

#[test]
fn self_containing_lists_fail_cleanly() {
    let e = error("def l = []; l.add(l); ctx._source.l = l");
    assert_eq!(e.reason, "runtime error");
}

#[test]
fn nesting_limit_leaves_stack_headroom() {
    // Half the default thread stack: the nesting limit must trip long before the stack does.
    let handle = std::thread::Builder::new()
        .stack_size(1024 * 1024)
        .spawn(|| {
            for src in [
                format!("return {}1{}", "(".repeat(10_000), ")".repeat(10_000)),
                format!("return {}1", "!-~".repeat(5_000)),
                format!("return {}", "[".repeat(10_000)),
                format!("{}{}", "{".repeat(10_000), "}".repeat(10_000)),
                format!("return 1{}", " ?: 1".repeat(10_000)),
                format!("return {}1", "true ? 1 : ".repeat(10_000)),
                format!("def x = 1; x{}", " = x".repeat(10_000)),
            ] {
                assert!(Script::compile(&src, None).is_err());
            }
            // Just inside the limit compiles and runs.
            let mut depth = 1;
            while Script::compile(&format!("return {}1{}", "(".repeat(depth), ")".repeat(depth)), None).is_ok() {
                depth += 1;
            }
            let ok = format!("return {}1{}", "(".repeat(depth - 1), ")".repeat(depth - 1));
            eval_with(&ok, json!({})).unwrap()
        })
        .unwrap();
    assert_eq!(handle.join().unwrap(), json!(1));
}

#[test]
fn runaway_sizes_fail_instead_of_exhausting_memory() {
    let e = eval_with("String s = 'ab'; for (int i = 0; i < 40; i++) { s = s + s } return s.length()", json!({}))
        .unwrap_err();
    assert_eq!(e.reason, "runtime error");
    let e =
        eval_with("def l = [1]; for (int i = 0; i < 40; i++) { l.addAll(l) } return l.size()", json!({})).unwrap_err();
    assert_eq!(e.reason, "runtime error");
    // Shared sublists: a tiny script describing a 2^60-node tree.
    let e = eval_with("def x = [0]; for (int i = 0; i < 60; i++) { x = [x, x] } return x", json!({})).unwrap_err();
    assert_eq!(e.reason, "runtime error");
    let e = eval_with(
        "def x = [0]; def y = [0]; for (int i = 0; i < 60; i++) { x = [x, x]; y = [y, y] } return x == y",
        json!({}),
    );
    assert!(e.is_err() || e == Ok(json!(false)) || e == Ok(json!(true)));
}
