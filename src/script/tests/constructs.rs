use serde_json::json;

use super::{eval, eval_with, update, update_with};

#[test]
fn sets_nested_fields_and_keeps_integers() {
    assert_eq!(update("ctx._source.counter += 1", json!({"counter": 1})), json!({"counter": 2}));
    assert_eq!(update("ctx._source.a.b = 1", json!({"a": {}})), json!({"a": {"b": 1}}));
    assert_eq!(update("ctx._source['x'] = 'y'", json!({})), json!({"x": "y"}));
    assert_eq!(update("ctx._source.x = 1.5", json!({})), json!({"x": 1.5}));
    assert_eq!(update("ctx._source.year += 1900", json!({"year": 91})), json!({"year": 1991}));
    let out = update("ctx._source.big = 3000000000L + 1", json!({}));
    assert_eq!(out, json!({"big": 3000000001i64}));
}

#[test]
fn remove_and_contains_key() {
    assert_eq!(update("ctx._source.remove('f')", json!({"f": 1, "g": 2})), json!({"g": 2}));
    let src = "if (ctx._source.containsKey('f')) { ctx._source.had = true } else { ctx._source.had = false }";
    assert_eq!(update(src, json!({"f": 1})), json!({"f": 1, "had": true}));
    assert_eq!(update(src, json!({})), json!({"had": false}));
}

#[test]
fn list_methods() {
    let ctx = update_with("ctx._source.tags.add(params.tag)", json!({"tags": ["a"]}), json!({"tag": "b"})).unwrap();
    assert_eq!(ctx.source["tags"], json!(["a", "b"]));
    assert_eq!(update("ctx._source.l.remove(0)", json!({"l": [1, 2, 3]})), json!({"l": [2, 3]}));
    let src = "int i = ctx._source.tags.indexOf('b'); if (i >= 0) { ctx._source.tags.remove(i) }";
    assert_eq!(update(src, json!({"tags": ["a", "b", "c"]})), json!({"tags": ["a", "c"]}));
    assert_eq!(eval("def l = [1, 2, 3]; return l.contains(2)"), json!(true));
    assert_eq!(eval("def l = [1, 2, 3]; return l.contains(5)"), json!(false));
    assert_eq!(eval("def l = [1, 2, 3]; return l.size()"), json!(3));
    assert_eq!(eval("def l = [1, 2, 3]; return l.get(1)"), json!(2));
    assert_eq!(eval("def l = [1, 2, 3]; l.set(0, 9); return l"), json!([9, 2, 3]));
    assert_eq!(eval("def l = [1, 2, 3]; l.add(1, 7); return l"), json!([1, 7, 2, 3]));
    assert_eq!(eval("def l = [1]; l.addAll([2, 3]); return l"), json!([1, 2, 3]));
    assert_eq!(eval("def l = [1, 2, 3]; return l[-1]"), json!(3));
    assert_eq!(eval("def l = [1, 2]; l[0] = 5; return l"), json!([5, 2]));
    assert_eq!(eval("return [1, 2].isEmpty() || [].isEmpty()"), json!(true));
    assert_eq!(eval("return ['a', 'b'].join('-')"), json!("a-b"));
    assert_eq!(eval("return String.join(',', ['a', 'b'])"), json!("a,b"));
    assert_eq!(eval("def l = [1, 2]; l.clear(); return l"), json!([]));
}

#[test]
fn list_reference_semantics() {
    let out = update("def t = ctx._source.tags; t.add('z')", json!({"tags": []}));
    assert_eq!(out, json!({"tags": ["z"]}));
    let out = update(
        "def copy = new ArrayList(ctx._source.tags); copy.add('z'); ctx._source.n = copy.size()",
        json!({"tags": ["a"]}),
    );
    assert_eq!(out, json!({"tags": ["a"], "n": 2}));
}

