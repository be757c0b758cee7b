//! `doc[...]`, `_score`, `_value` and `params` in per-document search scripts.

use serde_json::{json, Value as Json};

use super::obj;
use crate::script::{DocLookup, DocValue, SearchScript};

/// A document as a map of field → values; `text` is mapped but has no doc values.
struct Doc(Vec<(&'static str, Vec<DocValue>)>);

impl DocLookup for Doc {
    fn load(&mut self, field: &str, out: &mut Vec<DocValue>) -> Result<(), (&'static str, String)> {
        match self.0.iter().find(|(f, _)| *f == field) {
            Some((_, v)) => {
                out.extend(v.iter().cloned());
                Ok(())
            }
            None => Err(("illegal_argument_exception", format!("No field found for [{field}] in mapping"))),
        }
    }
    fn contains(&self, field: &str) -> bool {
        self.0.iter().any(|(f, _)| *f == field)
    }
}

fn doc() -> Doc {
    Doc(vec![
        ("n", vec![DocValue::Long(3), DocValue::Long(7)]),
        ("d", vec![DocValue::Double(1.5)]),
        ("k", vec![DocValue::Str("a".into()), DocValue::Str("b".into())]),
        ("none", vec![]),
    ])
}

fn run(src: &str) -> Result<Json, String> {
    let s = SearchScript::compile(src, None).map_err(|e| e.to_json().to_string())?;
    s.execute(&obj(json!({"x": 10})), &mut doc(), 2.5, Some(&DocValue::Long(4))).map_err(|e| e.to_json().to_string())
}

#[test]
fn doc_value_forms() {
    assert_eq!(run("doc['n'].value").unwrap(), json!(3));
    assert_eq!(run("doc['n'].getValue()").unwrap(), json!(3));
    assert_eq!(run("doc.n.value").unwrap(), json!(3));
    assert_eq!(run("doc.get('n').value").unwrap(), json!(3));
    assert!(run("def v = doc['n']; v.value").unwrap_err().contains("dynamic getter"));
    assert_eq!(run("doc['n'][1]").unwrap(), json!(7));
    assert_eq!(run("doc['n'].get(1)").unwrap(), json!(7));
    assert_eq!(run("doc['n'].size()").unwrap(), json!(2));
    assert_eq!(run("doc['n'].values").unwrap(), json!([3, 7]));
    assert_eq!(run("doc['n'].getValues()").unwrap(), json!([3, 7]));
    assert_eq!(run("doc['none'].empty").unwrap(), json!(true));
    assert_eq!(run("doc['none'].size() == 0").unwrap(), json!(true));
    assert_eq!(run("doc['n'].empty").unwrap(), json!(false));
    assert_eq!(run("doc['k'].value + doc['k'][1]").unwrap(), json!("ab"));
    assert_eq!(run("doc['d'].value * 2").unwrap(), json!(3.0));
    assert_eq!(run("doc.containsKey('n')").unwrap(), json!(true));
    assert_eq!(run("doc.containsKey('zz')").unwrap(), json!(false));
    assert_eq!(run("long t = 0; for (def v : doc['n']) { t += v } return t").unwrap(), json!(10));
}

#[test]
fn score_value_params() {
    assert_eq!(run("_score * 2").unwrap(), json!(5.0));
    assert_eq!(run("_value + params.x").unwrap(), json!(14));
    assert_eq!(run("params['x'] + doc['n'].value").unwrap(), json!(13));
    let s = SearchScript::compile("_score", None).unwrap();
    assert!(s.uses_score() && !s.uses_value());
    let s = SearchScript::compile("_value * 2", None).unwrap();
    assert!(!s.uses_score() && s.uses_value());
}

#[test]
fn doc_errors() {
    let e = run("doc['none'].value").unwrap_err();
    assert!(e.contains("illegal_state_exception") && e.contains("doesn't have a value"), "{e}");
    let e = run("doc['missing'].value").unwrap_err();
    assert!(e.contains("No field found for [missing] in mapping"), "{e}");
    let e = run("def d = doc; d['n']").unwrap_err();
    assert!(e.contains("[doc] can only be read"), "{e}");
    let e = run("def doc = 1; doc").unwrap_err();
    assert!(e.contains("variable [doc] is already defined"), "{e}");
    let e = run("_score = 1").unwrap_err();
    assert!(e.contains("read-only"), "{e}");
}

#[test]
fn agg_values_keep_java_types() {
    use crate::script::{AggItem, AggOut};
    let run = |src: &str| {
        let s = SearchScript::compile(src, None).unwrap();
        s.execute_agg(&obj(json!({})), &mut doc(), 0.0, None).unwrap()
    };
    assert_eq!(run("1 + 1"), AggOut::One(AggItem::Long(2)));
    assert_eq!(run("1.5 * 2"), AggOut::One(AggItem::Double(3.0)));
    assert_eq!(run("null"), AggOut::Null);
    assert_eq!(run("[1, 'a', null]"), AggOut::Many(vec![AggItem::Long(1), AggItem::Str("a".into()), AggItem::Null]));
    assert_eq!(AggItem::Double(2.0).java_string().as_deref(), Some("2.0"));
    assert_eq!(AggItem::Long(2).java_string().as_deref(), Some("2"));
    assert_eq!(AggItem::Date(0, 0).java_string().as_deref(), Some("1970-01-01T00:00:00.000Z"));
    assert_eq!(AggItem::Null.java_string(), None);
}

#[test]
fn dates_from_doc_values() {
    // 2017-01-01T12:11:12.345Z
    let mut d = Doc(vec![("t", vec![DocValue::Date(1_483_272_672_345, 0)])]);
    let run = |src: &str, d: &mut Doc| {
        let s = SearchScript::compile(src, None).unwrap();
        s.execute(&obj(json!({})), d, 0.0, None).map_err(|e| e.to_json().to_string())
    };
    assert_eq!(run("doc['t'].value.millis", &mut d).unwrap(), json!(1_483_272_672_345i64));
    assert_eq!(run("doc['t'].value.getMillis()", &mut d).unwrap(), json!(1_483_272_672_345i64));
    assert_eq!(run("doc['t'].value.year * 100 + doc['t'].value.getMonthValue()", &mut d).unwrap(), json!(201701));
    assert_eq!(run("doc['t'].value.getDayOfMonth() + doc['t'].value.getHour()", &mut d).unwrap(), json!(13));
    assert_eq!(run("doc['t'].value.dayOfWeek", &mut d).unwrap(), json!(7));
    assert_eq!(run("'' + doc['t'].value", &mut d).unwrap(), json!("2017-01-01T12:11:12.345Z"));
    assert_eq!(run("doc['t'].value.toEpochSecond()", &mut d).unwrap(), json!(1_483_272_672i64));
    assert_eq!(run("doc['t'].value == doc['t'].value", &mut d).unwrap(), json!(true));
    assert!(run("doc['t'].value.plusDays(1)", &mut d).unwrap_err().contains("JodaCompatibleZonedDateTime, plusDays/1"));
}
