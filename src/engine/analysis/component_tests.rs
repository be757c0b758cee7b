//! Tests of `_analyze` (resolution, explain, text arrays, limits, errors), of building from
//! index settings, and property tests of the chain machinery against simple models.

use proptest::prelude::*;
use serde_json::{json, Value};

use super::char_filters::{CharFilter, MappingCharFilter};
use super::porter::porter_stem;
use super::{analyze, AnalysisError, FieldAnalysis, IndexAnalysis};

fn run(request: Value) -> Result<Value, AnalysisError> {
    analyze(&request, None, &|_| None, 10_000)
}

fn terms(response: &Value) -> Vec<String> {
    response["tokens"]
        .as_array()
        .map(|t| t.iter().map(|t| t["token"].as_str().unwrap_or("").to_owned()).collect())
        .unwrap_or_default()
}

fn error(result: Result<Value, AnalysisError>) -> (crate::error::ErrorKind, String) {
    let e = result.expect_err("the request fails");
    (e.kind, e.reason)
}

#[test]
fn story_analyze_standard() {
    let response = run(json!({"analyzer": "standard", "text": "Moneyball, directed by Bennett Miller"})).unwrap();
    assert_eq!(
        response["tokens"][0],
        json!({"token": "moneyball", "start_offset": 0, "end_offset": 9, "type": "<ALPHANUM>", "position": 0})
    );
    assert_eq!(terms(&response), ["moneyball", "directed", "by", "bennett", "miller"]);
}

#[test]
fn text_array_continues_positions_and_offsets() {
    // OpenSearch's AnalyzeActionIT: a field with the simple analyzer and gap 100.
    let index = IndexAnalysis::from_settings(&json!({})).unwrap();
    let request = json!({"field": "simple", "text": ["THIS IS A TEST", "THE SECOND TEXT"]});
    let field = |name: &str| {
        (name == "simple").then(|| FieldAnalysis::Text { analyzer: "simple".into(), position_increment_gap: None })
    };
    let response = analyze(&request, Some(&index), &field, 10_000).unwrap();
    let tokens = response["tokens"].as_array().unwrap();
    assert_eq!(tokens.len(), 7);
    assert_eq!(
        (tokens[3]["token"].as_str(), tokens[3]["position"].as_i64(), tokens[3]["start_offset"].as_i64()),
        (Some("test"), Some(3), Some(10))
    );
    assert_eq!(
        (
            tokens[5]["token"].as_str(),
            tokens[5]["position"].as_i64(),
            tokens[5]["start_offset"].as_i64(),
            tokens[5]["end_offset"].as_i64()
        ),
        (Some("second"), Some(105), Some(19), Some(25))
    );
    // The same through explain.
    let explained = analyze(
        &json!({"field": "simple", "explain": true, "text": ["THIS IS A TEST", "THE SECOND TEXT"]}),
        Some(&index),
        &field,
        10_000,
    )
    .unwrap();
    assert_eq!(explained["detail"]["custom_analyzer"], json!(false));
    assert_eq!(explained["detail"]["analyzer"]["name"], json!("simple"));
    assert_eq!(explained["detail"]["analyzer"]["tokens"][5]["position"], json!(105));
}

#[test]
fn explain_shows_every_stage_with_attributes() {
    let response = run(json!({
        "explain": true, "text": "Foo buzz test", "tokenizer": "standard",
        "filter": ["lowercase", {"type": "stop", "stopwords": ["foo", "buzz"]}]
    }))
    .unwrap();
    let detail = &response["detail"];
    assert_eq!(detail["custom_analyzer"], json!(true));
    assert_eq!(detail["charfilters"], json!([]));
    assert_eq!(detail["tokenizer"]["name"], json!("standard"));
    assert_eq!(detail["tokenizer"]["tokens"][0]["token"], json!("Foo"));
    assert_eq!(detail["tokenfilters"][0]["name"], json!("lowercase"));
    assert_eq!(detail["tokenfilters"][1]["name"], json!("__anonymous__stop"));
    let last = &detail["tokenfilters"][1]["tokens"];
    assert_eq!(last.as_array().map(Vec::len), Some(1));
    assert_eq!(
        last[0],
        json!({"token": "test", "start_offset": 9, "end_offset": 13, "type": "<ALPHANUM>", "position": 2,
               "bytes": "[74 65 73 74]", "positionLength": 1, "termFrequency": 1})
    );
}

