//! `uax_url_email`: Lucene's `UAX29URLEmailTokenizer`: the standard tokenizer's UAX #29 words,
//! except that URLs and e-mail addresses are single `<URL>` and `<EMAIL>` tokens, recognized by
//! the grammar of `UAX29URLEmailTokenizerImpl.jflex` (RFC 3986/5322 shapes):
//!
//! - `http(s)://`, `ftp://`, `file://` URLs: optional login, host (bracketed IPv6, IPv4 or
//!   labels), port, path, query, fragment, each from its own character set;
//! - URLs without a scheme: a strict host (IPv4, bracketed IPv6, or labels ending in a real
//!   top-level domain, [`super::uax_tlds`]) followed by a port, path, query or fragment, or alone
//!   when no letter, digit, `_` or `-` follows it (LUCENE-5391);
//! - e-mail: a local part of atoms or quoted strings joined by dots, `@`, and labels ending in a
//!   top-level domain or a bracketed literal; `mailto` before `:address` is a word of its own.
//!
//! At every place the scanner starts (a word's start, or a character it would skip) the longest
//! of the URL, the e-mail and the standard token wins, a URL or e-mail on a tie. As in Lucene, a
//! match is limited to `max_token_length` characters (the scanner's buffer). Known divergences:
//! the TLD list is the Public Suffix List's rather than IANA's file of the Lucene release, the
//! `TLDprefix_*CharSuffix` refinements of the AVOID_BAD_URL state are not modelled, and a
//! bracketed IPv6 host is any run of hex digits, `:` and `.`.

use super::chain::Tokenizer;
use super::standard_tokenizer::StandardTokenizer;
use super::token_stream::TokenState;
use super::uax_tlds::{LONGEST_TLD, TLDS};

/// The tokenizer, with `max_token_length` (default 255).
#[derive(Clone, Copy, Debug)]
pub struct UaxUrlEmailTokenizer {
    /// Longest token in UTF-16 units.
    pub max_token_length: usize,
}

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

fn is_sub_delim(b: u8) -> bool {
    matches!(b, b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'=')
}

/// The end of the run at `i` of bytes in `allowed` or `%XX` escapes.
fn run(s: &[u8], mut i: usize, allowed: impl Fn(u8) -> bool) -> usize {
    while let Some(&b) = s.get(i) {
        if allowed(b) {
            i += 1;
        } else if b == b'%' && s.get(i + 1..i + 3).is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
            i += 3;
        } else {
            break;
        }
    }
    i
}

fn starts_with_ignore_case(s: &[u8], i: usize, word: &str) -> bool {
    s.get(i..i + word.len()).is_some_and(|b| b.eq_ignore_ascii_case(word.as_bytes()))
}

fn is_tld(label: &[u8]) -> bool {
    label.len() <= LONGEST_TLD
        && std::str::from_utf8(label)
            .map(|l| l.to_ascii_lowercase())
            .is_ok_and(|l| TLDS.binary_search(&l.as_str()).is_ok())
}

/// The labels at `i` (`DomainLabel ("." DomainLabel)*`): (start, end) of each.
fn labels(s: &[u8], mut i: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    loop {
        let end = run(s, i, |b| b.is_ascii_alphanumeric() || b == b'-');
        let mut label_end = end;
        while label_end > i && s[label_end - 1] == b'-' {
            label_end -= 1;
        }
        if label_end == i || s[i] == b'-' {
            break;
        }
        out.push((i, label_end));
        if label_end < end || s.get(label_end) != Some(&b'.') {
            break;
        }
        i = label_end + 1;
    }
    out
}

/// IPv4 at `i`: four octets of at most three digits worth at most 255.
fn ipv4(s: &[u8], i: usize) -> Option<usize> {
    let mut at = i;
    for octet in 0..4 {
        if octet > 0 {
            if s.get(at) != Some(&b'.') {
                return None;
            }
            at += 1;
        }
        let digits = s[at.min(s.len())..].iter().take(3).take_while(|b| b.is_ascii_digit()).count();
        let value: u32 = std::str::from_utf8(s.get(at..at + digits)?).ok()?.parse().ok()?;
        if digits == 0 || value > 255 {
            return None;
        }
        at += digits;
    }
    Some(at)
}

/// `"[" IPv6 "]"` at `i` (approximated as hex digits, `:` and `.`).
fn bracketed_ipv6(s: &[u8], i: usize) -> Option<usize> {
    if s.get(i) != Some(&b'[') {
        return None;
    }
    let end = run(s, i + 1, |b| b.is_ascii_hexdigit() || b == b':' || b == b'.');
    (end > i + 2 && s.get(end) == Some(&b']') && s[i + 1..end].contains(&b':')).then_some(end + 1)
}

