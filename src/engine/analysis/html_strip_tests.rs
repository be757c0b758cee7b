use proptest::prelude::*;

use super::*;

fn strip(html: &str) -> String {
    HtmlStripCharFilter::default().filter(html).0
}

fn strip_keeping(html: &str, tags: &[&str]) -> String {
    HtmlStripCharFilter::new(tags.iter().map(|t| t.to_string())).filter(html).0
}

/// TestHTMLStripCharFilter.test
#[test]
fn lucene_basic() {
    let html = "<div class=\"foo\">this is some text</div> here is a <a href=\"#bar\">link</a> and \
                another <a href=\"http://lucene.apache.org/\">link</a>. \
                This is an entity: &amp; plus a &lt;.  Here is an &. <!-- is a comment -->";
    let gold = "\nthis is some text\n here is a link and another link. This is an entity: & plus a <.  Here is an &. ";
    assert_eq!(strip(html), gold);
}

/// testGamma, testEntities, testMoreEntities
#[test]
fn lucene_entities() {
    assert_eq!(strip("&Gamma;"), "\u{393}");
    assert_eq!(
        strip("&nbsp; &lt;foo&gt; &Uuml;bermensch &#61; &Gamma; bar &#x393;"),
        "\u{a0} <foo> \u{dc}bermensch = \u{393} bar \u{393}"
    );
    assert_eq!(strip("&nbsp; &lt;junk/&gt; &nbsp; &#33; &#64; and &#8217;"), "\u{a0} <junk/> \u{a0} ! @ and \u{2019}");
    // without ';' a reference stays, except at the end; the longest name wins
    assert_eq!(strip("&amp x &amp"), "&amp x &");
    assert_eq!(strip("&notin; &notit;"), "\u{2209} &notit;");
    assert_eq!(strip("&QUOT; &Quot;"), "\" &Quot;");
    // surrogates: a pair of references is one character, a lone one U+FFFD; too long stays
    assert_eq!(strip("&#xD83D;&#xDE00; &#55357;&#56832; &#xD83D; &#x1F600;"), "\u{1F600} \u{1F600} \u{FFFD} \u{1F600}");
    assert_eq!(strip("&#x10FFFF; &#99999999; &#x; &#"), "&#x10FFFF; &#99999999; &#x; &#");
}

/// testReserved
#[test]
fn lucene_reserved() {
    let result = strip_keeping(
        "aaa bbb <reserved ccc=\"ddddd\"> eeee </reserved> ffff <reserved ggg=\"hhhh\"/> <other/>",
        &["reserved"],
    );
    assert_eq!(result.find("reserved"), Some(9));
    assert_eq!(result[15..].find("reserved").map(|i| i + 15), Some(38));
    assert_eq!(result[41..].find("reserved").map(|i| i + 41), Some(54));
    assert!(!result.contains("other"));
}

