use std::sync::Arc;

use proptest::prelude::*;

use super::char_tokenizers::{CharClass, CharTokenizer};
use super::filters::lowercase_char;
use super::token_stream::drive;
use super::*;

/// What a test sees of a token: term, byte offsets, type, position.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Tok {
    term: String,
    start: usize,
    end: usize,
    token_type: &'static str,
    position: u32,
}

fn collect(analyzer: &dyn Analyzer, text: &str) -> (Vec<Tok>, AnalyzeEnd) {
    let mut out = Vec::new();
    let end = analyzer.analyze(text, 0, &mut |t| {
        out.push(Tok {
            term: t.term.to_owned(),
            start: t.start,
            end: t.end,
            token_type: t.token_type,
            position: t.position,
        })
    });
    (out, end)
}

fn tokenize(text: &str, max: usize, general: bool) -> Vec<Tok> {
    let mut tokenizer = StandardTokenizer::new(text, max);
    if general {
        tokenizer = tokenizer.with_general_path();
    }
    let mut out = Vec::new();
    drive(&mut tokenizer, 0, &mut |t| {
        out.push(Tok {
            term: t.term.to_owned(),
            start: t.start,
            end: t.end,
            token_type: t.token_type,
            position: t.position,
        })
    });
    out
}

fn terms(tokens: &[Tok]) -> Vec<&str> {
    tokens.iter().map(|t| t.term.as_str()).collect()
}

/// Replaces `\u{XXXX}` escapes by the characters they name.
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("\\u{") {
        out.push_str(&rest[..i]);
        let close = rest[i..].find('}').expect("escape is closed") + i;
        let code = u32::from_str_radix(&rest[i + 3..close], 16).expect("escape is hex");
        out.push(char::from_u32(code).expect("escape is a scalar value"));
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

struct GoldenCase {
    source: String,
    chain: String,
    input: String,
    expected: Vec<(String, usize, usize, String, u32)>,
}

fn golden_cases() -> Vec<GoldenCase> {
    let file = include_str!("../../../tests/golden/analysis/standard.txt");
    let mut cases = Vec::new();
    let mut current: Option<GoldenCase> = None;
    for line in file.lines() {
        if let Some(source) = line.strip_prefix("## ") {
            cases.extend(current.take());
            current = Some(GoldenCase {
                source: source.into(),
                chain: String::new(),
                input: String::new(),
                expected: vec![],
            });
        } else if line == "#" || line.starts_with("# ") {
            continue;
        } else if let Some(chain) = line.strip_prefix("@ ") {
            current.as_mut().expect("@ after ##").chain = chain.into();
        } else if let Some(input) = line.strip_prefix("> ") {
            current.as_mut().expect("> after ##").input = unescape(input);
        } else if line.trim().is_empty() {
            cases.extend(current.take());
        } else {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 5, "golden token line {line:?}");
            current.as_mut().expect("token after ##").expected.push((
                unescape(f[0]),
                f[1].parse().expect("start"),
                f[2].parse().expect("end"),
                f[3].into(),
                f[4].parse().expect("position"),
            ));
        }
    }
    cases.extend(current);
    cases
}

#[test]
fn golden_table_matches_lucene_and_opensearch() {
    let registry = AnalyzerRegistry::with_builtins();
    let cases = golden_cases();
    assert!(cases.len() >= 25, "parsed {} cases", cases.len());
    for case in cases {
        let words: Vec<&str> = case.chain.split_whitespace().collect();
        let mut paths = vec![];
        match words.as_slice() {
            ["tokenizer", "standard", rest @ ..] => {
                let max = rest
                    .first()
                    .and_then(|p| p.strip_prefix("max_token_length="))
                    .map_or(DEFAULT_MAX_TOKEN_LENGTH, |v| v.parse().expect("max_token_length"));
                paths.push(tokenize(&case.input, max, false));
                paths.push(tokenize(&case.input, max, true));
            }
            ["analyzer", name] => {
                let analyzer = registry.get(name).unwrap_or_else(|| panic!("no analyzer {name}"));
                paths.push(collect(analyzer.as_ref(), &case.input).0);
            }
            other => panic!("unknown chain {other:?}"),
        }
        for got in paths {
            let mut offsets = Utf16Offsets::new(&case.input);
            let got: Vec<(String, usize, usize, String, u32)> = got
                .iter()
                .map(|t| {
                    (
                        t.term.clone(),
                        offsets.to_utf16(t.start),
                        offsets.to_utf16(t.end),
                        t.token_type.to_owned(),
                        t.position,
                    )
                })
                .collect();
            assert_eq!(got, case.expected, "case {:?} ({}) on {:?}", case.source, case.chain, case.input);
        }
    }
}

