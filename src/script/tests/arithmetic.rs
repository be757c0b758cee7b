//! Java arithmetic: promotion, overflow, integer division, remainders, float results.

use serde_json::json;

use super::{cause, eval, eval_with, update};

#[test]
fn int_and_double_promotion() {
    assert_eq!(eval("return 1 + 1.5"), json!(2.5));
    assert_eq!(eval("return 10 / 4"), json!(2));
    assert_eq!(eval("return 10 / 4.0"), json!(2.5));
    assert_eq!(eval("return 10L / 4"), json!(2));
    assert_eq!(eval("return 1 + 1"), json!(2));
    assert_eq!(eval("return 2 * 1.0"), json!(2.0));
    assert_eq!(eval("return 1.5f + 1"), json!(2.5));
}

#[test]
fn integer_overflow_wraps() {
    assert_eq!(eval("return 2147483647 + 1"), json!(-2_147_483_648i64));
    assert_eq!(eval("return -2147483648 - 1"), json!(2_147_483_647));
    assert_eq!(eval("return 65536 * 65536"), json!(0));
    assert_eq!(eval("return 65536L * 65536"), json!(4_294_967_296i64));
    assert_eq!(eval("return 9223372036854775807L + 1"), json!(i64::MIN));
    assert_eq!(eval("return -(-2147483648)"), json!(i32::MIN));
    assert_eq!(eval("return -2147483648 / -1"), json!(i32::MIN));
    assert_eq!(eval("return -2147483648 % -1"), json!(0));
}

#[test]
fn division_and_remainder_truncate_toward_zero() {
    assert_eq!(eval("return -7 / 2"), json!(-3));
    assert_eq!(eval("return -7 % 2"), json!(-1));
    assert_eq!(eval("return 7 % -2"), json!(1));
    assert_eq!(eval("return 7.5 % 2"), json!(1.5));
    assert_eq!(eval("return -7.5 % 2"), json!(-1.5));
}

#[test]
fn division_by_zero() {
    let e = eval_with("return 1 / 0", json!({})).unwrap_err();
    assert_eq!(e.reason, "runtime error");
    assert_eq!(cause(&e), ("arithmetic_exception".into(), "/ by zero".into()));
    let e = eval_with("return 1L % 0L", json!({})).unwrap_err();
    assert_eq!(cause(&e).0, "arithmetic_exception");
    // Doubles divide to infinity, which JSON cannot hold: it comes back as null.
    assert_eq!(eval("return 1.0 / 0"), json!(null));
    assert_eq!(eval("return 1.0 / 0 > 1e308"), json!(true));
}

#[test]
fn field_arithmetic_keeps_json_number_kinds() {
    assert_eq!(update("ctx._source.c += 1", json!({"c": 41})), json!({"c": 42}));
    assert_eq!(update("ctx._source.c += 1", json!({"c": 1.5})), json!({"c": 2.5}));
    assert_eq!(update("ctx._source.c++", json!({"c": 1})), json!({"c": 2}));
    assert_eq!(update("ctx._source.c *= 2", json!({"c": 3_000_000_000i64})), json!({"c": 6_000_000_000i64}));
    assert_eq!(update("ctx._source.c = ctx._source.c / 2", json!({"c": 5})), json!({"c": 2}));
    assert_eq!(update("ctx._source.c = ctx._source.c / 2", json!({"c": 5.0})), json!({"c": 2.5}));
    // An int field that overflows wraps, as in Java.
    assert_eq!(update("ctx._source.c += 1", json!({"c": 2_147_483_647})), json!({"c": -2_147_483_648i64}));
}

#[test]
fn comparisons_promote() {
    assert_eq!(eval("return 1 < 1.5 && 2L > 1 && 1.0 == 1"), json!(true));
    assert_eq!(eval("double n = 0.0 / 0; return n < 1 || n > 1 || n == n"), json!(false));
}

#[test]
fn java_double_to_string() {
    assert_eq!(eval("return '' + 0.001"), json!("0.001"));
    assert_eq!(eval("return '' + 0.0001"), json!("1.0E-4"));
    assert_eq!(eval("return '' + 1234567.0"), json!("1234567.0"));
    assert_eq!(eval("return '' + 12345678.0"), json!("1.2345678E7"));
    assert_eq!(eval("return '' + (0.0 / 0)"), json!("NaN"));
    assert_eq!(eval("return '' + -0.0"), json!("-0.0"));
    assert_eq!(eval("return '' + 0.1f"), json!("0.1"));
}