/// Ends of the strict hosts at `i`: IPv6, IPv4, or labels whose last one is a TLD (with
/// `tld_prefixes`, a TLD may also be the start of the last label, as in an e-mail domain).
fn strict_host_ends(s: &[u8], i: usize, tld_prefixes: bool) -> Vec<usize> {
    let mut ends: Vec<usize> = bracketed_ipv6(s, i).into_iter().chain(ipv4(s, i)).collect();
    for &(start, end) in labels(s, i).iter().skip(1) {
        if tld_prefixes {
            ends.extend(
                (1..=(end - start).min(LONGEST_TLD)).filter(|&n| is_tld(&s[start..start + n])).map(|n| start + n),
            );
        } else if is_tld(&s[start..end]) {
            ends.push(end);
        }
    }
    ends
}

/// The end of a loose host at `i`: IPv6 or labels (IPv4 is labels too).
fn loose_host_end(s: &[u8], i: usize) -> Option<usize> {
    bracketed_ipv6(s, i).or_else(|| labels(s, i).last().map(|l| l.1))
}

fn port(s: &[u8], i: usize) -> Option<usize> {
    let digits = s.get(i + 1..)?.iter().take(5).take_while(|b| b.is_ascii_digit()).count();
    (s.get(i) == Some(&b':') && digits > 0).then_some(i + 1 + digits)
}

fn http_path(s: &[u8], mut i: usize) -> usize {
    while s.get(i) == Some(&b'/') {
        i = run(s, i + 1, |b| is_unreserved(b) || matches!(b, b';' | b':' | b'@' | b'&' | b'='));
    }
    i
}

fn query_or_fragment(s: &[u8], i: usize, lead: u8) -> usize {
    if s.get(i) != Some(&lead) {
        return i;
    }
    run(s, i + 1, |b| is_unreserved(b) || is_sub_delim(b) || matches!(b, b':' | b'@' | b'/' | b'?'))
}

/// Port?, path?, query?, fragment? after a host.
fn http_rest(s: &[u8], host_end: usize) -> usize {
    let i = port(s, host_end).unwrap_or(host_end);
    let i = http_path(s, i);
    let i = query_or_fragment(s, i, b'?');
    query_or_fragment(s, i, b'#')
}

/// `login@` at `i`, its end.
fn login(s: &[u8], i: usize) -> Option<usize> {
    let segment = |at| run(s, at, |b| is_unreserved(b) || is_sub_delim(b));
    let mut end = segment(i);
    if s.get(end) == Some(&b':') {
        end = segment(end + 1);
    }
    (s.get(end) == Some(&b'@')).then_some(end + 1)
}

fn ftp_path(s: &[u8], i: usize) -> Option<usize> {
    if s.get(i) != Some(&b'/') {
        return None;
    }
    let mut at = i;
    while s.get(at) == Some(&b'/') {
        at = run(s, at + 1, |b| is_unreserved(b) || matches!(b, b'?' | b':' | b'@' | b'&' | b'='));
    }
    Some(at)
}