#[test]
fn standard_tokenizer_offsets_slice_the_term() {
    let text = "Grüße, Ωmega 3.14 日本語 ไทยภาษา 👍🏽 x";
    for t in tokenize(text, 255, false) {
        assert_eq!(&text[t.start..t.end], t.term);
    }
}

#[test]
fn ascii_special_cases() {
    let cases: &[(&str, &[&str], &[&str])] = &[
        (
            "3.14 can't foo_bar a:b",
            &["3.14", "can't", "foo_bar", "a:b"],
            &["<NUM>", "<ALPHANUM>", "<ALPHANUM>", "<ALPHANUM>"],
        ),
        (
            "_ __ _a a_ 1_ _1_ 1_a",
            &["_a", "a_", "1_", "_1_", "1_a"],
            &["<ALPHANUM>", "<ALPHANUM>", "<NUM>", "<NUM>", "<ALPHANUM>"],
        ),
        ("a.1 1.a 1:2 1;2 a;b a,b 1'2", &["a", "1", "1", "a", "1", "2", "1;2", "a", "b", "a", "b", "1'2"], &[]),
        ("email@example.com http://x.org/a?b=c", &["email", "example.com", "http", "x.org", "a", "b", "c"], &[]),
    ];
    for (text, expected, types) in cases {
        for general in [false, true] {
            let got = tokenize(text, 255, general);
            assert_eq!(terms(&got), *expected, "{text:?} general={general}");
            if !types.is_empty() {
                let got_types: Vec<&str> = got.iter().map(|t| t.token_type).collect();
                assert_eq!(got_types, *types, "{text:?}");
            }
        }
    }
}

#[test]
fn unicode_cases() {
    let cases: &[(&str, &[&str], &[&str])] = &[
        // Combining marks stay with their base; a mark after a space is dropped with it.
        ("cafe\u{301} \u{301}x", &["cafe\u{301}", "x"], &["<ALPHANUM>", "<ALPHANUM>"]),
        // Hebrew: geresh/gershayim rules WB7a-c.
        ("צה\"ל א'", &["צה\"ל", "א'"], &["<ALPHANUM>", "<ALPHANUM>"]),
        // Katakana joined with `_` or a digit is ALPHANUM; Hangul with digits too.
        ("カタ_カナ 한국2", &["カタ_カナ", "한국2"], &["<ALPHANUM>", "<ALPHANUM>"]),
        // Khmer and Myanmar runs; Thai digits are NUM.
        ("ភាសាខ្មែរ မြန်မာ ๒๕๖๗", &["ភាសាខ្មែរ", "မြန်မာ", "๒๕๖๗"], &["<SOUTHEAST_ASIAN>", "<SOUTHEAST_ASIAN>", "<NUM>"]),
        // A lone regional indicator is dropped; three give one flag.
        ("\u{1F1FA} \u{1F1FA}\u{1F1F8}\u{1F1EB}", &["\u{1F1FA}\u{1F1F8}"], &["<EMOJI>"]),
        // Pictographs that Lucene's emoji data includes: © and ™.
        ("© ™", &["©", "™"], &["<EMOJI>", "<EMOJI>"]),
        // Letter ZWJ pictograph: WB3c joins them, Lucene's grammar splits after the ZWJ.
        ("a\u{200D}\u{1F600}", &["a\u{200D}", "\u{1F600}"], &["<ALPHANUM>", "<EMOJI>"]),
        // A ZWJ after a space starts an emoji token.
        (" \u{200D}\u{2B55}", &["\u{200D}\u{2B55}"], &["<EMOJI>"]),
        // Superscripts and fractions are not Numeric in UAX #29.
        ("x² ½", &["x"], &["<ALPHANUM>"]),
        // Inside a segment that is no token: a skin-tone modifier and a Thai mark start tokens.
        ("_\u{1F3FB}_\u{1F3FB}", &["\u{1F3FB}", "\u{1F3FB}"], &["<EMOJI>", "<EMOJI>"]),
        ("_\u{E31}_\u{E31}ก", &["\u{E31}", "\u{E31}ก"], &["<SOUTHEAST_ASIAN>", "<SOUTHEAST_ASIAN>"]),
        ("\u{3000}\u{3000}\u{200D}\u{1F600}\u{3000}", &["\u{200D}\u{1F600}"], &["<EMOJI>"]),
        // A keycap without the presentation selector; its `#` is ASCII (fast-path hand-over).
        ("a #\u{20E3}", &["a", "#\u{20E3}"], &["<ALPHANUM>", "<EMOJI>"]),
        // Hiragana is one token per character.
        ("ひらがな", &["ひ", "ら", "が", "な"], &["<HIRAGANA>"; 4]),
    ];
    for (text, expected, types) in cases {
        let got = tokenize(text, 255, true);
        assert_eq!(terms(&got), *expected, "{text:?}");
        assert_eq!(tokenize(text, 255, false), got, "fast path on {text:?}");
        let got_types: Vec<&str> = got.iter().map(|t| t.token_type).collect();
        assert_eq!(got_types, *types, "{text:?}");
    }
}