/// testMalformedHTML (a selection, transcribed)
#[test]
fn lucene_malformed() {
    let cases: &[(&str, &str)] = &[
        ("a <a hr<ef=aa<a>> </close</a>", "a <a hr<ef=aa> </close"),
        (
            r#"<a href=http://dmoz.org/cgi-bin/add.cgi?where=/arts/" class=lu style="font-size: 9px" target=dmoz>Submit a Site</a>"#,
            "Submit a Site",
        ),
        (
            r#"<link rel="alternate" type="application/rss+xml" title="San Francisco " 2008 RSS Feed" href="http://2008.sf.wordcamp.org/feed/" />"#,
            "\n",
        ),
        (r#"<a href="http://ucblibraries.colorado.edu/how/index.htm"class="pageNavAreaText">"#, ""),
        (r##"<a href="#postcomment" title=""Leave a comment";">?"##, "?"),
        (
            r#"The <a href=<a href="http://www.advancedmd.com>medical">http://www.advancedmd.com>medical</a> practice software</a>"#,
            "The <a href=http://www.advancedmd.com>medical practice software",
        ),
        (r#"E-mail: <a href=""mailto:XXXXXX@example.com" ">XXXXXX@example.com </a>"#, "E-mail: XXXXXX@example.com "),
        (
            r##"<li><a href="#28" title="Hubert "Geese" Ausby">Hubert "Geese" Ausby</a></li>"##,
            "\nHubert \"Geese\" Ausby\n",
        ),
        (r#"<href="http://anbportal.com/mms/login.asp">"#, "\n"),
        (r#"<a href=""#, r#"<a href=""#),
        (r#"<a href=">"#, ""),
        (r#"<a href=  >"#, ""),
        ("<ahref=http:..", "<ahref=http:.."),
        ("<ahref=http:..>", "\n"),
        (r#"<ahref="http://aseigo.bddf.ca/cms/1025">A"#, "\nA"),
        (
            r#"<a class="at" name="Lamborghini  href="http://lamborghini.coolbegin.com">Lamborghini /a>"#,
            "Lamborghini /a>",
        ),
        ("<meta name=3DProgId content=3DExcel.Sheet>", "\n"),
        (r##"<td bgcolor=3D"#FFFFFF" nowrap>"##, "\n"),
        (r#"<input type="text" value="<search here>">"#, ""),
        (r#"<input type="text" value="<search here">"#, ""),
        (r#"<input type="text" value="search here>">"#, ""),
        (
            "<![if ! IE]>\n<link href=\"http://i.deviantart.com/icons/favicon.png\" rel=\"shortcut icon\"/>\n<![endif]>",
            "\n\n\n",
        ),
        (
            "<![if supportMisalignedColumns]>\n<tr height=0 style='display:none'>\n<td width=64 style='width:48pt'></td>\n</tr>\n<![endif]>",
            "\n\n\n\n\n\n\n\n",
        ),
    ];
    for (html, gold) in cases {
        assert_eq!(&strip(html), gold, "{html}");
    }
}

#[test]
fn comments_scripts_styles_cdata_and_instructions() {
    assert_eq!(strip("a<!-- x <b> -->b"), "ab");
    // "<!--#" right after "<!--" is a plain comment; inside one it is a server-side include
    assert_eq!(strip("a<!--#include file='-->' -->b"), "a' -->b");
    assert_eq!(strip("a<!-- x <!--#echo '-->' --> y -->b"), "ab");
    assert_eq!(strip("a<!-- never closed"), "a");
    assert_eq!(strip("a<script type='x'>if (a < b) { x('</p>') }</script>b"), "a\nb");
    assert_eq!(strip("a<script><!-- '</script>' --></script>b"), "a\nb");
    assert_eq!(strip("a<STYLE>p { }</ style >b"), "a\nb");
    assert_eq!(strip("a<script>unclosed"), "a");
    assert_eq!(strip_keeping("a<script>x</script>b", &["script"]), "a<script></script>b");
    assert_eq!(strip_keeping("a<br/>b</br>", &["BR"]), "a<br/>b</br>");
    assert_eq!(strip("a<![CDATA[<b>x</b>]]>b"), "a<b>x</b>b");
    assert_eq!(strip("a<?xml version='1.0'?>b<?>c"), "ab<?>c");
    assert_eq!(strip("a<!DOCTYPE html>b"), "ab");
    assert_eq!(strip("x<br>y< br/>z</br >"), "x\ny\nz\n");
    assert_eq!(strip("<b>bold</b><bold>x</bold>"), "bold\nx\n");
    // "< b and c >" is an inline tag to Lucene's grammar; "< 3" is not a tag
    assert_eq!(strip("a < b and c > d"), "a  d");
    assert_eq!(strip("a < 3 > 2"), "a < 3 > 2");
    assert_eq!(strip("a <b"), "a ");
    assert_eq!(strip("a </b"), "a ");
    assert_eq!(strip("a <b c"), "a <b c");
}

#[test]
fn offsets_map_back() {
    let (out, correction) = HtmlStripCharFilter::default().filter("<b>x</b> &amp; <p>y");
    assert_eq!(out, "x & \ny");
    // "x" ends where "</b>" ends, "&" spans "&amp;", "y" starts after "<p>"
    let mapped: Vec<usize> = (0..=6).map(|offset| correction.correct(offset)).collect();
    assert_eq!(mapped, [3, 8, 9, 14, 15, 18, 19]);
}

proptest! {
    #[test]
    fn never_panics_and_offsets_stay_inside(text in "(\\PC|[<>&;#x!/'\" -]){0,60}") {
        let (out, correction) = HtmlStripCharFilter::new(["p".to_owned(), "br".to_owned()]).filter(&text);
        let mut last = 0;
        for offset in 0..=out.len() {
            let mapped = correction.correct(offset);
            prop_assert!(mapped <= text.len());
            prop_assert!(mapped >= last);
            last = mapped;
        }
    }

    #[test]
    fn plain_text_is_unchanged(text in "[a-zA-Z0-9 .,;:!?\u{e9}\u{4e2d}]{0,60}") {
        prop_assert_eq!(strip(&text), text);
    }
}