#[test]
fn map_methods() {
    assert_eq!(eval("def m = ['a': 1]; return m.get('a')"), json!(1));
    assert_eq!(eval("def m = ['a': 1]; return m.get('b')"), json!(null));
    assert_eq!(eval("def m = [:]; m.put('k', 'v'); return m"), json!({"k": "v"}));
    assert_eq!(eval("def m = ['a': 1]; return m.put('a', 2)"), json!(1));
    assert_eq!(eval("def m = ['a': 1, 'b': 2]; return m.keySet()"), json!(["a", "b"]));
    assert_eq!(eval("def m = ['a': 1, 'b': 2]; return m.values()"), json!([1, 2]));
    assert_eq!(eval("def m = ['a': 1]; return m.size()"), json!(1));
    assert_eq!(eval("def m = ['a': 1]; return m.getOrDefault('z', 7)"), json!(7));
    assert_eq!(eval("def m = ['a': 1]; m.putAll(['b': 2]); return m"), json!({"a": 1, "b": 2}));
    assert_eq!(eval("def m = ['a': ['b': 3]]; return m.a.b + m['a']['b']"), json!(6));
    assert_eq!(eval("def m = new HashMap(); m.x = 1; return m"), json!({"x": 1}));
    assert_eq!(eval("Map m = [:]; return m.isEmpty()"), json!(true));
}

#[test]
fn string_methods() {
    assert_eq!(eval("return 'hello'.length()"), json!(5));
    assert_eq!(eval("return 'hello'.contains('ell')"), json!(true));
    assert_eq!(eval("return 'hello'.startsWith('he') && 'hello'.endsWith('lo')"), json!(true));
    assert_eq!(eval("return 'hello'.indexOf('l')"), json!(2));
    assert_eq!(eval("return 'hello'.substring(1, 3)"), json!("el"));
    assert_eq!(eval("return 'hello'.substring(2)"), json!("llo"));
    assert_eq!(eval("return 'Hello'.toUpperCase() + 'Hello'.toLowerCase()"), json!("HELLOhello"));
    assert_eq!(eval("return '  x '.trim()"), json!("x"));
    assert_eq!(eval("return 'a-b'.replace('-', '+')"), json!("a+b"));
    assert_eq!(eval("return 'a,b'.splitOnToken(',')"), json!(["a", "b"]));
    assert_eq!(eval("return \"double \\\" quoted\""), json!("double \" quoted"));
    assert_eq!(eval("return 'it\\'s'"), json!("it's"));
    // Java lengths are UTF-16 units.
    assert_eq!(eval("return '😀'.length()"), json!(2));
}

#[test]
fn string_concatenation() {
    assert_eq!(eval("return 'a' + 1"), json!("a1"));
    assert_eq!(eval("return 1 + 2 + 'a'"), json!("3a"));
    assert_eq!(eval("return 'a' + 1 + 2"), json!("a12"));
    assert_eq!(eval("return 'x' + 1.5 + true + null"), json!("x1.5truenull"));
    assert_eq!(eval("return 'x' + 1.0"), json!("x1.0"));
    assert_eq!(eval("return 'x' + 1e20"), json!("x1.0E20"));
    assert_eq!(eval("return '' + [1, 'a']"), json!("[1, a]"));
    assert_eq!(eval("return '' + ['k': 1]"), json!("{k=1}"));
    assert_eq!(update("ctx._source.name += '!'", json!({"name": "a"})), json!({"name": "a!"}));
}

#[test]
fn params_and_ctx_fields() {
    let src = "ctx._source.id = ctx._id; ctx._source.index = ctx._index; ctx._source.v = ctx._version; \
               ctx._source.now = ctx._now; ctx._source.r = ctx._routing; ctx._source.p = params.x";
    let ctx = update_with(src, json!({}), json!({"x": [1]})).unwrap();
    assert_eq!(
        serde_json::Value::Object(ctx.source),
        json!({"id": "1", "index": "test", "v": 3, "now": 1_700_000_000_000i64, "r": null, "p": [1]})
    );
    assert_eq!(eval_with("return params['a'] * 2", json!({"a": 21})).unwrap(), json!(42));
}

#[test]
fn ctx_op() {
    for op in ["noop", "delete", "index", "none"] {
        let ctx = update_with(&format!("ctx.op = '{op}'"), json!({"a": 1}), json!({})).unwrap();
        assert_eq!(ctx.op, op);
    }
    let ctx = update_with(
        "if (ctx._source.a == 1) { ctx.op = 'noop' } else { ctx._source.a = 1 }",
        json!({"a": 1}),
        json!({}),
    )
    .unwrap();
    assert_eq!(ctx.op, "noop");
    let ctx = update_with("ctx._source.a = 2", json!({"a": 1}), json!({})).unwrap();
    assert_eq!(ctx.op, "index");
}