#[test]
fn max_token_length_splits_at_the_window() {
    // Lucene testMaxTokenLengthDefault: 255 b's is one token, 256 gives 255 + 1.
    let b = "b".repeat(255);
    let text = format!("x {b} {b}b");
    assert_eq!(terms(&tokenize(&text, 255, false)), ["x", b.as_str(), b.as_str(), "b"]);
    // The window holds the longest token that fits: "ab." has only "ab"; the rest rescans fresh.
    assert_eq!(terms(&tokenize("ab.cd", 3, false)), ["ab", "cd"]);
    assert_eq!(terms(&tokenize("dog's", 4, false)), ["dog", "s"]);
    // "123abc" cut to "123" is a number.
    let got = tokenize("123abc", 3, false);
    assert_eq!(terms(&got), ["123", "abc"]);
    assert_eq!(got[0].token_type, "<NUM>");
    // A window of only "_" matches nothing: skip it.
    assert_eq!(terms(&tokenize("_ab", 1, false)), ["a", "b"]);
    // Counted in UTF-16 units: each 𩬅 is two.
    assert_eq!(terms(&tokenize("ééééé", 2, true)), ["éé", "éé", "é"]);
    let thai = "การที่ได้";
    let got = tokenize(thai, 4, true);
    assert_eq!(got.iter().map(|t| utf16_len(&t.term)).collect::<Vec<_>>(), [4, 4, 1]);
    assert_eq!(got.iter().map(|t| t.term.as_str()).collect::<String>(), thai);
    // A split never makes an empty or out-of-range token, for every limit.
    for max in 1..12 {
        let text = "Brown-Foxes jumped 3.14159 カタカナ 한국어 ไทยภาษา 👩\u{200D}👩 __x";
        for t in tokenize(text, max, false) {
            assert!(!t.term.is_empty() && utf16_len(&t.term) <= max.max(2), "{max} {t:?}");
        }
    }
}

fn ascii_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("a"),
        Just("Z"),
        Just("x"),
        Just("0"),
        Just("7"),
        Just("."),
        Just(","),
        Just("'"),
        Just("_"),
        Just(":"),
        Just(";"),
        Just("@"),
        Just(" "),
        Just("-"),
        Just("\""),
        Just("\n"),
        Just("/"),
        Just("#"),
        Just("can't"),
        Just("3.14"),
        Just("foo_bar"),
        Just("a:b"),
        Just("\r\n"),
        Just("*"),
        Just("\t"),
    ];
    prop::collection::vec(piece, 0..40).prop_map(|v| v.concat())
}