/// The longest URL at `i`.
fn url(s: &[u8], i: usize) -> Option<usize> {
    let mut best: Option<usize> = None;
    let mut offer = |end: usize| best = Some(best.map_or(end, |b| b.max(end)));
    let scheme = [("https://", 0), ("http://", 0), ("ftp://", 1), ("file://", 2)]
        .into_iter()
        .find(|(scheme, _)| starts_with_ignore_case(s, i, scheme));
    if let Some((scheme, kind)) = scheme {
        let after = i + scheme.len();
        let hosts = [Some(after), login(s, after)];
        for host in hosts.into_iter().flatten() {
            match kind {
                0 => {
                    if let Some(h) = loose_host_end(s, host) {
                        offer(http_rest(s, h));
                    }
                }
                1 => {
                    let Some(h) = loose_host_end(s, host) else { continue };
                    let h = port(s, h).unwrap_or(h);
                    if let Some(p) = ftp_path(s, h) {
                        let mut end = p;
                        if s.get(end) == Some(&b';')
                            && starts_with_ignore_case(s, end + 1, "type=")
                            && s.get(end + 6).is_some_and(|b| matches!(b.to_ascii_lowercase(), b'a' | b'i' | b'd'))
                        {
                            end += 7;
                        }
                        offer(query_or_fragment(s, end, b'#'));
                    }
                }
                _ if host == after => {
                    let h = loose_host_end(s, host).unwrap_or(host);
                    for start in [h, host] {
                        if let Some(p) = ftp_path(s, start) {
                            offer(query_or_fragment(s, p, b'#'));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    for host_end in strict_host_ends(s, i, false) {
        let rest = http_rest(s, host_end);
        if rest > host_end {
            offer(rest);
        }
        let next = std::str::from_utf8(s.get(host_end..).unwrap_or_default()).ok().and_then(|t| t.chars().next());
        let word_follows = next.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-');
        if !word_follows {
            offer(host_end);
        }
    }
    best
}

/// The longest e-mail address at `i`.
fn email(s: &[u8], i: usize) -> Option<usize> {
    // Lucene's class `[A-Za-z0-9!#$%&'*+\-/=?\^_`{|}~]` behaves as holding the range `+`..`/`
    // (its tests expect ",personB@example.com" as one address), so `,` and `.` are atom text.
    const ATOM: &[u8] = b"!#$%&'*+,-./=?^_`{|}~";
    let label = |at: usize| -> Option<usize> {
        if s.get(at) == Some(&b'"') {
            let mut j = at + 1;
            while let Some(&b) = s.get(j) {
                match b {
                    b'"' => return Some(j + 1),
                    b'\\' if s.get(j + 1).is_some_and(|c| c.is_ascii()) => j += 2,
                    b'\r' | b'\n' | 0 | 0x80.. => return None,
                    _ => j += 1,
                }
            }
            return None;
        }
        let end = s[at.min(s.len())..].iter().take_while(|b| b.is_ascii_alphanumeric() || ATOM.contains(b)).count();
        (end > 0).then_some(at + end)
    };
    let mut at = label(i)?;
    while s.get(at) == Some(&b'.') {
        match label(at + 1) {
            Some(end) => at = end,
            None => break,
        }
    }
    if s.get(at) != Some(&b'@') {
        return None;
    }
    let domain = at + 1;
    if s.get(domain) == Some(&b'[') {
        let close = s[domain..].iter().position(|b| *b == b']')?;
        let literal = &s[domain + 1..domain + close];
        return literal.iter().all(|b| b.is_ascii() && !matches!(b, b'[' | b'\\' | 0)).then_some(domain + close + 1);
    }
    strict_host_ends(s, domain, true)
        .into_iter()
        .filter(|&e| ipv4(s, domain) != Some(e) && bracketed_ipv6(s, domain) != Some(e))
        .max()
}

/// The URL or e-mail at `i` (a URL on a tie), limited to `window` bytes; `next_at` is the
/// offset of the first `@` at or after `i` (no e-mail can end before it).
fn url_or_email(text: &str, i: usize, window: usize, next_at: usize) -> Option<(usize, &'static str)> {
    let s = &text.as_bytes()[..window.min(text.len())];
    let first = *s.get(i)?;
    if !(first.is_ascii_graphic()) {
        return None;
    }
    let url = url(s, i);
    let email = if next_at < s.len() { email(s, i) } else { None };
    match (url, email) {
        (Some(u), Some(e)) if e > u => Some((e, "<EMAIL>")),
        (Some(u), _) => Some((u, "<URL>")),
        (None, Some(e)) => Some((e, "<EMAIL>")),
        (None, None) => None,
    }
}

/// The byte offset `max` UTF-16 units after `start`.
fn window_end(text: &str, start: usize, max: usize) -> usize {
    let cap = start.saturating_add(max).min(text.len());
    if cap == text.len() && text.len() - start <= max {
        return text.len();
    }
    if text.as_bytes()[start..cap].is_ascii() {
        return cap;
    }
    let mut units = 0;
    for (i, c) in text[start..].char_indices() {
        units += c.len_utf16();
        if units > max {
            return start + i;
        }
    }
    text.len()
}

impl Tokenizer for UaxUrlEmailTokenizer {
    fn tokenize(&self, text: &str, out: &mut Vec<TokenState>) {
        let max = self.max_token_length.max(1);
        let mut pos = 0;
        // the standard tokenizer restarted at `base` (after a URL or e-mail), and its next token
        let mut base = 0;
        let mut words = StandardTokenizer::new(text, max);
        let mut next_word = words.next_token();
        let mut next_at = text.find('@').unwrap_or(text.len());
        while pos < text.len() {
            let word = next_word.map(|(s, e, k)| (base + s, base + e, k));
            let word_start = word.map_or(text.len(), |w| w.0);
            // the scanner starts at every skipped character and at the next word
            let mut found = None;
            let mut p = pos;
            while p <= word_start && p < text.len() {
                if next_at < p {
                    next_at = text[p..].find('@').map_or(text.len(), |i| p + i);
                }
                // LUCENE-3880: "mailto" before ":address" is a word of its own
                let mailto = starts_with_ignore_case(text.as_bytes(), p, "mailto")
                    && text.as_bytes().get(p + 6) == Some(&b':')
                    && url_or_email(text, p + 7, window_end(text, p + 7, max), next_at)
                        .is_some_and(|f| f.1 == "<EMAIL>");
                if mailto {
                    found = Some((p, p + 6, "<ALPHANUM>"));
                    break;
                }
                if let Some((end, kind)) = url_or_email(text, p, window_end(text, p, max), next_at) {
                    if p < word_start || word.is_some_and(|w| end >= w.1) {
                        found = Some((p, end, kind));
                        break;
                    }
                }
                p += text[p..].chars().next().map_or(1, char::len_utf8);
            }
            match (found, word) {
                (Some((start, end, kind)), _) => {
                    out.push(TokenState::new(&text[start..end], start, end, kind));
                    pos = end;
                    base = end;
                    words = StandardTokenizer::new(&text[end..], max);
                    next_word = words.next_token();
                }
                (None, Some((start, end, kind))) => {
                    out.push(TokenState::new(&text[start..end], start, end, kind.name()));
                    pos = end;
                    next_word = words.next_token();
                }
                (None, None) => break,
            }
        }
    }
}

#[cfg(test)]
#[path = "uax_url_email_tests.rs"]
mod tests;