#[test]
fn explain_attributes_filter_and_keyword() {
    let response = run(json!({
        "explain": true, "attributes": ["keyword"], "text": "detailed output", "tokenizer": "standard",
        "filter": ["snowball"]
    }))
    .unwrap();
    let detail = &response["detail"];
    assert_eq!(
        detail["tokenizer"]["tokens"][0],
        json!({"token": "detailed", "start_offset": 0, "end_offset": 8, "type": "<ALPHANUM>", "position": 0})
    );
    assert_eq!(detail["tokenfilters"][0]["tokens"][0]["token"], json!("detail"));
    assert_eq!(detail["tokenfilters"][0]["tokens"][0]["keyword"], json!(false));
    assert!(detail["tokenfilters"][0]["tokens"][0].get("bytes").is_none());
}

#[test]
fn explain_char_filters() {
    let response =
        run(json!({"explain": true, "tokenizer": "keyword", "char_filter": ["html_strip"], "text": "<b>x</b>"}))
            .unwrap();
    assert_eq!(response["detail"]["charfilters"], json!([{"name": "html_strip", "filtered_text": ["x"]}]));
}

#[test]
fn max_token_count_is_enforced() {
    let index = IndexAnalysis::from_settings(&json!({})).unwrap();
    let ok =
        analyze(&json!({"analyzer": "standard", "text": "This should succeed"}), Some(&index), &|_| None, 3).unwrap();
    assert_eq!(terms(&ok), ["this", "should", "succeed"]);
    let expected = "The number of tokens produced by calling _analyze has exceeded the allowed maximum of [3]. This limit can be set by changing the [index.analyze.max_token_count] index level setting.";
    for explain in [false, true] {
        let request =
            json!({"analyzer": "standard", "explain": explain, "text": "This should fail as it exceeds limit"});
        let e = analyze(&request, Some(&index), &|_| None, 3).unwrap_err();
        assert_eq!((e.kind, e.reason.as_str()), (crate::error::ErrorKind::IllegalState, expected));
    }
}

#[test]
fn request_errors_have_opensearch_messages() {
    let cases = [
        (json!({"tokenizer": "nope", "text": "x"}), "illegal_argument_exception", "failed to find global tokenizer under [nope]"),
        (json!({"tokenizer": "standard", "filter": ["nope"], "text": "x"}), "illegal_argument_exception", "failed to find global filter under [nope]"),
        (json!({"analyzer": "nope", "text": "x"}), "illegal_argument_exception", "failed to find global analyzer [nope]"),
        (json!({"analyzer": "standard"}), "action_request_validation_exception", "Validation Failed: 1: text is missing;"),
        (json!({"analyzer": "standard", "tokenizer": "standard", "text": "x"}), "action_request_validation_exception", "Validation Failed: 1: cannot define extra components on a named analyzer;"),
        (json!({"normalizer": "lowercase", "tokenizer": "standard", "text": "x"}), "action_request_validation_exception", "Validation Failed: 1: index is required if normalizer is specified;2: tokenizer/analyze should be null if normalizer is specified;3: cannot define extra components on a named normalizer;"),
        (json!({"field": "title", "text": "x"}), "illegal_argument_exception", "analysis based on a specific field requires an index"),
        (json!({"filter": ["porter_stem"], "text": "running"}), "illegal_argument_exception", "Custom normalizer may not use filter [porter_stem]"),
        (json!({"tokenizer": {"type": "ngram", "min_gram": 1, "max_gram": 5}, "text": "abc"}), "illegal_argument_exception", "The difference between max_gram and min_gram in NGram Tokenizer must be less than or equal to: [1] but was [4]. This limit can be set by changing the [index.max_ngram_diff] index level setting."),
        (json!({"tokenizer": {"max_gram": 5}, "text": "abc"}), "illegal_argument_exception", "Missing [type] setting for anonymous tokenizer: {\"max_gram\":5}"),
        (json!({"tokenizer": {"type": "nope"}, "text": "abc"}), "illegal_argument_exception", "failed to find global tokenizer under [nope]"),
    ];
    for (request, kind, reason) in cases {
        assert_eq!(
            {
                let (k, r) = error(run(request.clone()));
                (k.name().to_owned(), r)
            },
            (kind.to_owned(), reason.to_owned()),
            "{request}"
        );
    }
}