#[test]
fn replacing_the_whole_source() {
    assert_eq!(update("ctx._source = ['fresh': true]", json!({"old": 1})), json!({"fresh": true}));
}

#[test]
fn literals() {
    assert_eq!(eval("return [1, 2]"), json!([1, 2]));
    assert_eq!(eval("return [:]"), json!({}));
    assert_eq!(eval("return ['a': 1, 'b': [true, null]]"), json!({"a": 1, "b": [true, null]}));
    assert_eq!(eval("return 0x10 + 010 + 1L"), json!(25));
    assert_eq!(eval("return 1.5f"), json!(1.5));
    assert_eq!(eval("return 2d"), json!(2.0));
    assert_eq!(eval("return -2147483648"), json!(i32::MIN));
    assert_eq!(eval("return -9223372036854775808L"), json!(i64::MIN));
    assert_eq!(eval("return .5"), json!(0.5));
    assert_eq!(eval("return 1e3"), json!(1000.0));
}

#[test]
fn declarations_and_types() {
    assert_eq!(eval("int x = 1; def y; return y == null ? x : 0"), json!(1));
    assert_eq!(
        eval("int x; long y; double z; boolean b; String s; return [x, y, z, b, s]"),
        json!([0, 0, 0.0, false, null])
    );
    assert_eq!(eval("double d = 1; return d"), json!(1.0));
    assert_eq!(eval("long l = 1; return l + 2147483647"), json!(2_147_483_648i64));
    assert_eq!(eval("int x = 1; x += 1.5; return x"), json!(2));
    assert_eq!(eval("int a = 1, b = 2; return a + b"), json!(3));
    assert_eq!(eval("var v = 'x'; return v"), json!("x"));
    assert_eq!(eval("return (int) 2.9"), json!(2));
    assert_eq!(eval("return (int) -2.9"), json!(-2));
    assert_eq!(eval("return (long) 1e30"), json!(i64::MAX));
    assert_eq!(eval("return (int) 3000000000L"), json!(-1_294_967_296i64));
    assert_eq!(eval("return (double) 1 / 2"), json!(0.5));
    assert_eq!(eval("return (byte) 200"), json!(-56));
    assert_eq!(eval("return 1 instanceof Integer && 'a' instanceof String && !(1L instanceof Integer)"), json!(true));
}

#[test]
fn block_scoping() {
    assert_eq!(eval("int x = 1; if (true) { int y = x + 1; x = y; } return x"), json!(2));
    assert_eq!(eval("for (int i = 0; i < 2; i++) { int t = i; } for (int i = 0; i < 1; i++) { } return 0"), json!(0));
}

#[test]
fn control_flow() {
    assert_eq!(eval("int s = 0; for (int i = 0; i < 10; i++) { s += i } return s"), json!(45));
    assert_eq!(eval("int s = 0; for (def x : [1, 2, 3]) { s += x } return s"), json!(6));
    assert_eq!(eval("int s = 0; for (x in [1, 2, 3]) { s += x } return s"), json!(6));
    assert_eq!(eval("int i = 0; while (i < 5) { i++ } return i"), json!(5));
    assert_eq!(eval("int i = 0; do { i += 2 } while (i < 5); return i"), json!(6));
    assert_eq!(
        eval("int s = 0; for (int i = 0; i < 10; i++) { if (i == 5) { break; } if (i % 2 == 0) { continue; } s += i; } return s"),
        json!(4)
    );
    assert_eq!(eval("for (int i = 0; ; i++) { if (i == 3) { return i; } } return -1"), json!(3));
    assert_eq!(eval("if (false) return 1; else if (true) return 2; else return 3"), json!(2));
    assert_eq!(eval("int i = 0; for (;;) { if (++i > 2) break; } return i"), json!(3));
    assert_eq!(eval("int s = 0; for (int i = 0, j = 10; i < j; i++, j--) { s++ } return s"), json!(5));
}

