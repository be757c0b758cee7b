use proptest::prelude::*;

use super::*;

fn tokens(text: &str) -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    UaxUrlEmailTokenizer { max_token_length: 255 }.tokenize(text, &mut out);
    out.into_iter().map(|t| (t.term, t.token_type)).collect()
}

fn expect(text: &str, expected: &[(&str, &str)]) {
    let expected: Vec<(String, &str)> = expected.iter().map(|(t, k)| (t.to_string(), *k)).collect();
    assert_eq!(tokens(text), expected, "{text}");
}

/// TestUAX29URLEmailTokenizer.testMailtoSchemeEmails
#[test]
fn lucene_mailto() {
    expect("mailto:test@example.org", &[("mailto", "<ALPHANUM>"), ("test@example.org", "<EMAIL>")]);
    let text = "mailto:personA@example.com,personB@example.com?cc=personC@example.com\
                &subject=Subjectivity&body=Corpusivity%20or%20something%20like%20that";
    let terms: Vec<String> = tokens(text).into_iter().map(|t| t.0).collect();
    assert_eq!(
        terms,
        [
            "mailto",
            "personA@example.com",
            ",personB@example.com",
            "?cc=personC@example.com",
            "subject",
            "Subjectivity",
            "body",
            "Corpusivity",
            "20or",
            "20something",
            "20like",
            "20that"
        ]
    );
}

#[test]
fn urls() {
    expect(
        "Visit https://opensearch.org/docs?x=1#top now",
        &[("Visit", "<ALPHANUM>"), ("https://opensearch.org/docs?x=1#top", "<URL>"), ("now", "<ALPHANUM>")],
    );
    expect(
        "ftp://user:pw@ftp.example.com/pub/file.txt;type=i",
        &[("ftp://user:pw@ftp.example.com/pub/file.txt;type=i", "<URL>")],
    );
    expect("file:///etc/hosts", &[("file:///etc/hosts", "<URL>")]);
    expect("see example.com.", &[("see", "<ALPHANUM>"), ("example.com", "<URL>")]);
    expect("www.example.com/path:8", &[("www.example.com/path:8", "<URL>")]);
    expect("127.0.0.1:9200/_search", &[("127.0.0.1:9200/_search", "<URL>")]);
    // LUCENE-5391: a host followed by a word character is not a URL
    expect("example.comx", &[("example.comx", "<ALPHANUM>")]);
    // only real top-level domains make a scheme-less host
    expect("example.notatld", &[("example.notatld", "<ALPHANUM>")]);
}

#[test]
fn emails() {
    expect(
        "Email me at john.smith@global-international.com",
        &[
            ("Email", "<ALPHANUM>"),
            ("me", "<ALPHANUM>"),
            ("at", "<ALPHANUM>"),
            ("john.smith@global-international.com", "<EMAIL>"),
        ],
    );
    expect("\"quoted local\"@example.com", &[("\"quoted local\"@example.com", "<EMAIL>")]);
    expect("x@[127.0.0.1]", &[("x@[127.0.0.1]", "<EMAIL>")]);
    expect("user@localhost", &[("user", "<ALPHANUM>"), ("localhost", "<ALPHANUM>")]);
}

/// TestUAX29URLEmailTokenizer's plain-word cases still follow the standard tokenizer.
#[test]
fn lucene_words() {
    expect(
        "David has 5000 bones",
        &[("David", "<ALPHANUM>"), ("has", "<ALPHANUM>"), ("5000", "<NUM>"), ("bones", "<ALPHANUM>")],
    );
    assert_eq!(tokens("216.239.63.104"), vec![("216.239.63.104".to_owned(), "<URL>")]);
    assert_eq!(tokens("A::B").len(), 2);
}

#[test]
fn long_input_stays_fast() {
    let text = "!".repeat(100_000) + &"a-".repeat(50_000);
    let started = std::time::Instant::now();
    assert_eq!(tokens(&text).len(), 50_000);
    assert!(started.elapsed().as_secs() < 10);
}

proptest! {
    #[test]
    fn never_panics_and_offsets_stay_inside(text in "(\\PC|[a-z.@:/?#%\\[\\]\"-]){0,60}") {
        let mut out = Vec::new();
        UaxUrlEmailTokenizer { max_token_length: 20 }.tokenize(&text, &mut out);
        let mut last = 0;
        for token in &out {
            prop_assert!(token.start >= last && token.start < token.end && token.end <= text.len());
            prop_assert_eq!(&text[token.start..token.end], token.term.as_str());
            last = token.end;
        }
    }
}