#[test]
fn filters_alone_make_a_normalizer() {
    let response = run(json!({"filter": ["lowercase"], "text": "ABC Def"})).unwrap();
    assert_eq!(
        response["tokens"],
        json!([{"token": "abc def", "start_offset": 0, "end_offset": 7, "type": "word", "position": 0}])
    );
}

#[test]
fn index_settings_build_custom_analyzers_and_normalizers() {
    let settings = json!({"index": {"analysis": {
        "char_filter": {"dash": {"type": "mapping", "mappings": ["- => _"]}},
        "tokenizer": {"commas": {"type": "pattern", "pattern": ","}},
        "filter": {"my_stop": {"type": "stop", "stopwords": ["b"]}},
        "analyzer": {
            "default": {"type": "custom", "tokenizer": "whitespace", "filter": ["uppercase"]},
            "csv": {"tokenizer": "commas", "char_filter": ["dash"], "filter": ["my_stop"], "position_increment_gap": 10}
        },
        "normalizer": {"lower": {"type": "custom", "filter": ["lowercase", "asciifolding"]}}
    }}});
    let index = IndexAnalysis::from_settings(&settings).unwrap();
    let field = |name: &str| match name {
        "tag" => Some(FieldAnalysis::Keyword { normalizer: Some("lower".into()) }),
        "n" => Some(FieldAnalysis::NotTokenized),
        _ => None,
    };
    let go = |request: Value| analyze(&request, Some(&index), &field, 10_000);
    assert_eq!(terms(&go(json!({"text": "a b"})).unwrap()), ["A", "B"], "the index default");
    assert_eq!(terms(&go(json!({"field": "unmapped", "text": "a b"})).unwrap()), ["A", "B"]);
    let csv = go(json!({"analyzer": "csv", "text": ["a-1,b,c", "d"]})).unwrap();
    assert_eq!(terms(&csv), ["a_1", "c", "d"]);
    assert_eq!(csv["tokens"][2]["position"], json!(13), "gap 10 after position 2");
    assert_eq!(terms(&go(json!({"field": "tag", "text": "Éclair"})).unwrap()), ["eclair"]);
    assert_eq!(terms(&go(json!({"normalizer": "lower", "text": "ÀB"})).unwrap()), ["ab"]);
    assert_eq!(
        error(go(json!({"field": "n", "text": "1"}))).1,
        "Can't process field [n], Analysis requests are only supported on tokenized fields"
    );
    assert_eq!(error(go(json!({"normalizer": "nope", "text": "1"}))).1, "failed to find normalizer under [nope]");
    assert_eq!(error(go(json!({"analyzer": "nope", "text": "1"}))).1, "failed to find analyzer [nope]");
    assert_eq!(error(go(json!({"tokenizer": "nope", "text": "1"}))).1, "failed to find tokenizer under [nope]");
    let registry = index.registry();
    assert!(registry.get("default_search").is_some() && registry.get("english").is_some());
    assert!(index.normalizer("lower").is_some());
}