fn mixed_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => ascii_text(),
        1 => prop::sample::select(vec![
            "é", "\u{301}", "’", "\u{2018}", "\u{200D}", "😀", "\u{20E3}", "\u{FE0F}", "\u{FE0E}", "中", "カ",
            "ก", "\u{E31}", "\u{1F1FA}", "한", "٣", "\u{A0}", "\u{FF3F}", "\u{AD}", "\u{1F3FB}", "©", "ひ",
            "\u{2028}", "\u{85}", "א", "\u{5F3}", "\u{2024}", "\u{FF0E}", "１",
        ])
        .prop_map(str::to_owned),
    ];
    prop::collection::vec(piece, 0..12).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// The ASCII fast path gives exactly the tokens of the general UAX #29 path.
    #[test]
    fn ascii_fast_path_equals_general_path(text in ascii_text(), max in prop_oneof![Just(255usize), 1usize..8]) {
        prop_assert_eq!(tokenize(&text, max, false), tokenize(&text, max, true));
    }

    #[test]
    fn any_ascii_fast_path_equals_general_path(text in "[ -~\t\n]{0,30}", max in prop_oneof![Just(255usize), 1usize..8]) {
        prop_assert_eq!(tokenize(&text, max, false), tokenize(&text, max, true));
    }

    /// Mixed text: the ASCII path hands over to the general path around every non-ASCII
    /// character (accents, curly apostrophes, combining marks, ZWJ, keycaps, emoji, CJK, Thai).
    #[test]
    fn mixed_text_fast_path_equals_general_path(text in mixed_text(), max in prop_oneof![Just(255usize), 1usize..8]) {
        prop_assert_eq!(tokenize(&text, max, false), tokenize(&text, max, true));
    }

    /// On any text: tokens are in order, non-overlapping, non-empty, on char boundaries, within
    /// the limit, and positions count up by one.
    #[test]
    fn tokens_are_well_formed(text in "\\PC{0,40}", max in prop_oneof![Just(255usize), 1usize..6]) {
        let tokens = tokenize(&text, max, false);
        let mut last_end = 0;
        for (i, t) in tokens.iter().enumerate() {
            prop_assert!(t.start >= last_end && t.start < t.end && t.end <= text.len());
            prop_assert_eq!(&text[t.start..t.end], t.term.as_str());
            prop_assert!(utf16_len(&t.term) <= max.max(2));
            prop_assert_eq!(t.position as usize, i);
            last_end = t.end;
        }
    }

    /// The UTF-16 helper agrees with encoding the prefix.
    #[test]
    fn utf16_offsets_match_encoding(text in "\\PC{0,30}") {
        let mut offsets = Utf16Offsets::new(&text);
        for (i, _) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
            prop_assert_eq!(offsets.to_utf16(i), text[..i].encode_utf16().count());
        }
    }

    /// Lowercasing per character equals the standard library's full mapping except for U+0130
    /// and the final-sigma context, which Java's per-code-point mapping does not apply.
    #[test]
    fn lowercase_matches_char_mapping(c in any::<char>()) {
        let expected: Vec<char> = c.to_lowercase().collect();
        if expected.len() == 1 {
            prop_assert_eq!(lowercase_char(c), expected[0]);
        } else {
            prop_assert_eq!(c, '\u{130}');
        }
    }
}

#[test]
fn lowercase_follows_java_character_to_lower_case() {
    let (tokens, _) = collect(&StandardAnalyzer::default(), "İSTANBUL ΟΔΟΣ Straße ǅ");
    assert_eq!(terms(&tokens), ["istanbul", "οδοσ", "straße", "ǆ"]);
}

#[test]
fn stop_words_advance_positions_and_end() {
    let analyzer = StandardAnalyzer { stop_words: Some(Arc::new(StopWords::english())), ..Default::default() };
    let (tokens, end) = collect(&analyzer, "The quick fox is in the");
    assert_eq!(terms(&tokens), ["quick", "fox"]);
    assert_eq!(tokens.iter().map(|t| t.position).collect::<Vec<_>>(), [1, 2]);
    // Trailing removed words still advance the next position (Lucene's end()).
    assert_eq!(end, AnalyzeEnd { next_position: 6, length: 2 });

    let custom = StandardAnalyzer { stop_words: Some(Arc::new(StopWords::new(["Fox"], true))), ..Default::default() };
    assert_eq!(terms(&collect(&custom, "a FOX b").0), ["a", "b"]);
    let exact = StopWords::new(["Fox"], false);
    let mut scratch = String::new();
    assert!(exact.contains("Fox", &mut scratch) && !exact.contains("fox", &mut scratch));
    assert_eq!(StopWords::predefined("_english_").map(|w| w.is_empty()), Some(false));
    assert!(StopWords::predefined("_klingon_").is_none());
    // OpenSearch's standard analyzer with stopwords _english_ and max_token_length 5 (docs example).
    let configured = StandardAnalyzer {
        max_token_length: 5,
        stop_words: Some(Arc::new(StopWords::english())),
        ..Default::default()
    };
    let (tokens, _) = collect(&configured, "The 2 QUICK Brown-Foxes jumped over the lazy dog's bone.");
    assert_eq!(terms(&tokens), ["2", "quick", "brown", "foxes", "jumpe", "d", "over", "lazy", "dog's", "bone"]);
}

