use proptest::prelude::*;

use super::*;

fn tokens(text: &str, max_token_length: usize) -> Vec<(String, &'static str, u32)> {
    let mut out = Vec::new();
    ClassicTokenizer { max_token_length }.tokenize(text, &mut out);
    out.into_iter().map(|t| (t.term, t.token_type, t.position_increment)).collect()
}

fn terms_and_types(text: &str) -> Vec<(String, &'static str)> {
    tokens(text, 255).into_iter().map(|(term, kind, _)| (term, kind)).collect()
}

fn one(text: &str, term: &str, kind: &str) {
    assert_eq!(terms_and_types(text), vec![(term.to_owned(), kind)], "{text}");
}

/// TestClassicAnalyzer's compliance cases (the tokenizer's own output, before ClassicFilter).
#[test]
fn lucene_compliance() {
    one("2004.jpg", "2004.jpg", "<HOST>");
    one("62.46", "62.46", "<HOST>");
    one("978-0-94045043-1", "978-0-94045043-1", "<NUM>");
    one("78academyawards/rules/rule02.html", "78academyawards/rules/rule02.html", "<NUM>");
    one("2006-03-11t082958z_01_ban130523_rtridst_0_ozabs", "2006-03-11t082958z_01_ban130523_rtridst_0_ozabs", "<NUM>");
    one("mid-20th", "mid-20th", "<NUM>");
    one("www.nutch.org.", "www.nutch.org", "<HOST>");
    one("U.S.A.", "U.S.A.", "<ACRONYM>");
    one("AT&T", "AT&T", "<COMPANY>");
    one("Excite@Home", "Excite@Home", "<COMPANY>");
    one("first_lastname@example.com", "first_lastname@example.com", "<EMAIL>");
    one("O'Reilly's", "O'Reilly's", "<APOSTROPHE>");
    one("a1-b-c3", "a1-b-c3", "<NUM>");
    let many = "/money.cnn.com/magazines/fortune/fortune_archive/2007/03/19/8402357/index.htm \
                safari-0-sheikh-zayed-grand-mosque.jpg";
    let expected = [
        ("money.cnn.com", "<HOST>"),
        ("magazines", "<ALPHANUM>"),
        ("fortune", "<ALPHANUM>"),
        ("fortune", "<ALPHANUM>"),
        ("archive/2007/03/19/8402357", "<NUM>"),
        ("index.htm", "<HOST>"),
        ("safari-0-sheikh", "<NUM>"),
        ("zayed", "<ALPHANUM>"),
        ("grand", "<ALPHANUM>"),
        ("mosque.jpg", "<HOST>"),
    ];
    assert_eq!(terms_and_types(many), expected.map(|(t, k)| (t.to_owned(), k)).to_vec());
    assert_eq!(terms_and_types("test\u{02C6}test").len(), 2);
    assert_eq!(terms_and_types("C++ C#"), vec![("C".to_owned(), "<ALPHANUM>"), ("C".to_owned(), "<ALPHANUM>")]);
}

/// Cases where a rule's last unit stops inside a run.
#[test]
fn the_last_unit_may_stop_inside_a_run() {
    // APOSTROPHE = ALPHA ("'" ALPHA)+ takes the letters of "Reilly123", ALPHANUM the rest
    assert_eq!(
        terms_and_types("O'Reilly123"),
        vec![("O'Reilly".to_owned(), "<APOSTROPHE>"), ("123".to_owned(), "<ALPHANUM>")]
    );
    // COMPANY likewise
    assert_eq!(terms_and_types("AT&T1"), vec![("AT&T".to_owned(), "<COMPANY>"), ("1".to_owned(), "<ALPHANUM>")]);
    // a trailing dot after single letters is an acronym; after longer runs the deprecated form
    one("I.B.M.", "I.B.M.", "<ACRONYM>");
    one("ab.cd.", "ab.cd", "<HOST>");
    assert_eq!(terms_and_types("a."), vec![("a".to_owned(), "<ALPHANUM>")]);
}

#[test]
fn long_tokens_are_skipped_with_their_position() {
    assert_eq!(
        tokens("ab cd toolong xy z", 5),
        vec![
            ("ab".to_owned(), "<ALPHANUM>", 1),
            ("cd".to_owned(), "<ALPHANUM>", 1),
            ("xy".to_owned(), "<ALPHANUM>", 2),
            ("z".to_owned(), "<ALPHANUM>", 1)
        ]
    );
    let long = "a".repeat(255);
    assert_eq!(tokens(&format!("ab {long} z"), 255).len(), 3);
    assert_eq!(tokens(&format!("ab {long}a z"), 255).len(), 2);
}

#[test]
fn korean_thai_and_cj() {
    assert_eq!(terms_and_types("안녕하세요 한글입니다").len(), 2);
    // Thai vowel signs are in the grammar's THAI range: one ALPHANUM
    one("ภาษาไทย", "ภาษาไทย", "<ALPHANUM>");
    assert_eq!(
        terms_and_types("中文x"),
        vec![("中".to_owned(), "<CJ>"), ("文".to_owned(), "<CJ>"), ("x".to_owned(), "<ALPHANUM>")]
    );
}

#[test]
fn long_chains_stay_linear() {
    let text = "a-".repeat(50_000);
    let started = std::time::Instant::now();
    assert_eq!(tokens(&text, 255).len(), 50_000);
    assert!(started.elapsed().as_secs() < 5);
}

proptest! {
    #[test]
    fn tokens_are_slices_of_the_text(text in "[a-zA-Z0-9 .@&'_/,中ั-]{0,40}") {
        let mut out = Vec::new();
        ClassicTokenizer { max_token_length: 255 }.tokenize(&text, &mut out);
        let mut last = 0;
        for token in &out {
            prop_assert!(token.start >= last && token.start < token.end && token.end <= text.len());
            prop_assert_eq!(&text[token.start..token.end], token.term.as_str());
            last = token.end;
        }
    }

    #[test]
    fn never_panics_on_unicode(text in "\\PC{0,40}", max in 1usize..10) {
        let mut out = Vec::new();
        ClassicTokenizer { max_token_length: max }.tokenize(&text, &mut out);
        for token in &out {
            prop_assert!(token.start < token.end && token.end <= text.len());
            prop_assert!(text.is_char_boundary(token.start) && text.is_char_boundary(token.end));
        }
    }
}