#[test]
fn invalid_settings_are_rejected_with_opensearch_messages() {
    let cases = [
        (
            json!({"analysis": {"analyzer": {"a": {"tokenizer": "nope"}}}}),
            "Custom Analyzer [a] failed to find tokenizer under name [nope]",
        ),
        (
            json!({"analysis": {"analyzer": {"a": {"tokenizer": "standard", "filter": ["nope"]}}}}),
            "Custom Analyzer [a] failed to find filter under name [nope]",
        ),
        (
            json!({"analysis": {"analyzer": {"a": {"tokenizer": "standard", "char_filter": ["nope"]}}}}),
            "Custom Analyzer [a] failed to find char_filter under name [nope]",
        ),
        (
            json!({"analysis": {"analyzer": {"a": {"filter": ["lowercase"]}}}}),
            "analyzer [a] must specify either an analyzer type, or a tokenizer",
        ),
        (json!({"analysis": {"analyzer": {"a": {"type": "nope"}}}}), "Unknown analyzer type [nope] for [a]"),
        (
            json!({"analysis": {"analyzer": {"_a": {"type": "standard"}}}}),
            "analyzer name must not start with '_'. got \"_a\"",
        ),
        (json!({"analysis": {"filter": {"f": {"type": "nope"}}}}), "Unknown filter type [nope] for [f]"),
        (
            json!({"analysis": {"filter": {"f": {"stopwords": ["a"]}}}}),
            "filter [f] must specify either an analyzer type, or a tokenizer",
        ),
        (json!({"analysis": {"tokenizer": {"t": {"type": "nope"}}}}), "Unknown tokenizer type [nope] for [t]"),
        (
            json!({"analysis": {"normalizer": {"n": {"filter": ["porter_stem"]}}}}),
            "Custom normalizer [n] may not use filter [porter_stem]",
        ),
        (
            json!({"analysis": {"normalizer": {"n": {"tokenizer": "standard"}}}}),
            "Custom normalizer [n] cannot configure a tokenizer",
        ),
    ];
    for (settings, reason) in cases {
        let e = IndexAnalysis::from_settings(&settings).unwrap_err();
        assert_eq!((e.kind, e.reason.as_str()), (crate::error::ErrorKind::IllegalArgument, reason), "{settings}");
    }
}

#[test]
fn porter_matches_reference_vocabulary() {
    // From Porter's published voc.txt/output.txt.
    let pairs = [
        ("caresses", "caress"),
        ("ponies", "poni"),
        ("ties", "ti"),
        ("caress", "caress"),
        ("cats", "cat"),
        ("feed", "feed"),
        ("agreed", "agre"),
        ("plastered", "plaster"),
        ("bled", "bled"),
        ("motoring", "motor"),
        ("sing", "sing"),
        ("conflated", "conflat"),
        ("troubled", "troubl"),
        ("sized", "size"),
        ("hopping", "hop"),
        ("tanned", "tan"),
        ("falling", "fall"),
        ("hissing", "hiss"),
        ("fizzed", "fizz"),
        ("failing", "fail"),
        ("filing", "file"),
        ("happy", "happi"),
        ("sky", "sky"),
        ("relational", "relat"),
        ("conditional", "condit"),
        ("rational", "ration"),
        ("valenci", "valenc"),
        ("digitizer", "digit"),
        ("conformabli", "conform"),
        ("radicalli", "radic"),
        ("differentli", "differ"),
        ("vileli", "vile"),
        ("analogousli", "analog"),
        ("vietnamization", "vietnam"),
        ("predication", "predic"),
        ("operator", "oper"),
        ("feudalism", "feudal"),
        ("decisiveness", "decis"),
        ("hopefulness", "hope"),
        ("callousness", "callous"),
        ("formaliti", "formal"),
        ("sensitiviti", "sensit"),
        ("sensibiliti", "sensibl"),
        ("triplicate", "triplic"),
        ("formative", "form"),
        ("formalize", "formal"),
        ("electriciti", "electr"),
        ("electrical", "electr"),
        ("hopeful", "hope"),
        ("goodness", "good"),
        ("revival", "reviv"),
        ("allowance", "allow"),
        ("inference", "infer"),
        ("airliner", "airlin"),
        ("gyroscopic", "gyroscop"),
        ("adjustable", "adjust"),
        ("defensible", "defens"),
        ("irritant", "irrit"),
        ("replacement", "replac"),
        ("adjustment", "adjust"),
        ("dependent", "depend"),
        ("adoption", "adopt"),
        ("homologou", "homolog"),
        ("communism", "commun"),
        ("activate", "activ"),
        ("angulariti", "angular"),
        ("homologous", "homolog"),
        ("effective", "effect"),
        ("bowdlerize", "bowdler"),
        ("probate", "probat"),
        ("rate", "rate"),
        ("cease", "ceas"),
        ("controll", "control"),
        ("roll", "roll"),
        ("generalizations", "gener"),
        ("oscillators", "oscil"),
        ("a", "a"),
        ("is", "is"),
        ("by", "by"),
    ];
    for (word, stem) in pairs {
        assert_eq!(porter_stem(word), stem, "{word}");
    }
}