#[test]
fn operators() {
    assert_eq!(eval("return 1 < 2 && 2 <= 2 && 3 > 2 && 3 >= 3"), json!(true));
    assert_eq!(eval("return !(1 == 2) && 1 != 2"), json!(true));
    assert_eq!(eval("return 1 == 1L && 1 == 1.0 && 'a' == 'a' && null == null"), json!(true));
    assert_eq!(eval("return [1, 2] == [1, 2] && ['a': 1] == ['a': 1]"), json!(true));
    assert_eq!(eval("def a = [1]; def b = [1]; return (a === b) + ',' + (a === a)"), json!("false,true"));
    assert_eq!(eval("return false || true"), json!(true));
    assert_eq!(eval("return true ? 1 : 2"), json!(1));
    assert_eq!(eval("return null ?: 'd'"), json!("d"));
    assert_eq!(eval("return 'v' ?: 'd'"), json!("v"));
    assert_eq!(eval("def m = null; return m?.a"), json!(null));
    assert_eq!(eval("def m = null; return m?.size()"), json!(null));
    assert_eq!(eval("def m = ['a': 1]; return m?.a"), json!(1));
    assert_eq!(eval("int x = 5; int y = x++; int z = ++x; return [x, y, z]"), json!([7, 5, 7]));
    assert_eq!(eval("int x = 5; x--; --x; return x"), json!(3));
    assert_eq!(eval("def x = 1; x -= 3; x *= 2; x /= 2; x %= 2; return x"), json!(0));
    assert_eq!(eval("return 1 << 3 | 1"), json!(9));
    assert_eq!(eval("return -16 >> 2"), json!(-4));
    assert_eq!(eval("return -16 >>> 28"), json!(15));
    assert_eq!(eval("return 6 & 3 ^ 1"), json!(3));
    assert_eq!(eval("return ~5"), json!(-6));
    assert_eq!(eval("return true & false | true"), json!(true));
    // Short-circuit: the right side is never evaluated.
    assert_eq!(eval("def m = null; return m != null && m.a == 1"), json!(false));
}

#[test]
fn statics() {
    assert_eq!(eval("return Math.max(1, 2)"), json!(2.0));
    assert_eq!(eval("return Math.round(2.5)"), json!(3));
    assert_eq!(eval("return Math.abs(-3)"), json!(3.0));
    assert_eq!(eval("return Integer.MAX_VALUE + 1"), json!(i32::MIN));
    assert_eq!(eval("return Integer.parseInt('42') + 1"), json!(43));
    assert_eq!(eval("return Integer.max(3, 4)"), json!(4));
    assert_eq!(eval("return String.valueOf(12)"), json!("12"));
    assert_eq!(eval("return Long.MAX_VALUE"), json!(i64::MAX));
}

#[test]
fn comments_and_semicolons() {
    assert_eq!(eval("// line\nint x = 1; /* block */ return x;"), json!(1));
    assert_eq!(eval("int x = 1;;; return x"), json!(1));
    assert_eq!(eval("if (true) { return 1 }"), json!(1));
}

#[test]
fn number_methods() {
    assert_eq!(eval("def x = 2.7; return x.intValue()"), json!(2));
    assert_eq!(eval("def x = 2; return x.doubleValue()"), json!(2.0));
    assert_eq!(eval("def x = 2; return x.toString() + x.longValue()"), json!("22"));
}

#[test]
fn failed_scripts_leave_the_context_untouched() {
    let err =
        update_with("ctx._source.a = 2; ctx.op = 'delete'; ctx._source.missing.x = 1", json!({"a": 1}), json!({}));
    assert!(err.is_err());
    let script = crate::script::Script::compile("ctx._source.a = 2; ctx._source.missing.x = 1", None).unwrap();
    let mut ctx = crate::script::UpdateContext::new("i", "1", 1, super::obj(json!({"a": 1})));
    assert!(script.execute_update(&mut ctx, &serde_json::Map::new()).is_err());
    assert_eq!(ctx.source, super::obj(json!({"a": 1})));
    assert_eq!(ctx.op, "index");
}

#[test]
fn scripts_are_reusable_and_shareable() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<crate::script::Script>();
    let script = crate::script::Script::compile("ctx._source.n += 1", None).unwrap();
    let shared = script.clone();
    let handle = std::thread::spawn(move || {
        let mut ctx = crate::script::UpdateContext::new("i", "1", 1, super::obj(json!({"n": 1})));
        shared.execute_update(&mut ctx, &serde_json::Map::new()).map(|_| ctx.source)
    });
    let mut ctx = crate::script::UpdateContext::new("i", "1", 1, super::obj(json!({"n": 10})));
    script.execute_update(&mut ctx, &serde_json::Map::new()).unwrap();
    assert_eq!(ctx.source["n"], json!(11));
    assert_eq!(handle.join().unwrap().unwrap()["n"], json!(2));
}
