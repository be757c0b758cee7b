//! Subject DNs of X.509 certificates, as the security plugin prints and matches them
//! (RFC 2253 strings, most specific attribute first: `CN=kirk,OU=client,O=client,L=test,C=de`),
//! and the plugin's DN patterns (`*`/`?` wildcards, `/regex/`) for `nodes_dn` and `admin_dn`.
//! The DER walk reads only what it needs from a certificate that rustls has already verified,
//! and answers `None` on anything malformed (never panics on the bytes).

/// A DER element: (tag, contents, rest).
fn element(b: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, b) = b.split_first()?;
    let (&first, mut b) = b.split_first()?;
    let len = if first < 0x80 {
        first as usize
    } else {
        let n = (first & 0x7f) as usize;
        if n == 0 || n > 4 || b.len() < n {
            return None;
        }
        let mut len = 0usize;
        for &x in &b[..n] {
            len = (len << 8) | x as usize;
        }
        b = &b[n..];
        len
    };
    if b.len() < len {
        return None;
    }
    Some((tag, &b[..len], &b[len..]))
}

/// The short name of an attribute type by its DER-encoded OID (the ones OpenSearch prints by name).
fn attr_name(oid: &[u8]) -> Option<&'static str> {
    Some(match oid {
        [0x55, 0x04, 0x03] => "CN",
        [0x55, 0x04, 0x0b] => "OU",
        [0x55, 0x04, 0x0a] => "O",
        [0x55, 0x04, 0x07] => "L",
        [0x55, 0x04, 0x08] => "ST",
        [0x55, 0x04, 0x06] => "C",
        [0x55, 0x04, 0x09] => "STREET",
        [0x09, 0x92, 0x26, 0x89, 0x93, 0xf2, 0x2c, 0x64, 0x01, 0x19] => "DC",
        [0x09, 0x92, 0x26, 0x89, 0x93, 0xf2, 0x2c, 0x64, 0x01, 0x01] => "UID",
        _ => return None,
    })
}

/// RFC 2253 escaping of an attribute value.
fn escape(v: &str, out: &mut String) {
    for (i, c) in v.chars().enumerate() {
        if matches!(c, ',' | '+' | '"' | '\\' | '<' | '>' | ';') || (i == 0 && matches!(c, '#' | ' ')) {
            out.push('\\');
        }
        out.push(c);
    }
}

/// The subject DN of a DER certificate, RFC 2253 order; `None` when the bytes are not a
/// certificate or hold an attribute this reader cannot name.
pub fn subject_dn(cert_der: &[u8]) -> Option<String> {
    let (0x30, cert, _) = element(cert_der)? else { return None };
    let (0x30, tbs, _) = element(cert)? else { return None };
    let mut rest = tbs;
    let (tag, _, r) = element(rest)?;
    if tag == 0xa0 {
        rest = r; // explicit version
        let (_, _, r) = element(rest)?; // serial
        rest = r;
    } else {
        rest = r; // no version: that was the serial
    }
    for _ in 0..3 {
        // signature algorithm, issuer, validity
        let (_, _, r) = element(rest)?;
        rest = r;
    }
    let (0x30, mut name, _) = element(rest)? else { return None };
    let mut rdns: Vec<String> = Vec::new();
    while !name.is_empty() {
        let (0x31, mut set, r) = element(name)? else { return None };
        name = r;
        let mut parts = Vec::new();
        while !set.is_empty() {
            let (0x30, atv, r) = element(set)? else { return None };
            set = r;
            let (0x06, oid, v) = element(atv)? else { return None };
            let (_, value, _) = element(v)?;
            let mut s = format!("{}=", attr_name(oid)?);
            escape(std::str::from_utf8(value).ok()?, &mut s);
            parts.push(s);
        }
        rdns.push(parts.join("+"));
    }
    rdns.reverse();
    Some(rdns.join(","))
}

/// Whether `dn` matches `pattern` as the plugin's `WildcardMatcher` does: `/regex/` is a
/// regular expression, `*` and `?` wildcards otherwise, else equality. DNs are compared after
/// removing blanks around separators (`CN=a, O=b` equals `CN=a,O=b`).
pub fn matches(pattern: &str, dn: &str) -> bool {
    let norm = |s: &str| s.split(',').map(str::trim).collect::<Vec<_>>().join(",");
    let (p, d) = (pattern.trim(), norm(dn));
    if p.len() > 1 && p.starts_with('/') && p.ends_with('/') {
        return regex::Regex::new(&format!("^(?:{})$", &p[1..p.len() - 1])).is_ok_and(|r| r.is_match(&d));
    }
    let p = norm(p);
    if p.contains(['*', '?']) {
        let mut re = String::from("^");
        for c in p.chars() {
            match c {
                '*' => re.push_str(".*"),
                '?' => re.push('.'),
                c => re.push_str(&regex::escape(&c.to_string())),
            }
        }
        re.push('$');
        return regex::Regex::new(&re).is_ok_and(|r| r.is_match(&d));
    }
    p == d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::security::demo::{Ca, ADMIN_DN, NODE_DN, ROOT_CA_DN};
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::CertificateDer;

    #[test]
    fn reads_the_subject_of_generated_certificates() {
        let ca = Ca::generate(ROOT_CA_DN).unwrap();
        assert_eq!(subject_dn(ca.cert.der()).as_deref(), Some(ROOT_CA_DN));
        for dn in [NODE_DN, ADMIN_DN] {
            let issued = ca.issue(dn, &["localhost"], None).unwrap();
            let der = CertificateDer::from_pem_slice(issued.cert_pem.as_bytes()).unwrap();
            assert_eq!(subject_dn(&der).as_deref(), Some(dn));
        }
    }

    #[test]
    fn malformed_bytes_give_none() {
        let ca = Ca::generate(ROOT_CA_DN).unwrap();
        let der = ca.cert.der().to_vec();
        for cut in [0, 1, 2, 10, der.len() / 2, der.len() - 1] {
            let _ = subject_dn(&der[..cut]);
        }
        assert_eq!(subject_dn(&[]), None);
        assert_eq!(subject_dn(&[0x30, 0x84, 0xff, 0xff, 0xff, 0xff]), None);
        assert_eq!(subject_dn(b"not a certificate"), None);
    }

    #[test]
    fn patterns_as_the_plugin() {
        assert!(matches(NODE_DN, NODE_DN));
        assert!(matches("CN=node-0.example.com, OU=node,O=node,L=test,DC=de", NODE_DN));
        assert!(matches("CN=node-*.example.com,OU=node,O=node,L=test,DC=de", NODE_DN));
        assert!(matches("/CN=node-[0-9]\\.example\\.com,.*/", NODE_DN));
        assert!(!matches("CN=node-1.example.com,OU=node,O=node,L=test,DC=de", NODE_DN));
        assert!(!matches(ADMIN_DN, NODE_DN));
        assert!(!matches("/(/", NODE_DN));
    }
}