#[test]
fn multi_valued_fields_continue_after_the_gap() {
    let registry = AnalyzerRegistry::with_builtins();
    let analyzer = registry.get("standard").expect("standard is built in");
    assert_eq!(analyzer.position_increment_gap(), DEFAULT_POSITION_INCREMENT_GAP);
    let mut positions = Vec::new();
    let first = analyzer.analyze("red fox", 0, &mut |t| positions.push(t.position));
    assert_eq!(first, AnalyzeEnd { next_position: 2, length: 2 });
    let second = analyzer.analyze("blue whale", first.next_position + analyzer.position_increment_gap(), &mut |t| {
        positions.push(t.position)
    });
    assert_eq!(positions, [0, 1, 102, 103]);
    assert_eq!(second.next_position, 104);
    // An empty value produces nothing and does not move.
    assert_eq!(analyzer.analyze("", 7, &mut |_| panic!("no token")), AnalyzeEnd { next_position: 7, length: 0 });
}

#[test]
fn builtin_registry_and_keyword_edge_cases() {
    let registry = AnalyzerRegistry::with_builtins();
    for name in ["standard", "simple", "whitespace", "keyword", "stop"] {
        assert!(registry.get(name).is_some(), "{name}");
    }
    assert!(registry.get("english").is_none());
    // Lucene's KeywordTokenizer emits one (empty) token even for an empty value.
    let keyword = registry.get("keyword").expect("keyword");
    let (tokens, end) = collect(keyword.as_ref(), "");
    assert_eq!(terms(&tokens), [""]);
    assert_eq!(end.length, 1);
    // Java whitespace: no-break space is not whitespace.
    let ws = registry.get("whitespace").expect("whitespace");
    assert_eq!(terms(&collect(ws.as_ref(), "a\u{A0}b\u{3000}c\td").0), ["a\u{A0}b", "c", "d"]);
    // Letter tokenizer: combining marks and digits split, like Java's Character.isLetter.
    let simple = registry.get("simple").expect("simple");
    assert_eq!(
        terms(&collect(simple.as_ref(), "R2D2 हिन्दी Ⓐb").0),
        ["r", "d", "ह", "न", "द"].iter().copied().chain(["b"]).collect::<Vec<_>>()
    );
}

#[test]
fn char_tokenizer_splits_long_runs() {
    let long = "x".repeat(600);
    let mut tokenizer = CharTokenizer::new(&long, CharClass::Letter, 255);
    let mut lens = Vec::new();
    drive(&mut tokenizer, 0, &mut |t| lens.push(t.term.len()));
    assert_eq!(lens, [255, 255, 90]);
}

#[test]
fn analyze_is_reentrant_from_a_sink() {
    let analyzer = StandardAnalyzer::default();
    let mut inner = Vec::new();
    analyzer.analyze("outer words", 0, &mut |t| {
        let owned = t.term.to_owned();
        analyzer.analyze("inner", 0, &mut |u| inner.push(format!("{owned}/{}", u.term)));
    });
    assert_eq!(inner, ["outer/inner", "words/inner"]);
}

#[test]
fn scripts_from_lucene_test_standard_analyzer() {
    // Short excerpts in the scripts Lucene's TestStandardAnalyzer covers (testArmenian, testArabic,
    // testAramaic, testBengali, testFarsi, testGreek, testTibetan, testAmharic).
    let cases: &[(&str, &[&str])] = &[
        ("հոդվածները (4,600` հայերեն", &["հոդվածները", "4,600", "հայերեն"]),
        ("\"الحقيقة بالأرقام: قصة ويكيبيديا\" في 2008.", &["الحقيقة", "بالأرقام", "قصة", "ويكيبيديا", "في", "2008"]),
        ("ܒܠܫܢ̈ܐ ܣܓܝܐ̈ܐ܂ ܕ\"ܘܝܩܝ\"", &["ܒܠܫܢ̈ܐ", "ܣܓܝܐ̈ܐ", "ܕ", "ܘܝܩܝ"]),
        ("উইকিমিডিয়া ১৫ জানুয়ারি, ২০০১ ২০০টিরও", &["উইকিমিডিয়া", "১৫", "জানুয়ারি", "২০০১", "২০০টিরও"]),
        ("دانشنامهٔ تخصصی ۱۳۷۹", &["دانشنامهٔ", "تخصصی", "۱۳۷۹"]),
        ("λογισμικό wiki, κάτι ή", &["λογισμικό", "wiki", "κάτι", "ή"]),
        ("སྣོན་མཛོད་དང་ལས། །", &["སྣོན", "མཛོད", "དང", "ལས"]),
        ("ዊኪፔድያ (ኢንሳይክሎፒዲያ) ነው።", &["ዊኪፔድያ", "ኢንሳይክሎፒዲያ", "ነው"]),
    ];
    for (text, expected) in cases {
        assert_eq!(terms(&tokenize(text, 255, false)), *expected, "{text:?}");
    }
}