proptest! {
    /// Mapping corrections send every output offset inside an unchanged run back to the same
    /// character of the input, whatever the replacements around it.
    #[test]
    fn mapping_offsets_point_back_to_the_input(parts in proptest::collection::vec(prop_oneof![Just("ab"), Just("x"), Just("é"), Just("-"), Just("yy")], 0..20)) {
        let text: String = parts.concat();
        let filter = MappingCharFilter::from_rules(&["ab => Q".to_owned(), "- => ---".to_owned(), "yy => ".to_owned()]).unwrap();
        let (out, correction) = filter.filter(&text);
        // Every 'x' and 'é' of the output maps to an 'x'/'é' of the input, in order.
        let kept_out: Vec<(usize, char)> = out.char_indices().filter(|(_, c)| *c == 'x' || *c == 'é').collect();
        let kept_in: Vec<(usize, char)> = text.char_indices().filter(|(_, c)| *c == 'x' || *c == 'é').collect();
        prop_assert_eq!(kept_out.len(), kept_in.len());
        for ((o, c), (i, d)) in kept_out.iter().zip(&kept_in) {
            prop_assert_eq!(c, d);
            prop_assert_eq!(correction.correct(*o), *i);
        }
        prop_assert!(correction.correct(out.len()) <= text.len());
    }

    /// Arbitrary requests never panic: they answer or fail with an error.
    #[test]
    fn analyze_never_panics(text in "\\PC{0,40}", tokenizer in prop_oneof![Just("standard"), Just("whitespace"), Just("ngram"), Just("path_hierarchy"), Just("uax_url_email"), Just("letter")],
                            filter in prop_oneof![Just("lowercase"), Just("asciifolding"), Just("word_delimiter_graph"), Just("shingle"), Just("cjk_bigram"), Just("porter_stem"), Just("edge_ngram"), Just("unique"), Just("decimal_digit"), Just("cjk_width")],
                            explain in any::<bool>()) {
        let response = run(json!({"tokenizer": tokenizer, "filter": [filter], "char_filter": ["html_strip"], "text": [text.clone(), text], "explain": explain}));
        prop_assert!(response.is_ok());
    }

    /// The standard analyzer through `_analyze` gives exactly the engine's tokens.
    #[test]
    fn analyze_agrees_with_the_engine(text in "[a-zA-Z0-9 ,.'é]{0,60}") {
        let response = run(json!({"analyzer": "standard", "text": text.clone()})).unwrap();
        let mut engine = Vec::new();
        super::StandardAnalyzer::default().analyze_collect(&text, &mut engine);
        prop_assert_eq!(terms(&response), engine);
    }
}

impl super::StandardAnalyzer {
    fn analyze_collect(&self, text: &str, out: &mut Vec<String>) {
        use super::Analyzer;
        self.analyze(text, 0, &mut |t| out.push(t.term.to_owned()));
    }
}