#[test]
fn word_classes_from_the_segmenter() {
    use super::char_classes::{word_class, WordClass};
    let cases = [
        ('é', WordClass::Letter),
        ('א', WordClass::Letter),
        ('Ω', WordClass::Letter),
        ('١', WordClass::Numeric),
        ('๑', WordClass::Numeric),
        ('ア', WordClass::Katakana),
        ('ー', WordClass::Katakana),
        ('\u{203F}', WordClass::ExtendNumLet),
        ('\u{301}', WordClass::Extend),
        ('\u{AD}', WordClass::Extend),
        ('\u{200D}', WordClass::Extend),
        ('\u{1F1FA}', WordClass::RegionalIndicator),
        ('\u{1F600}', WordClass::Pictographic),
        ('©', WordClass::Pictographic),
        ('中', WordClass::Other),
        ('あ', WordClass::Other),
        ('ก', WordClass::Other),
        ('\u{3000}', WordClass::Other),
        ('²', WordClass::Other),
    ];
    for (c, class) in cases {
        // Twice: computed, then from the cache.
        assert_eq!(word_class(c), class, "{c:?} U+{:04X}", c as u32);
        assert_eq!(word_class(c), class, "{c:?} cached");
    }
}

#[test]
fn chains_compose_boxed_for_settings_built_analyzers() {
    // Issue 5 builds chains from settings: the same stages work behind `Box<dyn TokenStream>`.
    let text = "The Quick and the Dead";
    let mut stream: Box<dyn TokenStream> = Box::new(StandardTokenizer::new(text, 255));
    stream = Box::new(LowerCaseFilter::new(stream));
    stream = Box::new(StopFilter::new(stream, Arc::new(StopWords::english())));
    let mut got = Vec::new();
    let end = drive(&mut stream, 10, &mut |t| got.push((t.term.to_owned(), t.position)));
    assert_eq!(got, [("quick".to_owned(), 11), ("dead".to_owned(), 14)]);
    assert_eq!(end, AnalyzeEnd { next_position: 15, length: 2 });
}

#[test]
fn analyzers_are_shareable_across_threads() {
    let registry = AnalyzerRegistry::with_builtins();
    let analyzer = registry.get("standard").expect("standard");
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let analyzer = Arc::clone(&analyzer);
            std::thread::spawn(move || {
                let text = format!("thread {i} Grüße カタカナ");
                let mut n = 0;
                analyzer.analyze(&text, 0, &mut |_| n += 1);
                n
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().expect("thread finished"), 4);
    }
}

#[test]
fn long_runs_without_tokens_stay_linear() {
    // LUCENE-5897: one UAX #29 segment of ExtendNumLet with Format/Extend marks (some of them
    // Thai marks or skin-tone modifiers, which start tokens inside it), and one of wide spaces;
    // rescanning the segment after each inner token would be quadratic (minutes at this size).
    let alphabets: [&[&str]; 2] = [
        &["_", "\u{AD}", "\u{301}", "\u{E31}", "\u{203F}", "\u{1F3FB}", "\u{FE0F}"],
        &["\u{3000}", "\u{3000}", "\u{1F3FB}", "\u{E31}"],
    ];
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    for pieces in alphabets {
        let mut text = String::new();
        while text.len() < 400_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            text.push_str(pieces[(seed % pieces.len() as u64) as usize]);
        }
        let started = std::time::Instant::now();
        for general in [false, true] {
            let tokens = tokenize(&text, 255, general);
            assert!(tokens.len() > 1000, "{}", tokens.len());
            assert!(tokens.iter().all(|t| t.token_type == "<EMOJI>" || t.token_type == "<SOUTHEAST_ASIAN>"));
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(20), "took {:?}", started.elapsed());
    }
}

#[test]
fn splitting_a_huge_token_stays_linear() {
    // A 600 KB word (non-ASCII, so the general path) split at 255 units: each piece is scanned
    // within its window instead of re-segmenting the rest of the word.
    let word = "é".repeat(300_000);
    let started = std::time::Instant::now();
    let tokens = tokenize(&word, 255, false);
    assert_eq!(tokens.len(), 300_000usize.div_ceil(255));
    assert!(tokens.iter().all(|t| t.token_type == "<ALPHANUM>" && utf16_len(&t.term) <= 255));
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "took {:?}", started.elapsed());
}
